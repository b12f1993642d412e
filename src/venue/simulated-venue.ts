// The simulated venue for paper and backtest: our orders rest among EXTERNAL liquidity that
// arrives as market events (live feed or recording) and that our orders cannot change. Fills come
// from the queue model (queue-model.ts), trade-throughs and quote-throughs; marketable orders take
// the visible levels. Time and latencies run on the Clock it is given, so a backtest is
// deterministic (no randomness is involved).
//
// Decisions (documented for the engine and the backtest driver):
// - Feed latency is NOT applied here: onMarketEvent(e) is the exchange's true view at clock time.
//   The driver delivers events to the strategy sim.feedLatencyMs later (our view lags the venue);
//   our user events reach their listeners userLatencyMs later (the same feedLatencyMs from config).
// - placeOrders/cancel* resolve after orderLatencyMs / cancelLatencyMs on the clock, when the
//   venue has acted (0 ms: synchronously). With a VirtualClock the driver advances the clock.
// - Work is per token: each token's book comes from that token's own events; a BUY of the second
//   token fills from the second token's book and is reported on that token. A token whose first
//   event is a price change (captures may snapshot one token only) is seeded from the mirror of
//   its sibling's book, as the book mirror does.
// - Our marketable orders take up to the visible size at each level (price-walking) without
//   changing the external book; an overlay (sim-book.ts) hides what we took, on the other token's
//   book too (its level at 1 - p, the other side, holds the same orders). The recording never
//   shows our take, so the feed's later updates of those levels are read against it: a decrease
//   uses up what we took first, an increase is fresh size beside it (snapshots likewise).
// - Our own orders do not trade with each other; in one queue (either token's) a trade reaches a
//   later one of ours past what an earlier one took.
// - Events, synchronously from the clock callback: a resting order gets PLACEMENT (LIVE, with any
//   size it took on arrival), UPDATE after each maker fill, CANCELLATION on cancel or GTD expiry.
//   Each fill is a trade event MATCHED, then CONFIRMED settleMs later (at once when 0: the engine
//   sells the shares of a BUY only once its trade is settled); taking fills (one per level walked)
//   have no order event of their own. A trade through our orders' prices fills them best price
//   first, up to the trade's size (the taker would have met them first, for no more than it
//   traded), before ours at its price; a trade printed with a timestamp no later than the feed's
//   latest when an order joined was made before it, and fills it nothing. External liquidity crossing a resting order (a quote-through) meets it up to the size those
//   levels show beyond what we took, at the order's price, and is then taken as ours.
// - Queue position (queue-model.ts) is fed the feed's timestamps: a trade in the timestamp of a
//   level decrease shown before it is that decrease, not a second one.
// - Fees: a market with a fee rule (SimMarket.feeRule, from its metadata) charges our TAKER fills
//   the rule (core/fees.ts ruleFeeMicros) and our MAKER fills nothing, as the venue does; a fill's
//   feeRateBps is then the effective rate on its notional (effectiveFeeRateBps), so the engine's
//   feeMicros(price, size, feeRateBps) books the same amount. A market without one charges the
//   flat makerFeeBps / takerFeeBps on notional (units.ts feeMicros), as before.
// - Balances, as the venue checks them: a SELL needs settled shares (a BUY's count from its
//   CONFIRMED; holdShares for those held before) its token's resting SELLs do not promise already;
//   a BUY, with cashMicros, collateral its resting BUYs leave.
import type { Config } from '../config.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import type { MarketEvent, Side, UserEvent } from '../core/events.js';
import type { MarketSpec, RejectCode } from './matching-api.js';
import { LatencyGate } from './latency.js';
import { IdMemory, validateOrder } from './matching-validate.js';
import { PAIR_WINDOW_MS, QueueTracker } from './queue-model.js';
import { RecentDecreases } from './recent-decreases.js';
import { SimBook } from './sim-book.js';
import { SimLedger, type SimStats } from './sim-ledger.js';

export type { SimStats };
import { PRICE_SCALE, feeMicros } from '../core/units.js';
import { effectiveFeeRateBps, isFeeRule, ruleFeeMicros, type FeeRule } from '../core/fees.js';
import { opposite, orderEvent, tradeEvent, type SimFill, type SimOrder } from './sim-events.js';
import type { CancelResult, OrderRequest, PlaceResult, Venue, VenueOrder, VenueTrade } from './types.js';

export interface SimMarket extends MarketSpec {
  /** Outcome names reported in events, per token; default ['Yes', 'No']. */
  outcomes?: [string, string];
  /** The market's fee rule (its metadata's); without one the flat maker/taker bps apply. */
  feeRule?: FeeRule;
}

/** The simulated venue's market of an engine market (MarketMeta: tokens, tick, minimum size, fee rule). */
export function simMarketOf(m: { conditionId: string; tokenId: string; complementId: string; tick: number; minSize: number; feeRule?: FeeRule }): SimMarket {
  const s: SimMarket = { conditionId: m.conditionId, tokens: [m.tokenId, m.complementId], tick: m.tick, minSize: m.minSize };
  if (m.feeRule) s.feeRule = m.feeRule;
  return s;
}

export interface SimulatedVenueOptions {
  clock: Clock;
  markets: SimMarket[];
  orderLatencyMs: number;
  cancelLatencyMs: number;
  /**
   * Our user channel's lag: order and trade events reach the listeners this long after the venue
   * made them (default 0: at once). simulatedVenueFromConfig sets sim.feedLatencyMs, the market
   * channel's, so a strategy gets no head start on its own fills.
   */
  userLatencyMs?: number;
  /** From a fill's MATCHED to its CONFIRMED on the clock (default 0: at once). */
  settleMs?: number;
  makerFeeBps: number;
  takerFeeBps: number;
  /** false: an order joins at the front of its level (fills on any trade at its price). */
  queueModel?: boolean;
  /** Reported as the owner in user events. */
  owner?: string;
  /** Prefix of our order and trade ids (deterministic counters). */
  idPrefix?: string;
  logger?: Logger;
  /** How many done orders, client ids and fills are remembered (default 100,000). */
  historyLimit?: number;
  /**
   * Our collateral at the start, micro-dollars: a BUY whose cost with every resting BUY's exceeds
   * the collateral left is refused INVALID_ORDER_NOT_ENOUGH_BALANCE, as the venue does, and
   * collateral() reads it. Undefined: unlimited, no collateral read.
   */
  cashMicros?: number;
  /**
   * Refuse a SELL beyond our settled shares of its token, less what its resting SELLs promise
   * (INVALID_ORDER_NOT_ENOUGH_BALANCE, as the venue does); default true. Off where the caller
   * checks shares of its own (the emulator's replay desk: its Exchange's).
   */
  checkSellShares?: boolean;
}

/** The venue from the `sim` config section (feedLatencyMs: the driver lags the market data by it, the venue our user events). */
export function simulatedVenueFromConfig(sim: Config['sim'], clock: Clock, markets: SimMarket[], logger?: Logger, historyLimit?: number, idPrefix?: string): SimulatedVenue {
  return new SimulatedVenue({
    clock,
    markets,
    logger,
    historyLimit,
    idPrefix,
    orderLatencyMs: sim.orderLatencyMs,
    cancelLatencyMs: sim.cancelLatencyMs,
    userLatencyMs: sim.feedLatencyMs,
    settleMs: sim.settleMs,
    makerFeeBps: sim.makerFeeBps,
    takerFeeBps: sim.takerFeeBps,
    queueModel: sim.queueModel,
    cashMicros: sim.cashUsd > 0 ? Math.round(sim.cashUsd * 1_000_000) : undefined,
  });
}

interface SimToken {
  market: SimMarket;
  outcome: string;
  book: SimBook;
  /** Our live orders on this token with their queue trackers, in arrival order (`arrived`: across tokens too). */
  orders: SimRest[];
  /** The latest feed timestamp of this token's events (ms; 0: none yet, or none given). */
  feedTs: number;
  /** Its levels' recent decreases no print has explained yet (feed timestamps > 0 only). */
  decreases: RecentDecreases;
}

/** One of our resting orders, its queue tracker and when it arrived (the order of our orders in one queue). */
interface SimRest {
  o: SimOrder;
  q: QueueTracker;
  arrived: number;
  /**
   * The latest feed timestamp its market had shown when it joined: a trade printed with a timestamp
   * no later than that was made before it (the feed prints a trade after the update that shows it).
   */
  joinedTs: number;
  /** Its token. */
  t: SimToken;
  /**
   * Per price a print reached it at, the fall of that level before it joined not yet taken out of
   * the prints, and the newest such fall's time (takenBefore): [price, left, ts, ...].
   */
  before?: number[];
}

export class SimulatedVenue implements Venue {
  /** Our orders rest beside the external book, never in it. */
  readonly booksIncludeOwnOrders = false;
  readonly makersPayNoFee = false;
  private readonly clock: Clock;
  private readonly opts: SimulatedVenueOptions;
  private readonly tokens = new Map<string, SimToken>();
  private readonly orders = new Map<string, SimOrder>();
  private readonly clientIds: IdMemory;
  /** Done orders, oldest first; beyond historyLimit they are forgotten. */
  private readonly doneIds: IdMemory;
  private readonly history: number;
  private readonly ledger: SimLedger;
  private readonly gate: LatencyGate;
  /** Timers cancelled by close(): fills still to be CONFIRMED (sim.settleMs), user events on their way (userLatencyMs). */
  private readonly timers = new Set<number>();
  private seq = 0;
  /** Orders placed so far (their queue order across both tokens of a market). */
  private arrivals = 0;
  /** Our orders at the trade price in the trade being matched: token, order, token, order, ... */
  private readonly tradeQueue: SimRest[] = [];
  /** Ours a trade went through, and how far past the trade's price each is (onTrade). */
  private readonly throughQueue: Array<{ r: SimRest; past: number; before: number }> = [];
  /** Our collateral now (SimulatedVenueOptions.cashMicros): fills move it; undefined = unlimited. */
  private cash: number | undefined;
  /** Shares of each token we hold, size units: a BUY fill's count from its MATCHED, a SELL fill's are gone. */
  private readonly held = new Map<string, number>();
  /** Shares per token bought in trades not yet CONFIRMED: held, not yet ours to sell (the venue's balance check lags the match). */
  private readonly unsettled = new Map<string, number>();
  /** Present when the collateral is limited (Venue.collateral). */
  readonly collateral?: () => Promise<number>;

  constructor(opts: SimulatedVenueOptions) {
    this.clock = opts.clock;
    this.opts = opts;
    this.gate = new LatencyGate(opts.clock);
    this.history = opts.historyLimit ?? 100_000;
    this.clientIds = new IdMemory(this.history);
    this.doneIds = new IdMemory(this.history);
    this.ledger = new SimLedger(opts.logger, this.history);
    for (const m of opts.markets) this.addMarket(m);
    this.cash = opts.cashMicros;
    if (this.cash !== undefined) this.collateral = () => Promise.resolve(this.cash as number);
  }

  addMarket(m: SimMarket): void {
    if (m.feeRule && !isFeeRule(m.feeRule)) throw new RangeError(`market ${m.conditionId}: fee rule ${JSON.stringify(m.feeRule)} is not finite and non-negative`);
    const spec: SimMarket = { ...m, tokens: [m.tokens[0], m.tokens[1]] };
    spec.tokens.forEach((t, i) => {
      if (!this.tokens.has(t)) this.tokens.set(t, { market: spec, outcome: m.outcomes?.[i] ?? (i === 0 ? 'Yes' : 'No'), book: new SimBook(), orders: [], feedTs: 0, decreases: new RecentDecreases() });
    });
  }

  /** Forgets a market taken out of the set (its book), unless an order of ours still rests on it. */
  removeMarket(conditionId: string): void {
    const ids = [...this.tokens].filter(([, t]) => t.market.conditionId === conditionId);
    if (ids.some(([, t]) => t.orders.length > 0)) return;
    for (const [id] of ids) this.tokens.delete(id);
  }

  onUserEvent(listener: (e: UserEvent) => void): void {
    const lag = this.opts.userLatencyMs ?? 0;
    if (!(lag > 0)) return this.ledger.listen(listener);
    // in the order made (the clock runs timers due together in the order scheduled)
    const clock = this.clock;
    const timers = this.timers;
    this.ledger.listen((e) => {
      const id = clock.schedule(clock.now() + lag, () => {
        timers.delete(id);
        listener(e);
      });
      timers.add(id);
    });
  }

  // ---- market data ------------------------------------------------------------------------

  onMarketEvent(e: MarketEvent): void {
    switch (e.type) {
      case 'book': {
        const t = this.tokens.get(e.assetId);
        if (!t) return;
        t.book.snapshotKeepingTaken(e.bids, e.asks);
        t.decreases.clear();
        if (e.timestampMs > t.feedTs) t.feedTs = e.timestampMs;
        if (e.tickSize !== undefined && e.tickSize > 0) t.market.tick = e.tickSize;
        for (const r of t.orders) r.q.onSnapshot(t.book.size(r.o.side, r.o.price), e.timestampMs);
        if (t.orders.length) this.quoteThrough([t]);
        return;
      }
      case 'price_change': {
        // (only tokens with our orders need the queue and quote-through work)
        let touched: SimToken[] | undefined;
        const changes = e.changes;
        // a binary market's entries alternate between its two tokens: remember both
        let id0 = '';
        let t0: SimToken | undefined;
        let id1 = '';
        let t1: SimToken | undefined;
        for (let i = 0; i < changes.length; i++) {
          const c = changes[i];
          let t: SimToken | undefined;
          if (c.assetId === id0) t = t0;
          else if (c.assetId === id1) t = t1;
          else {
            t = this.tokens.get(c.assetId);
            id1 = id0;
            t1 = t0;
            id0 = c.assetId;
            t0 = t;
          }
          if (!t) continue;
          if (e.timestampMs > t.feedTs) t.feedTs = e.timestampMs;
          if (!t.book.ready) this.seedFromComplement(t);
          const was = t.book.change(c.side, c.price, c.size);
          if (c.size < was && e.timestampMs > 0) t.decreases.add(c.side, c.price, was - c.size, e.timestampMs);
          const rs = t.orders;
          if (rs.length === 0) continue;
          for (let k = 0; k < rs.length; k++) if (rs[k].o.side === c.side && rs[k].o.price === c.price) rs[k].q.onLevel(c.size, e.timestampMs);
          if (!touched) touched = [t];
          else if (!touched.includes(t)) touched.push(t);
        }
        if (touched) this.quoteThrough(touched);
        return;
      }
      case 'last_trade_price':
        this.onTrade(e.assetId, e.side, e.price, e.size, e.timestampMs);
        return;
      case 'tick_size_change': {
        const t = this.tokens.get(e.assetId);
        if (t && e.newTickSize > 0) t.market.tick = e.newTickSize;
        return;
      }
      default:
        return;
    }
  }

  /** A token never snapshotted starts as the mirror of its sibling's book, once that one is known. */
  private seedFromComplement(t: SimToken): void {
    const sibling = this.sibling(t);
    if (sibling && sibling.book.ready) {
      t.book.seedFromComplement(sibling.book);
      this.ledger.stats.seeded++;
    }
  }

  /**
   * A trade in the external market; `takerSide` SELL hits bids, BUY lifts asks. The venue prints it
   * once, on the taker's token, but a taker BUY of one token at p also meets BUYs of the other at
   * 1 - p (and a SELL, SELLs at 1 - p): our orders there rest in the same queue, and share the
   * trade's size beyond it with ours on the printed token. Ours at a better price than the trade's
   * it went through: the taker would have met them first, best price first, for no more than it
   * traded. Ours that joined after the trade was made it never met: by its timestamp, or because
   * the book showed its level fall before they joined (RecentDecreases: printed later, stamped later).
   */
  private onTrade(tokenId: string, takerSide: Side, price: number, size: number, ts: number): void {
    const t = this.tokens.get(tokenId);
    if (!t || !(size > 0)) return;
    const queue = this.tradeQueue;
    const through = this.throughQueue;
    queue.length = 0;
    through.length = 0;
    this.fillsAt(t, opposite(takerSide), price, size, ts);
    const other = this.sibling(t);
    if (other && other.orders.length) this.fillsAt(other, takerSide, PRICE_SCALE - price, size, ts);
    if (ts > t.feedTs) t.feedTs = ts;
    this.matchTrade(size, ts);
    if (ts > 0) {
      // the decreases it shows on both books are explained now
      t.decreases.explain(opposite(takerSide), price, size, ts);
      other?.decreases.explain(takerSide, PRICE_SCALE - price, size, ts);
    }
  }

  /** Fills ours that onTrade picked (throughQueue, tradeQueue) from a trade of `size` made at `ts`. */
  private matchTrade(size: number, ts: number): void {
    const queue = this.tradeQueue;
    const through = this.throughQueue;
    let budget = size;
    if (through.length > 0) {
      // how far past the trade's price each is (better for the taker first), then arrival
      if (through.length > 1) through.sort((x, y) => y.past - x.past || x.r.arrived - y.r.arrived);
      for (let i = 0; i < through.length && budget > 0; i++) {
        const r = through[i].r;
        // of what the taker has left, what is the trade its level showed before this order joined never came past it
        const reach = Math.min(budget - through[i].before, r.o.originalSize - r.o.sizeMatched);
        if (reach > 0 && r.o.status === 'LIVE') {
          budget -= reach;
          this.fillMaker(r.t, r, reach);
        }
      }
      through.length = 0;
    }
    if (queue.length === 0) return;
    // ours at the trade's price, both tokens' in one queue, in arrival order (each token's list is
    // already: an insertion sort in place merges the two): each reached past the outside volume
    // ahead of it (its tracker) and past what ours ahead of it took
    for (let i = 1; i < queue.length; i++) {
      const r = queue[i];
      let j = i - 1;
      for (; j >= 0 && queue[j].arrived > r.arrived; j--) queue[j + 1] = queue[j];
      queue[j + 1] = r;
    }
    let ownAhead = 0;
    for (let i = 0; i < queue.length; i++) {
      const r = queue[i];
      const o = r.o;
      // what the level fell by before this order joined is taken as this trade first: it never met the order
      const before = ts > 0 ? takenBefore(r, o.side, o.price, size, ts) : 0;
      this.ledger.stats.madeBeforeJoin += before;
      const reach = Math.min(r.q.onTrade(before < size ? size - before : 0, ts) - ownAhead, budget, o.originalSize - o.sizeMatched);
      if (reach > 0 && o.status === 'LIVE') {
        budget -= reach;
        ownAhead += reach;
        this.fillMaker(r.t, r, reach);
      }
    }
    queue.length = 0;
  }

  /**
   * Our live `side` orders of `t` that a trade at `price` (in t's terms), made at `ts`, goes through
   * join throughQueue, those at `price` tradeQueue; those that joined after it was made neither.
   */
  private fillsAt(t: SimToken, side: Side, price: number, size: number, ts: number): void {
    const rs = t.orders;
    for (let i = 0; i < rs.length; i++) {
      const r = rs[i];
      const o = r.o;
      if (o.side !== side || o.status !== 'LIVE') continue;
      // 0: the feed gave no timestamp, and nothing can be told apart
      if (ts > 0 && ts <= r.joinedTs) continue;
      const past = side === 'BUY' ? o.price - price : price - o.price;
      if (past > 0) {
        // the print's own level fell before this order joined (in the window): that much of it is
        // that trade, a sweep that had already gone through, not one that could meet the order
        const before = ts > 0 ? takenBefore(r, side, price, size, ts) : 0;
        this.ledger.stats.madeBeforeJoin += before;
        this.throughQueue.push({ r, past, before });
      } else if (past === 0) this.tradeQueue.push(r);
    }
  }

  /**
   * Our resting orders on `tokens` crossed by the external quote fill at once at their own price, up
   * to the crossing size, best-priced first as an incoming order meets them (then arrival): in YES
   * terms a BUY of either token at p is a buyer at p or a seller at 1 - p, so `BUY ? p : 1 - p`
   * ranks both tokens' orders alike (buyers and sellers meet different levels).
   */
  private quoteThrough(tokens: SimToken[]): void {
    // usually nothing is crossed: look first, collect (fills remove from the lists) only what is
    let crossed: SimRest[] | undefined;
    for (let k = 0; k < tokens.length; k++) {
      const t = tokens[k];
      if (!t.orders.length) continue;
      const bid = t.book.bestBid();
      const ask = t.book.bestAsk();
      for (let i = 0; i < t.orders.length; i++) {
        const r = t.orders[i];
        const o = r.o;
        if (o.status === 'LIVE' && (o.side === 'BUY' ? ask <= o.price : bid >= o.price)) (crossed ??= []).push(r);
      }
    }
    if (!crossed) return;
    if (crossed.length > 1) crossed.sort((x, y) => reach(y.o) - reach(x.o) || x.arrived - y.arrived);
    for (let i = 0; i < crossed.length; i++) {
      const r = crossed[i];
      if (r.o.status === 'LIVE') this.fillMaker(r.t, r, this.meet(r.t, r.o));
    }
  }

  /**
   * Takes from the external levels crossing our resting order what they hold beyond our takes, up
   * to its remainder, from the other token's mirrored levels too (as take does); returns the size.
   */
  private meet(t: SimToken, o: SimOrder): number {
    const book = t.book;
    const sibling = this.sibling(t);
    const buy = o.side === 'BUY';
    const oppSide = opposite(o.side);
    let met = 0;
    for (;;) {
      const rem = o.originalSize - o.sizeMatched - met;
      if (rem <= 0) break;
      const p = buy ? book.bestAsk() : book.bestBid();
      if (buy ? p > o.price : p < o.price || p === 0) break;
      const q = Math.min(rem, book.available(oppSide, p));
      book.take(oppSide, p, q);
      sibling?.book.take(o.side, PRICE_SCALE - p, q);
      met += q;
    }
    return met;
  }

  // ---- orders -------------------------------------------------------------------------------

  placeOrders(reqs: OrderRequest[]): Promise<PlaceResult[]> {
    const ids = reqs.map(() => this.nextId('o'));
    const act = (): PlaceResult[] => reqs.map((r, i) => (reqs.length > 15 ? { clientId: r.clientId, ok: false, error: 'INVALID_ORDER_ERROR' } : this.arrive(r, ids[i])));
    const failed = (): PlaceResult[] => reqs.map((r) => ({ clientId: r.clientId, ok: false, error: 'MARKET_NOT_READY' }));
    return this.gate.after(this.opts.orderLatencyMs, act, failed);
  }

  async placeOrder(req: OrderRequest): Promise<PlaceResult> {
    const [r] = await this.placeOrders([req]);
    return r;
  }

  cancelOrders(orderIds: string[]): Promise<CancelResult> {
    return this.gate.after(
      this.opts.cancelLatencyMs,
      () => this.cancelNow(orderIds),
      () => notCancelled(orderIds, 'venue closed'),
    );
  }

  cancelOrder(orderId: string): Promise<CancelResult> {
    return this.cancelOrders([orderId]);
  }

  /** Cancels whatever is live when the cancel takes effect (after the cancel latency). */
  cancelAll(): Promise<CancelResult> {
    return this.gate.after(
      this.opts.cancelLatencyMs,
      () => this.cancelNow(this.liveIds(() => true)),
      () => notCancelled([], ''),
    );
  }

  cancelMarket(market: string): Promise<CancelResult> {
    return this.gate.after(
      this.opts.cancelLatencyMs,
      () => this.cancelNow(this.liveIds((o) => o.market === market)),
      () => notCancelled([], ''),
    );
  }

  async openOrders(): Promise<VenueOrder[]> {
    const out: VenueOrder[] = [];
    for (const o of this.orders.values()) {
      if (o.status !== 'LIVE') continue;
      out.push({
        orderId: o.orderId,
        tokenId: o.tokenId,
        market: o.market,
        side: o.side,
        price: o.price,
        originalSize: o.originalSize,
        sizeMatched: o.sizeMatched,
        status: o.status,
        orderType: o.orderType,
        createdAtMs: o.createdAtMs,
      });
    }
    return out;
  }

  async trades(sinceMs: number): Promise<VenueTrade[]> {
    const settledBy = this.clock.now() - (this.opts.settleMs ?? 0);
    const settled = (timeMs: number): boolean => timeMs <= settledBy;
    return this.ledger.fills
      .filter((f) => f.timeMs >= sinceMs)
      .map((f) => ({
        tradeId: f.tradeId,
        orderId: f.orderId,
        tokenId: f.tokenId,
        market: f.market,
        side: f.side,
        price: f.price,
        size: f.size,
        feeRateBps: f.feeRateBps,
        status: settled(f.timeMs) ? 'CONFIRMED' : 'MATCHED',
        liquidity: f.liquidity,
        timeMs: f.timeMs,
      }));
  }

  async close(): Promise<void> {
    this.gate.close();
    for (const t of this.timers) this.clock.cancel(t);
    this.timers.clear();
    for (const o of this.orders.values()) if (o.expiryTimer !== undefined) this.clock.cancel(o.expiryTimer);
  }

  // ---- statistics (synchronous, for tests and reports) ----------------------------------------

  stats(): SimStats {
    return { ...this.ledger.stats };
  }

  fills(): readonly SimFill[] {
    return this.ledger.fills;
  }

  /** Size ahead of a live order in its level's queue; undefined when the order is not live. */
  queuePosition(orderId: string): number | undefined {
    const o = this.orders.get(orderId);
    if (!o || o.status !== 'LIVE') return undefined;
    return this.tokens.get(o.tokenId)?.orders.find((r) => r.o === o)?.q.ahead;
  }

  order(orderId: string): Readonly<SimOrder> | undefined {
    return this.orders.get(orderId);
  }

  // ---- internals ------------------------------------------------------------------------------

  /** The order reaches the venue: validate, take liquidity, rest the remainder. */
  private arrive(r: OrderRequest, orderId: string): PlaceResult {
    const now = this.clock.now();
    const t = this.tokens.get(r.tokenId);
    const expiresAtMs = r.orderType === 'GTD' && r.expirationSec !== undefined ? r.expirationSec * 1000 : undefined;
    let code: RejectCode | undefined;
    if (!t) code = 'INVALID_ORDER_ERROR';
    else if (this.clientIds.has(r.clientId)) code = 'INVALID_ORDER_DUPLICATED';
    // (a copy only for GTD: an OrderRequest carries no expiresAtMs, so it validates as it is)
    else code = validateOrder(expiresAtMs === undefined ? r : { ...r, expiresAtMs }, t.market.tick, t.market.minSize, now);
    if (!code && t && !t.book.ready) code = 'MARKET_NOT_READY';
    if (!t || code) return this.rejected(r, code ?? 'INVALID_ORDER_ERROR');

    const book = t.book;
    const buy = r.side === 'BUY';
    const crosses = buy ? book.bestAsk() <= r.price : book.bestBid() >= r.price;
    if (r.postOnly && crosses) return this.rejected(r, 'INVALID_POST_ONLY_ORDER');
    if (r.orderType === 'FOK' && this.takeable(book, r) < r.size) return this.rejected(r, 'FOK_ORDER_NOT_FILLED_ERROR');
    if (buy && this.cash !== undefined && this.restingBuyCost() + r.price * r.size > this.cash) return this.rejected(r, 'INVALID_ORDER_NOT_ENOUGH_BALANCE');
    // as the venue: a SELL needs settled shares its token's resting SELLs do not promise already
    if (!buy && this.opts.checkSellShares !== false && this.sellableShares(t, r.tokenId) < r.size) return this.rejected(r, 'INVALID_ORDER_NOT_ENOUGH_BALANCE');
    this.clientIds.add(r.clientId);
    this.ledger.stats.placed++;

    const o: SimOrder = {
      orderId,
      clientId: r.clientId,
      market: t.market.conditionId,
      tokenId: r.tokenId,
      outcome: t.outcome,
      side: r.side,
      price: r.price,
      originalSize: r.size,
      sizeMatched: 0,
      orderType: r.orderType,
      postOnly: r.postOnly,
      createdAtMs: now,
      status: 'LIVE',
      associateTrades: [],
    };
    if (expiresAtMs !== undefined) o.expiresAtMs = expiresAtMs;
    this.orders.set(orderId, o);
    if (crosses) this.take(t, o);
    const rem = o.originalSize - o.sizeMatched;
    if (rem === 0) {
      o.status = 'MATCHED';
      this.retire(o);
      return { clientId: r.clientId, ok: true, orderId, status: 'matched' };
    }
    if (r.orderType === 'FOK' || r.orderType === 'FAK') {
      o.status = 'CANCELED';
      this.retire(o);
      return { clientId: r.clientId, ok: true, orderId, status: o.sizeMatched > 0 ? 'matched' : 'unmatched' };
    }
    const side: Side = r.side;
    t.orders.push({ o, q: new QueueTracker(this.opts.queueModel === false ? 0 : book.size(side, r.price)), arrived: ++this.arrivals, joinedTs: Math.max(t.feedTs, this.sibling(t)?.feedTs ?? 0), t });
    if (o.expiresAtMs !== undefined) o.expiryTimer = this.clock.schedule(o.expiresAtMs, () => this.expire(o));
    this.ledger.emit(orderEvent(o, 'PLACEMENT', now));
    return { clientId: r.clientId, ok: true, orderId, status: 'live' };
  }

  private takeable(book: SimBook, r: OrderRequest): number {
    let sum = 0;
    if (r.side === 'BUY') for (let p = book.bestAsk(); p <= r.price && sum < r.size; p++) sum += book.available('SELL', p);
    else for (let p = book.bestBid(); p >= r.price && p > 0 && sum < r.size; p--) sum += book.available('BUY', p);
    return sum;
  }

  /** Our marketable order takes the visible external levels up to its limit price. */
  private take(t: SimToken, o: SimOrder): void {
    const book = t.book;
    const oppSide = opposite(o.side);
    // a level of one token's book is the other's at 1 - p, the other side (YES asks at p are NO
    // bids at 1 - p, and the reverse): what we take here is gone there too
    const sibling = this.sibling(t);
    for (;;) {
      const rem = o.originalSize - o.sizeMatched;
      if (rem === 0) break;
      const p = o.side === 'BUY' ? book.bestAsk() : book.bestBid();
      if (o.side === 'BUY' ? p > o.price : p < o.price || p === 0) break;
      const q = Math.min(rem, book.available(oppSide, p));
      book.take(oppSide, p, q);
      sibling?.book.take(o.side, PRICE_SCALE - p, q);
      this.recordFill(t, o, q, p, 'TAKER');
    }
  }

  /** The other token of the token's market, when known. */
  private sibling(t: SimToken): SimToken | undefined {
    const [a, b] = t.market.tokens;
    const other = this.tokens.get(t === this.tokens.get(a) ? b : a);
    return other === t ? undefined : other;
  }

  private fillMaker(t: SimToken, r: { o: SimOrder; q: QueueTracker }, size: number): void {
    if (size <= 0) return;
    this.recordFill(t, r.o, size, r.o.price, 'MAKER');
    if (r.o.status !== 'LIVE') t.orders = t.orders.filter((x) => x !== r);
  }

  /** Our side's fee of a fill and the counterparty's rate (see the header: rule or flat bps). */
  private fees(t: SimToken, size: number, price: number, liquidity: 'MAKER' | 'TAKER'): { bps: number; micros: number; otherBps: number } {
    const rule = t.market.feeRule;
    if (rule) {
      const takerMicros = ruleFeeMicros(price, size, rule);
      const takerBps = effectiveFeeRateBps(price, size, takerMicros);
      return liquidity === 'TAKER' ? { bps: takerBps, micros: takerMicros, otherBps: 0 } : { bps: 0, micros: 0, otherBps: takerBps };
    }
    const bps = liquidity === 'MAKER' ? this.opts.makerFeeBps : this.opts.takerFeeBps;
    const otherBps = liquidity === 'MAKER' ? this.opts.takerFeeBps : this.opts.makerFeeBps;
    return { bps, micros: feeMicros(price, size, bps), otherBps };
  }

  private recordFill(t: SimToken, o: SimOrder, size: number, price: number, liquidity: 'MAKER' | 'TAKER'): void {
    const now = this.clock.now();
    const { bps, micros, otherBps } = this.fees(t, size, price, liquidity);
    const f: SimFill = {
      tradeId: this.nextId('t'),
      orderId: o.orderId,
      clientId: o.clientId,
      market: o.market,
      tokenId: o.tokenId,
      side: o.side,
      price,
      size,
      liquidity,
      feeRateBps: bps,
      feeMicros: micros,
      counterpartyOrderId: this.nextId('x'),
      timeMs: now,
    };
    o.sizeMatched += size;
    o.associateTrades.push(f.tradeId);
    this.ledger.addFill(f);
    const bought = o.side === 'BUY';
    const settleMs = this.opts.settleMs ?? 0;
    // a BUY pays at the match; a SELL's proceeds reach the balance when the trade settles, as a BUY's shares do
    if (this.cash !== undefined && (bought || settleMs <= 0)) this.cash += (bought ? -price * size : price * size) - micros;
    add(this.held, o.tokenId, bought ? size : -size);
    const owner = this.opts.owner ?? 'sim';
    this.ledger.emit(tradeEvent(f, o, owner, 'MATCHED', otherBps, now));
    if (settleMs > 0) {
      if (bought) add(this.unsettled, o.tokenId, size);
      const timer = this.clock.schedule(now + settleMs, () => {
        this.timers.delete(timer);
        if (bought) add(this.unsettled, o.tokenId, -size);
        else if (this.cash !== undefined) this.cash += price * size - micros;
        this.ledger.emit(tradeEvent(f, o, owner, 'CONFIRMED', otherBps, this.clock.now()));
      });
      this.timers.add(timer);
    } else this.ledger.emit(tradeEvent(f, o, owner, 'CONFIRMED', otherBps, now));
    if (liquidity === 'MAKER') {
      if (o.sizeMatched >= o.originalSize) {
        o.status = 'MATCHED';
        if (o.expiryTimer !== undefined) this.clock.cancel(o.expiryTimer);
        this.retire(o);
      }
      this.ledger.emit(orderEvent(o, 'UPDATE', now));
    }
  }

  private cancelNow(orderIds: string[]): CancelResult {
    const res: CancelResult = { canceled: [], notCanceled: {} };
    for (const id of orderIds) {
      const o = this.orders.get(id);
      if (!o) res.notCanceled[id] = 'order not found';
      else if (o.status === 'MATCHED') res.notCanceled[id] = 'order already matched';
      else if (o.status !== 'LIVE') res.notCanceled[id] = 'order already canceled';
      else {
        this.remove(o, 'CANCELED');
        res.canceled.push(id);
      }
    }
    return res;
  }

  private expire(o: SimOrder): void {
    if (o.status === 'LIVE') this.remove(o, 'CANCELED');
  }

  private remove(o: SimOrder, status: string): void {
    o.status = status;
    if (o.expiryTimer !== undefined) this.clock.cancel(o.expiryTimer);
    const t = this.tokens.get(o.tokenId);
    if (t) t.orders = t.orders.filter((r) => r.o !== o);
    this.ledger.stats.cancelled++;
    this.retire(o);
    this.ledger.emit(orderEvent(o, 'CANCELLATION', this.clock.now()));
  }

  /** Shares of the token a new SELL may promise: settled ones, less what its resting SELLs promise. */
  /**
   * Shares of a token held from before this venue's first fill (a paper run's restored positions),
   * settled: a SELL may promise them.
   */
  holdShares(tokenId: string, size: number): void {
    if (!(Number.isSafeInteger(size) && size >= 0)) throw new RangeError(`holdShares ${tokenId}: ${size} is not a whole number of size units`);
    add(this.held, tokenId, size);
  }

  /**
   * Collateral an earlier run's fills moved (a paper restart: the cash change of the positions
   * restored from its store), micro-dollars; nothing when the collateral is unlimited. Without it a
   * restart gave back the whole sim.cashUsd on top of the shares it had bought.
   */
  spendCash(deltaMicros: number): void {
    if (!Number.isSafeInteger(deltaMicros)) throw new RangeError(`spendCash: ${deltaMicros} is not a whole number of micro-dollars`);
    // never below 0: an earlier run with more cash, or unlimited, may have spent more than this one has
    if (this.cash !== undefined) this.cash = Math.max(0, this.cash + deltaMicros);
  }

  private sellableShares(t: SimToken, tokenId: string): number {
    let promised = 0;
    for (const { o } of t.orders) if (o.side === 'SELL' && o.status === 'LIVE') promised += o.originalSize - o.sizeMatched;
    return (this.held.get(tokenId) ?? 0) - (this.unsettled.get(tokenId) ?? 0) - promised;
  }

  /** What our resting BUYs promise, micro-dollars (walked only when the collateral is limited). */
  private restingBuyCost(): number {
    let sum = 0;
    for (const t of this.tokens.values()) for (const { o } of t.orders) if (o.side === 'BUY' && o.status === 'LIVE') sum += o.price * (o.originalSize - o.sizeMatched);
    return sum;
  }

  /** A done order stays queryable until historyLimit newer ones are done. */
  private retire(o: SimOrder): void {
    const evicted = this.doneIds.add(o.orderId);
    if (evicted !== undefined) this.orders.delete(evicted);
  }

  private liveIds(pred: (o: SimOrder) => boolean): string[] {
    const out: string[] = [];
    for (const o of this.orders.values()) if (o.status === 'LIVE' && pred(o)) out.push(o.orderId);
    return out;
  }

  private rejected(r: OrderRequest, error: RejectCode): PlaceResult {
    this.ledger.stats.rejected++;
    if (error === 'INVALID_ORDER_NOT_ENOUGH_BALANCE') this.ledger.stats.rejectedForBalance++;
    return { clientId: r.clientId, ok: false, error };
  }

  private nextId(kind: string): string {
    return `${this.opts.idPrefix ?? 'sim-'}${kind}${++this.seq}`;
  }
}

function add(m: Map<string, number>, key: string, v: number): void {
  const n = (m.get(key) ?? 0) + v;
  if (n === 0) m.delete(key);
  else m.set(key, n);
}

function notCancelled(ids: string[], reason: string): CancelResult {
  const res: CancelResult = { canceled: [], notCanceled: {} };
  for (const id of ids) res.notCanceled[id] = reason;
  return res;
}

/**
 * How much of a print of `size` at `price` (on r's token, r's side) is taken as a fall of that
 * level the book showed before r joined, within the window of the newest such fall. What the level
 * fell by is read once for r, at the first print that reaches it there (the log as earlier prints,
 * which could not meet r, left it), then spent by the prints that follow: each fall only once for r,
 * and never spent again through the log's own explain().
 */
function takenBefore(r: SimRest, side: Side, price: number, size: number, ts: number): number {
  const b = r.before ?? (r.before = []);
  let k = 0;
  while (k < b.length && b[k] !== price) k += 3;
  if (k === b.length) {
    const fell = r.t.decreases.amountAt(side, price, ts, r.joinedTs);
    b.push(price, fell, r.t.decreases.newestTs);
  }
  if (!(b[k + 1] > 0) || ts - b[k + 2] > PAIR_WINDOW_MS) return 0;
  const made = size < b[k + 1] ? size : b[k + 1];
  b[k + 1] -= made;
  return made;
}

/** How far an order reaches toward the other side, in YES terms (a BUY at p: p; a SELL at p: 1 - p): the best-priced for the taker is the largest. */
function reach(o: SimOrder): number {
  return o.side === 'BUY' ? o.price : PRICE_SCALE - o.price;
}
