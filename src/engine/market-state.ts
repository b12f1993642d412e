// A market as the engine runs it: its metadata, its own strategy instance and context, and the
// bookkeeping of its requotes (debounce timer, why it is not quoting, resolution).
import type { Logger } from '../core/log.js';
import type { MarketEvent } from '../core/events.js';
import type { BookView } from '../book/view.js';
import type { Clock } from '../core/clock.js';
import type { Rng } from '../core/rng.js';
import type { LoadedStrategy } from './strategy.js';
import type { Positions } from './positions.js';
import type { MarketMeta, ReferencePrice, Strategy, StrategyContext } from './strategy.js';
import { QuoteInputs } from './quote-inputs.js';
import { frozenCopy } from '../core/freeze.js';
import { OwnExcludedView } from './own-excluded-view.js';
import type { TrackedOrder } from './orders.js';

/** Where books live: the mirror (src/book/mirror.ts) satisfies this. */
export interface MarketBooks {
  apply(e: MarketEvent): void;
  book(assetId: string): BookView | undefined;
  /**
   * Tells `fn` of a token whose book was dropped outside apply (the mirror: a reconnect or an idle
   * group's failed check): the engine's running PnL re-marks that token. Optional.
   */
  onOutOfSync?(fn: (assetId: string) => void): void;
}

export interface StrategyError {
  message: string;
  sinceMs: number;
  failures: number;
  loggedMs: number;
}

export interface MarketState {
  meta: MarketMeta;
  strategy: Strategy;
  ctx: StrategyContext;
  lastQuoteMs: number;
  timer: number | undefined;
  /** Why the market quotes nothing (undefined = quoting). */
  blocked: string | undefined;
  resolved: boolean;
  /** Halted for this market alone (trades for one of its orders failed the checks twice). */
  suspended: string | undefined;
  /** The strategy's quote() threw on its last call: what, since when, how often (logged once a minute, not per call). */
  strategyError: StrategyError | undefined;
  /** When the market's dropped invalid quotes were last logged (once a minute). */
  invalidLoggedMs: number;
  /** Since when every quote the strategy gave was invalid (NaN: its last requote gave a valid one, or none). */
  invalidSinceMs: number;
  /** Set once every quote has been invalid for INVALID_REASON_MS: why (a health reason: nothing can rest). */
  quotesInvalid: string | undefined;
  /** When quotes beyond reconciler.maxOrdersPerSide were last logged for this market. */
  cutLoggedMs: number;
  /** When a quote through the book was last logged (once a minute per market). */
  crossLoggedMs: number;
  /** The strategy's onTrade failures, and when they were last logged (once a minute). */
  onTradeFailures: number;
  onTradeLoggedMs: number;
  /** Taken out of the market set while running (Engine.retireMarket): quotes nothing, its orders are cancelled. */
  removed: boolean;
  /**
   * Set while the market's tick is in doubt (the venue refused an order with
   * INVALID_ORDER_MIN_TICK_SIZE and a tick refresh is out): the timeout's timer id. No quoting meanwhile.
   */
  tickSuspect: number | undefined;
  /** A token's tick: its book's when known, else the market's (made once: requotes call it often). */
  tickOf: (tokenId: string) => number;
  /** What the last requote that had nothing to do read (only for a strategy declaring `reads`). */
  quoteInputs: QuoteInputs | undefined;
  /** Set when the market's marks may have moved since its tokens were last revalued (the engine's running PnL). */
  marksMoved: boolean;
  /** Our open orders of the market's two tokens, refilled by the engine before each use (reused array). */
  ownOrders: TrackedOrder[];
  /** Each token's book without our own orders, used where the venue's books include them (reused objects). */
  ownExcluded: { token: OwnExcludedView; complement: OwnExcludedView };
}

export interface MarketStateDeps {
  clock: Clock;
  rng: Rng;
  log: Logger;
  strategy: LoadedStrategy;
  positions: Positions;
  /** PositionView.sellable: shares the venue lets us sell per token; default every share held. */
  sellable?: (tokenId: string) => number;
  books: MarketBooks;
  /** What ctx.book hands the strategy (the engine's bookFor: without our own orders where needed); default books.book. */
  strategyBook?: (tokenId: string) => BookView | undefined;
  /** What ctx.referencePrice hands the strategy; default none. */
  referencePrice?: (symbol: string) => ReferencePrice | undefined;
  /**
   * A strategy's create() that throws: 'suspend' (live and paper: that market quotes nothing and
   * says why, the others go on) or 'throw' (a backtest: the run fails, naming it). Default 'suspend'.
   */
  onCreateError?: 'suspend' | 'throw';
}

const NO_QUOTES: readonly never[] = Object.freeze([]);

/** The strategy's instance for `meta`, or why create() failed (and a stand-in that quotes nothing). */
function createStrategy(meta: MarketMeta, d: MarketStateDeps): { strategy: Strategy; failed?: string } {
  try {
    const strategy = d.strategy.module.create(d.strategy.params, meta);
    if (strategy === null || typeof strategy !== 'object' || typeof strategy.quote !== 'function') throw new TypeError('create() did not return an object with a quote() method');
    // a promise the engine skips requotes on: any other value (a plain-JS true, 'depth') would skip them on inputs it never named
    const reads: unknown = strategy.reads;
    if (reads !== undefined && reads !== null && reads !== false && reads !== 'topPrices' && reads !== 'top')
      throw new TypeError(`reads must be 'topPrices', 'top' or left undefined (false), got ${String(reads).slice(0, 40)}`);
    return { strategy };
  } catch (err) {
    if (d.onCreateError === 'throw') throw err;
    const failed = `strategy create() failed: ${(err instanceof Error ? err.message : String(err)).slice(0, 200)}`;
    d.log.error({ err, market: meta.conditionId }, 'engine: strategy create() failed; the market quotes nothing');
    return { strategy: { quote: () => NO_QUOTES }, failed };
  }
}

/** A new market: a strategy instance of its own, randomness forked by its condition id. */
export function createMarketState(terms: MarketMeta, d: MarketStateDeps): MarketState {
  // the strategy's ctx.market is the engine's own st.meta: read-only
  const meta = frozenCopy(terms);
  const { strategy, failed } = createStrategy(meta, d);
  const clock = d.clock;
  const ctx: StrategyContext = {
    // time to read, no timers: a strategy's callback would run outside every guard of the engine
    clock: { now: () => clock.now() },
    rng: d.rng.fork(meta.conditionId),
    market: meta,
    position: d.positions.view(meta, d.sellable),
    params: d.strategy.params,
    log: d.log.child({ strategy: d.strategy.module.name, market: meta.conditionId }),
    book: d.strategyBook ?? ((t) => d.books.book(t)),
    referencePrice: d.referencePrice ?? (() => undefined),
  };
  const st: MarketState = {
    meta,
    strategy,
    ctx,
    lastQuoteMs: -Infinity,
    timer: undefined,
    blocked: 'not started',
    resolved: false,
    suspended: failed,
    strategyError: undefined,
    invalidLoggedMs: -Infinity,
    invalidSinceMs: NaN,
    quotesInvalid: undefined,
    cutLoggedMs: -Infinity,
    crossLoggedMs: -Infinity,
    onTradeFailures: 0,
    onTradeLoggedMs: -Infinity,
    removed: false,
    tickSuspect: undefined,
    tickOf: () => 0,
    quoteInputs: strategy.reads ? new QuoteInputs(strategy.reads) : undefined,
    marksMoved: true,
    ownOrders: [],
    ownExcluded: { token: new OwnExcludedView(meta.tokenId, meta.complementId), complement: new OwnExcludedView(meta.complementId, meta.tokenId) },
  };
  st.tickOf = (tokenId) => {
    const b = d.books.book(tokenId);
    return b && b.tick > 0 ? b.tick : st.meta.tick;
  };
  return st;
}

/**
 * A metadata refresh (tick size, end date): the strategy keeps its state and sees the new terms.
 * Terms without a fee rule keep the one known before (the refresh's read of it failed: a warning
 * then); dropped, the engine would book the trades' fee_rate_bps flat on maker fills.
 */
export function refreshMeta(st: MarketState, fresh: MarketMeta): void {
  const known = st.meta.feeRule;
  const meta = fresh.feeRule === undefined && known !== undefined ? { ...fresh, feeRule: known } : fresh;
  // the same terms again (a periodic refresh) keep the object: a requote that read them may still be skipped
  if (sameMeta(st.meta, meta)) return;
  st.meta = frozenCopy(meta);
  (st.ctx as { market: MarketMeta }).market = st.meta;
}

/** True when two market terms say the same (every field; the fee rule by value). */
export function sameMeta(a: MarketMeta, b: MarketMeta): boolean {
  if (a === b) return true;
  const ka = Object.keys(a) as Array<keyof MarketMeta>;
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    const x = a[k];
    const y = b[k];
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || JSON.stringify(x) !== JSON.stringify(y)) return false;
  }
  return true;
}
