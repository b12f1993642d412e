// Our resting order gone from a venue book that shows our orders, with no fill or cancel reported
// (a user channel connected but silent): the engine asks its owner to look our orders and trades up
// at the venue (EngineOptions.onOrdersMissing), after MISSING_GRACE_MS and not again for a while
// if the look-up does not explain it. So does a cancel the venue refuses as already matched whose
// fill is not reported. Over the RecordingVenue playing a real venue (booksIncludeOwnOrders).
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import type { BookEvent } from '../../src/core/events.js';
import type { MarketMeta } from '../../src/engine/strategy.js';
import { MISSING_GRACE_MS, MissingOrderWatch, shortfallOf } from '../../src/engine/missing-orders.js';
import { createLogger } from '../../src/core/log.js';
import { mirroredBooks, RecordingVenue, type Levels, settle, deliver, bandsEngine, makeBook, makerTrade, EXTERNAL_BIDS, EXTERNAL_ASKS, BID_ONLY_BANDS } from './helpers.js';
import type { TrackedOrder } from '../../src/engine/orders.js';

const M = '0xmarket';
const YES = 'yes';
const NO = 'no';
const meta: MarketMeta = { conditionId: M, tokenId: YES, complementId: NO, tick: 10, minSize: 500, negRisk: false };

const both = (bids: Levels, asks: Levels, t: number): BookEvent[] => mirroredBooks(M, YES, NO, bids, asks, t, 10);

async function setup() {
  const clock = new VirtualClock(1_700_000_000_000);
  const venue = new RecordingVenue(() => clock.now());
  venue.booksIncludeOwnOrders = true;
  let asks = 0;
  const { engine, mirror } = await bandsEngine({
    clock,
    venue,
    // only our bid rests: bid 0.49 x 10 under a 0.50 mid
    params: BID_ONLY_BANDS,
    meta,
    recordLimiterUse: false,
    onOrdersMissing: () => asks++,
  });
  const ourBid = () => [...engine.orders.open()].find((o) => o.tokenId === YES && o.side === 'BUY');
  /** Feeds the book `showOurs` with or without our bid, `ms` after the last, and lets timers and sends run. */
  const feed = async (showOurs: boolean, ms = 250, ext: [Levels, Levels] = [EXTERNAL_BIDS, EXTERNAL_ASKS]) => {
    clock.advanceTo(clock.now() + ms);
    const o = ourBid();
    const bids: Levels = showOurs && o ? [...ext[0], [o.price, o.size - o.filled]] : ext[0];
    deliver(mirror, engine, both(bids, ext[1], clock.now()));
    await settle(20);
  };
  /** Feeds every 250 ms for `ms`. */
  const run = async (showOurs: boolean, ms: number, ext?: [Levels, Levels]) => {
    for (let t = 0; t < ms; t += 250) await feed(showOurs, 250, ext);
  };
  await feed(true);
  engine.start();
  await settle(20);
  return { engine, venue, clock, mirror, ourBid, feed, run, asks: () => asks };
}

describe('an order of ours the book no longer holds', () => {
  it('asks for a look-up once the book has shown less than our order for the grace, then backs off', async () => {
    const { engine, ourBid, run, asks } = await setup();
    expect(ourBid()?.price).toBe(4900);
    // the book shows it: nothing to ask
    await run(true, 5000);
    expect(asks()).toBe(0);
    // it filled and the user channel said nothing: the book no longer has it
    await run(false, MISSING_GRACE_MS - 500);
    expect(asks()).toBe(0);
    await run(false, 2000);
    expect(asks()).toBe(1);
    expect(engine.missingOrders?.asked).toBe(1);
    // the look-up explained nothing (the order still open, the book still short): not again for 5 s
    await run(false, 4000);
    expect(asks()).toBe(1);
    await run(false, 2000);
    expect(asks()).toBe(2);
    await engine.stop();
  });

  it('does not ask for a shortfall shorter than the grace (a user report a moment behind the book)', async () => {
    const { engine, run, asks } = await setup();
    await run(true, 3000);
    for (let i = 0; i < 4; i++) {
      await run(false, MISSING_GRACE_MS - 750);
      await run(true, 1000);
    }
    expect(asks()).toBe(0);
    await engine.stop();
  });

  it('does not ask while its fill is reported: the fill shrinks what we expect at the level', async () => {
    const { engine, venue, ourBid, run, asks, clock, mirror } = await setup();
    await run(true, 3000);
    const o = ourBid()!;
    // 2 of its 10 shares fill: the book shows the 8 left, and the trade is reported
    clock.advanceTo(clock.now() + 250);
    deliver(mirror, engine, both([...EXTERNAL_BIDS, [4900, 800]], EXTERNAL_ASKS, clock.now()));
    const t = makerTrade('t1', o.orderId!, 'BUY', 'MATCHED', clock.now(), { price: 4900, size: 200 });
    venue.emit({ ...t, assetId: YES, makerOrders: t.makerOrders.map((m) => ({ ...m, assetId: YES })) });
    await settle(20);
    expect(ourBid()).toMatchObject({ orderId: o.orderId, filled: 200 });
    await run(true, 6000);
    expect(ourBid()?.orderId).toBe(o.orderId);
    expect(asks()).toBe(0);
    await engine.stop();
  });
});

describe('an order the venue would not cancel: already matched', () => {
  // the external market half a cent higher: our bid moves from 0.49 to 0.495 (a place and a cancel)
  const UP: [Levels, Levels] = [
    [
      [4700, 5000],
      [4850, 3000],
    ],
    [
      [5250, 3000],
      [5300, 5000],
    ],
  ];

  it('asks for a look-up when no fill of it is reported within the grace', async () => {
    const { engine, venue, ourBid, run, asks } = await setup();
    await run(true, 3000);
    const o = ourBid()!;
    // it filled at the venue (gone from its open orders), unreported: our cancel is refused
    venue.live.delete(o.orderId!);
    await run(true, 250, UP);
    expect(engine.orders.byVenueId(o.orderId!)?.state).toBe('canceled');
    // quoting goes on: a new bid rests
    expect(ourBid()?.orderId).not.toBe(o.orderId);
    await run(true, MISSING_GRACE_MS - 500, UP);
    expect(asks()).toBe(0);
    await run(true, 750, UP);
    expect(asks()).toBe(1);
    await run(true, 5000, UP);
    expect(asks()).toBe(1);
    await engine.stop();
  });

  it('does not ask when its fill is reported within the grace', async () => {
    const { engine, venue, ourBid, run, asks, clock } = await setup();
    await run(true, 3000);
    const o = ourBid()!;
    venue.live.delete(o.orderId!);
    await run(true, 250, UP);
    expect(engine.orders.byVenueId(o.orderId!)?.state).toBe('canceled');
    await run(true, 1000, UP);
    const t = makerTrade('t1', o.orderId!, 'BUY', 'MATCHED', clock.now(), { price: 4900, size: 1000 });
    venue.emit({ ...t, assetId: YES, makerOrders: t.makerOrders.map((m) => ({ ...m, assetId: YES })) });
    await run(true, 5000, UP);
    expect(engine.positions.qty(YES)).toBe(1000);
    expect(asks()).toBe(0);
    await engine.stop();
  });
});

describe('MissingOrderWatch', () => {
  it('asks once per matched order left unreported, warning once a minute (a silent channel leaves them all unreported)', () => {
    const clock = new VirtualClock(1_700_000_000_000);
    const lines: Array<{ level: number; orderId?: string }> = [];
    const log = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(JSON.parse(s) as { level: number }) } });
    let asks = 0;
    const w = new MissingOrderWatch(clock, log, () => asks++);
    for (const id of ['a', 'b', 'c']) w.matchedUnreported(id);
    w.matchedUnreported('a'); // once per order
    w.reported('c');
    clock.advanceTo(clock.now() + MISSING_GRACE_MS);
    expect(asks).toBe(2);
    expect(lines.map((l) => [l.level, l.orderId])).toEqual([
      [40, 'a'],
      [30, 'b'],
    ]);
    clock.advanceTo(clock.now() + 60_000);
    w.matchedUnreported('d');
    clock.advanceTo(clock.now() + MISSING_GRACE_MS);
    expect(asks).toBe(3);
    expect(lines[2]).toMatchObject({ level: 40, orderId: 'd' });
    w.close();
  });
});

describe('shortfallOf', () => {
  const order = (over: Partial<TrackedOrder>): TrackedOrder => ({
    clientId: 'c1',
    orderId: 'o1',
    tokenId: YES,
    market: M,
    side: 'BUY',
    price: 4900,
    size: 1000,
    filled: 0,
    state: 'live',
    createdMs: 0,
    updatedMs: 1000,
    ...over,
  });

  it('counts every aged order of ours at the level, and only resting ones', () => {
    const book = makeBook(YES, [[4900, 1500]], [[5200, 100]], 5000);
    const two = [order({}), order({ clientId: 'c2', orderId: 'o2' })];
    expect(shortfallOf(YES, book, two, 4000)).toEqual({ side: 'BUY', price: 4900, ours: 2000, book: 1500 });
    expect(shortfallOf(YES, book, [order({})], 4000)).toBeUndefined();
    // one still being cancelled may already be gone: not counted
    expect(shortfallOf(YES, book, [order({}), order({ clientId: 'c2', orderId: 'o2', state: 'pending_cancel' })], 4000)).toBeUndefined();
    // one gone live after agedBefore, or after the book's last change, may not show yet
    expect(shortfallOf(YES, book, [order({}), order({ clientId: 'c2', orderId: 'o2', updatedMs: 4500 })], 4000)).toBeUndefined();
    expect(shortfallOf(YES, book, [order({ updatedMs: 5000 }), order({ clientId: 'c2', orderId: 'o2', updatedMs: 5000 })], 6000)).toBeUndefined();
    // another token's orders, or a book not in sync, say nothing
    expect(shortfallOf(NO, book, two, 4000)).toBeUndefined();
    book.setInSync(false);
    expect(shortfallOf(YES, book, two, 4000)).toBeUndefined();
  });

  it('a level gone entirely is short by all of ours', () => {
    const book = makeBook(YES, [[4800, 3000]], [[5200, 100]], 5000);
    expect(shortfallOf(YES, book, [order({ filled: 300 })], 4000)).toEqual({ side: 'BUY', price: 4900, ours: 700, book: 0 });
  });
});
