// The engine: one loop for every mode. Market and user events come in one at a time
// (handleMarketEvent / handleUserEvent); after a book change the market's strategy says what it
// wants, the reconciler diffs that against our working orders, the risk gate filters, and the
// scheduler sends. A mode is only a choice of clock, event source and venue.
import type { Logger } from '../core/log.js';
import type { Config } from '../config.js';
import type { CryptoPriceEvent, LastTradePriceEvent, MarketEvent, MarketLifecycleEvent, UserEvent } from '../core/events.js';
import type { BookView } from '../book/view.js';
import type { Venue } from '../venue/types.js';
import type { Limiter } from '../api/limiter.js';
import type { Clock } from '../core/clock.js';
import type { Rng } from '../core/rng.js';
import type { LoadedStrategy } from './strategy.js';
import type { MarketMeta } from './strategy.js';
import { OrderTracker, sizeToCome, type TrackedOrder } from './orders.js';
import { FillLedger, flatFee, type FillFee } from './fills.js';
import { ruleFeeMicros, type FeeRule } from '../core/fees.js';
import { Positions } from './positions.js';
import { ReferencePrices } from './reference-prices.js';
import { RiskGate, type DayStarts } from './risk.js';
import { riskInputs, type EngineRiskInputs } from './risk-inputs.js';
import { OrderScheduler } from './scheduler.js';
import { EngineSink, type Journal, type StoredHistory } from './engine-sink.js';
import { createMarketState, refreshMeta, type MarketBooks, type MarketState } from './market-state.js';
import { engineResults, type EngineResults } from './engine-results.js';
import { RunningPnl } from './running-pnl.js';
import { TickGuard } from './tick-guard.js';
import { CancelAllRetry } from './cancel-all-retry.js';
import { BalanceBackoff, COLLATERAL } from './balance-backoff.js';
import { CollateralBudget } from './collateral.js';
import { UnreportedFills } from './unreported-fills.js';
import { MissingOrderWatch } from './missing-orders.js';
import { Requoter } from './requote.js';
import { RequoteTiming } from './requote-timing.js';
import { PRICE_SCALE } from '../core/units.js';

/** Dropped markets' tokens whose fee rules are kept for late fills (a few KB; markets rotate for as long as the daemon runs). */
const DROPPED_FEE_RULES = 1024;

export type { MarketBooks, MarketState } from './market-state.js';
export type { EngineResults } from './engine-results.js';

export type { Journal } from './engine-sink.js';

export { HOUSEKEEPING_SLICES } from './requote-timing.js';

export interface EngineOptions {
  clock: Clock;
  rng: Rng;
  log: Logger;
  venue: Venue;
  limiter: Limiter;
  /** True when the venue does not pass the limiter itself (simulated venue). */
  recordLimiterUse: boolean;
  /** The mirror; the market pipeline (feed/market-pipeline.ts) applies each event before handing it over. */
  books: MarketBooks;
  strategy: LoadedStrategy;
  config: Pick<Config, 'reconciler' | 'risk' | 'scheduler'>;
  markets: MarketMeta[];
  journal?: Journal;
  /** Told once, at the first halt (the daemon stops its heartbeats: nothing quotes again in this process). */
  onHalt?: (reason: string) => void;
  /** The store's orders and fills, for a look-up's trade of an order the engine has forgotten (absent: such a trade is another program's). */
  history?: StoredHistory;
  /** Where the daily-loss baseline is kept across restarts (the store); absent: this process only. */
  dayStarts?: DayStarts;
  /** Told the mark a held token keeps when its market is dropped (the store keeps it for a restart: restoreLastMarks). */
  onLastMark?: (tokenId: string, mark: number) => void;
  /** Period of the housekeeping timer (stale books, loss check). */
  timerMs?: number;
  clientIdPrefix?: string;
  /**
   * The venue refused an order of `tokenId` with INVALID_ORDER_MIN_TICK_SIZE: our tick is
   * suspect. The owner asks the venue for the tick (the daemon: GET /tick-size) and answers with
   * tickRefreshed; the market does not quote until then or tickSuspectTimeoutMs. Not set (a
   * backtest, the simulated venue): the rejection is only counted.
   */
  onTickSuspect?: (tokenId: string, market: MarketMeta) => void;
  /** How long a market waits for tickRefreshed before quoting again with the tick it had; default 5000. */
  tickSuspectTimeoutMs?: number;
  /**
   * A trade naming our order failed the fill checks: the owner asks the venue over REST for that
   * order's trades (the daemon: a reconciliation), whose answer is checked the same way.
   */
  onBadTrade?: (orderId: string) => void;
  /** An order became ambiguous (a place with no clear answer): the owner looks it up at the venue soon. */
  onAmbiguous?: () => void;
  /**
   * The user channel told of an order of the account we do not track (a place settled as never
   * landed that landed late; another process on the key): the owner looks the account's orders up
   * at the venue, which adopts or cancels it. Not set: the periodic look-up finds it.
   */
  onUnknownOrder?: () => void;
  /**
   * A book (live venue: it shows our orders) held less at a level than our resting orders there
   * for MISSING_GRACE_MS: a fill or cancel the user channel did not report. The owner looks our
   * orders and trades up at the venue (the daemon: a reconciliation). Not set: not watched.
   */
  onOrdersMissing?: () => void;
  /**
   * The engine runs in real time (the daemon: live, paper), not over a recording's virtual time.
   * Then (1) a market's requotes asked for in one synchronous run (the frames of one socket read)
   * run once, in a microtask at its end, on the newest books (dirty), and what all of them want
   * leaves in one pump (OrderScheduler.together); a send later in the run waits a microtask and
   * shares one batch (OrderScheduler.gatherAfterSend);
   * (2) the housekeeping period's requote of every market is spread over HOUSEKEEPING_SLICES ticks
   * (at 1,000 markets one pass held the loop ~10 ms each second). Off in a backtest, where one run
   * spans many virtual times and its results stay as they were.
   */
  realTime?: boolean;
  /** A strategy's create() that throws: the market suspended (default) or the error thrown (a backtest). */
  onCreateError?: 'suspend' | 'throw';
  /**
   * Why no market may quote now for a cause of the owner's, or undefined (the daemon: the venue's
   * dead-man switch not known to be armed). Read at every requote: its cancels still go out.
   */
  extraBlock?: () => string | undefined;
}

export class Engine {
  readonly clock: Clock;
  readonly log: Logger;
  readonly orders: OrderTracker;
  readonly positions = new Positions();
  /** The crypto price stream's latest values (ctx.referencePrice). */
  readonly referencePrices = new ReferencePrices();
  readonly ledger: FillLedger;
  /** The store's orders and fills (EngineOptions.history). */
  get history(): StoredHistory | undefined {
    return this.o.history;
  }
  readonly risk: RiskGate;
  readonly scheduler: OrderScheduler;
  readonly markets = new Map<string, MarketState>();
  private readonly byToken = new Map<string, MarketState>();
  /**
   * The mark of a held token when its market was dropped (the feed then forgets its books): its
   * holding keeps that value rather than falling to cost, until a book marks it again.
   */
  private readonly lastMarks = new Map<string, number>();
  /** token -> its market's condition id, of every token traded (noteMarketOf, dropMarket): a held one outside the set is asked about. */
  private readonly marketOfToken = new Map<string, string>();
  /** Tokens of resolved markets at what they pay (1 the winner, 0 the other), ahead of any book or last mark. */
  private readonly settledMarks = new Map<string, number>();
  /**
   * The fee rules of dropped markets' tokens, for their late fills (a trade matched before the
   * cancel, found by the lingering user channel or a look-up): the newest DROPPED_FEE_RULES tokens.
   */
  private readonly droppedFeeRules = new Map<string, FeeRule>();
  /** What a market's requote sends (requote.ts); when it runs (requote-timing.ts). */
  private readonly requoter: Requoter;
  private readonly timing: RequoteTiming;
  /**
   * Shares of a token the venue counts as ours to sell: held, less those bought in trades not yet
   * on chain; none while a refused SELL's wait runs (balance-backoff.ts).
   */
  private readonly sellable = (tokenId: string): number =>
    this.balanceWait.waiting(tokenId) ? 0 : Math.max(0, this.positions.qty(tokenId) - this.positions.overstated(tokenId) - this.ledger.unminedBought(tokenId) - this.unreportedSells.shares(tokenId));
  /** Shares of SELLs that ended matched, sold with the trade not yet reported (unreported-fills.ts). */
  readonly unreportedSells: UnreportedFills;
  /** Shares of BUYs that ended matched, bought with the trade not yet reported: held, for the position limits. */
  readonly unreportedBuys: UnreportedFills;
  /** Our resting orders the books no longer hold (live: EngineOptions.onOrdersMissing). */
  readonly missingOrders: MissingOrderWatch | undefined;
  private readonly balanceWait: BalanceBackoff;
  /** The collateral our BUYs may promise (collateral.ts). */
  readonly collateral: CollateralBudget;
  private readonly riskInputs: EngineRiskInputs;
  private feedLive = true;
  private quoting = false;
  private stopping = false;
  private haltHandled = false;
  /** Orders whose cancel the venue did not confirm, and the cancel-all retried for them (and for a halt). */
  private readonly cancelAll: CancelAllRetry;
  /**
   * requotes counts every one, skippedRequotes those of them skipped as changing nothing
   * (quote-inputs.ts), heldSelfCross places held back because they would cross our own order,
   * heldForCancel SELLs held back until the cancel of a SELL whose shares they need has landed,
   * sellWaits SELLs refused for balance (each starts its token's wait, balance-backoff.ts),
   * buyWaits BUYs refused for balance (each starts the BUYs' wait and a collateral read).
   * tickRejects: orders refused with INVALID_ORDER_MIN_TICK_SIZE; tickRefreshes: refreshes asked
   * for after one; tickRefreshTimeouts: of those, not answered in time (quoting resumed on the old tick).
   */
  readonly counters = {
    marketEvents: 0,
    userEvents: 0,
    requotes: 0,
    skippedRequotes: 0,
    invalidQuotes: 0,
    quotesCut: 0,
    heldSelfCross: 0,
    heldCrossesBook: 0,
    heldForCancel: 0,
    sellWaits: 0,
    buyWaits: 0,
    errors: 0,
    tickRejects: 0,
    tickRefreshes: 0,
    tickRefreshTimeouts: 0,
    badTrades: 0,
  };
  /** Venue refusals of our places, by code (EngineSink; metrics orders_rejected_total). */
  readonly rejects = new Map<string, number>();
  /** The loss check's running PnL (revalues only what moved). */
  private readonly runningPnl: RunningPnl;
  private readonly ticks: TickGuard;
  /** Trades refused by the fill checks, per order id (the second halts the order's market). */
  private readonly badTradesByOrder = new Map<string, number>();

  constructor(private readonly o: EngineOptions) {
    this.clock = o.clock;
    this.log = o.log;
    this.orders = new OrderTracker(o.clientIdPrefix ?? 'mk');
    const sink = new EngineSink(this, o.journal);
    this.ledger = new FillLedger(this.orders, sink, o.config.risk.maxFeeRateBps, this.fillFee);
    this.risk = new RiskGate(o.config.risk, o.log.child({ part: 'risk' }), o.dayStarts);
    this.scheduler = new OrderScheduler({
      venue: o.venue,
      limiter: o.limiter,
      // the limiter's windows are on its clock (monotonic live, the virtual one in a backtest)
      clock: o.limiter.clock,
      log: o.log.child({ part: 'scheduler' }),
      sink,
      maxBatch: o.config.scheduler.maxBatch,
      singleOverflow: o.config.scheduler.singleOverflow,
      recordUse: o.recordLimiterUse,
    });
    this.scheduler.gatherAfterSend(o.realTime ?? false);
    if (o.journal) {
      const j = o.journal;
      this.orders.onChange((ord) => {
        try {
          j.orderChanged(ord);
        } catch (err) {
          this.counters.errors++;
          this.log.error({ err, clientId: ord.clientId }, 'engine: storing an order change failed');
        }
      });
    }
    if (o.onAmbiguous) {
      const hook = o.onAmbiguous;
      this.orders.onChange((ord) => {
        if (ord.state === 'ambiguous') hook();
      });
    }
    // an order that ends cancelled with size the venue listed as matched before its trade came
    // (unseen): those shares are sold (bought) all the same, held as unreported until the trade
    // comes, however it ended (a cancel's answer, the cancel-all, the user channel, a look-up)
    // (once: a later fill of it releases the hold by its size, engine-sink.ts onFill)
    const heldAtCancel = new WeakSet<TrackedOrder>();
    this.orders.onChange((ord) => {
      if (ord.state === 'canceled' && ord.unseen && !heldAtCancel.has(ord)) {
        heldAtCancel.add(ord);
        this.matchedUnreported(ord, ord.unseen);
      }
    });
    if (o.venue.booksIncludeOwnOrders) {
      // our orders are taken out of the books we mark at: an order's change moves its market's marks
      this.orders.onChange((ord) => this.markMoved(ord.tokenId));
    }
    this.runningPnl = new RunningPnl(this.positions, (t) => this.valueOf(t));
    this.cancelAll = new CancelAllRetry({
      clock: o.clock,
      log: o.log,
      scheduler: this.scheduler,
      orders: this.orders,
      requoteAll: () => {
        for (const st of this.markets.values()) this.requote(st);
      },
      stopping: () => this.stopping,
      halted: () => this.risk.halted !== undefined,
    });
    this.ticks = new TickGuard(
      {
        clock: o.clock,
        log: o.log,
        counters: this.counters,
        marketOf: (t) => this.byToken.get(t),
        requote: (st) => this.requote(st),
        retick: (meta) => this.addMarket(meta),
        applyTickChange: (ev) => {
          // applied here even when the caller applies feed events: no feed frame carries this one
          o.books.apply(ev);
          this.markMoved(ev.assetId);
        },
        stopping: () => this.stopping,
      },
      o.onTickSuspect,
      o.tickSuspectTimeoutMs ?? 5000,
    );
    // the BUYs' wait ends at the next housekeeping requote (every market, once a period)
    this.balanceWait = new BalanceBackoff(o.clock, (t) => this.touch(t));
    this.unreportedSells = new UnreportedFills(o.clock, (t) => this.touch(t));
    this.unreportedBuys = new UnreportedFills(o.clock, (t) => this.touch(t));
    this.missingOrders = o.onOrdersMissing && o.venue.booksIncludeOwnOrders ? new MissingOrderWatch(o.clock, o.log, o.onOrdersMissing) : undefined;
    const venue = o.venue;
    this.collateral = new CollateralBudget({
      clock: o.clock,
      log: o.log,
      read: venue.collateral && o.config.risk.collateralReadMs > 0 ? () => venue.collateral!() : undefined,
      refresh: venue.refreshBalance ? () => venue.refreshBalance!() : undefined,
      spent: () => this.positions.spent,
      everyMs: o.config.risk.collateralReadMs,
    });
    this.positions.onApply = (t) => this.markMoved(t);
    o.books.onOutOfSync?.((t) => this.markMoved(t));
    this.riskInputs = riskInputs(
      this.orders,
      this.positions,
      (t) => this.mark(t),
      // held but not ours to sell yet: bought in a trade not settled, or maybe sold unreported
      (t) => this.ledger.unminedBought(t) + this.unreportedSells.shares(t),
      (t) => this.balanceWait.waiting(t),
      { available: () => this.collateral.available(), buyWaiting: () => this.balanceWait.waiting(COLLATERAL) },
      (t) => this.unreportedBuys.shares(t),
      (t) => this.unreportedSells.shares(t),
    );
    this.requoter = new Requoter({
      clock: o.clock,
      log: o.log,
      counters: this.counters,
      config: o.config.reconciler,
      risk: this.risk,
      riskInputs: this.riskInputs,
      scheduler: this.scheduler,
      orders: this.orders,
      positions: this.positions,
      books: o.books,
      booksIncludeOwnOrders: o.venue.booksIncludeOwnOrders,
      sellable: this.sellable,
      cancelAll: this.cancelAll,
      feedLive: () => this.feedLive,
      checkLoss: () => this.checkLoss(),
      extraBlock: o.extraBlock,
    });
    this.timing = new RequoteTiming({
      clock: o.clock,
      log: o.log,
      counters: this.counters,
      realTime: o.realTime ?? false,
      debounceMs: o.config.reconciler.debounceMs,
      periodMs: o.timerMs ?? 1000,
      scheduler: this.scheduler,
      markets: () => this.markets.values(),
      requote: (st) => this.requote(st),
      housekeep: this.missingOrders ? (st, now) => this.lookForMissing(st, now) : undefined,
      active: () => this.quoting && !this.stopping,
      periodStart: () => {
        // once a period the running PnL is re-marked in full (a book dropped where no event says so)
        this.runningPnl.remarkAll();
        this.checkLoss();
      },
      periodEnd: (now) => {
        this.risk.summarize(now);
        this.orders.prune(now - 600_000);
        this.ledger.prune();
        // an order forgotten takes its count of refused trades with it (else one entry per order, for good)
        for (const id of this.badTradesByOrder.keys()) if (!this.orders.byVenueId(id)) this.badTradesByOrder.delete(id);
      },
    });
    for (const m of o.markets) this.addMarket(m);
    o.venue.onUserEvent((e) => this.handleUserEvent(e));
  }

  addMarket(meta: MarketMeta): void {
    const existing = this.markets.get(meta.conditionId);
    if (existing) {
      // the tick the feed announced (a tick_size_change, a snapshot) is newer than a metadata
      // refresh's, which may lag the CLOB: the strategy would round to the old grid, every quote
      // then refused as off the book's tick
      const bookTick = this.o.books.book(meta.tokenId)?.tick ?? 0;
      refreshMeta(existing, bookTick > 0 && bookTick !== meta.tick ? { ...meta, tick: bookTick } : meta);
      if (existing.removed) {
        // back in the set before it was dropped: quoting again
        existing.removed = false;
        this.requote(existing);
      }
      return;
    }
    // quoted again: its book values its tokens, and a resolution found while it was outside stands
    // only as a kept mark until the book gives one (a resolved market's book has no mid)
    for (const t of [meta.tokenId, meta.complementId]) {
      const settled = this.settledMarks.get(t);
      if (settled === undefined) continue;
      this.settledMarks.delete(t);
      if (this.positions.mayHold(t)) this.lastMarks.set(t, settled);
    }
    const o = this.o;
    const st = createMarketState(meta, {
      clock: o.clock,
      rng: o.rng,
      log: o.log,
      strategy: o.strategy,
      positions: this.positions,
      sellable: this.sellable,
      books: o.books,
      strategyBook: (t) => this.bookFor(t),
      referencePrice: (s) => this.referencePrices.get(s, this.clock.now()),
      onCreateError: o.onCreateError,
    });
    this.markets.set(meta.conditionId, st);
    this.byToken.set(meta.tokenId, st);
    this.byToken.set(meta.complementId, st);
    this.runningPnl.adopt(meta.tokenId);
    this.runningPnl.adopt(meta.complementId);
    st.marksMoved = false;
    this.runningPnl.marketMoved(st);
  }

  /**
   * Takes a market out of the set while running: it quotes nothing from now on and its open
   * orders are cancelled (the scheduler's cancels). dropMarket forgets it once none is open;
   * its positions stay held and marked.
   */
  retireMarket(conditionId: string): void {
    const st = this.markets.get(conditionId);
    if (!st || st.removed) return;
    st.removed = true;
    this.log.info({ market: conditionId }, 'engine: market removed from the set; cancelling its orders');
    this.requote(st);
  }

  /** Forgets a retired market with no open order; false while one is open (or it is not retired). */
  dropMarket(conditionId: string): boolean {
    const st = this.markets.get(conditionId);
    if (!st) return true;
    if (!st.removed || this.requoter.marketOrders(st).length > 0) return false;
    if (st.timer !== undefined) this.clock.cancel(st.timer);
    this.ticks.clear(st);
    this.markets.delete(conditionId);
    for (const t of [st.meta.tokenId, st.meta.complementId]) {
      // a held token keeps its mark (a resolved one what it pays), as does a flat one whose fill
      // may still fail (the holding would come back); others need none, and keeping one per token
      // ever traded would grow for as long as markets rotate
      const m = this.positions.mayHold(t) ? this.markOrLast(t) : NaN;
      this.settledMarks.delete(t);
      if (this.positions.mayHold(t)) this.noteMarketOf(t, conditionId);
      if (m === m) {
        this.lastMarks.set(t, m);
        this.o.onLastMark?.(t, m);
      }
      this.byToken.delete(t);
      this.keepDroppedFeeRule(t, st.meta.feeRule);
      this.missingOrders?.forget(t);
      this.positions.forget(t);
      if (this.positions.has(t)) this.runningPnl.orphan(t);
    }
    return true;
  }

  /** The market a token belongs to (its fills name it; restoreFromStore): asked about once the token is held outside the set (heldOutsideMarkets). */
  noteMarketOf(tokenId: string, conditionId: string): void {
    if (conditionId && this.marketOfToken.get(tokenId) !== conditionId) this.marketOfToken.set(tokenId, conditionId);
  }

  /** Held tokens of no quoted market whose market is known and not yet resolved, by that market (ResolutionWatch). */
  heldOutsideMarkets(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const [t] of this.positions.entries()) {
      if (this.byToken.has(t) || this.settledMarks.has(t) || this.positions.qty(t) === 0) continue;
      const m = this.marketOfToken.get(t);
      if (m === undefined) continue;
      const ts = out.get(m);
      if (ts) ts.push(t);
      else out.set(m, [t]);
    }
    return out;
  }

  /**
   * A market of no quoted set that the venue says resolved (ResolutionWatch): its tokens at what they
   * pay, as a market_resolved marks a quoted one's, and kept for a restart. False when it is quoted
   * again (its own feed tells) or names no token held.
   */
  settleOutside(conditionId: string, winner: string, tokens: readonly string[]): boolean {
    // the answer must be this market's: no token of it quoted, and every held token we asked about in it
    if (this.markets.has(conditionId) || !tokens.includes(winner) || tokens.some((t) => this.byToken.has(t))) return false;
    const asked = this.heldOutsideMarkets().get(conditionId) ?? [];
    if (asked.length === 0 || asked.some((t) => !tokens.includes(t))) return false;
    for (const t of tokens) {
      const mark = t === winner ? PRICE_SCALE : 0;
      this.settledMarks.set(t, mark);
      this.markMoved(t);
      if (this.positions.mayHold(t)) this.o.onLastMark?.(t, mark);
    }
    this.log.info({ market: conditionId, winner }, 'engine: a market held outside the set resolved: its tokens marked at what they pay');
    this.checkLoss();
    return true;
  }

  /** A fee rule for a token of no quoted market (the daemon: markets of orders restored after a restart, feeRulesOutside): its late fills pay by it. */
  keepFeeRule(tokenId: string, rule: FeeRule): void {
    if (!this.byToken.has(tokenId)) this.keepDroppedFeeRule(tokenId, rule);
  }

  private keepDroppedFeeRule(tokenId: string, rule: FeeRule | undefined): void {
    this.droppedFeeRules.delete(tokenId);
    if (rule === undefined) return;
    this.droppedFeeRules.set(tokenId, rule);
    if (this.droppedFeeRules.size > DROPPED_FEE_RULES) this.droppedFeeRules.delete(this.droppedFeeRules.keys().next().value as string);
  }

  /** Whether every holding had a mark at the last revaluation (the loss check waits for them: RiskGate.checkLoss). */
  private readonly holdingsMarked = (): boolean => this.positions.heldAtCost() === 0;

  /** Forgets the positions of tokens outside the quoted markets held no more (a restart: the store's fills bring back every token ever traded). */
  forgetFlatOutside(): void {
    for (const [t, p] of [...this.positions.entries()]) if (p.qty === 0 && !this.byToken.has(t)) this.positions.forget(t);
    // the markets of tokens not held are never asked about: start-up noted every token's, kept only for the held
    for (const t of [...this.marketOfToken.keys()]) if (!this.positions.mayHold(t)) this.marketOfToken.delete(t);
  }

  /** The mark, else the last one the token was valued at (a book gone one-sided or out of sync keeps its last). */
  private markOrLast(tokenId: string): number {
    const m = this.valueOf(tokenId);
    return m === m ? m : this.positions.lastMarkOf(tokenId);
  }

  /**
   * Each held token's mark (or the last it was valued at), for the store to keep: a restart values
   * a holding whose market it no longer quotes at it, not at cost (which the day's loss baseline,
   * taken at the mark, would count as a gain or a loss that never happened).
   */
  heldMarks(): Array<[string, number]> {
    const out: Array<[string, number]> = [];
    for (const [t] of this.positions.entries()) {
      if (!this.positions.mayHold(t)) continue;
      const m = this.markOrLast(t);
      if (m === m) out.push([t, m]);
    }
    return out;
  }

  /** Tokens with a position entry that are flat and may not be held again: a mark kept for them is forgotten (a later holding starts at cost). */
  flatTokens(): string[] {
    const out: string[] = [];
    for (const [t] of this.positions.entries()) if (!this.positions.mayHold(t)) out.push(t);
    return out;
  }

  /** Held tokens outside the quoted markets (no book of theirs comes): [valued at a kept mark, at cost]. */
  heldOutside(): { marked: number; atCost: number } {
    let marked = 0;
    let atCost = 0;
    for (const [t] of this.positions.entries()) {
      if (this.byToken.has(t) || !this.positions.mayHold(t) || this.positions.qty(t) === 0) continue;
      const m = this.mark(t);
      if (m === m) marked++;
      else atCost++;
    }
    return { marked, atCost };
  }

  /** The marks held tokens of dropped markets kept before a restart (onLastMark): valued at them, not at cost. */
  restoreLastMarks(marks: ReadonlyMap<string, number>): void {
    // only for what is held or may be again: the store keeps older rows of tokens long flat
    // a quoted token's only until its book gives one (mark): kept longer it would outlive this
    // session's marks, and stand for them whenever both books are out of sync
    for (const [t, m] of marks) if (Number.isFinite(m) && !this.lastMarks.has(t) && this.positions.mayHold(t)) this.lastMarks.set(t, m);
    this.runningPnl.remarkAll();
  }

  /** Something `tokenId`'s mark or position reads changed: its market is revalued at the next loss check. */
  private markMoved(tokenId: string): void {
    const st = this.byToken.get(tokenId);
    if (st) this.runningPnl.marketMoved(st);
    else if (this.positions.has(tokenId)) this.runningPnl.orphan(tokenId);
  }

  marketOf(tokenId: string): MarketState | undefined {
    return this.byToken.get(tokenId);
  }

  /** Starts quoting (after startup reconciliation) and the housekeeping timer. */
  start(): void {
    this.quoting = true;
    this.collateral.schedule();
    this.runningPnl.remarkAll();
    this.timing.start();
    for (const st of this.markets.values()) this.requote(st);
  }

  get isQuoting(): boolean {
    return this.quoting && !this.stopping && !this.risk.halted;
  }

  /** Why this engine quotes nothing for a cause of its own life (before start(), once stop() began), or undefined. */
  get notRunning(): string | undefined {
    if (this.stopping) return 'stopping';
    return this.quoting ? undefined : 'not started';
  }

  handleMarketEvent(e: MarketEvent): void {
    this.counters.marketEvents++;
    try {
      switch (e.type) {
        case 'book':
          this.markMoved(e.assetId);
          if (e.tickSize !== undefined) this.ticks.set(e.assetId, e.tickSize);
          this.touch(e.assetId);
          break;
        case 'tick_size_change':
          this.markMoved(e.assetId);
          this.ticks.clear(this.byToken.get(e.assetId));
          this.ticks.set(e.assetId, e.newTickSize);
          this.touch(e.assetId);
          break;
        case 'best_bid_ask':
          this.markMoved(e.assetId);
          this.touch(e.assetId);
          break;
        case 'price_change': {
          const ch = e.changes;
          let last: MarketState | undefined;
          // A frame's changes mostly name one or two assets: a repeat skips the keyed lookup.
          let lastId = '';
          for (let i = 0; i < ch.length; i++) {
            const id = ch[i].assetId;
            if (id === lastId) continue;
            lastId = id;
            const st = this.byToken.get(id);
            if (!st) {
              if (this.positions.has(id)) this.runningPnl.orphan(id);
            } else if (st !== last) {
              last = st;
              this.runningPnl.marketMoved(st);
              this.dirty(st);
            }
          }
          break;
        }
        case 'last_trade_price': {
          this.markMoved(e.assetId);
          const st = this.byToken.get(e.assetId);
          if (st) {
            if (st.strategy.onTrade) this.onTrade(st, e);
            this.dirty(st);
          }
          break;
        }
        case 'market_resolved': {
          const st = this.markets.get(e.market);
          if (st) {
            st.resolved = true;
            this.settle(st, e);
            this.requote(st);
          }
          break;
        }
        default:
          break;
      }
    } catch (err) {
      this.counters.errors++;
      this.log.error({ err, type: e.type }, 'engine: market event failed');
    }
  }

  /**
   * A resolved market's tokens are marked at what they pay, the winner (named by token, else by
   * outcome) at 1 and the other at 0: the last mid would keep a losing holding's stake in the PnL
   * and the daily-loss check. A resolution naming neither token changes no mark.
   */
  private settle(st: MarketState, e: MarketLifecycleEvent): void {
    const i = e.winningOutcome === undefined ? -1 : e.outcomes.indexOf(e.winningOutcome);
    const winner = e.winningAssetId ?? (i >= 0 ? e.assetIds[i] : undefined);
    const { tokenId, complementId } = st.meta;
    if (winner !== tokenId && winner !== complementId) return;
    this.settledMarks.set(winner, PRICE_SCALE);
    this.settledMarks.set(winner === tokenId ? complementId : tokenId, 0);
    this.markMoved(tokenId);
  }

  /** What a token of a resolved market pays (price units: 10000 the winner, 0 the other), undefined before. */
  settledMark(tokenId: string): number | undefined {
    return this.settledMarks.get(tokenId);
  }

  /** The strategy's onTrade; a throw is counted and logged once a minute per market, and the trade still requotes it. */
  private onTrade(st: MarketState, e: LastTradePriceEvent): void {
    try {
      st.strategy.onTrade?.(st.ctx, e);
    } catch (err) {
      this.counters.errors++;
      const now = this.clock.now();
      st.onTradeFailures++;
      if (now - st.onTradeLoggedMs < 60_000) return;
      st.onTradeLoggedMs = now;
      this.log.error({ err, market: st.meta.conditionId, failures: st.onTradeFailures }, "engine: strategy's onTrade failed");
    }
  }

  handleUserEvent(e: UserEvent): void {
    this.counters.userEvents++;
    const now = this.clock.now();
    try {
      if (e.type === 'order') {
        const known = this.orders.byVenueId(e.orderId);
        const was = known?.state;
        const o = this.orders.orderEvent(e, now);
        if (o === undefined) this.o.onUnknownOrder?.();
        // the venue says MATCHED; the trade that fills it is reported on its own, maybe later
        if (o && o.state === 'filled' && was !== 'filled') this.matchedUnreported(o, sizeToCome(o));
        const st = o && this.byToken.get(o.tokenId);
        if (st) this.dirty(st);
      } else if (this.atomically(() => this.ledger.onTrade(e, now)) > 0) {
        // the orders it filled (their own-excluded books) and the positions it moved
        this.markMoved(e.assetId);
        for (const m of e.makerOrders) this.markMoved(m.assetId);
        this.checkLoss();
        const st = this.byToken.get(e.assetId) ?? this.markets.get(e.market);
        if (st) this.dirty(st);
      }
    } catch (err) {
      this.counters.errors++;
      this.log.error({ err, type: e.type }, 'engine: user event failed');
    }
  }

  /**
   * An order of ours ended matched with `left` of it not reported as filled (its cancel refused:
   * already canceled or matched; or the venue's MATCHED): what it bought or sold is held until the
   * fill comes (unreported-fills.ts; a BUY's cost in the collateral budget), and live, the venue
   * is asked if no report comes (missing-orders.ts).
   */
  matchedUnreported(o: TrackedOrder, left: number): void {
    if (o.orderId === undefined || !(left > 0)) return;
    if (o.side === 'BUY') {
      this.collateral.awaitFills(o.orderId, o.price * left);
      this.unreportedBuys.hold(o.orderId, o.tokenId, left);
    } else this.unreportedSells.hold(o.orderId, o.tokenId, left);
    this.missingOrders?.matchedUnreported(o.orderId);
  }

  /** Journal writes made inside `fn` are stored in one transaction (a fill and the order state it moved). */
  atomically<T>(fn: () => T): T {
    const j = this.o.journal;
    return j?.unit ? j.unit(fn) : fn();
  }

  /** A crypto reference price (live stream or recording): strategies may price off it, so every market requotes. */
  handleReferencePrice(e: CryptoPriceEvent): void {
    if (!this.referencePrices.update(e, this.clock.now())) return;
    for (const st of this.markets.values()) {
      // a strategy's declared inputs do not name the price: its next requote must run
      st.quoteInputs?.clear();
      this.dirty(st);
    }
  }

  /**
   * A trade naming our order that is not a plausible fill of it (fill-checks.ts): counted, logged
   * with the trade, and looked up at the venue; a second one for the same order halts its market.
   */
  badTrade(orderId: string, problem: string, trade: unknown): void {
    this.counters.badTrades++;
    const n = (this.badTradesByOrder.get(orderId) ?? 0) + 1;
    this.badTradesByOrder.set(orderId, n);
    const o = this.orders.byVenueId(orderId);
    const st = o && this.byToken.get(o.tokenId);
    this.log.error({ orderId, problem, trade, failures: n }, 'engine: a trade naming our order failed the checks; not taken as a fill');
    if (n >= 2) {
      // the venue's own list was read (the first failure's look-up): it decided; no look-up again,
      // not even for an order of a market no longer quoted (each look-up would find it again)
      if (st && !st.suspended) {
        st.suspended = `halted: trades for order ${orderId} failed the checks (${problem})`;
        this.log.error({ market: st.meta.conditionId, orderId }, 'engine: market halted after a second implausible trade for one order');
        this.requote(st);
      }
      return;
    }
    try {
      this.o.onBadTrade?.(orderId);
    } catch (err) {
      this.counters.errors++;
      this.log.error({ err, orderId }, 'engine: bad-trade look-up hook failed');
    }
  }

  /** Feed liveness from the connection watchdog: quotes are pulled while it is not live. */
  setFeedLive(live: boolean): void {
    if (live === this.feedLive) return;
    this.feedLive = live;
    this.log.info({ live }, 'engine: feed state changed');
    for (const st of this.markets.values()) this.requote(st);
  }

  /** Housekeeping: stale-book guard, loss check, memory pruning. Also callable by a backtest driver. */
  onTimer(): void {
    this.timing.tick(0, 1);
  }

  /** Stops quoting, cancels every order (DELETE /cancel-all), waits for the requests to finish. */
  halt(reason: string): void {
    // The gate may already be halted (it trips itself); the cancel-all is sent once, here.
    this.risk.halt(reason, this.clock.now());
    if (!this.haltHandled) {
      this.haltHandled = true;
      for (const st of this.markets.values()) st.blocked = `halted: ${reason}`;
      this.cancelAll.untilDone();
      this.o.onHalt?.(reason);
    }
  }

  /**
   * Cancels of these orders failed or ran past their deadline: they may still rest at the venue.
   * No market places until a cancel-all is confirmed (retried every second); /health says so.
   */
  cancelsUnconfirmed(orderIds: readonly string[]): void {
    this.cancelAll.add(orderIds);
  }

  /** Orders whose place had no clear answer and that the venue has not yet shown us. */
  ambiguousCount(): number {
    let n = 0;
    for (const o of this.orders.open()) if (o.state === 'ambiguous') n++;
    return n;
  }

  /** Venue ids of open orders whose cancel is not confirmed. */
  unconfirmedCancels(): string[] {
    return this.cancelAll.open();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.timing.stop();
    for (const st of this.markets.values()) {
      if (st.timer !== undefined) this.clock.cancel(st.timer);
      this.ticks.clear(st);
    }
    await this.scheduler.cancelAll();
    await this.scheduler.whenIdle();
    this.scheduler.close();
    this.balanceWait.close();
    this.unreportedSells.close();
    this.unreportedBuys.close();
    this.missingOrders?.close();
    this.collateral.close();
  }

  /**
   * Mark of a token for PnL and the risk gate's price collar: its mid, else the complement's
   * 1 - mid, both of bookFor (without our own orders where the venue's books show them).
   */
  mark(tokenId: string): number {
    if (this.settledMarks.size > 0) {
      const s = this.settledMarks.get(tokenId);
      if (s !== undefined) return s;
    }
    const m = this.midOf(tokenId);
    const st = this.byToken.get(tokenId);
    const om = m === m || !st ? NaN : this.midOf(st.meta.tokenId === tokenId ? st.meta.complementId : st.meta.tokenId);
    if (m === m || om === om) {
      // a quoted token's kept mark (a restart's, a market dropped and added back) gives way for good to its book's
      if (this.lastMarks.size > 0 && st) this.lastMarks.delete(tokenId);
      return m === m ? m : PRICE_SCALE - om;
    }
    // a quoted token with no mid has none to quote around (the risk gate's no_mid): its kept mark values it (valueOf)
    return st ? NaN : (this.lastMarks.get(tokenId) ?? NaN);
  }

  /**
   * What a holding is valued at (the PnL, the loss check, the marks kept for a restart): its mark;
   * a quoted token with no mid, its last mark bounded by the side its book has left (withinOneSide).
   * Not the risk gate's price reference: a one-sided book is no mid to quote around (no_mid).
   */
  valueOf(tokenId: string): number {
    // mark() is NaN for a quoted token exactly when it is not settled and neither book gives a mid
    const m = this.mark(tokenId);
    if (m === m) return m;
    const st = this.byToken.get(tokenId);
    if (!st) return m;
    const last = this.lastMarks.get(tokenId) ?? this.positions.lastMarkOf(tokenId);
    return last === last ? this.withinOneSide(tokenId, st, last) : NaN;
  }

  /**
   * A quoted token's last mark bounded by the side its book has left: nobody pays more than the best
   * ask (nor the complement's 1 - best bid), nor sells below the best bid. A crash that takes every
   * bid and leaves asks at 0.02 values a long there, not at its last mid (the loss check saw nothing).
   */
  private withinOneSide(tokenId: string, st: MarketState, last: number): number {
    const own = this.bookFor(tokenId);
    const other = this.bookFor(st.meta.tokenId === tokenId ? st.meta.complementId : st.meta.tokenId);
    let cap = PRICE_SCALE;
    let floor = 0;
    if (own) {
      const a = own.bestAsk();
      const b = own.bestBid();
      if (a >= 0) cap = a;
      if (b >= 0) floor = b;
    }
    if (other) {
      const b = other.bestBid();
      const a = other.bestAsk();
      if (b >= 0) cap = Math.min(cap, PRICE_SCALE - b);
      if (a >= 0) floor = Math.max(floor, PRICE_SCALE - a);
    }
    return Math.min(cap, Math.max(floor, last));
  }

  private midOf(tokenId: string): number {
    const b = this.bookFor(tokenId);
    return b ? b.mid() : NaN;
  }

  /**
   * A token's book as the market shows it to us, what strategies get (quote's book and ctx.book):
   * where the venue's books include our own orders, a view without our resting size
   * (own-excluded-view.ts: else the strategy chases its own quotes); otherwise the raw book.
   */
  bookFor(tokenId: string): BookView | undefined {
    const b = this.o.books.book(tokenId);
    if (!b || !this.o.venue.booksIncludeOwnOrders) return b;
    const st = this.byToken.get(tokenId);
    return st ? this.requoter.ownExcluded(st, tokenId, b, this.requoter.marketOrders(st)) : b;
  }

  pnlMicros(): number {
    return this.positions.pnl((t) => this.valueOf(t));
  }

  /**
   * What a fill of ours pays. A market with a fee rule (Polymarket's fee markets) charges takers
   * the rule and makers nothing, whatever fee_rate_bps its trade messages carry (the venue puts its
   * base rate on every part, makers' included: 1000 in a real capture, which as a flat rate would
   * book 10% of each maker fill's notional); else the trade's rate on the notional (a maker's
   * none where the venue charges makers nothing: Venue.makersPayNoFee).
   */
  readonly fillFee: FillFee = (tokenId, price, size, feeRateBps, liquidity) => {
    const st = this.byToken.get(tokenId);
    if (liquidity === 'MAKER' && this.o.venue.makersPayNoFee) return 0;
    const rule = st ? st.meta.feeRule : this.droppedFeeRules.get(tokenId);
    if (rule === undefined) return flatFee(tokenId, price, size, feeRateBps, liquidity);
    if (liquidity === 'MAKER') return 0;
    // numbers the rule cannot take belong to a trade the fill checks refuse: no throw before they run
    if (!(Number.isSafeInteger(price) && price > 0 && price < PRICE_SCALE && Number.isSafeInteger(size) && size >= 0)) return NaN;
    return ruleFeeMicros(price, size, rule);
  };

  results(): EngineResults {
    return engineResults(this);
  }

  /**
   * The daily-loss check on the running PnL: cash plus each held token at its mark, revalued only
   * for the markets flagged since (an event, an order change or a fill of theirs), so a check costs
   * the same at 1 or 1,000 markets. Equal to pnlMicros() (positions.test, engine tests).
   */
  checkLoss(): void {
    const reason = this.risk.checkLoss(this.runningPnlMicros(), this.clock.now(), this.holdingsMarked);
    if (reason) this.halt(reason);
  }

  /** pnlMicros() from the running sum: revalues what moved, then cash plus the held values. */
  runningPnlMicros(): number {
    return this.runningPnl.value();
  }

  /**
   * A BUY was refused for balance (true) or accepted (false): every BUY waits (balance-backoff.ts),
   * and the collateral is read again, the venue asked to re-read it first (collateral.ts).
   */
  buyAnswered(refusedForBalance: boolean): void {
    if (!refusedForBalance) return this.balanceWait.accepted(COLLATERAL);
    this.counters.buyWaits++;
    const waitMs = this.balanceWait.refused(COLLATERAL);
    this.log.info(
      { waitMs, collateralUsd: this.collateral.lastRead() === undefined ? null : (this.collateral.lastRead() as number) / 1e6 },
      'engine: BUY refused for balance; BUYs wait before the next, and the collateral is read again',
    );
    void this.collateral.read(true);
  }

  /** A SELL of `tokenId` was refused for balance (true) or accepted (false): balance-backoff.ts. */
  sellAnswered(tokenId: string, refusedForBalance: boolean): void {
    if (!refusedForBalance) return this.balanceWait.accepted(tokenId);
    this.counters.sellWaits++;
    const waitMs = this.balanceWait.refused(tokenId);
    this.log.info({ tokenId, waitMs }, 'engine: SELL refused for balance; its shares wait before the next offer');
    // the venue's cache may be what is stale: ask it to re-read (Polymarket's advice in issue 290)
    const venue = this.o.venue;
    if (!venue.refreshBalance) return;
    // a venue's throw before any request is a failure like an error answer: logged, never the loop's
    new Promise<void>((resolve) => resolve(venue.refreshBalance?.(tokenId))).catch((err: unknown) => this.log.warn({ err, tokenId }, 'engine: asking the venue to re-read our balance failed'));
  }

  /** An order of `tokenId` was refused with INVALID_ORDER_MIN_TICK_SIZE (tick-guard.ts). */
  tickRejected(tokenId: string): void {
    this.ticks.rejected(tokenId);
  }

  /** The owner's answer to onTickSuspect: `tick` of `tokenId` in price units (tick-guard.ts). */
  tickRefreshed(tokenId: string, tick: number): void {
    this.ticks.refreshed(tokenId, tick);
  }

  private touch(assetId: string): void {
    const st = this.byToken.get(assetId);
    if (st) this.dirty(st);
  }

  /** Debounce: requote now unless one ran within debounceMs; then once at the end of the interval (requote-timing.ts). */
  dirty(st: MarketState): void {
    this.timing.dirty(st);
  }

  /** One of `slices` ticks of a housekeeping period (requote-timing.ts). */
  onTimerSlice(slices: number): void {
    this.timing.onTimerSlice(slices);
  }

  /** A market's books against our resting orders there (MissingOrderWatch), at its housekeeping slice. */
  private lookForMissing(st: MarketState, now: number): void {
    const w = this.missingOrders;
    if (!w || !this.quoting || this.stopping) return;
    const own = this.requoter.marketOrders(st);
    const m = st.meta;
    w.check(m.tokenId, this.o.books.book(m.tokenId), own, now);
    w.check(m.complementId, this.o.books.book(m.complementId), own, now);
  }

  /** What the strategy wants of the market, reconciled, gated and sent (requote.ts). */
  requote(st: MarketState): void {
    // Before start() (startup reconciliation still running) orders are left alone.
    if (this.stopping || !this.quoting) return;
    this.requoter.run(st);
  }
}
