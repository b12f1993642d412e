// A quiet market (no book event for longer than risk.staleBookMs) on a live feed keeps quoting: the
// daemon asks the venue for its book again (a subscribe of that token; the snapshot is hash-checked
// like any) before the risk gate would call it stale. In process, live, against the emulator.
import { describe, expect, it } from 'vitest';
import { sleep, startDaemon } from '../status/daemon-fixture.js';

interface Brief {
  counts: { marketsQuotingBothSides: number };
}

describe('daemon: quiet books', () => {
  it('a market with no book event for 3x staleBookMs keeps quoting; its book is asked for again', async () => {
    // no maker refreshes, no takers: after the first snapshots nothing changes in either market
    const r = await startDaemon(2, { seed: 4, params: { makerRefreshPerSec: 1e-9, takerRatePerSec: 1e-9, jumpRatePerSec: 0 }, overrides: { risk: { staleBookMs: 1500 } } });
    try {
      const framesBefore = r.daemon.feed.quietRefreshes;
      let samples = 0;
      let quoting = 0;
      const end = Date.now() + 4500;
      while (Date.now() < end) {
        const b = (await (await fetch(`${r.url}/status?brief=1`)).json()) as Brief;
        samples++;
        if (b.counts.marketsQuotingBothSides === 2) quoting++;
        await sleep(100);
      }
      expect(r.daemon.feed.quietRefreshes - framesBefore).toBeGreaterThanOrEqual(4);
      // every book was refreshed before it aged past 1.5 s: no pull (a sample or two may catch a requote)
      expect(quoting / samples).toBeGreaterThan(0.9);
    } finally {
      await r.close();
    }
  }, 30_000);
});
