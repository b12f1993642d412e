// The user channel stays connected (PING answered) but sends nothing: fills of ours go unreported
// (soak 6: 19 fills over 25 s of silence, known to the daemon only at its 2-minute reconciliation
// or at shutdown, the position wrong meanwhile). The market channel still shows the venue's book,
// and a book holding less at a level than our resting orders there means one of them filled or
// left; so does a cancel the venue refuses as already matched with no fill reported. Either way the
// daemon looks its orders and trades up at the venue within seconds.
import { describe, expect, it } from 'vitest';
import { bounded, kill, setup, spawnDaemon, storedFills, until, useTestScope, venueFills } from './harness.js';

useTestScope();

describe('a silent user channel', () => {
  it('fills the user channel does not report are found through the book within seconds', async () => {
    // every trade read: when, and from when (the venue's `after`, Unix seconds)
    const tradeReads: Array<{ atMs: number; afterMs: number }> = [];
    const onRequest = (r: { method: string; path: string; query: URLSearchParams }): void => {
      if (r.method === 'GET' && r.path.endsWith('/trades')) tradeReads.push({ atMs: Date.now(), afterMs: Number(r.query.get('after')) * 1000 });
    };
    const e = await setup({ profile: 'polymarket', startCashMicros: 60_000_000, onRequest });
    // the periodic reconciliation (on the wall clock's even minutes) off: it would find the fills
    // too, without saying why, whenever the silence crossed one (a CI run did)
    const daemon = spawnDaemon(e, { book: { verifyEvery: 0 }, cron: { refreshMarkets: '0 0 1 1 *', reconcile: '0 0 1 1 *', dailySummary: '0 0 1 1 *' } });
    await bounded(daemon.ready, 15_000, 'ready');
    await until('a fill of ours', () => venueFills(e.emu, e.owner).length > 0, 20_000, 50);
    e.emu.admin.set({ silentUser: true });
    const silentFrom = Date.now();
    const before = new Set(venueFills(e.emu, e.owner));
    // fills of ours the user channel withholds
    const unreported = await until(
      'a fill of ours while the user channel is silent',
      () => {
        const f = venueFills(e.emu, e.owner).filter((x) => !before.has(x));
        return f.length > 0 ? f : undefined;
      },
      30_000,
      50,
    );
    // still silent: the daemon finds them through the book, not at its periodic reconciliation (2 min)
    await until('the unreported fills stored', () => unreported.every((f) => storedFills(e.db).includes(f)), 10_000, 200);
    // told why: a book short of our order, or a cancel the venue refused as matched with no fill reported
    expect(daemon.output.some((l) => /"msg":"(our resting order is missing from the book|no fill reported for an order the venue says matched)/.test(l))).toBe(true);
    const url = await until('status url', () => daemon.statusUrl(), 2000);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(Number(/^makerd_engine_missing_order_lookups_total (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0);
    // a look-up reads the trades since the last one (less an overlap), not the last hour each time
    const readsInSilence = tradeReads.filter((r) => r.atMs >= silentFrom);
    expect(readsInSilence.length).toBeGreaterThan(0);
    expect(Math.min(...readsInSilence.map((r) => r.atMs - r.afterMs))).toBeLessThan(5 * 60_000);
    e.emu.admin.set({ silentUser: false });
    kill(daemon, 'SIGTERM');
    expect(await bounded(daemon.exited, 15_000, 'exit after SIGTERM')).toBe(0);
    // nothing lost, nothing doubled
    const stored = storedFills(e.db);
    expect(new Set(stored).size).toBe(stored.length);
    expect(venueFills(e.emu, e.owner).filter((f) => !stored.includes(f))).toEqual([]);
  }, 90_000);
});
