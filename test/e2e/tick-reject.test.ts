// A tick change the daemon never hears about: the emulator coarsens the tick (0.001 -> 0.01)
// while the market feed is silent. The daemon's next quotes on the fine grid are refused with
// INVALID_ORDER_MIN_TICK_SIZE; it holds the market, asks GET /tick-size, and quotes on the coarse
// grid once its books re-sync, with the refresh counted in /metrics.
import { describe, it, expect } from 'vitest';
import { bounded, kill, KEY, setup, spawnDaemon, until, type Env, useTestScope } from './harness.js';

useTestScope();

function ourOrders(e: Env): Map<string, number> {
  const out = new Map<string, number>();
  for (const o of e.emu.exchange.orders.values()) if (o.owner === KEY) out.set(o.id, o.price);
  return out;
}

function newSince(e: Env, before: ReadonlySet<string>): number[] {
  return [...ourOrders(e)].filter(([id]) => !before.has(id)).map(([, p]) => p);
}

describe('tick change missed by the feed', () => {
  it('a tick-size rejection makes the daemon refresh the tick over REST and quote on the new grid', async () => {
    const e = await setup();
    // Bands 0.0125, 0.0155 and 0.0185 from the mid: on a 0.001 tick at most one of them lands on
    // the 0.01 grid whatever the mid, so a requote after the missed change is refused.
    const strategy = {
      name: 'bands',
      params: {
        bands: [
          { distance: 0.0125, size: 10 },
          { distance: 0.0155, size: 10 },
          { distance: 0.0185, size: 10 },
        ],
      },
    };
    const daemon = spawnDaemon(e, { strategy, book: { verifyEvery: 0, resync: 'resubscribe' } });
    await bounded(daemon.ready, 15_000, 'ready');
    // First to the fine grid, seen by the daemon (quotes off the 0.01 grid show it uses 0.001).
    expect(e.emu.admin.setTickSize('0.001')).toBe(1);
    const start = new Set(ourOrders(e).keys());
    await until('a quote off the 0.01 grid', () => newSince(e, start).some((p) => p % 100 !== 0), 15_000);
    // and its books re-synced from the fresh snapshots (no resubscribe still pending to tell it later)
    const inSync = async () => ((await (await fetch(`${daemon?.statusUrl()}/metrics`)).text()).match(/^makerd_book_in_sync\{[^}]*\} 1$/gm) ?? []).length === 2;
    await until('books in sync on the fine grid', inSync, 10_000, 100);
    const fine = new Set(ourOrders(e).keys());
    await until('more quotes on the fine grid', () => newSince(e, fine).length >= 2, 15_000);

    // Back to 0.01 while the market feed is silent: the daemon misses the tick_size_change and the
    // fresh snapshots. Its books still look fine (nothing new arrives to contradict them), so it
    // learns of the change only when its next quotes are refused: we cancel its orders at the venue
    // (the user channel is not silenced) and it places them again on the old grid.
    e.emu.admin.set({ silentFeed: true });
    expect(e.emu.admin.setTickSize('0.01')).toBe(1);
    const coarse = new Set(ourOrders(e).keys());
    await e.emu.exchange.cancelWhere(KEY, () => true);
    await until('a tick-size rejection', () => (e.emu.exchange.rejectionsOf(KEY).INVALID_ORDER_MIN_TICK_SIZE ?? 0) > 0, 20_000);
    await until('the tick refreshed over REST', () => daemon?.output.some((l) => l.includes('tick size refreshed') && l.includes('"tick":"0.01"')), 10_000);
    // Its books dropped with the tick; they re-sync once the feed speaks again.
    e.emu.admin.set({ silentFeed: false });
    const rejected = e.emu.exchange.rejectionsOf(KEY).INVALID_ORDER_MIN_TICK_SIZE ?? 0;
    const after = new Set(ourOrders(e).keys());
    await until('quotes on the coarse grid', () => newSince(e, after).length >= 4, 20_000);
    expect(newSince(e, after).every((p) => p % 100 === 0)).toBe(true);
    // Refused only until the refresh answered (orders already on their way may still be refused).
    expect((e.emu.exchange.rejectionsOf(KEY).INVALID_ORDER_MIN_TICK_SIZE ?? 0) - rejected).toBeLessThanOrEqual(2);
    expect(newSince(e, coarse).length).toBeGreaterThan(0);

    const text = await (await fetch(`${daemon.statusUrl()}/metrics`)).text();
    const metric = (k: string): number => Number(new RegExp(`^makerd_engine_tick_rejects_total\\{kind="${k}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? -1);
    expect(metric('rejected')).toBeGreaterThanOrEqual(1);
    expect(metric('refresh')).toBeGreaterThanOrEqual(1);
    expect(metric('timeout')).toBe(0);
    kill(daemon, 'SIGTERM');
    expect(await bounded(daemon.exited, 15_000, 'exit')).toBe(0);
    expect(e.emu.exchange.openOrders(KEY)).toEqual([]);
  }, 60_000);
});
