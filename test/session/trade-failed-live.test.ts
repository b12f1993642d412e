// A trade of ours that fails on chain, told on the user channel as the venue tells it: MATCHED, then
// RETRYING, then FAILED (wire-formats.md 3). Found in review: the emulator only ever sent MATCHED
// then CONFIRMED, so the daemon's reversal of a fill by the user channel was tested only through a
// REST look-up. Against the emulator's tradeFailNext fault, which also moves back the shares and
// cash at the venue: the daemon's position returns to the venue's, and its store says FAILED.
import { describe, expect, it } from 'vitest';
import { KEY, startDaemon, takeOneBid, sleep } from '../status/daemon-fixture.js';

async function until<T>(what: string, f: () => T | undefined | false, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe('a trade of ours that fails on chain', () => {
  it('MATCHED, RETRYING, FAILED on the user channel: the fill is reversed, the position is the venue’s again, the store says FAILED', async () => {
    const r = await startDaemon(1, { seed: 5, overrides: { cron: { reconcile: '0 0 1 1 *' } } });
    const d = r.daemon;
    try {
      const [m] = d.markets;
      const venueQty = (t: string) => r.emu.exchange.account(KEY).positions.get(t) ?? 0;
      const before = { Y: d.engine.positions.qty(m.tokenId), N: d.engine.positions.qty(m.complementId) };
      // every match of the sweep fails (it may take synthetic bids ahead of ours)
      r.emu.admin.set({ tradeFailNext: 20 });
      await takeOneBid(r, m.conditionId);
      r.emu.admin.set({ tradeFailNext: 0 });
      const t = [m.tokenId, m.complementId].find((x) => d.engine.positions.qty(x) !== (x === m.tokenId ? before.Y : before.N)) as string;
      expect(t).toBeDefined();
      // the emulator confirms (here: fails) 200 ms after the match
      await until('the fill reversed', () => d.engine.positions.qty(t) === (t === m.tokenId ? before.Y : before.N));
      expect(d.engine.positions.qty(t)).toBe(venueQty(t));
      const rows = d.store.db.prepare(`SELECT status FROM fills WHERE token_id = ?`).all(t) as Array<{ status: string }>;
      expect(rows.map((x) => x.status)).toEqual(['FAILED']);
      // not settled on the way: RETRYING kept it unmined (not sellable) until it failed
      expect(d.engine.ledger.unminedBought(t)).toBe(0);
    } finally {
      await r.close();
    }
  }, 60_000);
});
