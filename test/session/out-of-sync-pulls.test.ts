// A book found out of sync outside a market event (a group's hash checked when it went quiet, by
// the feed's timer) pulls its market's quotes at once, as a lost connection does; before, only a
// reconnect did, and orders rested on a book known to be wrong until the market's next
// housekeeping requote (up to a second). The daemon live in process against the emulator.
import { describe, it, expect } from 'vitest';
import { startDaemon, KEY, sleep } from '../status/daemon-fixture.js';

describe('daemon: a book out of sync outside a market event', () => {
  it("pulls that market's quotes in the same turn, not at its next housekeeping requote", async () => {
    // no market event can come between the mark and the check below: both are in one turn
    const r = await startDaemon(1, { seed: 3 });
    try {
      const d = r.daemon;
      const m = d.markets[0];
      const ours = () => [...d.engine.orders.open()].filter((o) => o.tokenId === m.tokenId || o.tokenId === m.complementId);
      const end = Date.now() + 10_000;
      while (ours().filter((o) => o.state === 'live').length === 0) {
        if (Date.now() > end) throw new Error('no quote resting in 10 s');
        await sleep(50);
      }
      expect(r.emu.exchange.openOrders(KEY).length).toBeGreaterThan(0);
      // what the mirror's idle-group check does on a failed hash, from the feed's timer
      d.feed.mirror.markOutOfSync([m.tokenId], 'hash_mismatch', true);
      await Promise.resolve();
      await Promise.resolve();
      // the cancels are out (pending) before any timer could run
      expect(ours().filter((o) => o.state === 'live')).toEqual([]);
    } finally {
      await r.close();
    }
  }, 60_000);
});
