// Size the venue lists as matched whose trade has not come (TrackedOrder.unseen: a look-up's order
// list shows size_matched ahead of our trades) is in `filled` but not yet out of the position. Found
// in review: the BUY side counted it (sizeToCome) and the SELL side did not (size - filled), so
// holding 10 with a SELL of 10 listed 6 matched, the gate and the sell cover saw 4 promised of 10
// held and let a new SELL of 6 go to the venue, which refused it for balance (only 4 were left).
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/log.js';
import { OrderTracker, type TrackedOrder } from '../../src/engine/orders.js';
import { Positions } from '../../src/engine/positions.js';
import { RiskGate } from '../../src/engine/risk.js';
import { riskInputs, sellsCovered } from '../../src/engine/risk-inputs.js';
import type { Quote } from '../../src/engine/strategy.js';
import { reconcileWithVenue } from '../../src/session/startup.js';
import type { OrderRequest, VenueOrder } from '../../src/venue/types.js';
import { GATE_MARKET, M, RecordingVenue, Y, bandsEngine, books, deliver, makerTrade, refusedForBalance, riskConfig, settle } from './helpers.js';

const cfg = riskConfig();
const m = GATE_MARKET;

/** A tracker and positions holding `held` of each token given, with the risk inputs over them. */
function state(held: Record<string, number>) {
  const tr = new OrderTracker();
  const pos = new Positions();
  for (const [t, n] of Object.entries(held)) pos.apply(t, 'BUY', 5000, n, 0);
  const s = riskInputs(
    tr,
    pos,
    () => 5000,
    () => 0,
  );
  let n = 0;
  /** An order of ours resting at the venue. */
  const rest = (tokenId: string, side: 'BUY' | 'SELL', size: number, price = 5000): TrackedOrder => {
    const clientId = `c${n++}`;
    const o = tr.create({ clientId, tokenId, market: 'm', side, price, size, createdMs: 0 });
    tr.placeResult({ clientId, ok: true, orderId: `o${clientId}`, status: 'live' }, 0);
    return o;
  };
  return { tr, pos, s, rest };
}

describe('risk: a SELL listed as matched before its trade came still promises (has sold) those shares', () => {
  it('holding 10 with a SELL of 10 listed 6 matched: no new SELL of 6 (the gate and the sell cover)', () => {
    const { tr, s, rest } = state({ Y: 1000 });
    const sell = rest('Y', 'SELL', 1000, 5200);
    tr.matchedAtLeast(sell, 600, 1);
    expect([sell.filled, sell.unseen, sell.state]).toEqual([600, 600, 'partially_filled']);
    // 6 sold (trade to come) and 4 resting: all 10 gone or promised
    expect(s.openSell('Y')).toBe(1000);
    const g = new RiskGate(cfg, silentLogger);
    g.begin();
    const q: Quote = { tokenId: 'Y', side: 'SELL', price: 5300, size: 600 };
    expect(g.checkPlace(q, m, s, 0)).toBe('sell_exceeds_position');
    expect(sellsCovered(tr, () => 1000, [q], [])).toEqual([false]);
    // its trade comes: the position has it, the order no longer counts it twice
    tr.applyFill(sell.orderId!, 600, 2);
    expect(s.openSell('Y')).toBe(400);
  });

  it('a SELL being cancelled still counts its unseen size (sold, not a promise a replacement makes again)', () => {
    const { tr, s, rest } = state({ Y: 1000 });
    const sell = rest('Y', 'SELL', 1000, 5200);
    tr.matchedAtLeast(sell, 600, 1);
    tr.cancelSent(sell, 2);
    // its 4 resting are on their way out (a replacement may promise them); its 6 sold are not there to promise
    expect(s.openSell('Y')).toBe(600);
    const g = new RiskGate(cfg, silentLogger);
    g.begin();
    expect(g.checkPlace({ tokenId: 'Y', side: 'SELL', price: 5300, size: 1000 }, m, s, 0)).toBe('sell_exceeds_position');
    g.begin();
    expect(g.checkPlace({ tokenId: 'Y', side: 'SELL', price: 5300, size: 400 }, m, s, 0)).toBeUndefined();
  });

  it('the market net of a BUY of the other token: the NO sold unseen is no hedge', () => {
    // 10 NO held, a SELL of all 10 listed 6 matched: NO may come to 0, so a BUY of 10 YES nets 10
    const { tr, s, rest } = state({ N: 1000 });
    const sell = rest('N', 'SELL', 1000, 5200);
    tr.matchedAtLeast(sell, 600, 1);
    const g = new RiskGate({ ...cfg, maxPositionPerMarket: 8 }, silentLogger);
    g.begin();
    expect(g.checkPlace({ tokenId: 'Y', side: 'BUY', price: 4800, size: 1000 }, m, s, 0)).toBe('max_position_market');
    g.begin();
    expect(g.checkPlace({ tokenId: 'Y', side: 'BUY', price: 4800, size: 800 }, m, s, 0)).toBeUndefined();
  });

  it('the market net of a SELL: the shares sold unseen lower the least the token may come to', () => {
    // 20 YES held, a SELL of 10 listed 6 matched, a BUY of 15 NO resting, net limit 10: YES may come
    // to 10 and NO to 15 (net -5); a SELL of 6 more YES takes it to -11
    const { tr, s, rest } = state({ Y: 2000 });
    const sell = rest('Y', 'SELL', 1000, 5200);
    rest('N', 'BUY', 1500, 4800);
    tr.matchedAtLeast(sell, 600, 1);
    const g = new RiskGate({ ...cfg, maxPositionPerMarket: 10 }, silentLogger);
    g.begin();
    expect(g.checkPlace({ tokenId: 'Y', side: 'SELL', price: 5300, size: 600 }, m, s, 0)).toBe('max_position_market');
    g.begin();
    expect(g.checkPlace({ tokenId: 'Y', side: 'SELL', price: 5300, size: 500 }, m, s, 0)).toBeUndefined();
  });
});

/**
 * Plays the venue's balance check on SELLs of YES: what its resting SELLs of YES still promise (the
 * size less what it matched: `matched` by order id) and the new one within `held()`, or refused for
 * balance. Returns the refused requests.
 */
function checkSellBalance(venue: RecordingVenue, held: () => number, matched: Map<string, number>): OrderRequest[] {
  const refused: OrderRequest[] = [];
  const answer = venue.answer;
  let batch = 0;
  venue.answer = (r) => {
    if (r.side !== 'SELL' || r.tokenId !== Y) return answer(r);
    let resting = 0;
    for (const [id, o] of venue.live) if (o.side === 'SELL' && o.tokenId === Y) resting += o.size - (matched.get(id) ?? 0);
    if (resting + batch + r.size > held()) {
      refused.push(r);
      return refusedForBalance(r);
    }
    batch += r.size;
    return answer(r);
  };
  // a batch's answers come before its orders rest (RecordingVenue): the batch's SELLs so far count too
  const placeOrders = venue.placeOrders.bind(venue);
  venue.placeOrders = (reqs) => {
    batch = 0;
    return placeOrders(reqs);
  };
  const placeOrder = venue.placeOrder.bind(venue);
  venue.placeOrder = (req) => {
    batch = 0;
    return placeOrder(req);
  };
  return refused;
}

/** The venue's order list showing `o` (a SELL of ours) with `sizeMatched` of it matched; its trade list empty. */
function listedMatched(venue: RecordingVenue, o: TrackedOrder, sizeMatched: number): void {
  const vo: VenueOrder = { orderId: o.orderId!, tokenId: o.tokenId, market: M, side: o.side, price: o.price, originalSize: o.size, sizeMatched, status: 'LIVE', orderType: 'GTC', createdAtMs: 1 };
  venue.openOrders = async () => [vo];
  venue.trades = async () => [];
}

/**
 * An engine holding 10 Y that rests one SELL of all 10 at 0.52 (its strategy's quote() is the
 * caller's to set after), against a venue whose balance check takes out what `matched` says the
 * venue matched of our SELLs.
 */
async function sellingTen() {
  const clock = new VirtualClock(1_700_000_000_000);
  const venue = new RecordingVenue(() => clock.now());
  const { engine, mirror } = await bandsEngine({ clock, venue, params: { fair: 'mid', bands: [{ distance: 0.02, size: 10 }], skewPerShare: 0 } });
  engine.positions.apply(Y, 'BUY', 5000, 1000, 0);
  const matched = new Map<string, number>();
  const refused = checkSellBalance(venue, () => 1000 - [...matched.values()].reduce((a, b) => a + b, 0), matched);
  engine.marketOf(Y)!.strategy.quote = () => [{ tokenId: Y, side: 'SELL', price: 5200, size: 1000 }];
  deliver(mirror, engine, books(4900, 5100, clock.now()));
  engine.start();
  await settle(10);
  const sell = [...engine.orders.open()].find((o) => o.tokenId === Y && o.side === 'SELL')!;
  return { clock, venue, engine, mirror, matched, refused, sell };
}

describe('engine: a look-up lists our SELL as partly matched, its trade not come', () => {
  it('holding 10 with a SELL of 10 listed 5 matched: a second SELL of 5 is not sent (the venue would refuse it for balance)', async () => {
    const { clock, venue, engine, mirror, matched, refused, sell } = await sellingTen();
    let quotes: Quote[] = [{ tokenId: Y, side: 'SELL', price: 5200, size: 1000 }];
    engine.marketOf(Y)!.strategy.quote = () => quotes;
    expect(sell?.state).toBe('live');
    matched.set(sell.orderId!, 500);
    listedMatched(venue, sell, 500);
    await reconcileWithVenue(engine, venue, 0, silentLogger);
    expect([sell.filled, sell.unseen, sell.state]).toEqual([500, 500, 'partially_filled']);
    // the strategy keeps what rests (5) and asks for 5 more a cent higher
    quotes = [
      { tokenId: Y, side: 'SELL', price: 5200, size: 500 },
      { tokenId: Y, side: 'SELL', price: 5300, size: 500 },
    ];
    venue.calls.length = 0;
    clock.advanceTo(clock.now() + 100);
    deliver(mirror, engine, books(4800, 5000, clock.now()));
    await settle(10);
    expect(refused).toEqual([]);
    expect(venue.calls.flatMap((c) => c.reqs ?? []).filter((r) => r.side === 'SELL')).toEqual([]);
    expect(engine.risk.blocks.get('sell_exceeds_position')).toBeGreaterThanOrEqual(1);
    expect(sell.state).toBe('partially_filled');
    await engine.stop();
  });

  it('holding 10 with a SELL of 10 listed 6 matched, then cancelled: its 6 stay sold until the trade comes (no SELL of 10 meanwhile)', async () => {
    const { clock, venue, engine, mirror, matched, refused, sell } = await sellingTen();
    let quotes: Quote[] = [{ tokenId: Y, side: 'SELL', price: 5200, size: 1000 }];
    engine.marketOf(Y)!.strategy.quote = () => quotes;
    matched.set(sell.orderId!, 600);
    listedMatched(venue, sell, 600);
    await reconcileWithVenue(engine, venue, 0, silentLogger);
    expect([sell.filled, sell.unseen]).toEqual([600, 600]);
    // the strategy pulls its SELL: the cancel lands (4 were still open)
    quotes = [];
    clock.advanceTo(clock.now() + 100);
    deliver(mirror, engine, books(4900, 5100, clock.now()));
    await settle(10);
    expect(sell.state).toBe('canceled');
    // and asks for all 10 again, a cent higher: only the 4 left may be offered
    quotes = [{ tokenId: Y, side: 'SELL', price: 5300, size: 1000 }];
    venue.calls.length = 0;
    clock.advanceTo(clock.now() + 100);
    deliver(mirror, engine, books(4800, 5000, clock.now()));
    await settle(10);
    expect(refused).toEqual([]);
    expect(venue.calls.flatMap((c) => c.reqs ?? []).filter((r) => r.side === 'SELL')).toEqual([]);
    expect(engine.unreportedSells.shares(Y)).toBe(600);
    // the trade comes in two parts: the position has the 6 and the hold goes with them, part by part
    engine.handleUserEvent(makerTrade('t-unseen-1', sell.orderId!, 'SELL', 'CONFIRMED', clock.now(), { price: 5200, size: 200 }));
    expect(engine.unreportedSells.shares(Y)).toBe(400);
    engine.handleUserEvent(makerTrade('t-unseen-2', sell.orderId!, 'SELL', 'CONFIRMED', clock.now(), { price: 5200, size: 400 }));
    expect(engine.positions.qty(Y)).toBe(400);
    expect(engine.unreportedSells.shares(Y)).toBe(0);
    await engine.stop();
  });

  it('holding 16 with a SELL of 10 listed 6 matched: its replacement waits for the cancel (the shares do not cover both)', async () => {
    const clock = new VirtualClock(1_700_000_000_000);
    const venue = new RecordingVenue(() => clock.now());
    const { engine, mirror } = await bandsEngine({ clock, venue, params: { fair: 'mid', bands: [{ distance: 0.02, size: 10 }], skewPerShare: 0 } });
    engine.positions.apply(Y, 'BUY', 5000, 1600, 0);
    const matched = new Map<string, number>();
    const refused = checkSellBalance(venue, () => 1600 - [...matched.values()].reduce((a, b) => a + b, 0), matched);
    deliver(mirror, engine, books(4900, 5100, clock.now()));
    engine.start();
    await settle(10);
    const sells = () => [...engine.orders.open()].filter((o) => o.tokenId === Y && o.side === 'SELL');
    expect(sells().map((o) => [o.price, o.size, o.state])).toEqual([[5200, 1000, 'live']]);
    const sell = sells()[0];
    matched.set(sell.orderId!, 600);
    listedMatched(venue, sell, 600);
    await reconcileWithVenue(engine, venue, 0, silentLogger);
    expect([sell.filled, sell.unseen]).toEqual([600, 600]);
    venue.calls.length = 0;
    clock.advanceTo(clock.now() + 100);
    deliver(mirror, engine, books(5000, 5200, clock.now()));
    await settle(20);
    // 10 left at the venue, 4 of them in the old SELL: the new SELL of 10 goes once its cancel has landed
    expect(refused).toEqual([]);
    const kinds = venue.calls.map((c) => (c.kind === 'cancelOrders' ? 'cancel' : (c.reqs ?? []).some((r) => r.side === 'SELL') ? 'place+sell' : 'place'));
    expect(kinds.indexOf('cancel')).toBeGreaterThanOrEqual(0);
    expect(kinds.indexOf('place+sell')).toBeGreaterThan(kinds.indexOf('cancel'));
    expect(sells().map((o) => o.price)).toEqual([5300]);
    await engine.stop();
  });
});

describe('the collateral an open BUY promises counts its matched size whose trade has not come (found in review)', () => {
  it('a BUY of 20 at 0.50 listed 10 matched still promises $10 until the trade comes: then the fill is spent, the promise $5', () => {
    const { tr, rest } = state({});
    const o = rest('Y', 'BUY', 2000);
    expect(tr.openBuyCost()).toBe(5000 * 2000);
    // the order event (or a look-up's list) says 10 matched before the trade
    tr.matchedAtLeast(o, 1000, 1);
    expect(o.state).toBe('partially_filled');
    // not free for another BUY: the $5 of the match is not yet in Positions.spent
    expect(tr.openBuyCost()).toBe(5000 * 2000);
    // the trade comes: the fill is spent (positions), the promise what still rests
    tr.applyFill(o.orderId as string, 1000, 2);
    expect(tr.openBuyCost()).toBe(5000 * 1000);
    // cancelled: nothing promised
    tr.cancelSent(o, 3);
    tr.canceled(o.orderId as string, 4);
    expect(tr.openBuyCost()).toBe(0);
  });
});
