// Issue 10 finding 4: user-channel trades are checked against our own order before they are
// believed. The emulator's user channel (a real WebSocket server) sends, for one of our resting
// orders, every implausible trade the adversarial run found; none may become a fill, none may
// reach a position or the PnL, and the second one for the same order halts that market.
import { describe, it, expect } from 'vitest';
import Database from 'better-sqlite3';
import { formatPrice, formatSize } from '../../src/core/units.js';
import { bounded, kill, KEY, setup, spawnDaemon, storedFills, until, useTestScope } from './harness.js';

useTestScope();

interface Status {
  markets: Array<{ conditionId: string; quoting: boolean; notQuoting: string | null }>;
  haltReason: string | null;
}

describe('implausible user-channel trades', () => {
  it('none becomes a fill, none reaches a position or the PnL; the second for one order halts its market', async () => {
    // no takers: the only trades the daemon sees are the ones this test sends
    const e = await setup({ params: { takerRatePerSec: 1e-9 } });
    const daemon = spawnDaemon(e, { log: { level: 'info' } });
    const d = daemon;
    await bounded(d.ready, 15_000, 'ready');
    const o = await until('an order of ours resting', () => e.emu.exchange.openOrders(KEY)[0], 8000);
    const m = o.market.facts;
    const other = m.tokens.find((t) => t !== o.assetId) as string;
    const wrongSide = o.side === 'BUY' ? 'SELL' : 'BUY';
    const px = formatPrice(o.price);
    const sz = formatSize(Math.min(o.originalSize, 100)); // one share
    const now = Date.now();
    let n = 0;
    /** A trade in the venue's shape (wire-formats.md 3.2) naming our order as maker, its maker entry's fields overridden (`raw`: appended as JSON text). */
    const withMakers = (maker: Record<string, unknown>, raw = ''): string => {
      const mk = JSON.stringify({ order_id: o.id, owner: KEY, asset_id: o.assetId, matched_amount: sz, price: px, fee_rate_bps: '0', outcome: 'Yes', side: o.side, ...maker });
      const t = JSON.stringify({
        event_type: 'trade',
        type: 'TRADE',
        id: `bad-trade-${++n}`,
        taker_order_id: `0x${'ab'.repeat(32)}`,
        market: m.conditionId,
        asset_id: o.assetId,
        side: wrongSide,
        size: sz,
        price: px,
        fee_rate_bps: '0',
        status: 'MATCHED',
        trader_side: 'MAKER',
        outcome: 'Yes',
        owner: KEY,
        match_time: String(Math.floor(now / 1000)),
        last_update: String(Math.floor(now / 1000)),
        timestamp: String(now),
        maker_orders: ['MAKER'],
      });
      return t.replace('"MAKER"]', (raw ? mk.slice(0, -1) + ',' + raw + '}' : mk) + ']');
    };
    const bad: Array<[string, string]> = [
      ['1,000,000 shares on our order', withMakers({ matched_amount: '1000000' })],
      ['the wrong side', withMakers({ side: wrongSide })],
      ['the wrong token', withMakers({ asset_id: other })],
      ['an empty token', withMakers({ asset_id: '' })],
      ['a price away from ours', withMakers({ price: o.price >= 5000 ? '0.01' : '0.99' })],
      ['a 100,000 bps fee', withMakers({ fee_rate_bps: '100000' })],
      ['1.2e29 shares', withMakers({ matched_amount: '120000000000000000000000000000' })],
      ['matched_amount as the JSON number 1e400', withMakers({ matched_amount: undefined }, '"matched_amount":1e400')],
      // our order as the taker: it is post-only, it cannot take
      [
        'a taker fill on a post-only order',
        JSON.stringify({
          event_type: 'trade',
          type: 'TRADE',
          id: `bad-trade-${++n}`,
          taker_order_id: o.id,
          market: m.conditionId,
          asset_id: o.assetId,
          side: o.side,
          size: sz,
          price: px,
          fee_rate_bps: '0',
          status: 'MATCHED',
          trader_side: 'TAKER',
          outcome: 'Yes',
          owner: KEY,
          maker_orders: [],
          match_time: String(Math.floor(now / 1000)),
          timestamp: String(now),
        }),
      ],
    ];
    for (const [, text] of bad) e.emu.ws.publishUser({ owner: KEY, conditionId: m.conditionId, text });
    const url = d.statusUrl();
    const st = await until(
      'the market halted',
      async () => {
        const s = (await (await fetch(`${url}/status`)).json()) as Status;
        const mk = s.markets.find((x) => x.conditionId === m.conditionId);
        return mk && mk.notQuoting && /failed the checks/.test(mk.notQuoting) ? s : undefined;
      },
      10_000,
      100,
    );
    expect(st.haltReason).toBe(null); // the market alone, not the daemon
    // each one is refused, by the checks or by the decoder (1e400, 1.2e29, the empty token)
    const counts = async () => {
      const metrics = await (await fetch(`${url}/metrics`)).text();
      const refused = Number(/makerd_engine_bad_trades_total (\d+)/.exec(metrics)?.[1] ?? NaN);
      // the user channel's rejects, every reason
      const malformed = [...metrics.matchAll(/^makerd_feed_rejects_total\{channel="user",reason="[^"]*"\} (\d+)$/gm)].reduce((a, m) => a + Number(m[1]), 0);
      return { refused, malformed };
    };
    const c = await until(
      'every bad trade refused',
      async () => {
        const x = await counts();
        return x.refused + x.malformed >= bad.length ? x : undefined;
      },
      5000,
      100,
    );
    expect(c.refused).toBeGreaterThanOrEqual(5);
    expect(c.refused + c.malformed).toBe(bad.length);
    // the market's orders are cancelled
    await until('no orders of the halted market', () => e.emu.exchange.openOrders(KEY).every((x) => x.market.facts.conditionId !== m.conditionId), 5000);
    kill(d, 'SIGTERM');
    expect(await bounded(d.exited, 15_000, 'exit')).toBe(0);
    expect(storedFills(e.db)).toEqual([]);
    const db = new Database(e.db, { readonly: true });
    const pos = db.prepare('SELECT qty, cost FROM positions').all() as Array<{ qty: string; cost: string }>;
    expect(pos.every((p) => Number(p.qty) === 0)).toBe(true);
    const snap = db.prepare(`SELECT pnl FROM pnl_snapshots WHERE kind = 'final'`).get() as { pnl: string };
    expect(Number.isFinite(Number(snap.pnl))).toBe(true);
    db.close();
  }, 60_000);
});
