// Real time: the markets one socket read moved are requoted at its end, and what they all want
// leaves in one pump: their independent places in one POST /orders, their cancels in one
// DELETE /orders. The first market's requote sent at once, and every other market of the read
// waited behind that request (the slowest tick_to_order samples at 100 markets), then went in a
// second batch a microtask later.
import { describe, it, expect } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import type { BookEvent } from '../../src/core/events.js';
import type { MarketMeta } from '../../src/engine/strategy.js';
import { RecordingVenue, settle, books, bookEv, deliver, bandsEngine, Y, N, M } from './helpers.js';

const M2 = '0xmarket2';
const Y2 = '333';
const N2 = '444';
const metas: MarketMeta[] = [
  { conditionId: M, tokenId: Y, complementId: N, tick: 100, minSize: 500, negRisk: false },
  { conditionId: M2, tokenId: Y2, complementId: N2, tick: 100, minSize: 500, negRisk: false },
];
/** Both books of the second market (its YES at bid/ask, the NO mirrored). */
const books2 = (bid: number, ask: number, t: number): BookEvent[] => [
  { ...bookEv(Y2, bid, ask, t), market: M2 },
  { ...bookEv(N2, 10_000 - ask, 10_000 - bid, t), market: M2 },
];

describe('engine: the requotes of one socket read leave together (realTime)', () => {
  it('two markets moved by one read: one POST /orders with both markets places, one DELETE /orders with both cancels', async () => {
    const clock = new VirtualClock(1_700_000_000_000);
    const venue = new RecordingVenue(() => clock.now());
    const { engine, mirror } = await bandsEngine({ clock, venue, params: { fair: 'mid', bands: [{ distance: 0.02, size: 10 }], skewPerShare: 0 }, markets: metas, realTime: true });
    deliver(mirror, engine, [...books(4900, 5100, clock.now()), ...books2(2900, 3100, clock.now())]);
    engine.start();
    await settle(10);
    expect(venue.live.size).toBe(4);
    const first = new Set(venue.live.keys());
    venue.calls.length = 0;
    clock.advanceTo(clock.now() + 100);
    // one read: both markets move a cent
    deliver(mirror, engine, books(5000, 5200, clock.now()));
    deliver(mirror, engine, books2(3000, 3200, clock.now()));
    expect(venue.calls).toEqual([]);
    await Promise.resolve();
    expect(venue.calls.map((c) => [c.kind, c.n])).toEqual([
      ['placeOrders', 4],
      ['cancelOrders', 4],
    ]);
    expect(new Set(venue.calls[0].reqs?.map((r) => r.tokenId))).toEqual(new Set([Y, N, Y2, N2]));
    expect(new Set(venue.calls[1].ids)).toEqual(first);
    await settle(10);
    expect(venue.live.size).toBe(4);
    await engine.stop();
  });
});
