// Real time (the daemon): once a send of a synchronous run (one socket read's frames) has gone
// out, the requotes of the read's later frames wait for the run's end, where their sends go
// anyway, and run once per market on the newest books. A backtest requotes at every frame.
import { describe, it, expect } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import { Limiter } from '../../src/api/limiter.js';
import { BookMirror } from '../../src/book/mirror.js';
import { SimulatedVenue } from '../../src/venue/simulated-venue.js';
import { loadStrategy } from '../../src/strategy/loader.js';
import { loadConfig } from '../../src/config.js';
import type { MarketMeta } from '../../src/engine/strategy.js';
import type { OrderRequest } from '../../src/venue/types.js';
import { settle, Y, N, M, books, deliver, testEngine } from './helpers.js';

const meta: MarketMeta = { conditionId: M, tokenId: Y, complementId: N, tick: 100, minSize: 500, negRisk: false };

async function setup(realTime: boolean) {
  const cfg = loadConfig({ env: {} });
  const clock = new VirtualClock(1_700_000_000_000);
  const venue = new SimulatedVenue({ clock, markets: [{ conditionId: M, tokens: [Y, N], tick: 100, minSize: 500 }], orderLatencyMs: 0, cancelLatencyMs: 0, makerFeeBps: 0, takerFeeBps: 0 });
  const mirror = new BookMirror({ verifyEvery: 0, now: () => clock.now() });
  const engine = testEngine({
    clock,
    venue,
    limiter: new Limiter({ clock }),
    books: mirror,
    strategy: await loadStrategy('bands', { fair: 'mid', bands: [{ distance: 0.05, size: 10 }], skewPerShare: 0 }),
    config: { reconciler: { ...cfg.reconciler, debounceMs: 0 }, risk: cfg.risk, scheduler: cfg.scheduler },
    markets: [meta],
    realTime,
  });
  const placed: Array<Array<[string, number]>> = [];
  const place = venue.placeOrders.bind(venue);
  venue.placeOrders = (reqs: OrderRequest[]) => {
    placed.push(reqs.map((r) => [r.tokenId, r.price]));
    return place(reqs);
  };
  // the best bid of the book each requote ran on
  const seen: number[] = [];
  const requote = engine.requote.bind(engine);
  engine.requote = (st) => {
    seen.push(mirror.book(Y)?.bestBid() ?? NaN);
    requote(st);
  };
  deliver(mirror, engine, books(4900, 5100, clock.now()), venue);
  engine.start();
  await settle(10);
  clock.advanceTo(clock.now() + 50);
  placed.length = 0;
  seen.length = 0;
  // one socket read: four frames of new tops, handled in one synchronous run (no move reaches
  // an order resting 0.05 from the mid: nothing fills in between)
  const read = () => {
    for (const mid of [5100, 5300, 4900, 5400]) deliver(mirror, engine, books(mid - 100, mid + 100, clock.now()), venue);
  };
  return { engine, venue, placed, seen, read };
}

const distinct = (xs: number[]) => [...new Set(xs)];

describe('engine: requotes deferred to the end of a gathered run (realTime)', () => {
  it('the first frame requotes and sends at once; the later frames requote once, at the end, on the newest book', async () => {
    const { engine, venue, placed, seen, read } = await setup(true);
    read();
    // in the run: requotes on the first frame's book only (the simulated venue's order events
    // requote too, as its answers come in the same run), and that frame's places
    expect(distinct(seen)).toEqual([5000]);
    expect(placed).toHaveLength(1);
    expect(placed[0]).toContainEqual([Y, 4600]); // bid: mid 5100 - 0.05
    await Promise.resolve();
    // at the end: requoted on the last book (mid 5400), never on the two between
    expect(distinct(seen)).toEqual([5000, 5300]);
    expect(placed).toHaveLength(2);
    expect(placed[1].sort()).toEqual(
      [
        [N, 4100],
        [Y, 4900],
      ].sort(),
    );
    await settle(10);
    const resting = (await venue.openOrders()).map((o) => [o.tokenId, o.price]).sort();
    expect(resting).toEqual(
      [
        [N, 4100],
        [Y, 4900],
      ].sort(),
    );
    await engine.stop();
  });

  it('a backtest (not realTime) requotes at every frame, sending as it goes', async () => {
    const { engine, venue, placed, seen, read } = await setup(false);
    read();
    expect(distinct(seen)).toEqual([5000, 5200, 4800, 5300]);
    expect(placed.length).toBeGreaterThan(2);
    await settle(10);
    const resting = (await venue.openOrders()).map((o) => [o.tokenId, o.price]).sort();
    expect(resting).toEqual(
      [
        [N, 4100],
        [Y, 4900],
      ].sort(),
    );
    await engine.stop();
  });
});
