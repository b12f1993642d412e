// Real time (the daemon): the requotes a synchronous run asks for (the frames of one socket read)
// run once per market, in a microtask at the run's end, on the newest books: a requote per frame
// would decide on books the same read replaces. A backtest requotes at every frame.
import { describe, it, expect } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import { SimulatedVenue } from '../../src/venue/simulated-venue.js';
import type { OrderRequest } from '../../src/venue/types.js';
import { settle, Y, N, M, books, deliver, bandsEngine } from './helpers.js';

async function setup(realTime: boolean) {
  const clock = new VirtualClock(1_700_000_000_000);
  const venue = new SimulatedVenue({ clock, markets: [{ conditionId: M, tokens: [Y, N], tick: 100, minSize: 500 }], orderLatencyMs: 0, cancelLatencyMs: 0, makerFeeBps: 0, takerFeeBps: 0 });
  const { engine, mirror } = await bandsEngine({ clock, venue, params: { fair: 'mid', bands: [{ distance: 0.05, size: 10 }], skewPerShare: 0 }, realTime });
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
/** The quotes on the last book (mid 5400, 0.05 off): token and price, sorted. */
const FINAL = [
  [N, 4100],
  [Y, 4900],
].sort();
const resting = async (v: SimulatedVenue) => (await v.openOrders()).map((o) => [o.tokenId, o.price]).sort();

describe('engine: requotes deferred to the end of a synchronous run (realTime)', () => {
  it('the frames of one run are requoted once, at its end, on the newest book', async () => {
    const { engine, venue, placed, seen, read } = await setup(true);
    read();
    // in the run: no requote, nothing sent
    expect(seen).toEqual([]);
    expect(placed).toEqual([]);
    await Promise.resolve();
    // at its end: requoted on the last book (mid 5400) alone, never on the three before it
    expect(distinct(seen)).toEqual([5300]);
    expect(placed).toHaveLength(1);
    expect(placed[0].sort()).toEqual(FINAL);
    await settle(10);
    expect(await resting(venue)).toEqual(FINAL);
    expect(engine.scheduler.stats.ordersSent).toBe(4); // the first two quotes, then these two
    await engine.stop();
  });

  it('a backtest (not realTime) requotes at every frame, sending as it goes', async () => {
    const { engine, venue, placed, seen, read } = await setup(false);
    read();
    expect(distinct(seen)).toEqual([5000, 5200, 4800, 5300]);
    expect(placed.length).toBeGreaterThan(2);
    expect(engine.scheduler.stats.ordersSent).toBe(10); // two per book
    await settle(10);
    expect(await resting(venue)).toEqual(FINAL);
    await engine.stop();
  });

  it('a requote that throws at the end of the run is counted and logged like a frame that throws, and the next run quotes', async () => {
    const { engine, placed, read } = await setup(true);
    const errors: string[] = [];
    engine.log.error = ((_o: unknown, msg?: string) => void errors.push(String(msg))) as typeof engine.log.error;
    // a bug past the strategy's own guard (here in the scheduler): out of the frame's turn, only
    // the engine's catch stands between it and the end of the process
    const submit = engine.scheduler.submit.bind(engine.scheduler);
    let broken = true;
    engine.scheduler.submit = (key, cancels, places) => {
      if (broken) throw new Error('bug');
      submit(key, cancels, places);
    };
    const e0 = engine.counters.errors;
    read();
    await Promise.resolve();
    expect(engine.counters.errors - e0).toBe(1);
    expect(errors).toEqual(['engine: requote failed']);
    expect(placed).toEqual([]);
    broken = false;
    read();
    await Promise.resolve();
    expect(placed).toHaveLength(1);
    await engine.stop();
  });
});
