// The engine's side of the scheduler and the fill ledger: records orders before they are sent,
// applies REST results to the order state machine, feeds the error-rate breaker, and turns
// fills into positions, journal rows and strategy callbacks.
import { AmbiguousSubmitError, RateLimitError, VenueNotReadyError } from '../core/errors.js';
import type { Side, UserEvent, UserTradeEvent } from '../core/events.js';
import type { OrderRequest, PlaceResult, CancelResult } from '../venue/types.js';
import type { Quote } from './strategy.js';
import type { SchedulerSink } from './scheduler.js';
import { fillKey, settled as tradeFinal, type Fill, type FillSink } from './fills.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import { sizeToCome, type TrackedOrder, type OrderTracker } from './orders.js';
import type { Positions } from './positions.js';
import type { RiskGate } from './risk.js';
import { COLLATERAL } from './balance-backoff.js';
import type { MarketState } from './market-state.js';
import { formatPrice, formatSize, microsToDollars } from '../core/units.js';

/** Persistence hooks (src/store implements them); every call is synchronous. */
export interface Journal {
  orderChanged(o: TrackedOrder): void;
  fill(f: Fill): void;
  fillStatus(f: Fill): void;
  /** The writes `fn` makes are stored together or not at all (an order's fill and its new state). */
  unit?<T>(fn: () => T): T;
}

/** What the store still holds of orders and fills the engine has forgotten (finished orders are kept 10 minutes). */
export interface StoredHistory {
  /** Our order with this venue id, `unseen` set as start-up sets it (filled beyond its stored fills); undefined when never stored. */
  orderByVenueId(orderId: string): TrackedOrder | undefined;
  /** Whether this fill is stored. */
  hasFill(tradeId: string, orderId: string): boolean;
}

/** A trade status whose shares and cash have moved on chain. */
const settled = (s: string): boolean => s === 'MINED' || s === 'CONFIRMED';

/** The engine as its sink sees it (an interface here, so this file does not import the engine). */
export interface SinkHost {
  readonly clock: Clock;
  readonly log: Logger;
  readonly orders: OrderTracker;
  readonly positions: Positions;
  readonly risk: RiskGate;
  readonly counters: { errors: number };
  /** The collateral budget: read again soon after a SELL of ours settles (collateral.ts). */
  readonly collateral: { soon(): void; awaitFills(orderId: string, micros: number): void; filled(orderId: string, micros: number): void };
  /** Orders that ended matched whose trades are not reported yet, per side: their shares are held (unreported-fills.ts). */
  readonly unreportedSells: { filled(orderId: string, size: number): void };
  readonly unreportedBuys: { filled(orderId: string, size: number): void };
  /** Live: asks the venue when a matched order's fill goes unreported (missing-orders.ts). */
  readonly missingOrders: { reported(orderId: string): void } | undefined;
  /** An order ended matched with `left` of it not reported as filled: held until its fill comes. */
  matchedUnreported(o: TrackedOrder, left: number): void;
  /** Venue refusals of our places, by code. */
  readonly rejects: Map<string, number>;
  marketOf(tokenId: string): MarketState | undefined;
  /** Notes the market of a token no quoted market has (Engine.noteMarketOf). */
  noteMarketOf(tokenId: string, conditionId: string): void;
  dirty(st: MarketState): void;
  tickRejected(tokenId: string): void;
  sellAnswered(tokenId: string, refusedForBalance: boolean): void;
  buyAnswered(refusedForBalance: boolean): void;
  halt(reason: string): void;
  cancelsUnconfirmed(orderIds: readonly string[]): void;
  badTrade(orderId: string, problem: string, trade: unknown): void;
  /** Trades that named an order's venue id before its place's answer did (fills.ts takeEarly). */
  readonly ledger: { takeEarly(orderId: string): UserTradeEvent[] | undefined };
  handleUserEvent(e: UserEvent): void;
}

export class EngineSink implements SchedulerSink, FillSink {
  constructor(
    private readonly e: SinkHost,
    private readonly journal: Journal | undefined,
  ) {}

  /**
   * The journal writes of `fn` in one store transaction, written when `fn` returns. Only around
   * order-state loops that send nothing: a place must be stored before it is sent.
   */
  private together(fn: () => void): void {
    const j = this.journal;
    if (j?.unit) j.unit(fn);
    else fn();
  }

  preparePlaces(quotes: readonly Quote[]): OrderRequest[] {
    const e = this.e;
    const now = e.clock.now();
    const reqs: OrderRequest[] = [];
    // the batch's orders in one transaction, stored before this returns (and the batch is sent)
    this.together(() => {
      for (const q of quotes) {
        const st = e.marketOf(q.tokenId);
        if (!st) continue;
        const clientId = e.orders.nextClientId(now);
        e.orders.create({ clientId, tokenId: q.tokenId, market: st.meta.conditionId, side: q.side, price: q.price, size: q.size, createdMs: now });
        reqs.push({ clientId, tokenId: q.tokenId, side: q.side, price: q.price, size: q.size, orderType: 'GTC', postOnly: true });
      }
    });
    return reqs;
  }

  /** Scratch of placed(): per token (SELLs) or COLLATERAL (BUYs), whether an answer refused any for balance. */
  private readonly balanceAnswers = new Map<string, boolean>();

  placed(reqs: readonly OrderRequest[], results: readonly PlaceResult[]): void {
    const e = this.e;
    const now = e.clock.now();
    // one transaction for the answer's results (a breaker halt in there sends only the cancel-all)
    this.together(() => {
      for (const r of results) {
        e.orders.placeResult(r, now);
        if (!r.ok) this.rejected(r);
        this.result(r.ok, now);
      }
    });
    // Off the venue's tick grid: our tick is stale (wire-formats.md 4.4). Refused for balance: a
    // SELL's shares wait, or every BUY, and the collateral is read again (balance-backoff.ts): once
    // per token or collateral and answer, refused when any of its orders was (two BUYs refused
    // together are one shortfall, not a doubled wait). After the loop: the engine requotes the
    // market, which must see every result of this answer first.
    const balance = this.balanceAnswers;
    balance.clear();
    for (const r of results) {
      const o = e.orders.get(r.clientId);
      if (!o) continue;
      if (r.ok || r.error === 'INVALID_ORDER_NOT_ENOUGH_BALANCE') {
        const key = o.side === 'SELL' ? o.tokenId : COLLATERAL;
        balance.set(key, balance.get(key) === true || !r.ok);
      } else if (r.error === 'INVALID_ORDER_MIN_TICK_SIZE') e.tickRejected(o.tokenId);
    }
    for (const [key, refused] of balance) {
      if (key === COLLATERAL) e.buyAnswered(refused);
      else e.sellAnswered(key, refused);
    }
    // A result missing from the answer is unclear, not rejected. (The usual answer lists the
    // requests in order: checked without building a set.)
    if (!inOrder(reqs, results)) {
      const seen = new Set<string>();
      for (const r of results) seen.add(r.clientId);
      for (const q of reqs) if (!seen.has(q.clientId)) e.orders.ambiguous(q.clientId, now);
    }
    // trades of these orders that came before this answer named them: handled now they are ours,
    // last, so the requote they cause sees every result of this answer
    for (const r of results) {
      const early = r.ok && r.orderId ? e.ledger.takeEarly(r.orderId) : undefined;
      if (early) for (const t of early) e.handleUserEvent(t);
    }
  }

  /**
   * A venue refusal: counted by code (metrics orders_rejected_total). A post-only order that would
   * have crossed is a race the maker loses now and then (the book moved before the order arrived):
   * info; any other refusal is WARN.
   */
  private rejected(r: PlaceResult): void {
    const e = this.e;
    const code = r.error ?? 'UNKNOWN';
    e.rejects.set(code, (e.rejects.get(code) ?? 0) + 1);
    const fields = { clientId: r.clientId, ...orderFields(e.orders.get(r.clientId)), code: r.error, message: r.message };
    if (code === 'INVALID_POST_ONLY_ORDER') e.log.info(fields, 'order rejected');
    else e.log.warn(fields, 'order rejected');
  }

  notSent(reqs: readonly OrderRequest[], why: string): void {
    const e = this.e;
    const now = e.clock.now();
    e.log.info({ orders: reqs.length, why }, 'places not sent');
    // they never left: ended here, not counted against the order error rate
    this.together(() => {
      for (const q of reqs) e.orders.placeResult({ clientId: q.clientId, ok: false, error: 'UNKNOWN', message: `not sent: ${why}` }, now);
    });
  }

  placeFailed(reqs: readonly OrderRequest[], err: unknown): void {
    const e = this.e;
    const now = e.clock.now();
    if (err instanceof VenueNotReadyError || (err instanceof RateLimitError && err.notSent)) {
      // the venue's matching engine restarting (425), or a rate limit (429), took nothing in: ended
      // unsent, not counted against the error rate; their markets quote again once the order
      // scope's wait is over (the limiter), with the newest quote
      this.notSent(reqs, err.message);
      this.requoteMarketsOf(reqs.map((q) => q.tokenId));
      return;
    }
    const ambiguous = err instanceof AmbiguousSubmitError;
    e.log.warn({ err, orders: reqs.length, ambiguous }, 'place request failed');
    for (const q of reqs) {
      if (ambiguous) e.orders.ambiguous(q.clientId, now);
      else e.orders.placeResult({ clientId: q.clientId, ok: false, error: 'UNKNOWN', message: err instanceof Error ? err.message : String(err) }, now);
      this.result(false, now);
    }
  }

  prepareCancels(orderIds: readonly string[]): void {
    const e = this.e;
    const now = e.clock.now();
    this.together(() => {
      for (const id of orderIds) {
        const o = e.orders.byVenueId(id);
        if (o) e.orders.cancelSent(o, now);
      }
    });
  }

  /**
   * A cancel's answer for `orderIds` (`all`: a cancel-all's, which may name any order). An id the
   * answer names that was not asked about is not taken: a venue naming other orders canceled would
   * end orders of ours still resting.
   */
  canceled(orderIds: readonly string[], res: CancelResult, all = false): void {
    const e = this.e;
    const now = e.clock.now();
    if (!all) res = askedOnly(orderIds, res, e.log);
    // an id the answer names in neither list was not cancelled as far as we know: it may still
    // rest, so it is the cancel-all's, as after a failed cancel (left pending, no requote would cancel it again)
    let unnamed: string[] | undefined;
    const named = orderIds.length > 1 ? new Set(res.canceled) : undefined;
    for (const id of orderIds) if (!(named ? named.has(id) : res.canceled.includes(id)) && !Object.hasOwn(res.notCanceled, id)) (unnamed ??= []).push(id);
    this.together(() => {
      for (const id of res.canceled) e.orders.canceled(id, now);
      if (unnamed) for (const id of unnamed) e.orders.cancelRefused(id, 'the cancel answer did not name it', now);
      for (const [id, reason] of Object.entries(res.notCanceled)) {
        const o = e.orders.byVenueId(id);
        // a cancel-all's refusal of an order working as far as we knew (its own cancel failed, or a
        // halt's): ended as its own cancel's refusal would have ended it, its matched size held
        if (all && o && (o.state === 'live' || o.state === 'partially_filled')) e.orders.cancelSent(o, now);
        const cancelling = o?.state === 'pending_cancel';
        e.orders.cancelRefused(id, reason, now, true);
        // already matched, its trade maybe not reported yet: its cost is not free for another BUY,
        // its shares not there for another SELL
        if (o && cancelling && o.state === 'canceled') e.matchedUnreported(o, sizeToCome(o));
      }
    });
    if (unnamed) {
      e.log.warn({ orders: unnamed }, 'cancel answer named none of these orders: left to the cancel-all');
      e.cancelsUnconfirmed(unnamed);
    }
    // A quote held back until these cancels landed (same price) may go now.
    this.requoteMarketsOf(orderIds.map((id) => e.orders.byVenueId(id)?.tokenId));
  }

  cancelFailed(orderIds: readonly string[], err: unknown): void {
    const e = this.e;
    const now = e.clock.now();
    if (err instanceof VenueNotReadyError) {
      // not carried out, so known to rest still: working again, cancelled again by the next
      // requote once the wait is over; no cancel-all, no error counted
      this.together(() => {
        for (const id of orderIds) e.orders.cancelRefused(id, err.message, now);
      });
      this.requoteMarketsOf(orderIds.map((id) => e.orders.byVenueId(id)?.tokenId));
      return;
    }
    e.log.warn({ err, orders: orderIds.length }, 'cancel request failed');
    // The orders may still rest: put them back as working (a cancel-all follows, see below).
    for (const id of orderIds) e.orders.cancelRefused(id, err instanceof Error ? err.message : 'cancel failed', now);
    // a rate limit refused no order of ours (as for places): counted, a minute of them halted for good
    if (!(err instanceof RateLimitError)) this.result(false, now);
    e.cancelsUnconfirmed(orderIds);
  }

  /** Requotes the markets of these tokens, each once. */
  private requoteMarketsOf(tokenIds: ReadonlyArray<string | undefined>): void {
    let last: MarketState | undefined;
    for (const t of tokenIds) {
      const st = t === undefined ? undefined : this.e.marketOf(t);
      if (st && st !== last) this.e.dirty((last = st));
    }
  }

  private result(ok: boolean, now: number): void {
    const reason = this.e.risk.recordResult(ok, now);
    if (reason) this.e.halt(reason);
  }

  onFill(f: Fill): void {
    const e = this.e;
    if (f.status !== 'FAILED') e.positions.applyFill(f, fillKey(f.tradeId, f.orderId), !tradeFinal(f.status));
    // a fill of a token no quoted market has (a late one after its market was dropped, a look-up's after
    // a restart): its market is noted, so the resolution watch asks about the holding
    if (e.marketOf(f.tokenId) === undefined) e.noteMarketOf(f.tokenId, f.market);
    if (e.log.isLevelEnabled('info')) {
      // first seen as FAILED: recorded, nothing moved
      if (f.status === 'FAILED') e.log.info({ ...fillFields(f), position: formatSize(e.positions.qty(f.tokenId)) }, 'fill (trade FAILED: nothing applied)');
      else e.log.info({ ...fillFields(f), position: formatSize(e.positions.qty(f.tokenId)) }, 'fill');
    }
    this.journaled(() => this.journal?.fill(f), f);
    if (f.side === 'SELL' && settled(f.status)) e.collateral.soon();
    if (f.side === 'BUY') {
      e.collateral.filled(f.orderId, f.price * f.size);
      e.unreportedBuys.filled(f.orderId, f.size);
    } else e.unreportedSells.filled(f.orderId, f.size);
    e.missingOrders?.reported(f.orderId);
    if (f.status !== 'FAILED') this.tellStrategy(f, 'onFill');
  }

  /** Tells the fill's market's strategy (onFill, onFillReversed), if it listens. */
  private tellStrategy(f: Fill, hook: 'onFill' | 'onFillReversed'): void {
    const st = this.e.marketOf(f.tokenId);
    const fn = st?.strategy[hook];
    if (!st || !fn) return;
    // a strategy's throw is its own: the fill is ours (recorded already), and so are the rest of the trade's
    try {
      fn.call(st.strategy, st.ctx, { tokenId: f.tokenId, side: f.side, price: f.price, size: f.size, timeMs: f.timeMs });
    } catch (err) {
      this.e.counters.errors++;
      this.e.log.error({ err, market: st.meta.conditionId, tradeId: f.tradeId, orderId: f.orderId }, `engine: strategy ${hook} failed`);
    }
  }

  onBadTrade(orderId: string, problem: string, trade: unknown): void {
    this.e.badTrade(orderId, problem, trade);
  }

  onRoundedAway(tokenId: string, side: Side, micros: number): void {
    this.e.positions.roundedAway(tokenId, side, micros);
  }

  onFillStatus(f: Fill, reversed: boolean): void {
    if (!reversed && tradeFinal(f.status)) this.e.positions.settleFill(f.tokenId, fillKey(f.tradeId, f.orderId));
    if (reversed) {
      this.e.positions.reverseFill(f, fillKey(f.tradeId, f.orderId));
      this.e.log.warn({ ...fillFields(f), position: formatSize(this.e.positions.qty(f.tokenId)) }, 'trade FAILED: fill reversed');
      this.tellStrategy(f, 'onFillReversed');
    }
    this.journaled(() => this.journal?.fillStatus(f), f);
    // a SELL's proceeds are in the balance once it settles
    if (!reversed && f.side === 'SELL' && settled(f.status)) this.e.collateral.soon();
  }

  /** A store failure is logged loudly and counted; it must not stop the loop. */
  private journaled(write: () => void, f: Fill): void {
    try {
      write();
    } catch (err) {
      this.e.counters.errors++;
      this.e.log.error({ err, tradeId: f.tradeId, orderId: f.orderId }, 'engine: storing a fill failed');
    }
  }
}

/** An order in market units for a log line (nothing when unknown). */
function orderFields(o: TrackedOrder | undefined): Record<string, unknown> {
  return o ? { tokenId: o.tokenId, side: o.side, price: formatPrice(o.price), shares: formatSize(o.size) } : {};
}

/** A fill in market units for a log line: price 0.52, 10 shares, the fee in dollars. */
function fillFields(f: Fill): Record<string, unknown> {
  return {
    tokenId: f.tokenId,
    side: f.side,
    price: formatPrice(f.price),
    shares: formatSize(f.size),
    feeUsd: String(microsToDollars(f.fee)),
    liquidity: f.liquidity,
    status: f.status,
    market: f.market,
    orderId: f.orderId,
    tradeId: f.tradeId,
  };
}

/** True when the results answer the requests one for one, in order. */
function inOrder(reqs: readonly OrderRequest[], results: readonly PlaceResult[]): boolean {
  if (reqs.length !== results.length) return false;
  for (let i = 0; i < reqs.length; i++) if (reqs[i].clientId !== results[i].clientId) return false;
  return true;
}

/** The part of a cancel answer about the ids asked for; the rest is said once and left out. */
function askedOnly(orderIds: readonly string[], res: CancelResult, log: Logger): CancelResult {
  // the usual answer names only what was asked: checked without allocating (a backtest's every cancel)
  const has =
    orderIds.length <= 32
      ? (id: string) => orderIds.includes(id)
      : (
          (s) => (id: string) =>
            s.has(id)
        )(new Set(orderIds));
  let clean = true;
  for (let i = 0; i < res.canceled.length && clean; i++) clean = has(res.canceled[i]);
  if (clean) for (const id in res.notCanceled) if (!has(id)) clean = false;
  if (clean) return res;
  const asked = new Set(orderIds);
  const other = [...res.canceled, ...Object.keys(res.notCanceled)].filter((id) => !asked.has(id));
  log.warn({ asked: orderIds.length, other: other.slice(0, 20) }, 'cancel answer names orders not asked about: left out');
  return { canceled: res.canceled.filter((id) => asked.has(id)), notCanceled: Object.fromEntries(Object.entries(res.notCanceled).filter(([id]) => asked.has(id))) };
}
