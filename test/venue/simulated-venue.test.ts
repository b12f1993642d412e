import { describe, it, expect } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import { SimulatedVenue, simulatedVenueFromConfig, type SimulatedVenueOptions } from '../../src/venue/simulated-venue.js';
import { loadConfig } from '../../src/config.js';
import { PAIR_WINDOW_MS } from '../../src/venue/queue-model.js';
import { M, NO, YES, book, req, trade, venueWithBook } from './sim-helpers.js';
import type { MarketEvent, PriceChangeEvent, Side } from '../../src/core/events.js';
import { readFileSync } from 'node:fs';
import { createMarketDecodeStats, decodeMarketFrame } from '../../src/feed/decode-market.js';
import type { OrderRequest } from '../../src/venue/types.js';

function change(assetId: string, side: Side, price: number, size: number, ts = 0): PriceChangeEvent {
  return changes(ts, [assetId, side, price, size]);
}

/** One price_change message at `ts` with these [asset, side, price, size] entries. */
function changes(ts: number, ...entries: Array<[string, Side, number, number]>): PriceChangeEvent {
  return {
    type: 'price_change',
    market: M,
    timestampMs: ts,
    timestampStr: String(ts),
    format: 'current',
    changes: entries.map(([assetId, side, price, size]) => ({ assetId, side, price, size, priceStr: '', sizeStr: '' })),
  };
}
const setup = (opts: Partial<SimulatedVenueOptions> = {}) => venueWithBook(opts);

async function placeLive(venue: SimulatedVenue, r: OrderRequest): Promise<string> {
  const res = await venue.placeOrder(r);
  expect(res).toMatchObject({ ok: true, status: 'live' });
  return res.orderId as string;
}

describe('SimulatedVenue queue position', () => {
  it('joins behind the visible level: a 60-share trade does not fill, later trades do', async () => {
    const { venue, trades, events } = setup();
    const id = await placeLive(venue, req({ side: 'BUY', price: 5000, size: 1000 }));
    expect(events[0]).toMatchObject({ type: 'order', kind: 'PLACEMENT', orderId: id, status: 'LIVE' });
    expect(venue.queuePosition(id)).toBe(10000);
    venue.onMarketEvent(trade(YES, 'SELL', 5000, 6000));
    expect(trades()).toHaveLength(0);
    expect(venue.queuePosition(id)).toBe(4000);
    venue.onMarketEvent(trade(YES, 'SELL', 5000, 4500));
    expect(trades().map((t) => t.size)).toEqual([500]);
    venue.onMarketEvent(trade(YES, 'SELL', 5000, 3000));
    expect(trades().map((t) => t.size)).toEqual([500, 500]);
    expect(venue.order(id)?.status).toBe('MATCHED');
    const t = trades()[0];
    expect(t).toMatchObject({ traderSide: 'MAKER', assetId: YES, side: 'SELL', price: 5000, market: M });
    expect(t.makerOrders[0]).toMatchObject({ orderId: id, side: 'BUY', price: 5000, matchedAmount: 500, assetId: YES });
    // each fill is reported MATCHED then CONFIRMED, followed by the order update
    const kinds = events.slice(1, 4).map((e) => (e.type === 'trade' ? e.status : e.kind));
    expect(kinds).toEqual(['MATCHED', 'CONFIRMED', 'UPDATE']);
    expect(venue.stats()).toMatchObject({ fills: 2, makerFills: 2, takerFills: 0, makerVolume: 1000 });
  });

  it('sim.settleMs: a fill is CONFIRMED that long after its MATCHED, on the clock (GET /trades says MATCHED until then)', async () => {
    const { venue, events, clock } = setup({ settleMs: 3000 });
    const id = await placeLive(venue, req({ side: 'BUY', price: 5000, size: 1000 }));
    venue.onMarketEvent(trade(YES, 'SELL', 5000, 20000));
    const statuses = () => events.filter((e) => e.type === 'trade').map((e) => (e.type === 'trade' ? e.status : ''));
    expect(statuses()).toEqual(['MATCHED']);
    const matchedAt = clock.now();
    expect((await venue.trades(0)).map((t) => [t.orderId, t.status])).toEqual([[id, 'MATCHED']]);
    clock.advanceTo(matchedAt + 2999);
    expect(statuses()).toEqual(['MATCHED']);
    clock.advanceTo(matchedAt + 3000);
    expect(statuses()).toEqual(['MATCHED', 'CONFIRMED']);
    const confirmed = events.filter((e) => e.type === 'trade')[1];
    expect(confirmed.type === 'trade' && confirmed.timestampMs).toBe(matchedAt + 3000);
    expect((await venue.trades(0)).map((t) => t.status)).toEqual(['CONFIRMED']);
  });

  it('a SELL beyond the settled shares held, less what resting SELLs promise, is refused for balance, as on the venue', async () => {
    const { venue, clock } = setup({ settleMs: 1000 });
    // no shares: refused (the venue answers "not enough balance / allowance")
    expect(await venue.placeOrder(req({ side: 'SELL', price: 6000, size: 500 }))).toMatchObject({ ok: false, error: 'INVALID_ORDER_NOT_ENOUGH_BALANCE' });
    // 20 shares bought: held from the MATCHED, sellable only from the CONFIRMED
    await placeLive(venue, req({ side: 'BUY', price: 5000, size: 2000 }));
    venue.onMarketEvent(trade(YES, 'SELL', 5000, 40000));
    expect(await venue.placeOrder(req({ side: 'SELL', price: 6000, size: 500 }))).toMatchObject({ ok: false, error: 'INVALID_ORDER_NOT_ENOUGH_BALANCE' });
    clock.advanceTo(clock.now() + 1000);
    const first = await placeLive(venue, req({ side: 'SELL', price: 6000, size: 1200 }));
    // the resting SELL promises 12 of the 20: 10 more do not fit, 8 do; the other token's shares are its own
    expect(await venue.placeOrder(req({ side: 'SELL', price: 6100, size: 1000 }))).toMatchObject({ ok: false, error: 'INVALID_ORDER_NOT_ENOUGH_BALANCE' });
    expect(await venue.placeOrder(req({ side: 'SELL', price: 6000, size: 500, tokenId: NO }))).toMatchObject({ ok: false, error: 'INVALID_ORDER_NOT_ENOUGH_BALANCE' });
    const second = await placeLive(venue, req({ side: 'SELL', price: 6100, size: 800 }));
    expect(await venue.placeOrder(req({ side: 'SELL', price: 6100, size: 500 }))).toMatchObject({ ok: false, error: 'INVALID_ORDER_NOT_ENOUGH_BALANCE' });
    // cancelled, its promise is free again
    await venue.cancelOrders([first]);
    await placeLive(venue, req({ side: 'SELL', price: 6200, size: 1200 }));
    // sold, their shares are gone: a trade through 0.62 fills both resting SELLs, and nothing is left to sell
    venue.onMarketEvent(trade(YES, 'BUY', 6200, 80000));
    expect(venue.order(second)?.status).toBe('MATCHED');
    expect(await venue.placeOrder(req({ side: 'SELL', price: 6300, size: 500 }))).toMatchObject({ ok: false, error: 'INVALID_ORDER_NOT_ENOUGH_BALANCE' });
    expect(venue.stats()).toMatchObject({ rejected: 6, rejectedForBalance: 6 });
    // shares held from before (a paper run's restored positions) are sellable at once
    venue.holdShares(NO, 500);
    await placeLive(venue, req({ side: 'SELL', price: 6000, size: 500, tokenId: NO }));
  });

  it('sim.cashUsd: a BUY beyond the collateral its resting BUYs leave is refused, as on the venue; fills move the collateral; collateral() reads it', async () => {
    const { venue } = setup({ cashMicros: 6_000_000 });
    expect(await venue.collateral?.()).toBe(6_000_000);
    // $4.90 resting, then $1.50 more does not fit ($6.40 > $6) and $1.00 does
    const id = await placeLive(venue, req({ side: 'BUY', price: 4900, size: 1000 }));
    expect(await venue.placeOrder(req({ side: 'BUY', price: 3000, size: 500, tokenId: NO }))).toMatchObject({ ok: false, error: 'INVALID_ORDER_NOT_ENOUGH_BALANCE' });
    await placeLive(venue, req({ side: 'BUY', price: 2000, size: 500, tokenId: NO }));
    // a SELL needs no collateral (shares held)
    venue.holdShares(YES, 500);
    expect((await venue.placeOrder(req({ side: 'SELL', price: 6000, size: 500 }))).ok).toBe(true);
    // the $4.90 BUY fills: its cost leaves the collateral, and its promise with it
    venue.onMarketEvent(trade(YES, 'SELL', 4900, 30000));
    expect(venue.order(id)?.status).toBe('MATCHED');
    expect(await venue.collateral?.()).toBe(1_100_000);
    await placeLive(venue, req({ side: 'BUY', price: 200, size: 500, tokenId: NO }));
    expect(venue.stats().rejected).toBe(1);
    // without cashMicros: unlimited, and no collateral read
    expect(setup().venue.collateral).toBeUndefined();
  });

  it("sim.settleMs: a SELL's proceeds are collateral from its CONFIRMED, as a BUY's shares are sellable from theirs (the balance moves when the trade settles)", async () => {
    const { venue, clock } = setup({ cashMicros: 3_000_000, settleMs: 3000 });
    venue.holdShares(YES, 1000);
    await placeLive(venue, req({ side: 'SELL', price: 5100, size: 1000 }));
    venue.onMarketEvent(trade(YES, 'BUY', 5100, 1000));
    const matchedAt = clock.now();
    // $5.10 of proceeds not yet settled: a $4.80 BUY does not fit the $3 the balance holds
    expect(await venue.collateral?.()).toBe(3_000_000);
    expect(await venue.placeOrder(req({ side: 'BUY', price: 4800, size: 1000, tokenId: NO }))).toMatchObject({ ok: false, error: 'INVALID_ORDER_NOT_ENOUGH_BALANCE' });
    clock.advanceTo(matchedAt + 3000);
    expect(await venue.collateral?.()).toBe(8_100_000);
    await placeLive(venue, req({ side: 'BUY', price: 4800, size: 1000, tokenId: NO }));
  });

  it("spendCash (a paper restart): an earlier run's fills move the collateral, never below 0 (a run with more cash or none before)", async () => {
    const { venue } = setup({ cashMicros: 6_000_000 });
    venue.spendCash(-2_500_000);
    expect(await venue.collateral?.()).toBe(3_500_000);
    venue.spendCash(-10_000_000);
    expect(await venue.collateral?.()).toBe(0);
    expect(await venue.placeOrder(req({ side: 'BUY', price: 100, size: 500 }))).toMatchObject({ ok: false, error: 'INVALID_ORDER_NOT_ENOUGH_BALANCE' });
    // unlimited: nothing to move
    const free = setup().venue;
    free.spendCash(-10_000_000);
    expect(free.collateral).toBeUndefined();
  });

  it('sim.settleMs: a venue closed before a fill settles emits nothing after close (no event for a stopped engine)', async () => {
    const { venue, events, clock } = setup({ settleMs: 3000 });
    await placeLive(venue, req({ side: 'BUY', price: 5000, size: 1000 }));
    venue.onMarketEvent(trade(YES, 'SELL', 5000, 20000));
    const n = events.length;
    await venue.close();
    clock.advanceTo(clock.now() + 10_000);
    expect(events.length).toBe(n);
  });

  it('cancellations ahead shrink the queue in proportion; trades at other prices or sides do nothing', async () => {
    const { venue, trades } = setup();
    const id = await placeLive(venue, req({ side: 'BUY', price: 5000, size: 1000 }));
    venue.onMarketEvent(change(YES, 'BUY', 5000, 5000, 1));
    expect(venue.queuePosition(id)).toBe(5000);
    // (past the pairing window: a trade within it of the decrease would be what that decrease showed)
    const later = 2 + PAIR_WINDOW_MS;
    venue.onMarketEvent(trade(YES, 'SELL', 5100, 9000, later)); // above our bid: not ours
    venue.onMarketEvent(trade(YES, 'BUY', 5000, 9000, later)); // a taker BUY lifts asks, not bids
    expect(trades()).toHaveLength(0);
    venue.onMarketEvent(trade(YES, 'SELL', 5000, 5600, later));
    expect(trades().map((t) => t.size)).toEqual([600]);
  });

  it('fills at once on a trade through its price, at its own price, up to what the trade traded', async () => {
    const { venue, trades } = setup();
    venue.holdShares(YES, 800);
    const id = await placeLive(venue, req({ side: 'SELL', price: 5200, size: 800 }));
    expect(venue.queuePosition(id)).toBe(5000);
    // the taker bought 1 share at 0.53: had our ask at 0.52 been there, it would have bought it
    // from us first, and no more than it bought
    venue.onMarketEvent(trade(YES, 'BUY', 5300, 100));
    expect(trades().map((t) => [t.traderSide, t.side, t.price, t.size])).toEqual([['MAKER', 'BUY', 5200, 100]]);
    venue.onMarketEvent(trade(YES, 'BUY', 5400, 1000));
    expect(trades().map((t) => t.size)).toEqual([100, 700]);
    expect(venue.order(id)?.status).toBe('MATCHED');
  });

  it('a trade through several of our orders fills the best priced first (the taker meets it first), within the trade', async () => {
    const { venue, trades } = setup();
    const at50 = await placeLive(venue, req({ side: 'BUY', price: 5000, size: 1000 }));
    const at51 = await placeLive(venue, req({ side: 'BUY', price: 5100, size: 600 }));
    venue.onMarketEvent(trade(YES, 'SELL', 4900, 1000));
    expect(trades().map((t) => [t.makerOrders[0].orderId, t.size])).toEqual([
      [at51, 600],
      [at50, 400],
    ]);
  });

  it('fills at once when the external quote crosses it', async () => {
    const { venue, trades } = setup();
    const id = await placeLive(venue, req({ side: 'BUY', price: 5100, size: 700 }));
    expect(venue.queuePosition(id)).toBe(0);
    venue.onMarketEvent(change(YES, 'SELL', 5200, 0)); // ask moves away: nothing
    expect(trades()).toHaveLength(0);
    venue.onMarketEvent(change(YES, 'SELL', 5100, 2000));
    expect(trades().map((t) => [t.price, t.size])).toEqual([[5100, 700]]);
    expect(await venue.openOrders()).toEqual([]);
  });

  it('with the queue model off an order joins at the front', async () => {
    const { venue, trades } = setup({ queueModel: false });
    await placeLive(venue, req({ side: 'BUY', price: 5000, size: 1000 }));
    venue.onMarketEvent(trade(YES, 'SELL', 5000, 600));
    expect(trades().map((t) => t.size)).toEqual([600]);
  });
});

describe('SimulatedVenue: a book update reported before its trade', () => {
  // The real feed sends the book update first (its hash covers a trade not yet announced) and the
  // emulator prints last_trade_price after the batch: a trade in the timestamp of the decrease it
  // explains is the same volume, not a second one.
  it('the decrease and then its trade (same timestamp) advance the queue once: FIFO keeps 4000 ahead, nothing fills', async () => {
    const { venue, trades } = setup();
    const id = await placeLive(venue, req({ side: 'BUY', price: 5000, size: 1000 }));
    expect(venue.queuePosition(id)).toBe(10000);
    venue.onMarketEvent(change(YES, 'BUY', 5000, 4000, 7));
    venue.onMarketEvent(trade(YES, 'SELL', 5000, 6000, 7));
    expect(trades()).toHaveLength(0);
    expect(venue.queuePosition(id)).toBe(4000);
    // the next trade meets those 4000 first
    venue.onMarketEvent(change(YES, 'BUY', 5000, 0, 8));
    venue.onMarketEvent(trade(YES, 'SELL', 5000, 4500, 8));
    expect(trades().map((t) => t.size)).toEqual([500]);
  });

  it('a trade reported after its decrease still reaches us through what was ahead (FIFO), not more', async () => {
    const { venue, trades } = setup();
    const id = await placeLive(venue, req({ side: 'BUY', price: 5000, size: 1000 }));
    // trade first, then its update: 500 left ahead
    venue.onMarketEvent(trade(YES, 'SELL', 5000, 9500, 1));
    venue.onMarketEvent(change(YES, 'BUY', 5000, 500, 1));
    expect(venue.queuePosition(id)).toBe(500);
    // update first, then its trade of 1000: 500 ahead, 500 reach us
    venue.onMarketEvent(change(YES, 'BUY', 5000, 0, 2));
    venue.onMarketEvent(trade(YES, 'SELL', 5000, 1000, 2));
    expect(trades().map((t) => t.size)).toEqual([500]);
    expect(venue.queuePosition(id)).toBe(0);
  });

  it('a decrease with no trade within the pairing window is cancellations: the queue shrinks in proportion, and a later trade is a new one', async () => {
    const { venue, trades } = setup();
    const id = await placeLive(venue, req({ side: 'BUY', price: 5000, size: 1000 }));
    venue.onMarketEvent(change(YES, 'BUY', 5000, 4000, 1));
    venue.onMarketEvent(trade(YES, 'SELL', 5000, 4200, 2 + PAIR_WINDOW_MS));
    expect(trades().map((t) => t.size)).toEqual([200]);
    expect(venue.queuePosition(id)).toBe(0);
  });
});

describe('SimulatedVenue: what our takers took stays taken across feed updates', () => {
  // BUY 200 shares at 0.53 takes 50 at 0.52 and 100 at 0.53, and rests 50 at 0.53. The recording
  // never shows our take: its later updates of those levels are read against what we took.
  async function takeAndRest(venue: SimulatedVenue): Promise<string> {
    const res = await venue.placeOrder(req({ side: 'BUY', price: 5300, size: 20000 }));
    expect(res).toMatchObject({ ok: true, status: 'live' });
    return res.orderId as string;
  }
  const shown = (ts: ReturnType<typeof setup>['trades']) => ts().map((t) => [t.traderSide, t.price, t.size]);

  it('one share added to a level we emptied: our resting remainder meets that share only', async () => {
    const { venue, trades } = setup();
    const id = await takeAndRest(venue);
    venue.onMarketEvent(change(YES, 'SELL', 5300, 10100));
    expect(shown(trades)).toEqual([
      ['TAKER', 5200, 5000],
      ['TAKER', 5300, 10000],
      ['MAKER', 5300, 100],
    ]);
    expect(venue.order(id)).toMatchObject({ status: 'LIVE', sizeMatched: 15100 });
    // that share is not met twice
    venue.onMarketEvent(change(YES, 'BUY', 4900, 100));
    expect(trades()).toHaveLength(3);
  });

  it('a decrease of a level we took from uses up what we took first; only a later increase is fresh size', async () => {
    const { venue, trades } = setup();
    const id = await takeAndRest(venue);
    venue.onMarketEvent(change(YES, 'SELL', 5200, 4000));
    venue.onMarketEvent(change(YES, 'SELL', 5300, 9000));
    expect(trades()).toHaveLength(2);
    expect(venue.order(id)).toMatchObject({ status: 'LIVE', sizeMatched: 15000 });
    venue.onMarketEvent(change(YES, 'SELL', 5300, 9500));
    expect(shown(trades).slice(2)).toEqual([['MAKER', 5300, 500]]);
  });

  it('a snapshot is read against what we took too', async () => {
    const { venue, trades } = setup();
    await takeAndRest(venue);
    const bids: Array<[number, number]> = [
      [5000, 10000],
      [4900, 20000],
    ];
    venue.onMarketEvent(
      book(YES, bids, [
        [5200, 5000],
        [5300, 10000],
      ]),
    );
    expect(trades()).toHaveLength(2);
    venue.onMarketEvent(
      book(YES, bids, [
        [5200, 5000],
        [5300, 10100],
      ]),
    );
    expect(shown(trades).slice(2)).toEqual([['MAKER', 5300, 100]]);
  });

  it('our next taker meets only what the feed added', async () => {
    const { venue, trades } = setup();
    expect(await venue.placeOrder(req({ side: 'BUY', price: 5300, size: 15000, orderType: 'FAK' }))).toMatchObject({ ok: true, status: 'matched' });
    venue.onMarketEvent(change(YES, 'SELL', 5300, 10100));
    expect(await venue.placeOrder(req({ side: 'BUY', price: 5300, size: 1000, orderType: 'FAK' }))).toMatchObject({ ok: true, status: 'matched' });
    expect(shown(trades).slice(2)).toEqual([['TAKER', 5300, 100]]);
  });

  it('an ask crossing our resting bid meets it up to its size, at our price; the rest of our bid rests', async () => {
    const { venue, trades } = setup();
    const id = await placeLive(venue, req({ side: 'BUY', price: 5100, size: 700 }));
    venue.onMarketEvent(change(YES, 'SELL', 5100, 300));
    expect(shown(trades)).toEqual([['MAKER', 5100, 300]]);
    expect(venue.order(id)).toMatchObject({ status: 'LIVE', sizeMatched: 300 });
    venue.onMarketEvent(change(YES, 'SELL', 5000, 1000));
    expect(shown(trades)).toEqual([
      ['MAKER', 5100, 300],
      ['MAKER', 5100, 400],
    ]);
    expect(venue.order(id)?.status).toBe('MATCHED');
  });
});

describe('SimulatedVenue market data', () => {
  it('a fresh snapshot updates the queue ahead, and malformed levels are ignored', async () => {
    const { venue, trades } = setup();
    const id = await placeLive(venue, req({ side: 'BUY', price: 5000, size: 1000 }));
    venue.onMarketEvent(book(YES, [[5000, 4000]], [[5200, 5000]]));
    expect(venue.queuePosition(id)).toBe(4000);
    venue.onMarketEvent(change(YES, 'SELL', 5000.5, 100));
    venue.onMarketEvent(change(YES, 'SELL', Number.NaN, 100));
    venue.onMarketEvent(change(YES, 'SELL', 20000, 100));
    venue.onMarketEvent(change('unknown-asset', 'SELL', 4000, 100));
    venue.onMarketEvent(trade(YES, 'SELL', 5000, Number.NaN));
    expect(trades()).toHaveLength(0);
    expect(venue.queuePosition(id)).toBe(4000);
  });
});

describe('SimulatedVenue taking and rejections', () => {
  it('a marketable GTC walks the visible asks, rests the remainder, and does not refill from what it took', async () => {
    const { venue, trades } = setup({ takerFeeBps: 100 });
    const res = await venue.placeOrder(req({ side: 'BUY', price: 5300, size: 20000 }));
    expect(res).toMatchObject({ ok: true, status: 'live' });
    expect(trades().map((t) => [t.traderSide, t.price, t.size])).toEqual([
      ['TAKER', 5200, 5000],
      ['TAKER', 5300, 10000],
    ]);
    expect(trades()[0]).toMatchObject({ assetId: YES, side: 'BUY', feeRateBps: 100, takerOrderId: res.orderId });
    venue.onMarketEvent(change(YES, 'BUY', 4900, 100)); // unrelated update: no quote-through on consumed levels
    expect(trades()).toHaveLength(2);
    // fee: 5000 units at 0.52 = $26 notional -> 1% = 260000 micro-dollars; 10000 at 0.53 -> 530000
    expect(venue.stats()).toMatchObject({ takerFills: 2, takerVolume: 15000, feesMicros: 790000 });
    expect(venue.fills().map((f) => f.feeMicros)).toEqual([260000, 530000]);
  });

  const cases: Array<[string, Partial<OrderRequest> & Pick<OrderRequest, 'side' | 'price' | 'size'>, object]> = [
    ['post-only crossing', { side: 'BUY', price: 5200, size: 500, postOnly: true }, { ok: false, error: 'INVALID_POST_ONLY_ORDER' }],
    ['post-only FOK', { side: 'BUY', price: 5000, size: 500, postOnly: true, orderType: 'FOK' }, { ok: false, error: 'INVALID_POST_ONLY_ORDER_TYPE' }],
    ['off tick', { side: 'BUY', price: 5050, size: 500 }, { ok: false, error: 'INVALID_ORDER_MIN_TICK_SIZE' }],
    ['below min size', { side: 'BUY', price: 5000, size: 499 }, { ok: false, error: 'INVALID_ORDER_MIN_SIZE' }],
    ['GTD in the past', { side: 'BUY', price: 5000, size: 500, orderType: 'GTD', expirationSec: 999 }, { ok: false, error: 'INVALID_ORDER_EXPIRATION' }],
    ['unknown token', { side: 'BUY', price: 5000, size: 500, tokenId: 'zzz' }, { ok: false, error: 'INVALID_ORDER_ERROR' }],
    ['FOK not fillable', { side: 'BUY', price: 5200, size: 6000, orderType: 'FOK' }, { ok: false, error: 'FOK_ORDER_NOT_FILLED_ERROR' }],
    ['FOK fillable', { side: 'BUY', price: 5300, size: 6000, orderType: 'FOK' }, { ok: true, status: 'matched' }],
    ['FAK partial', { side: 'SELL', price: 5000, size: 12000, orderType: 'FAK' }, { ok: true, status: 'matched' }],
    ['FAK nothing', { side: 'SELL', price: 5100, size: 500, orderType: 'FAK' }, { ok: true, status: 'unmatched' }],
    ['post-only passive', { side: 'BUY', price: 5100, size: 500, postOnly: true }, { ok: true, status: 'live' }],
  ];
  it.each(cases)('%s', async (_n, r, expected) => {
    const { venue, trades } = setup();
    venue.holdShares(YES, 20_000); // the SELL cases' shares
    const res = await venue.placeOrder(req(r));
    expect(res).toMatchObject(expected);
    const filled = trades().reduce((s, t) => s + t.size, 0);
    if (!res.ok) expect(filled).toBe(0);
    if (_n === 'FAK partial') expect(filled).toBe(10000);
    if (_n === 'FOK fillable') expect(filled).toBe(6000);
    expect(await venue.openOrders()).toHaveLength(res.status === 'live' ? 1 : 0);
  });

  it('refuses a duplicated client id and orders before the first snapshot', async () => {
    const clock = new VirtualClock(0);
    const venue = new SimulatedVenue({ clock, markets: [{ conditionId: M, tokens: [YES, NO], tick: 100, minSize: 500 }], orderLatencyMs: 0, cancelLatencyMs: 0, makerFeeBps: 0, takerFeeBps: 0 });
    expect(await venue.placeOrder(req({ side: 'BUY', price: 5000, size: 500 }))).toMatchObject({ ok: false, error: 'MARKET_NOT_READY' });
    venue.onMarketEvent(book(YES, [], []));
    const r = req({ side: 'BUY', price: 5000, size: 500 });
    expect((await venue.placeOrder(r)).ok).toBe(true);
    expect(await venue.placeOrder(r)).toMatchObject({ ok: false, error: 'INVALID_ORDER_DUPLICATED' });
  });
});

describe('SimulatedVenue memory bounds', () => {
  it('forgets a market taken out of the set (paper) once none of its orders rests; added again it waits for a new book', async () => {
    const { venue } = venueWithBook();
    const resting = await venue.placeOrder(req({ side: 'BUY', price: 4800, size: 500 }));
    expect(resting.ok).toBe(true);
    // an order still rests: kept
    venue.removeMarket(M);
    expect((await venue.placeOrder(req({ side: 'BUY', price: 4700, size: 500 }))).ok).toBe(true);
    await venue.cancelAll();
    venue.removeMarket(M);
    expect(await venue.placeOrder(req({ side: 'BUY', price: 4700, size: 500 }))).toMatchObject({ ok: false, error: 'INVALID_ORDER_ERROR' });
    // its events are ignored; added back, its old book is gone: not ready until a snapshot
    venue.onMarketEvent(trade(YES, 'SELL', 4700, 500));
    venue.addMarket({ conditionId: M, tokens: [YES, NO], tick: 100, minSize: 500 });
    expect(await venue.placeOrder(req({ side: 'BUY', price: 4700, size: 500 }))).toMatchObject({ ok: false, error: 'MARKET_NOT_READY' });
    venue.onMarketEvent(book(YES, [[4900, 1000]], [[5100, 1000]]));
    expect((await venue.placeOrder(req({ side: 'BUY', price: 4700, size: 500 }))).ok).toBe(true);
  });

  it('forgets done orders and old fills beyond historyLimit', async () => {
    const { venue } = setup({ historyLimit: 2 });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await venue.placeOrder(req({ side: 'BUY', price: 5200, size: 500 })); // each takes from the ask
      expect(r.status).toBe('matched');
      ids.push(r.orderId as string);
    }
    expect(venue.order(ids[0])).toBeUndefined();
    expect(venue.order(ids[3])?.status).toBe('MATCHED');
    expect(await venue.cancelOrders([ids[0], ids[3]])).toEqual({ canceled: [], notCanceled: { [ids[0]]: 'order not found', [ids[3]]: 'order already matched' } });
    expect(venue.fills().length).toBeLessThanOrEqual(3);
    expect(venue.stats().fills).toBe(4);
  });
});

describe('SimulatedVenue complement tokens', () => {
  it("a BUY on the second token fills from that token's book and is reported on it", async () => {
    const { venue, trades } = setup();
    // NO asks 0.50 x 100: a BUY NO at 0.50 takes it (the mirror of YES bid 0.50)
    const res = await venue.placeOrder(req({ tokenId: NO, side: 'BUY', price: 5000, size: 1000 }));
    expect(res.status).toBe('matched');
    expect(trades()[0]).toMatchObject({ assetId: NO, side: 'BUY', price: 5000, size: 1000, outcome: 'No' });
    // resting NO bid at 0.48 behind 50 shares; YES-token trades do not touch it
    const id = await placeLive(venue, req({ tokenId: NO, side: 'BUY', price: 4800, size: 500 }));
    venue.onMarketEvent(trade(YES, 'SELL', 5200, 99999));
    expect(trades()).toHaveLength(1);
    venue.onMarketEvent(trade(NO, 'SELL', 4800, 5200));
    expect(trades()[1]).toMatchObject({ assetId: NO, traderSide: 'MAKER', size: 200 });
    expect(trades()[1].makerOrders[0]).toMatchObject({ orderId: id, assetId: NO, side: 'BUY', price: 4800 });
  });
});

describe('SimulatedVenue: what our takers take from one token is gone from the other', () => {
  it("a BUY of YES that took the 0.52 ask took the NO bid at 0.48 too (one book's level is the other's, mirrored)", async () => {
    const { venue, trades } = setup();
    venue.holdShares(NO, 5000);
    // YES asks 0.52 x 50 = the NO bid 0.48 x 50 (NO BUYs at 0.48 match YES BUYs at 0.52: a mint)
    expect(await venue.placeOrder(req({ tokenId: YES, side: 'BUY', price: 5200, size: 5000, orderType: 'FAK' }))).toMatchObject({ ok: true, status: 'matched' });
    expect(trades().map((t) => [t.assetId, t.price, t.size])).toEqual([[YES, 5200, 5000]]);
    // the same 50 shares cannot be sold to again from the NO side: the NO bid left is 0.47
    expect(await venue.placeOrder(req({ tokenId: NO, side: 'SELL', price: 4800, size: 5000, orderType: 'FAK' }))).toMatchObject({ ok: true, status: 'unmatched' });
    expect(await venue.placeOrder(req({ tokenId: NO, side: 'SELL', price: 4700, size: 5000, orderType: 'FAK' }))).toMatchObject({ ok: true, status: 'matched' });
    expect(trades().map((t) => [t.assetId, t.price, t.size])).toEqual([
      [YES, 5200, 5000],
      [NO, 4700, 5000],
    ]);
  });
});

describe('SimulatedVenue: liquidity that crosses our resting orders on both tokens is met once', () => {
  it('a YES ask at 0.51 and its mirror, the NO bid at 0.49, crossing our YES BUY 0.51 and NO SELL 0.49, fill 50 shares in all, not 100', async () => {
    const { venue, trades } = setup();
    venue.holdShares(NO, 5000);
    const yesBid = await placeLive(venue, req({ tokenId: YES, side: 'BUY', price: 5100, size: 5000 }));
    const noAsk = await placeLive(venue, req({ tokenId: NO, side: 'SELL', price: 4900, size: 5000 }));
    // one update shows the same 50 shares on both books (a NO BUY at 0.49 is a YES SELL at 0.51)
    venue.onMarketEvent(changes(1, [YES, 'SELL', 5100, 5000], [NO, 'BUY', 4900, 5000]));
    const filled = trades().reduce((s, t) => s + t.size, 0);
    expect(filled).toBe(5000);
    expect([venue.order(yesBid)?.sizeMatched ?? 0, venue.order(noAsk)?.sizeMatched ?? 0].sort()).toEqual([0, 5000]);
  });
});

describe('SimulatedVenue: liquidity crossing several of our resting orders meets the best-priced first', () => {
  // an incoming order meets the best price first (price, then time), as a trade-through does here:
  // our worse layer filled first overstated the result by the price gap and left the exposure resting
  it('a YES ask at 0.50 crossing our YES bids at 0.50 (first) and 0.51 (second) fills the 0.51 one', async () => {
    const { venue, trades } = setup();
    const first = await placeLive(venue, req({ side: 'BUY', price: 5000, size: 1000, postOnly: true }));
    const better = await placeLive(venue, req({ side: 'BUY', price: 5100, size: 1000, postOnly: true }));
    venue.onMarketEvent(changes(1, [YES, 'BUY', 5000, 0], [YES, 'SELL', 5000, 1000], [NO, 'SELL', 5000, 0], [NO, 'BUY', 5000, 1000]));
    expect(trades().map((t) => [t.makerOrders[0].orderId, t.price, t.size])).toEqual([[better, 5100, 1000]]);
    expect(venue.order(first)?.status).toBe('LIVE');
  });

  it('across the two tokens: a YES bid at 0.56 crossing our YES SELL 0.55 (first) and NO BUY 0.47 (a YES ask at 0.53) fills the 0.53 one', async () => {
    const { venue, trades } = setup();
    venue.holdShares(YES, 1000);
    const sell = await placeLive(venue, req({ tokenId: YES, side: 'SELL', price: 5500, size: 1000, postOnly: true }));
    const noBid = await placeLive(venue, req({ tokenId: NO, side: 'BUY', price: 4700, size: 1000, postOnly: true }));
    venue.onMarketEvent(changes(1, [YES, 'BUY', 5600, 1000], [NO, 'SELL', 4400, 1000]));
    expect(trades().map((t) => [t.makerOrders[0].orderId, t.size])).toEqual([[noBid, 1000]]);
    expect(venue.order(sell)?.status).toBe('LIVE');
  });
});

describe('SimulatedVenue: a trade printed on one token fills our orders on the other', () => {
  // The venue matches a BUY of YES at p with a BUY of NO at 1 - p (and a SELL with a SELL), and
  // prints the trade once, on the taker's token (every real capture; the emulator too). An ask
  // quoted as a complement BUY rests in the YES asks' queue at p: a YES BUY print reaches it.
  it('the premise, on a real capture subscribed to both tokens (polytrader): each trade is printed once, on one token, never again on the other at 1 - p', () => {
    // were the venue to print the complement's side too, filling both tokens from one print would double our fills
    const out: MarketEvent[] = [];
    const stats = createMarketDecodeStats();
    for (const line of readFileSync(new URL('../fixtures/polymarket/polytrader/market_ws_messages.jsonl', import.meta.url), 'utf8').split('\n')) if (line.trim()) decodeMarketFrame(line, out, stats);
    const fed = new Set<string>();
    for (const e of out) if (e.type === 'price_change') for (const c of e.changes) fed.add(c.assetId);
    expect(fed.size).toBe(2);
    const prints = out.filter((e) => e.type === 'last_trade_price');
    expect(prints.length).toBeGreaterThan(0);
    for (const p of prints) {
      const twin = prints.find((q) => q !== p && q.assetId !== p.assetId && q.timestampMs === p.timestampMs);
      expect(twin, `a print on the other token at ${p.timestampMs}`).toBeUndefined();
    }
  });

  it('a taker BUY of YES at p reaches our resting NO BUY at 1 - p through its queue', async () => {
    const { venue, trades } = setup();
    // NO bid 0.48 holds 50 shares ahead of us (the mirror of the YES ask 0.52)
    const id = await placeLive(venue, req({ tokenId: NO, side: 'BUY', price: 4800, size: 500 }));
    venue.onMarketEvent(trade(YES, 'BUY', 5200, 5200));
    expect(trades()).toHaveLength(1);
    expect(trades()[0]).toMatchObject({ assetId: NO, traderSide: 'MAKER', size: 200 });
    expect(trades()[0].makerOrders[0]).toMatchObject({ orderId: id, assetId: NO, side: 'BUY', price: 4800 });
  });

  it('a taker BUY of YES above 1 - our NO bid trades through it: it fills up to what the taker bought', async () => {
    const { venue, trades } = setup();
    const id = await placeLive(venue, req({ tokenId: NO, side: 'BUY', price: 4800, size: 500 }));
    venue.onMarketEvent(trade(YES, 'BUY', 5300, 100));
    expect(trades()).toHaveLength(1);
    expect(trades()[0]).toMatchObject({ assetId: NO, traderSide: 'MAKER', size: 100 });
    expect(trades()[0].makerOrders[0]).toMatchObject({ orderId: id, price: 4800 });
    venue.onMarketEvent(trade(YES, 'BUY', 5300, 1000));
    expect(trades().map((t) => t.size)).toEqual([100, 400]);
  });

  it('a taker SELL of NO reaches our resting YES SELL (a merge), and the other side never', async () => {
    const { venue, trades } = setup();
    venue.holdShares(YES, 500);
    // YES ask 0.52 holds 50 shares ahead (the mirror of the NO bid 0.48)
    const id = await placeLive(venue, req({ tokenId: YES, side: 'SELL', price: 5200, size: 500 }));
    venue.onMarketEvent(trade(NO, 'BUY', 4800, 99999)); // a BUY of NO does not meet a SELL of YES
    expect(trades()).toHaveLength(0);
    venue.onMarketEvent(trade(NO, 'SELL', 4800, 5200));
    expect(trades()).toHaveLength(1);
    expect(trades()[0]).toMatchObject({ assetId: YES, traderSide: 'MAKER', size: 200 });
    expect(trades()[0].makerOrders[0]).toMatchObject({ orderId: id, side: 'SELL', price: 5200 });
  });
});

/**
 * Our NO bid at 0.48 joins after an update at 100 emptied the YES ask 0.52 (= the NO bid 0.48); the
 * trade's print, stamped `printTs`, fills it nothing; a later YES BUY through 0.53 at `laterTs` does.
 */
async function madeBeforeOnOtherToken(printTs: number, laterTs: number): Promise<void> {
  const { venue, trades } = setup();
  venue.onMarketEvent(changes(100, [YES, 'SELL', 5200, 0], [NO, 'BUY', 4800, 0]));
  const id = await placeLive(venue, req({ tokenId: NO, side: 'BUY', price: 4800, size: 500 }));
  venue.onMarketEvent(trade(YES, 'BUY', 5200, 5000, printTs));
  expect(trades()).toHaveLength(0);
  venue.onMarketEvent(trade(YES, 'BUY', 5300, 200, laterTs));
  expect(trades().map((t) => [t.makerOrders[0].orderId, t.size])).toEqual([[id, 200]]);
}

describe('SimulatedVenue: a trade printed after our order joined, but made before it', () => {
  // The real feed sends the book update first and prints the trade up to ~200 ms later, with the
  // update's timestamp: an order that joined in between saw the level the trade had already left,
  // and the trade is not one it could have met.
  it('the level emptied at 100, our bid joins, then the print of that trade (timestamp 100): no fill; a trade of 101 fills', async () => {
    const { venue, trades } = setup();
    venue.onMarketEvent(change(YES, 'BUY', 5000, 0, 100));
    const id = await placeLive(venue, req({ side: 'BUY', price: 5000, size: 1000 }));
    expect(venue.queuePosition(id)).toBe(0);
    venue.onMarketEvent(trade(YES, 'SELL', 5000, 10000, 100));
    venue.onMarketEvent(trade(YES, 'SELL', 4900, 10000, 100)); // its sweep on through 0.49, the same trade
    expect(trades()).toHaveLength(0);
    venue.onMarketEvent(trade(YES, 'SELL', 5000, 300, 101));
    expect(trades().map((t) => [t.makerOrders[0].orderId, t.size])).toEqual([[id, 300]]);
  });

  it('the same for our order on the other token, which the trade meets at 1 - p', () => madeBeforeOnOtherToken(100, 150));
});

describe('SimulatedVenue: the print of a trade comes after its book update, with a later timestamp', () => {
  // py-clob-client-v2 issue #117 (a real recording): a book's hash held the last trade price of a
  // trade printed 88 ms later, whose own timestamp was 67 ms after the book's. An order that joined
  // in between saw the book the trade had already left: the print is not a trade it could meet.
  it('the 0.50 bids emptied at 100, our bid joins, the print comes stamped 167: no fill; a trade past the window fills', async () => {
    const { venue, trades } = setup();
    venue.onMarketEvent(change(YES, 'BUY', 5000, 0, 100));
    const id = await placeLive(venue, req({ side: 'BUY', price: 5000, size: 1000 }));
    expect(venue.queuePosition(id)).toBe(0);
    venue.onMarketEvent(trade(YES, 'SELL', 5000, 10000, 167));
    expect(trades()).toHaveLength(0);
    venue.onMarketEvent(trade(YES, 'SELL', 5000, 300, 100 + PAIR_WINDOW_MS + 1));
    expect(trades().map((t) => [t.makerOrders[0].orderId, t.size])).toEqual([[id, 300]]);
  });

  it('only what the level lost before we joined is that trade: a print larger than it reaches us with the rest', async () => {
    const { venue, trades } = setup();
    venue.onMarketEvent(change(YES, 'BUY', 5000, 6000, 100)); // 40 of the 100 shares gone
    const id = await placeLive(venue, req({ side: 'BUY', price: 5000, size: 5000 }));
    expect(venue.queuePosition(id)).toBe(6000);
    // 40 printed late (the update's), then 70 new: 60 ahead of us, 10 to us (not 50)
    venue.onMarketEvent(trade(YES, 'SELL', 5000, 4000 + 7000, 167));
    expect(trades().map((t) => [t.makerOrders[0].orderId, t.size])).toEqual([[id, 1000]]);
  });

  it('a sweep the book showed before we joined does not trade through our better bid when printed at its last price', async () => {
    const { venue, trades } = setup();
    // the bids at 0.50 and 0.49 both gone in one update (a taker sold through them)
    venue.onMarketEvent(changes(100, [YES, 'BUY', 5000, 0], [YES, 'BUY', 4900, 0]));
    const id = await placeLive(venue, req({ side: 'BUY', price: 5000, size: 1000 }));
    venue.onMarketEvent(trade(YES, 'SELL', 4900, 20000, 167));
    expect(trades()).toHaveLength(0);
    // a new sell through 0.49 later fills us
    venue.onMarketEvent(trade(YES, 'SELL', 4900, 500, 900));
    expect(trades().map((t) => [t.makerOrders[0].orderId, t.size])).toEqual([[id, 500]]);
  });

  it('the same for our order on the other token, which the trade meets at 1 - p', () => madeBeforeOnOtherToken(167, 900));

  it('through our better bid, only what a print has beyond the fall its level showed before we joined is new', async () => {
    const { venue, trades } = setup();
    venue.onMarketEvent(change(YES, 'BUY', 4900, 19000, 100)); // 10 shares cancelled at 0.49
    const id = await placeLive(venue, req({ side: 'BUY', price: 5100, size: 30000 }));
    // 300 sold at 0.49: at most 10 of them are that fall, the other 290 sold through our 0.51 first
    venue.onMarketEvent(trade(YES, 'SELL', 4900, 30000, 150));
    expect(trades().map((t) => [t.makerOrders[0].orderId, t.size])).toEqual([[id, 29000]]);
  });

  it('what the level fell by before we joined is taken out of the prints after it once, in total', async () => {
    const { venue, trades } = setup();
    venue.onMarketEvent(change(YES, 'BUY', 5000, 5000, 200));
    venue.onMarketEvent(change(YES, 'BUY', 5000, 0, 300)); // 100 shares gone in two falls
    const id = await placeLive(venue, req({ side: 'BUY', price: 5000, size: 1000 }));
    expect(venue.queuePosition(id)).toBe(0);
    // both falls' prints come after we joined: trades made before, neither fills us
    venue.onMarketEvent(trade(YES, 'SELL', 5000, 5000, 330));
    venue.onMarketEvent(trade(YES, 'SELL', 5000, 3000, 380));
    expect(trades()).toHaveLength(0);
    // 20 of the 100 left to be taken as those falls, then the rest of this print reaches us
    venue.onMarketEvent(trade(YES, 'SELL', 5000, 3000, 420));
    expect(trades().map((t) => [t.makerOrders[0].orderId, t.size])).toEqual([[id, 1000]]);
  });

  it('a decrease a print had already explained (printed first) is not held against a later order', async () => {
    const { venue, trades } = setup();
    // print first, then its update: the level's fall is that print's, not an unexplained one
    venue.onMarketEvent(trade(YES, 'SELL', 5000, 10000, 100));
    venue.onMarketEvent(change(YES, 'BUY', 5000, 0, 100));
    const id = await placeLive(venue, req({ side: 'BUY', price: 5000, size: 1000 }));
    venue.onMarketEvent(trade(YES, 'SELL', 5000, 400, 150));
    expect(trades().map((t) => [t.makerOrders[0].orderId, t.size])).toEqual([[id, 400]]);
  });

  it('an order resting before the update still fills from the late print (the update and the print are one trade)', async () => {
    const { venue, trades } = setup();
    const id = await placeLive(venue, req({ side: 'BUY', price: 5000, size: 1000 }));
    expect(venue.queuePosition(id)).toBe(10000);
    // the taker sold 105 shares: the 100 ahead of us, then 5 of ours; the book shows the 100 gone
    venue.onMarketEvent(change(YES, 'BUY', 5000, 0, 100));
    venue.onMarketEvent(trade(YES, 'SELL', 5000, 10500, 167));
    expect(trades().map((t) => [t.makerOrders[0].orderId, t.size])).toEqual([[id, 500]]);
  });
});

describe('SimulatedVenue latency, cancels and expiry', () => {
  it('an order cannot fill before the entry latency; the result resolves when it reaches the book', async () => {
    const { clock, venue, trades } = setup({ orderLatencyMs: 50 });
    let settled = false;
    const p = venue.placeOrder(req({ side: 'BUY', price: 5000, size: 500 })).then((r) => ((settled = true), r));
    clock.advanceTo(clock.now() + 20);
    venue.onMarketEvent(trade(YES, 'SELL', 4900, 1000)); // trades through 0.50 before we are there
    await Promise.resolve();
    expect(settled).toBe(false);
    expect(trades()).toHaveLength(0);
    clock.advanceTo(clock.now() + 30);
    const r = await p;
    expect(r).toMatchObject({ ok: true, status: 'live' });
    venue.onMarketEvent(trade(YES, 'SELL', 4900, 1000));
    expect(trades()).toHaveLength(1);
  });

  it('a fill during the cancel latency is delivered; the cancel then finds nothing left', async () => {
    const { clock, venue, trades, events } = setup({ cancelLatencyMs: 50 });
    const id = await placeLive(venue, req({ side: 'BUY', price: 5000, size: 500 }));
    const pc = venue.cancelOrder(id);
    clock.advanceTo(clock.now() + 10);
    venue.onMarketEvent(trade(YES, 'SELL', 4900, 500));
    expect(trades()).toHaveLength(1);
    clock.advanceTo(clock.now() + 40);
    expect(await pc).toEqual({ canceled: [], notCanceled: { [id]: 'order already matched' } });
    expect(events.some((e) => e.type === 'order' && e.kind === 'CANCELLATION')).toBe(false);
  });

  it('a partial fill during the cancel latency is delivered; the cancel removes the rest', async () => {
    const { clock, venue, trades, events } = setup({ cancelLatencyMs: 50, queueModel: false });
    const id = await placeLive(venue, req({ side: 'BUY', price: 5000, size: 1000 }));
    const pc = venue.cancelOrder(id);
    clock.advanceTo(clock.now() + 49);
    venue.onMarketEvent(trade(YES, 'SELL', 5000, 300));
    expect(trades().map((t) => t.size)).toEqual([300]);
    clock.advanceTo(clock.now() + 1);
    expect(await pc).toEqual({ canceled: [id], notCanceled: {} });
    expect(events.at(-1)).toMatchObject({ type: 'order', kind: 'CANCELLATION', orderId: id, sizeMatched: 300, status: 'CANCELED' });
    venue.onMarketEvent(trade(YES, 'SELL', 4000, 5000));
    expect(trades()).toHaveLength(1);
  });

  it('cancels by id, by market and all, after the latency', async () => {
    const { clock, venue, events } = setup({ cancelLatencyMs: 5 });
    const a = await placeLive(venue, req({ side: 'BUY', price: 4000, size: 500 }));
    const b = await placeLive(venue, req({ side: 'BUY', price: 4100, size: 500 }));
    const c = await placeLive(venue, req({ tokenId: NO, side: 'BUY', price: 4000, size: 500 }));
    const p1 = venue.cancelOrders([a, 'unknown']);
    expect((await venue.openOrders()).length).toBe(3);
    clock.advanceTo(clock.now() + 5);
    expect(await p1).toEqual({ canceled: [a], notCanceled: { unknown: 'order not found' } });
    const p2 = venue.cancelMarket('other-market');
    const p3 = venue.cancelMarket(M);
    clock.advanceTo(clock.now() + 5);
    expect((await p2).canceled).toEqual([]);
    expect((await p3).canceled).toEqual([b, c]);
    const cancels = events.filter((e) => e.type === 'order' && e.kind === 'CANCELLATION').map((e) => (e.type === 'order' ? e.orderId : ''));
    expect(cancels).toEqual([a, b, c]);
    venue.holdShares(YES, 500);
    const d = await placeLive(venue, req({ side: 'SELL', price: 6000, size: 500 }));
    const p4 = venue.cancelAll();
    clock.advanceTo(clock.now() + 5);
    expect(await p4).toEqual({ canceled: [d], notCanceled: {} });
    expect(await venue.openOrders()).toEqual([]);
  });

  it('expires a GTD order at its expiry on the clock', async () => {
    const { clock, venue, events } = setup();
    const expSec = Math.floor(clock.now() / 1000) + 60;
    const id = await placeLive(venue, req({ side: 'BUY', price: 4000, size: 500, orderType: 'GTD', expirationSec: expSec }));
    clock.advanceTo(expSec * 1000 - 1);
    expect(venue.order(id)?.status).toBe('LIVE');
    clock.advanceTo(expSec * 1000);
    expect(venue.order(id)?.status).toBe('CANCELED');
    expect(events.at(-1)).toMatchObject({ type: 'order', kind: 'CANCELLATION', orderId: id });
  });

  it('close settles pending requests', async () => {
    const { venue } = setup({ orderLatencyMs: 50 });
    const p = venue.placeOrder(req({ side: 'BUY', price: 4000, size: 500 }));
    await venue.close();
    expect(await p).toMatchObject({ ok: false, error: 'MARKET_NOT_READY' });
  });
});

describe('SimulatedVenue determinism', () => {
  it('the same event sequence gives the same fills', async () => {
    const runOnce = async () => {
      const { clock, venue } = setup({ orderLatencyMs: 10, makerFeeBps: 5 });
      for (let i = 0; i < 40; i++) {
        const p = venue.placeOrder(req({ clientId: `d${i}`, side: i % 2 ? 'BUY' : 'SELL', price: i % 2 ? 5000 - (i % 3) * 100 : 5200 + (i % 3) * 100, size: 500 + i * 10 }));
        clock.advanceTo(clock.now() + 10);
        await p;
        venue.onMarketEvent(trade(YES, i % 2 ? 'SELL' : 'BUY', i % 2 ? 5000 : 5200, 3000));
        venue.onMarketEvent(change(YES, i % 2 ? 'BUY' : 'SELL', i % 2 ? 5000 : 5200, 8000 - i * 100));
      }
      return venue.fills().map((f) => `${f.tradeId}:${f.orderId}:${f.price}:${f.size}:${f.timeMs}`);
    };
    const a = await runOnce();
    expect(a.length).toBeGreaterThan(5);
    expect(await runOnce()).toEqual(a);
  });
});

describe('SimulatedVenue: our orders on both tokens in one queue', () => {
  // found in review: each order's queue counted only the outside volume ahead of it, so a YES BUY
  // at p and a NO SELL at 1 - p behind it (the same queue) were filled 30 + 50 from a 100-share
  // trade with 50 outside shares between them: 130 from 100
  /** Our YES BUY 30 at 0.51, 50 outside shares behind it (the YES bid and its mirror, the NO ask at 0.49), then our NO SELL 100 at 0.49. */
  async function queued() {
    const { venue, trades } = setup();
    venue.holdShares(NO, 10000);
    const yesBid = await placeLive(venue, req({ tokenId: YES, side: 'BUY', price: 5100, size: 3000 }));
    venue.onMarketEvent(changes(1, [YES, 'BUY', 5100, 5000], [NO, 'SELL', 4900, 5000]));
    const noAsk = await placeLive(venue, req({ tokenId: NO, side: 'SELL', price: 4900, size: 10000 }));
    return { venue, trades, yesBid, noAsk };
  }

  it('share a trade in their queue order: what an earlier one of ours took does not reach a later one', async () => {
    const { venue, trades, yesBid, noAsk } = await queued();
    // a taker sells 100 YES at 0.51: ours 30, the outside 50, then 20 of our NO ask
    venue.onMarketEvent(trade(YES, 'SELL', 5100, 10000, 2));
    expect(venue.order(yesBid)?.sizeMatched).toBe(3000);
    expect(venue.order(noAsk)?.sizeMatched).toBe(2000);
    expect(trades().reduce((s, t) => s + t.size, 0)).toBe(5000);
  });

  it('in their queue order whichever token the venue printed the trade on', async () => {
    const { venue, yesBid, noAsk } = await queued();
    // the same 100 shares printed as a taker BUY of NO at 0.49 (the later order's token)
    venue.onMarketEvent(trade(NO, 'BUY', 4900, 10000, 2));
    expect(venue.order(yesBid)?.sizeMatched).toBe(3000);
    expect(venue.order(noAsk)?.sizeMatched).toBe(2000);
  });
});

describe('SimulatedVenue: our user channel lags as the market channel does', () => {
  // found in review: market data reached the strategy sim.feedLatencyMs after the venue, but its
  // fills at once, a head start of the feed latency on every fill
  it('a fill reaches the listeners sim.feedLatencyMs after the venue made it (from the config); at once with no latency', async () => {
    for (const lat of [0, 200]) {
      const clock = new VirtualClock(1_000_000);
      const cfg = loadConfig({ env: {}, overrides: { sim: { feedLatencyMs: lat, orderLatencyMs: 0, cancelLatencyMs: 0, makerFeeBps: 0, takerFeeBps: 0 } } });
      const venue = simulatedVenueFromConfig(cfg.sim, clock, [{ conditionId: M, tokens: [YES, NO], tick: 100, minSize: 500 }]);
      const seen: Array<[string, number]> = [];
      venue.onUserEvent((e) => seen.push([e.type, clock.now()]));
      venue.onMarketEvent(book(YES, [[5000, 10000]], [[5200, 5000]]));
      const res = await venue.placeOrder(req({ tokenId: YES, side: 'BUY', price: 5000, size: 1000 }));
      expect(res).toMatchObject({ ok: true, status: 'live' });
      const placedAt = clock.now();
      seen.length = 0;
      const t = clock.now();
      venue.onMarketEvent(trade(YES, 'SELL', 4900, 20000, 5));
      const trades = () => seen.filter(([k]) => k === 'trade');
      const times = () => [...new Set(trades().map(([, at]) => at))];
      if (lat === 0) expect(times()).toEqual([t]);
      else {
        expect(trades()).toEqual([]);
        clock.advanceTo(t + lat - 1);
        expect(trades()).toEqual([]);
        clock.advanceTo(t + lat);
        expect(times()).toEqual([t + lat]);
      }
      expect(placedAt).toBe(t);
      // one on its way when the venue closes reaches nobody (a stopped paper engine, its store closed)
      if (lat > 0) {
        const n = seen.length;
        venue.onMarketEvent(trade(YES, 'SELL', 4900, 20000, 6));
        await venue.placeOrder(req({ tokenId: YES, side: 'BUY', price: 5000, size: 1000 }));
        await venue.close();
        clock.advanceTo(clock.now() + lat * 10);
        expect(seen).toHaveLength(n);
      }
    }
  });
});
