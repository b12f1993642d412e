// A venue whose books show our own resting orders (a real venue, the emulator): the strategy must
// price off the market without them, else it chases its own quotes. Over the RecordingVenue with
// booksIncludeOwnOrders = true; the fed books hold the external levels plus our resting bid, as the
// venue's feed would show them.
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import type { BookEvent } from '../../src/core/events.js';
import type { MarketMeta } from '../../src/engine/strategy.js';
import { mirroredBooks, RecordingVenue, type Levels, settle, deliver, bandsEngine, EXTERNAL_BIDS, EXTERNAL_ASKS, BID_ONLY_BANDS } from './helpers.js';

const M = '0xmarket';
const YES = 'yes';
const NO = 'no';
// A 0.001 tick, so a mid that moves half a cent moves a quote.
const meta: MarketMeta = { conditionId: M, tokenId: YES, complementId: NO, tick: 10, minSize: 500, negRisk: false };

const both = (bids: Levels, asks: Levels, t: number): BookEvent[] => mirroredBooks(M, YES, NO, bids, asks, t, 10);

/** Adds `size` at `price` to a side's levels (our order resting beside or above others). */
function withOurs(levels: Levels, price: number, size: number): Levels {
  const out = levels.map(([p, s]) => [p, p === price ? s + size : s] as [number, number]);
  if (!levels.some(([p]) => p === price)) out.push([price, size]);
  return out;
}

async function setup(booksIncludeOwnOrders: boolean) {
  const clock = new VirtualClock(1_700_000_000_000);
  const venue = new RecordingVenue(() => clock.now());
  venue.booksIncludeOwnOrders = booksIncludeOwnOrders;
  const { engine, mirror } = await bandsEngine({
    clock,
    venue,
    // only our bid rests, so the book is lopsided by it alone
    params: BID_ONLY_BANDS,
    meta,
    recordLimiterUse: false,
  });
  /** Our resting YES bids, as [price, size]. */
  const ourBids = (): Levels => [...engine.orders.open()].filter((o) => o.tokenId === YES && o.side === 'BUY' && o.state === 'live').map((o) => [o.price, o.size - o.filled] as [number, number]);
  /** Feeds the external book plus our resting bid (as the venue shows it), lets the requote and its sends finish. */
  const feed = async (bids: Levels, asks: Levels) => {
    clock.advanceTo(clock.now() + 200);
    let shown = bids;
    for (const [p, s] of ourBids()) shown = withOurs(shown, p, s);
    deliver(mirror, engine, both(shown, asks, clock.now()));
    await settle(20);
  };
  return { engine, venue, ourBids, feed, clock, mirror };
}

describe('quoting against a book that shows our own orders', () => {
  it('does not move our bid up after it became the best bid (the strategy sees the market without it)', async () => {
    const { engine, ourBids, feed } = await setup(true);
    await feed(EXTERNAL_BIDS, EXTERNAL_ASKS);
    engine.start();
    await settle(20);
    expect(ourBids()).toEqual([[4900, 1000]]); // mid 0.50, bid 0.01 under it; the ask is above maxPrice
    // Our bid at 0.49 is now alone at the top of the fed book: its raw mid is (0.49 + 0.52) / 2 =
    // 0.505. Priced off the raw book (the behaviour before the fix, and what this same run does with
    // booksIncludeOwnOrders = false), the next requotes bid 0.495, 0.497, 0.498, 0.499: each raises
    // the mid our next bid is priced off, chasing our own quote up toward the ask.
    const seen: number[] = [];
    for (let i = 0; i < 5; i++) {
      await feed(EXTERNAL_BIDS, EXTERNAL_ASKS);
      const bids = ourBids();
      expect(bids.length).toBe(1);
      seen.push(bids[0][0]);
    }
    expect(seen).toEqual([4900, 4900, 4900, 4900, 4900]);
    // the requote skip keys on the same view: our own bid showing in the book changes nothing it
    // reads, so once a requote had nothing to do the following ones are skipped
    expect(engine.counters.skippedRequotes).toBeGreaterThanOrEqual(3);
    // the strategy saw the external mid; the mark (and the risk collar) too
    expect(engine.mark(YES)).toBe(5000);
    await engine.stop();
  });

  it('an order whose place is not answered yet, which the feed already shows, is ours too: no second, higher bid', async () => {
    // found in review: only live orders were taken out, so a bid still in flight that the feed
    // showed raised the mid, and the requote placed a higher one (it cannot cancel the first yet)
    const { engine, venue, clock, mirror } = await setup(true);
    deliver(mirror, engine, both(EXTERNAL_BIDS, EXTERNAL_ASKS, clock.now()));
    const places: number[] = [];
    venue.placeOrders = (orders) => {
      for (const o of orders) places.push(o.price);
      return new Promise(() => undefined); // never answered
    };
    venue.placeOrder = (o) => venue.placeOrders([o]).then((r) => r[0]);
    engine.start();
    await settle(20);
    expect(places).toEqual([4900]);
    for (let i = 0; i < 3; i++) {
      clock.advanceTo(clock.now() + 200);
      deliver(mirror, engine, both(withOurs(EXTERNAL_BIDS, 4900, 1000), EXTERNAL_ASKS, clock.now()));
      await settle(20);
    }
    expect(places).toEqual([4900]);
    expect(engine.mark(YES)).toBe(5000);
  });

  it("still follows the external market, and keeps the others' size at a level it shares with us", async () => {
    const { engine, ourBids, feed } = await setup(true);
    await feed(EXTERNAL_BIDS, EXTERNAL_ASKS);
    engine.start();
    await settle(20);
    expect(ourBids()).toEqual([[4900, 1000]]);
    // someone joins our level and the ask falls to 0.51: the external mid is (0.49 + 0.51) / 2
    await feed(
      [
        [4800, 3000],
        [4900, 700],
      ],
      [
        [5100, 3000],
        [5300, 5000],
      ],
    );
    expect(ourBids()).toEqual([[4900, 1000]]);
    expect(engine.mark(YES)).toBe(5000);
    // the external market rises: bid 0.50, ask 0.51: mid 0.505, our bid follows to 0.495
    await feed(
      [
        [4800, 3000],
        [5000, 2000],
      ],
      [
        [5100, 3000],
        [5300, 5000],
      ],
    );
    expect(ourBids()).toEqual([[4950, 1000]]);
    await engine.stop();
  });
});
