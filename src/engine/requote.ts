// One market's requote, what the engine runs after a book change: the strategy says what it
// wants, the reconciler diffs that against our open orders, the risk gate filters the places, and
// the scheduler sends. The engine decides when a market requotes (requote-timing.ts); this, what
// it sends. The arrays are reused from requote to requote: the scheduler copies what it keeps.
import { formatPrice } from '../core/units.js';
import type { Logger } from '../core/log.js';
import type { Clock } from '../core/clock.js';
import type { BookView } from '../book/view.js';
import type { MarketMeta, Quote } from './strategy.js';
import type { OrderTracker, TrackedOrder } from './orders.js';
import type { Positions } from './positions.js';
import { Reconciler, type ReconcileResult } from './reconciler.js';
import type { RiskGate } from './risk.js';
import { sellsCovered, type EngineRiskInputs } from './risk-inputs.js';
import type { CancelTarget, OrderScheduler } from './scheduler.js';
import type { MarketBooks, MarketState } from './market-state.js';
import { crossesBook, crossesOwn, crossesQuotes, firstInvalid, meets, notQuotes, validQuotes } from './quote-checks.js';
import type { CancelAllRetry } from './cancel-all-retry.js';
import type { Held } from './quote-inputs.js';
import type { Config } from '../config.js';

const isSell = (q: Quote): boolean => q.side === 'SELL';
const NO_ORDERS: readonly TrackedOrder[] = [];

/** The engine's counters a requote moves (Engine.counters). */
export interface RequoteCounters {
  requotes: number;
  skippedRequotes: number;
  invalidQuotes: number;
  quotesCut: number;
  heldSelfCross: number;
  /** Places held back because they would take from the book (post-only: the venue refuses them). */
  heldCrossesBook: number;
  heldForCancel: number;
  errors: number;
}

/** What a requote reads of the engine. */
export interface RequoteDeps {
  clock: Clock;
  log: Logger;
  counters: RequoteCounters;
  config: Config['reconciler'];
  risk: RiskGate;
  riskInputs: EngineRiskInputs;
  scheduler: OrderScheduler;
  orders: OrderTracker;
  positions: Positions;
  books: MarketBooks;
  /** The venue's books show our own resting orders (strategies get them taken out). */
  booksIncludeOwnOrders: boolean;
  /** Shares of a token the venue lets us sell now (Engine.sellable). */
  sellable: (tokenId: string) => number;
  cancelAll: CancelAllRetry;
  feedLive: () => boolean;
  /** The daily-loss check (it may halt, which this requote then sees). */
  checkLoss: () => void;
  /** The owner's block on every market (EngineOptions.extraBlock). */
  extraBlock?: () => string | undefined;
}

/** A strategy that keeps failing is logged at most this often (market-state.ts StrategyError). */
const STRATEGY_LOG_MS = 60_000;
/** How long every quote of a market may be invalid before the market names it (MarketState.quotesInvalid). */
const INVALID_REASON_MS = 60_000;

export class Requoter {
  private readonly reconciler: Reconciler;
  private readonly recon: ReconcileResult = { cancels: [], places: [], kept: 0, cut: 0, cutFrom: 0 };
  private readonly wanted: Quote[] = [];
  private readonly cancelTargets: CancelTarget[] = [];
  private readonly accepted: Quote[] = [];
  private readonly covered: boolean[] = [];
  private readonly heldScratch: Held = { qty: 0, complementQty: 0, sellable: 0, complementSellable: 0 };

  constructor(private readonly d: RequoteDeps) {
    this.reconciler = new Reconciler(d.config);
  }

  /** The open orders of a market's two tokens, into the market's reused array (open()'s order, from the tracker's per-token index). */
  marketOrders(st: MarketState): TrackedOrder[] {
    return this.d.orders.openOfPair(st.meta.tokenId, st.meta.complementId, st.ownOrders);
  }

  /** The market's reused view of `tokenId` without our orders, pointed at its raw book and `orders`. */
  ownExcluded(st: MarketState, tokenId: string, raw: BookView, orders: readonly TrackedOrder[]): BookView {
    const v = st.ownExcluded;
    return (tokenId === st.meta.tokenId ? v.token : v.complement).reset(raw, orders);
  }

  /** What a requote reads of the market's position (QuoteInputs): held shares and those the venue lets us sell. */
  private held(m: MarketMeta): Held {
    const h = this.heldScratch;
    const { positions, sellable } = this.d;
    h.qty = positions.qty(m.tokenId);
    h.complementQty = positions.qty(m.complementId);
    h.sellable = sellable(m.tokenId);
    h.complementSellable = sellable(m.complementId);
    return h;
  }

  /** Why a market quotes nothing now, or undefined. Cancels are still reconciled for it. */
  private marketBlock(st: MarketState, now: number): string | undefined {
    const risk = this.d.risk;
    if (risk.halted) return `halted: ${risk.halted}`;
    if (this.d.cancelAll.blocking) return 'cancels not confirmed: cancel-all retrying';
    const extra = this.d.extraBlock?.() ?? risk.lossCheckPending(now);
    if (extra !== undefined) return extra;
    if (st.suspended) return st.suspended;
    if (st.removed) return 'removed from the market set';
    if (st.resolved) return 'market resolved';
    if (st.tickSuspect !== undefined) return 'tick suspect: refreshing';
    const m = st.meta;
    return risk.tokenBlock(m.tokenId, this.d.books.book(m.tokenId), this.d.feedLive(), now);
  }

  /**
   * The strategy threw: the market quotes nothing and says why (/status, /health, metrics) until a
   * call succeeds. Logged at the first failure and then once a minute with the count, not per
   * requote (up to ten a second per market, each with a stack, on the store's disk).
   */
  private strategyFailed(st: MarketState, err: unknown, now: number): void {
    const message = (err instanceof Error ? err.message : String(err)).slice(0, 200);
    const first = st.strategyError === undefined;
    const e = (st.strategyError ??= { message, sinceMs: now, failures: 0, loggedMs: -Infinity });
    e.failures++;
    e.message = message;
    st.blocked = `strategy failed: ${message}`;
    if (now - e.loggedMs < STRATEGY_LOG_MS) return;
    e.loggedMs = now;
    this.d.log.error({ err, market: st.meta.conditionId, failures: e.failures }, first ? 'engine: strategy failed; quoting nothing' : 'engine: strategy still failing; quoting nothing');
  }

  /** Counts a requote's invalid quotes; logs the first and why once a minute per market (a strategy in the wrong units quotes nothing). */
  private invalidQuotes(st: MarketState, qs: readonly Quote[], invalid: number, now: number): void {
    this.d.counters.invalidQuotes += invalid;
    if (now - st.invalidLoggedMs < STRATEGY_LOG_MS) return;
    st.invalidLoggedMs = now;
    const first = firstInvalid(qs, st.meta, st.tickOf);
    this.d.log.warn({ market: st.meta.conditionId, invalid, quote: first?.quote, why: first?.why }, 'engine: strategy quotes dropped as invalid');
  }

  /**
   * Every quote invalid requote after requote (a strategy in the wrong units): nothing can rest, so
   * once that has lasted INVALID_REASON_MS the market names why (/health). A requote with a valid
   * quote, or with none wanted, clears it.
   */
  private allInvalid(st: MarketState, qs: readonly Quote[], invalid: number, now: number): void {
    if (invalid === 0 || invalid < qs.length) {
      st.invalidSinceMs = NaN;
      st.quotesInvalid = undefined;
      return;
    }
    if (Number.isNaN(st.invalidSinceMs)) st.invalidSinceMs = now;
    const forMs = now - st.invalidSinceMs;
    if (forMs < INVALID_REASON_MS) return;
    st.quotesInvalid = `every quote invalid for ${Math.round(forMs / 1000)} s: ${firstInvalid(qs, st.meta, st.tickOf)?.why ?? 'invalid'}`;
  }

  /** A quote through the book held back: said once a minute per market (a strategy pricing off the wrong side quotes nothing, and nothing else would say so). */
  private crossHeld(st: MarketState, q: Quote, book: BookView | undefined, now: number): void {
    if (now - st.crossLoggedMs < STRATEGY_LOG_MS) return;
    st.crossLoggedMs = now;
    const best = q.side === 'BUY' ? book?.bestAsk() : book?.bestBid();
    this.d.log.warn(
      {
        market: st.meta.conditionId,
        tokenId: q.tokenId,
        side: q.side,
        price: formatPrice(q.price),
        [q.side === 'BUY' ? 'bestAsk' : 'bestBid']: best !== undefined && best >= 0 ? formatPrice(best) : null,
        held: this.d.counters.heldCrossesBook,
      },
      'engine: quote through the book held back (every order is post-only: the venue would refuse it)',
    );
  }

  /** Counts quotes the side cap left out; logs it once a minute per market (five bands configured, three quoted, is otherwise unseen). */
  private quotesCut(st: MarketState, r: ReconcileResult, now: number): void {
    this.d.counters.quotesCut += r.cut;
    if (now - st.cutLoggedMs < STRATEGY_LOG_MS) return;
    st.cutLoggedMs = now;
    this.d.log.warn({ market: st.meta.conditionId, wanted: r.cutFrom, kept: this.reconciler.maxOrdersPerSide, cut: r.cut }, 'engine: strategy quotes beyond reconciler.maxOrdersPerSide left out');
  }

  /** A token's book as the strategy prices off it: without our own orders where the venue's books show them. */
  private viewOf(st: MarketState, tokenId: string, own: readonly TrackedOrder[]): BookView | undefined {
    const raw = this.d.books.book(tokenId);
    return raw && this.d.booksIncludeOwnOrders ? this.ownExcluded(st, tokenId, raw, own) : raw;
  }

  run(st: MarketState): void {
    const d = this.d;
    const now = d.clock.now();
    st.lastQuoteMs = now;
    d.counters.requotes++;
    const m = st.meta;
    d.checkLoss();
    const block = this.marketBlock(st, now);
    // a failing strategy's block is set below, after each call, and logged there
    const was = st.strategyError ? undefined : st.blocked;
    if (block !== was) {
      // Waiting for the first snapshot or the feed is routine; a stale book while quoting is not.
      if (block) d.log[was === undefined ? 'warn' : 'info']({ market: m.conditionId, reason: block }, 'engine: market not quoting');
      else if (was) d.log.info({ market: m.conditionId }, 'engine: market quoting again');
    }
    st.blocked = block;
    // blocked for a cause of the engine's, the strategy is not asked: its last failure is not news
    if (block !== undefined) st.strategyError = undefined;
    // Halted: the cancel-all went out; reconciling against nothing still cancels any order that
    // was in flight when it did and landed after it.
    const tickOf = st.tickOf;
    const books = d.books;
    const own = this.marketOrders(st);
    // What the strategy and the requote skip price off: the market without our own orders where
    // the venue's books show them (Engine.bookFor), else the raw book (backtests: unchanged).
    const book = this.viewOf(st, m.tokenId, own) as BookView;
    const feedLive = d.feedLive();
    // A strategy declaring what it reads: skip when nothing it or the reconciler reads changed
    // since a requote that had nothing to do (the same inputs give the same nothing).
    const inputs = st.quoteInputs;
    let canRecord = false;
    if (inputs) {
      if (block) inputs.clear();
      else {
        // Nothing of this market queued (its submit would replace nothing; what other markets
        // queue waits for a window, an in-flight slot or the scheduler's timer, never for this
        // submit's pump) and the complement's book as good as the token's (validQuotes keeps
        // the same quotes). Per market: at 1,000 markets something is nearly always queued.
        canRecord = !d.scheduler.hasPending(m.conditionId) && d.risk.tokenFresh(books.book(m.complementId) ?? books.book(m.tokenId), feedLive, now);
        if (canRecord && inputs.same(m, book, tickOf(m.tokenId), tickOf(m.complementId), this.held(m), own)) {
          d.counters.skippedRequotes++;
          return;
        }
      }
    }
    const wanted = this.wanted;
    wanted.length = 0;
    let invalid = 0;
    if (!block) {
      try {
        const complementBlock = () => d.risk.tokenBlock(m.complementId, books.book(m.complementId) ?? books.book(m.tokenId), feedLive, now);
        const qs = st.strategy.quote(st.ctx, book);
        const notArray = notQuotes(qs);
        if (notArray) throw notArray;
        invalid = validQuotes(qs, m, tickOf, complementBlock, wanted);
        if (invalid > 0) this.invalidQuotes(st, qs, invalid, now);
        this.allInvalid(st, qs, invalid, now);
        if (st.strategyError) {
          d.log.info({ market: m.conditionId, failures: st.strategyError.failures, forMs: now - st.strategyError.sinceMs }, 'engine: strategy quoting again');
          st.strategyError = undefined;
        }
      } catch (err) {
        d.counters.errors++;
        this.strategyFailed(st, err, now);
        wanted.length = 0;
        canRecord = false;
      }
    }
    const r = this.reconciler.reconcile(wanted, own, tickOf, this.recon);
    if (r.cut > 0) this.quotesCut(st, r, now);
    if (inputs && !block) {
      if (canRecord && invalid === 0 && r.cancels.length === 0 && r.places.length === 0) {
        inputs.record(m, book, tickOf(m.tokenId), tickOf(m.complementId), this.held(m), own);
      } else inputs.clear();
    }
    const cancels = this.cancelTargets;
    cancels.length = 0;
    // an order whose cancel the venue did not confirm is the retried cancel-all's: sent again on
    // its own it would only fail again, each failure counting against the order error rate
    for (const o of r.cancels) if (o.orderId && !d.cancelAll.has(o.orderId)) cancels.push(o as CancelTarget);
    const places = this.accepted;
    places.length = 0;
    if (r.places.length) {
      const ri = d.riskInputs;
      d.scheduler.queuedElsewhere(m.conditionId, ri.queued);
      // the cancels go out before these places (a SELL's replacement does not promise its shares twice)
      ri.cancelling = r.cancels;
      d.risk.begin();
      let other: BookView | undefined;
      for (const q of r.places) {
        // through the market as we see it (our own orders aside): refused as post-only
        const against = q.tokenId === m.tokenId ? book : (other ??= this.viewOf(st, m.complementId, own));
        if (crossesBook(q, against)) {
          d.counters.heldCrossesBook++;
          this.crossHeld(st, q, against, now);
          continue;
        }
        // our working orders, and the places this requote already took: a strategy may return two that cross
        if (crossesOwn(q, m, own) || crossesQuotes(q, m, places)) {
          d.counters.heldSelfCross++;
          cancelKeptAcross(q, m, own, wanted, cancels, d.cancelAll);
          continue;
        }
        if (!d.risk.checkPlace(q, m, ri, now)) places.push(q);
      }
      ri.cancelling = NO_ORDERS;
    }
    // A SELL passed by the gate but not covered by the shares with every open SELL counted needs
    // the shares of a SELL being cancelled. The venue's balance check counts that SELL until its
    // cancel is done there, and a DELETE written first may still be carried out after the POST
    // (another connection): held back until the cancel's answer, which requotes the market
    // (EngineSink.canceled). A covered SELL goes out before the cancels.
    let covered: boolean[] | undefined;
    if (places.length > 0 && places.some(isSell)) {
      covered = sellsCovered(d.orders, d.sellable, places, this.covered);
      let k = 0;
      for (let i = 0; i < places.length; i++) {
        if (places[i].side === 'SELL' && !covered[i]) {
          d.counters.heldForCancel++;
          continue;
        }
        places[k] = places[i];
        covered[k++] = covered[i];
      }
      places.length = covered.length = k;
    }
    // submit copies the lists before it sends anything (a send may requote another market).
    d.scheduler.submit(m.conditionId, cancels, places, covered);
  }
}

/**
 * The working orders `q` crosses that no wanted quote asks for at their price: kept by the
 * reconciler as within its price tolerance of another price, they would hold `q` back for as long
 * as the strategy's prices hold (no cancel answer would requote the market). Cancelled, so `q` goes
 * out once they land; one at a wanted price stays (the strategy wants both: `q` waits).
 */
function cancelKeptAcross(q: Quote, m: MarketMeta, own: readonly TrackedOrder[], wanted: readonly Quote[], cancels: CancelTarget[], cancelAll: { has(id: string): boolean }): void {
  for (const o of own) {
    if (o.orderId === undefined || (o.state !== 'live' && o.state !== 'partially_filled') || !meets(q, o, m)) continue;
    if (cancels.includes(o as CancelTarget) || cancelAll.has(o.orderId)) continue;
    if (wanted.some((w) => w.tokenId === o.tokenId && w.side === o.side && w.price === o.price)) continue;
    cancels.push(o as CancelTarget);
  }
}
