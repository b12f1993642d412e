// How a batch answer is matched to its requests (engine-sink.ts): by client id, in any order; a
// request the answer leaves out is unclear (ambiguous), never taken as rejected or live.
import { describe, it, expect } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import { SimulatedVenue, type SimulatedVenueOptions } from '../../src/venue/simulated-venue.js';
import type { OrderRequest, PlaceResult } from '../../src/venue/types.js';
import type { MarketMeta } from '../../src/engine/strategy.js';
import { settle, Y, N, M, bookEv, deliver, bandsEngine } from './helpers.js';

const meta: MarketMeta = { conditionId: M, tokenId: Y, complementId: N, tick: 100, minSize: 500, negRisk: false };

/**
 * Answers batches through the simulated venue, then reorders or trims the answer. Its user
 * channel stays silent, so only the REST answer settles an order.
 */
class ReshapingVenue extends SimulatedVenue {
  constructor(
    o: SimulatedVenueOptions,
    private readonly reshape: (res: PlaceResult[]) => PlaceResult[],
  ) {
    super(o);
  }
  override onUserEvent(): void {}
  override async placeOrders(reqs: OrderRequest[]): Promise<PlaceResult[]> {
    return this.reshape(await super.placeOrders(reqs));
  }
}

async function run(reshape: (res: PlaceResult[]) => PlaceResult[]) {
  const clock = new VirtualClock(1_700_000_000_000);
  const venue = new ReshapingVenue({ clock, markets: [{ conditionId: M, tokens: [Y, N], tick: 100, minSize: 500 }], orderLatencyMs: 0, cancelLatencyMs: 0, makerFeeBps: 0, takerFeeBps: 0 }, reshape);
  const { engine, mirror } = await bandsEngine({ clock, venue, params: { bands: [{ distance: 0.02, size: 10 }], skewPerShare: 0 }, meta });
  deliver(mirror, engine, [bookEv(Y, 4900, 5100, clock.now(), { depth: 1 }), bookEv(N, 4900, 5100, clock.now(), { depth: 1 })], venue);
  engine.start();
  await settle(20);
  const states = [...engine.orders.all()].map((o) => [o.tokenId, o.state]).sort();
  await engine.stop();
  return states;
}

describe('engine: place answers', () => {
  it('an answer in another order than the requests binds each result to its own order', async () => {
    expect(await run((res) => res.slice().reverse())).toEqual(
      [
        [N, 'live'],
        [Y, 'live'],
      ].sort(),
    );
  });

  it('a request missing from the answer is ambiguous', async () => {
    // the batch is [YES bid, NO bid]; the answer leaves out the second
    expect(await run((res) => res.slice(0, 1))).toEqual(
      [
        [N, 'ambiguous'],
        [Y, 'live'],
      ].sort(),
    );
  });
});
