// An order refused with INVALID_ORDER_MIN_TICK_SIZE means the venue's tick changed and we missed
// (or have not yet seen) the tick_size_change frame: the market holds its quotes, the engine asks
// its owner for the tick (onTickSuspect), applies the answer and quotes on the new grid; with no
// answer in time it quotes again on the tick it had.
import { describe, it, expect } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import type { MarketEvent } from '../../src/core/events.js';
import type { MarketMeta } from '../../src/engine/strategy.js';
import type { OrderRequest } from '../../src/venue/types.js';
import { RecordingVenue, settle, bookEv, Y, N, M, deliver, bandsEngine } from './helpers.js';

// We believe the tick is 0.001 (10 units); the venue has coarsened it to 0.01 (100).
const meta: MarketMeta = { conditionId: M, tokenId: Y, complementId: N, tick: 10, minSize: 500, negRisk: false };

// Mid 0.50: bands 0.015 away bids 0.485 on both tokens, off the 0.01 grid.
const books = (t: number, tick: number, bid = 4990, ask = 5010): MarketEvent[] => [bookEv(Y, bid, ask, t, { tick }), bookEv(N, 10_000 - ask, 10_000 - bid, t, { tick })];

async function setup(opts: { hook: boolean; timeoutMs?: number }) {
  const clock = new VirtualClock(1_700_000_000_000);
  const venue = new RecordingVenue(() => clock.now());
  let venueTick = 100;
  const base = venue.answer;
  venue.answer = (r) => (r.price % venueTick !== 0 ? { clientId: r.clientId, ok: false, error: 'INVALID_ORDER_MIN_TICK_SIZE' } : base(r));
  const suspects: string[] = [];
  const { engine, mirror } = await bandsEngine({
    clock,
    venue,
    params: { fair: 'mid', bands: [{ distance: 0.015, size: 10 }], skewPerShare: 0 },
    meta,
    onTickSuspect: opts.hook ? (tokenId) => suspects.push(tokenId) : undefined,
    tickSuspectTimeoutMs: opts.timeoutMs,
  });
  const feed = async (evs: MarketEvent[]) => {
    deliver(mirror, engine, evs);
    await settle(10);
  };
  const placed = (from = 0): OrderRequest[] => venue.calls.slice(from).flatMap((c) => (c.kind.startsWith('place') ? (c.reqs ?? []) : []));
  return { engine, venue, clock, feed, suspects, placed, setVenueTick: (t: number) => (venueTick = t) };
}

describe('engine: orders refused off the tick grid', () => {
  it('holds the market, asks for the tick, then quotes on the new grid', async () => {
    const { engine, venue, clock, feed, suspects, placed } = await setup({ hook: true });
    await feed(books(clock.now(), 10));
    engine.start();
    await settle(10);
    const first = placed();
    expect(first.map((r) => r.price)).toEqual([4850, 4850]);
    expect(engine.counters.tickRejects).toBe(2);
    expect(engine.counters.tickRefreshes).toBe(1);
    expect(suspects).toHaveLength(1);
    expect(engine.markets.get(M)?.blocked).toMatch(/tick suspect/);

    // While the refresh is out, new books (still at the old tick) place nothing.
    const calls = venue.calls.length;
    for (let i = 1; i <= 3; i++) {
      clock.advanceTo(clock.now() + 100);
      await feed(books(clock.now(), 10, 4990 - 10 * i, 5010 - 10 * i));
    }
    expect(placed(calls)).toEqual([]);

    // The venue answers 0.01: the books drop and re-sync, then quotes land on the new grid.
    clock.advanceTo(clock.now() + 100);
    engine.tickRefreshed(suspects[0], 100);
    await settle(10);
    expect(engine.markets.get(M)?.meta.tick).toBe(100);
    const afterRefresh = venue.calls.length;
    await feed(books(clock.now(), 100, 4900, 5100));
    const next = placed(afterRefresh);
    expect(next.length).toBe(2);
    for (const r of next) expect(r.price % 100).toBe(0);
    expect(venue.live.size).toBe(2);
    expect(engine.counters.tickRejects).toBe(2);
    expect(engine.markets.get(M)?.blocked).toBeUndefined();
    await engine.stop();
  });

  it('with no answer in time, quotes again on the old tick and counts the timeout', async () => {
    const { engine, clock, feed, suspects, placed, setVenueTick } = await setup({ hook: true, timeoutMs: 2000 });
    await feed(books(clock.now(), 10));
    engine.start();
    await settle(10);
    expect(suspects).toHaveLength(1);
    const n = placed().length;
    clock.advanceTo(clock.now() + 1900);
    await feed(books(clock.now(), 10));
    expect(placed().length).toBe(n); // still held
    expect(engine.counters.tickRefreshTimeouts).toBe(0);
    setVenueTick(10); // the venue's tick is back where we thought it was
    clock.advanceTo(clock.now() + 200);
    await settle(10);
    expect(engine.counters.tickRefreshTimeouts).toBe(1);
    expect(engine.markets.get(M)?.blocked).toBeUndefined();
    const resumed = placed().slice(n);
    expect(resumed.map((r) => r.price)).toEqual([4850, 4850]);
    expect(engine.counters.tickRejects).toBe(2);
    await engine.stop();
  });

  it('a tick_size_change frame during the hold ends it', async () => {
    const { engine, clock, feed, suspects, placed } = await setup({ hook: true });
    await feed(books(clock.now(), 10));
    engine.start();
    await settle(10);
    expect(suspects).toHaveLength(1);
    clock.advanceTo(clock.now() + 100);
    for (const t of [Y, N]) {
      await feed([{ type: 'tick_size_change', market: M, assetId: t, oldTickSize: 10, newTickSize: 100, newTickSizeStr: '0.01', timestampMs: clock.now() }]);
    }
    const n = placed().length;
    await feed(books(clock.now(), 100, 4900, 5100));
    const next = placed().slice(n);
    expect(next.length).toBe(2);
    for (const r of next) expect(r.price % 100).toBe(0);
    // The hold's timer was cancelled with it: no timeout later.
    clock.advanceTo(clock.now() + 10_000);
    await settle(10);
    expect(engine.counters.tickRefreshTimeouts).toBe(0);
    await engine.stop();
  });

  it('without a hook (simulated venue, backtest) the rejection is only counted', async () => {
    const { engine, clock, feed, placed } = await setup({ hook: false });
    await feed(books(clock.now(), 10));
    engine.start();
    await settle(10);
    expect(engine.counters.tickRejects).toBe(2);
    expect(engine.counters.tickRefreshes).toBe(0);
    expect(engine.markets.get(M)?.blocked).toBeUndefined();
    const n = placed().length;
    clock.advanceTo(clock.now() + 100);
    await feed(books(clock.now(), 10));
    expect(placed().length).toBeGreaterThan(n);
    await engine.stop();
  });
});
