// Orders in flight (sent, not yet acknowledged) when the order-entry latency exceeds the debounce:
// the engine must never stack identical orders, whether resting at the venue or in one batch.
import { describe, it, expect } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import { SeededRng } from '../../src/core/rng.js';
import { Limiter } from '../../src/api/limiter.js';
import { BookMirror } from '../../src/book/mirror.js';
import { SimulatedVenue, type SimulatedVenueOptions } from '../../src/venue/simulated-venue.js';
import { loadStrategy } from '../../src/strategy/loader.js';
import { loadConfig } from '../../src/config.js';
import type { MarketEvent } from '../../src/core/events.js';
import type { CancelResult, OrderRequest, PlaceResult } from '../../src/venue/types.js';
import type { MarketMeta } from '../../src/engine/strategy.js';
import { Y, N, M, books, deliver, testEngine } from './helpers.js';

const meta: MarketMeta = { conditionId: M, tokenId: Y, complementId: N, tick: 100, minSize: 500, negRisk: false };

/** Records every place batch and cancel it is sent. */
class BatchRecordingVenue extends SimulatedVenue {
  readonly batches: OrderRequest[][] = [];
  constructor(o: SimulatedVenueOptions) {
    super(o);
  }
  /** Every order id a cancel request named. */
  readonly cancelled: string[] = [];
  override placeOrders(reqs: OrderRequest[]): Promise<PlaceResult[]> {
    this.batches.push(reqs.slice());
    return super.placeOrders(reqs);
  }
  override cancelOrders(ids: string[]): Promise<CancelResult> {
    this.cancelled.push(...ids);
    return super.cancelOrders(ids);
  }
}

const key = (o: { tokenId: string; side: string; price: number }): string => `${o.tokenId} ${o.side} ${o.price}`;

/** Duplicated token/side/price keys in a list of orders. */
function duplicates(os: ReadonlyArray<{ tokenId: string; side: string; price: number }>): string[] {
  const seen = new Set<string>();
  const dup: string[] = [];
  for (const o of os) {
    const k = key(o);
    if (seen.has(k)) dup.push(k);
    seen.add(k);
  }
  return dup;
}

const TWO_BANDS = [
  { distance: 0.01, size: 10 },
  { distance: 0.03, size: 20 },
];

async function setup(latencyMs: number, debounceMs: number, o: { cancelLatencyMs?: number; bands?: unknown[]; maxSpread?: number } = {}) {
  const cfg = loadConfig({ env: {} });
  const clock = new VirtualClock(1_700_000_000_000);
  const limiter = new Limiter({ clock });
  const venue = new BatchRecordingVenue({
    clock,
    markets: [{ conditionId: M, tokens: [Y, N], tick: 100, minSize: 500 }],
    orderLatencyMs: latencyMs,
    cancelLatencyMs: o.cancelLatencyMs ?? latencyMs,
    makerFeeBps: 0,
    takerFeeBps: 0,
    queueModel: false,
  });
  const mirror = new BookMirror({ verifyEvery: 0, now: () => clock.now() });
  const strategy = await loadStrategy('bands', { bands: o.bands ?? TWO_BANDS, skewPerShare: 0, ...(o.maxSpread ? { maxSpread: o.maxSpread } : {}) });
  const engine = testEngine({
    clock,
    venue,
    limiter,
    books: mirror,
    strategy,
    config: { reconciler: { ...cfg.reconciler, debounceMs }, risk: { ...cfg.risk, staleBookMs: 3_600_000 }, scheduler: cfg.scheduler },
    markets: [meta],
  });
  /** Moves virtual time to `to`, firing timers in order and letting promise callbacks run after each. */
  const advance = async (to: number): Promise<void> => {
    for (let guard = 0; guard < 100_000; guard++) {
      const at = clock.nextTimerAt();
      if (at > to) break;
      clock.advanceTo(at);
      await new Promise((r) => setImmediate(r));
    }
    clock.advanceTo(to);
    await new Promise((r) => setImmediate(r));
  };
  const feed = (evs: MarketEvent[]): void => {
    deliver(mirror, engine, evs, venue);
  };
  /** stop() waits for its cancel-all, which needs virtual time to pass. */
  const stop = async (): Promise<void> => {
    const done = engine.stop();
    await advance(clock.now() + 2 * Math.max(latencyMs, o.cancelLatencyMs ?? 0) + 10);
    await done;
  };
  return { engine, venue, clock, advance, feed, stop };
}

describe('engine: orders in flight longer than the debounce', () => {
  it.each([
    { place: 200, cancel: 200 },
    { place: 200, cancel: 300 },
  ])('never rests two orders at one token/side/price and never sends a duplicate in a batch (place $place ms, cancel $cancel ms)', async ({ place, cancel }) => {
    const { engine, venue, clock, advance, feed, stop } = await setup(place, 100, { cancelLatencyMs: cancel });
    const rng = new SeededRng(3);
    let mid = 5000;
    feed(books(mid - 100, mid + 100, clock.now()));
    engine.start();
    let restingChecks = 0;
    for (let i = 0; i < 400; i++) {
      await advance(clock.now() + 30);
      // mostly the same book (requotes that should keep what is in flight), sometimes a move
      if (i % 10 === 0) mid = Math.max(3000, Math.min(7000, mid + (rng.int(0, 2) - 1) * 100));
      feed(books(mid - 100, mid + 100, clock.now()));
      if (i % 7 === 0) feed([{ type: 'last_trade_price', market: M, assetId: Y, price: mid - 200, size: 1500, side: 'SELL', feeRateBps: 0, timestampMs: clock.now() }]);
      // a partial fill of the inner bid: its size is refreshed at the same price
      if (i % 9 === 4) feed([{ type: 'last_trade_price', market: M, assetId: Y, price: mid - 100, size: 300, side: 'SELL', feeRateBps: 0, timestampMs: clock.now() }]);
      if (i % 11 === 0) feed([{ type: 'last_trade_price', market: M, assetId: N, price: 10_000 - mid - 200, size: 1500, side: 'SELL', feeRateBps: 0, timestampMs: clock.now() }]);
      const resting = await venue.openOrders();
      expect(duplicates(resting), `resting at ${i}`).toEqual([]);
      restingChecks += resting.length;
    }
    await advance(clock.now() + 1000);
    for (const b of venue.batches) expect(duplicates(b)).toEqual([]);
    // a cancel in flight is never sent again
    expect(venue.cancelled.length).toBeGreaterThan(10);
    expect(new Set(venue.cancelled).size).toBe(venue.cancelled.length);
    // a real run: many requotes, orders moved, some filled, and orders rested most of the time
    expect(engine.counters.requotes).toBeGreaterThan(100);
    expect(venue.batches.length).toBeGreaterThan(10);
    expect(engine.ledger.count()).toBeGreaterThan(5);
    expect(restingChecks).toBeGreaterThan(400);
    // at most maxOrdersPerSide of ours per token and side at any time
    const perSide = new Map<string, number>();
    for (const o of await venue.openOrders()) perSide.set(o.tokenId + o.side, (perSide.get(o.tokenId + o.side) ?? 0) + 1);
    for (const n of perSide.values()) expect(n).toBeLessThanOrEqual(3);
    await stop();
  });

  it('a steady book is quoted once: an order in flight satisfies the same quote wanted again', async () => {
    const { engine, venue, clock, advance, feed, stop } = await setup(200, 50);
    feed(books(4900, 5100, clock.now()));
    engine.start();
    for (let i = 0; i < 40; i++) {
      await advance(clock.now() + 25);
      feed(books(4900, 5100, clock.now()));
    }
    await advance(clock.now() + 500);
    // two bands, two sides: four orders, each sent once, none cancelled
    expect(engine.scheduler.stats.ordersSent).toBe(4);
    expect(engine.scheduler.stats.cancelsSent).toBe(0);
    expect((await venue.openOrders()).length).toBe(4);
    await stop();
  });
});

describe('engine: a size refresh at one price', () => {
  it('the new order waits for the old one to be cancelled (cancels slower than places)', async () => {
    const { engine, venue, clock, advance, feed, stop } = await setup(200, 50, { cancelLatencyMs: 300, bands: [{ distance: 0.01, size: 10 }] });
    feed(books(4900, 5100, clock.now()));
    engine.start();
    await advance(clock.now() + 500);
    const bid = (await venue.openOrders()).find((o) => o.tokenId === Y && o.side === 'BUY');
    expect(bid?.price).toBe(4900);
    // a taker takes 3 of our 10 shares: 7 left is outside the 25% size tolerance, so the order is replaced
    feed([{ type: 'last_trade_price', market: M, assetId: Y, price: 4900, size: 300, side: 'SELL', feeRateBps: 0, timestampMs: clock.now() }]);
    for (let i = 0; i < 40; i++) {
      await advance(clock.now() + 25);
      feed(books(4900, 5100, clock.now()));
      expect(duplicates(await venue.openOrders()), `at step ${i}`).toEqual([]);
    }
    const bids = (await venue.openOrders()).filter((o) => o.tokenId === Y && o.side === 'BUY');
    expect(bids.map((o) => [o.price, o.originalSize - o.sizeMatched])).toEqual([[4900, 1000]]);
    expect(bids[0].orderId).not.toBe(bid?.orderId);
    await stop();
  });
});

describe('engine: bands clamped onto one price', () => {
  it('become one order per price with the sizes added, never identical orders in a batch', async () => {
    // maxSpread 0.02 clamps all four bands to 0.01 from the mid
    const bands = [0.01, 0.02, 0.03, 0.04].map((distance) => ({ distance, size: 10 }));
    const { engine, venue, clock, advance, feed, stop } = await setup(50, 100, { bands, maxSpread: 0.02 });
    feed(books(4900, 5100, clock.now()));
    engine.start();
    await advance(clock.now() + 300);
    for (const b of venue.batches) expect(duplicates(b)).toEqual([]);
    const resting = (await venue.openOrders()).map((o) => [o.tokenId, o.side, o.price, o.originalSize]).sort();
    expect(resting).toEqual(
      [
        [N, 'BUY', 4900, 4000],
        [Y, 'BUY', 4900, 4000],
      ].sort(),
    );
    await stop();
  });
});

describe('engine: places waiting for a rate window', () => {
  it('count toward the global open-order limit when another market quotes', async () => {
    const cfg = loadConfig({ env: {} });
    const clock = new VirtualClock(1_700_000_000_000);
    const limiter = new Limiter({ clock });
    const m2: MarketMeta = { conditionId: '0xm2', tokenId: '333', complementId: '444', tick: 100, minSize: 500, negRisk: false };
    const venue = new SimulatedVenue({
      clock,
      markets: [
        { conditionId: M, tokens: [Y, N], tick: 100, minSize: 500 },
        { conditionId: m2.conditionId, tokens: [m2.tokenId, m2.complementId], tick: 100, minSize: 500 },
      ],
      orderLatencyMs: 0,
      cancelLatencyMs: 0,
      makerFeeBps: 0,
      takerFeeBps: 0,
    });
    const mirror = new BookMirror({ verifyEvery: 0, now: () => clock.now() });
    const strategy = await loadStrategy('bands', { bands: [{ distance: 0.02, size: 10 }], skewPerShare: 0 });
    const engine = testEngine({
      clock,
      venue,
      limiter,
      books: mirror,
      strategy,
      config: { reconciler: { ...cfg.reconciler, debounceMs: 0 }, risk: { ...cfg.risk, maxOpenOrders: 3 }, scheduler: cfg.scheduler },
      markets: [meta, m2],
    });
    const evs = [...books(4900, 5100, clock.now()), ...books(4900, 5100, clock.now()).map((e) => ({ ...e, market: m2.conditionId, assetId: e.assetId === Y ? m2.tokenId : m2.complementId }))];
    deliver(mirror, engine, evs, venue);
    // every place endpoint is out of room for a second: both markets' quotes wait in the scheduler
    for (const s of ['clob:POST /orders:burst', 'clob:POST /order:burst']) limiter.pause(s, clock.now() + 1000);
    engine.start();
    expect(engine.scheduler.pendingPlaces()).toBe(3);
    expect(engine.risk.blocks.get('max_open_orders')).toBe(1);
    clock.advanceTo(clock.now() + 1500);
    for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
    expect((await venue.openOrders()).length).toBe(3);
    await engine.stop();
  });
});
