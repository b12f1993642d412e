// The strategy API: a strategy is told about books and trades and returns the quotes it WANTS.
// It never sends or cancels anything (the reconciler does), reads time only from ctx.clock and
// randomness only from ctx.rng, so the same events and params give the same quotes in every mode.
import type { z } from 'zod';
import type { Logger } from '../core/log.js';
import type { Side, LastTradePriceEvent } from '../core/events.js';
import type { BookView } from '../book/view.js';
import type { ReferencePrice } from './reference-prices.js';

export type { ReferencePrice } from './reference-prices.js';
import type { Rng } from '../core/rng.js';
import type { FeeRule } from '../core/fees.js';
import { PRICE_SCALE } from '../core/units.js';

/** One resting order a strategy wants. Integer units (src/core/units.ts). */
export interface Quote {
  tokenId: string;
  side: Side;
  price: number;
  size: number;
}

/** What the engine knows of a binary market; the strategy quotes it as one unit. */
export interface MarketMeta {
  conditionId: string;
  /** The token the strategy prices (first outcome, "YES"). */
  tokenId: string;
  /** The other outcome: a SELL of tokenId at p equals a BUY of complementId at 1-p. */
  complementId: string;
  /** Price units (100 = 0.01). */
  tick: number;
  /** Size units (500 = 5 shares). */
  minSize: number;
  negRisk: boolean;
  /** Market end (ms since the epoch), or undefined when unknown / open-ended. */
  endMs?: number;
  /**
   * The venue's fee rule for takers (core/fees.ts), when the metadata says (the polymarket
   * profile's GET /clob-markets `fd`); undefined when unknown: the simulated venue then charges
   * the configured flat sim.makerFeeBps / sim.takerFeeBps.
   */
  feeRule?: FeeRule;
}

/** Read-only view of our inventory in one market. Sizes in size units. */
export interface PositionView {
  /** Shares held of a token (>= 0 on a real venue). */
  qty(tokenId: string): number;
  /**
   * Shares of a token the venue lets us sell now: held, less those bought in trades it has not
   * settled yet (MATCHED, RETRYING), which its balance check does not count. Offer held shares
   * by this figure; the risk gate blocks a SELL beyond it (sell_awaits_settlement).
   */
  sellable(tokenId: string): number;
  /** YES minus NO: the directional exposure of the market, in size units. */
  net(): number;
}

/** The time a strategy reads (the engine's clock: virtual in a backtest). No timers: the engine calls the strategy when anything changes. */
export interface StrategyClock {
  now(): number;
}

export interface StrategyContext<P = unknown> {
  readonly clock: StrategyClock;
  readonly rng: Rng;
  readonly market: MarketMeta;
  readonly position: PositionView;
  readonly params: P;
  readonly log: Logger;
  /**
   * The book of either token of the market (undefined until its first snapshot), without our own
   * resting orders like quote()'s `book`. Read it when you need it: the view is refreshed per call.
   */
  book(tokenId: string): BookView | undefined;
  /**
   * The latest crypto reference price of a symbol (config feed.priceSymbols, e.g. "btcusdt") with
   * its age by this clock; undefined before the first. The same in backtest (recorded with
   * `makerd record --prices`), paper and live.
   */
  referencePrice(symbol: string): ReferencePrice | undefined;
}

/** A strategy module with its validated params (strategy/loader.ts loads one by name or path). */
export interface LoadedStrategy<P = unknown> {
  module: StrategyModule<P>;
  params: P;
}

/** Our own fill, as the strategy sees it (already in the engine's position). */
export interface StrategyFill {
  tokenId: string;
  side: Side;
  price: number;
  size: number;
  timeMs: number;
}

export interface Strategy {
  /**
   * Quotes wanted now, given the book of ctx.market.tokenId. Return [] to quote nothing.
   * `book` is the market WITHOUT our own resting orders: on a venue whose books show them (live),
   * levels only we hold are skipped and our size is taken out of shared ones, so a mid or
   * microprice never rises because our own bid became the best bid (pricing off our own quotes
   * would chase them). In a backtest or paper run the simulated books never hold our orders and
   * `book` is the raw book. Use it during the call only (it is refreshed for the next one).
   */
  quote(ctx: StrategyContext, book: BookView): readonly Quote[];
  /** A public trade printed on either token (for estimators). Optional. */
  onTrade?(ctx: StrategyContext, trade: LastTradePriceEvent): void;
  /** One of our orders filled. Optional. */
  onFill?(ctx: StrategyContext, fill: StrategyFill): void;
  /**
   * A fill onFill told of was taken back: its trade FAILED on chain, and the engine took it out of
   * the position. Optional (a strategy that counts its own fills needs it).
   */
  onFillReversed?(ctx: StrategyContext, fill: StrategyFill): void;
  /**
   * Optional promise that quote() depends on nothing but the best bid and ask of `book` ('top':
   * and the sizes resting there), ctx.market and ctx.position: no clock, randomness, depth, other
   * book, or state kept between calls. The engine may then skip a requote when none of these nor
   * our orders changed since one that had nothing to do (quote-inputs.ts). Leave it undefined
   * otherwise: a wrong promise leaves stale quotes.
   */
  readonly reads?: 'topPrices' | 'top';
}

/** What a strategy module exports (default export or named `strategy`). */
export interface StrategyModule<P = unknown> {
  name: string;
  /** Validates params; the engine calls parseWith(schema, params, 'strategy.params'). */
  params: z.ZodType<P>;
  create(params: P, market: MarketMeta): Strategy;
}

/** Rounds a price down (bids) or up (asks) to the tick, kept inside [tick, 1 - tick]. */
export function toTick(price: number, tick: number, side: Side): number {
  return clampPrice(onTick(price, tick, side), tick > 0 ? tick : 1);
}

/** Rounds a price down (bids) or up (asks) to the tick, wherever that is. */
function onTick(price: number, tick: number, side: Side): number {
  const t = tick > 0 ? tick : 1;
  return side === 'BUY' ? Math.floor(price / t + 1e-9) * t : Math.ceil(price / t - 1e-9) * t;
}

/** `x` raised to `lo`, then lowered to `hi` (so `hi` wins when lo > hi). */
export function clamp(x: number, lo: number, hi: number): number {
  return Math.min(Math.max(x, lo), hi);
}

export function clampPrice(price: number, tick: number): number {
  const lo = tick;
  const hi = PRICE_SCALE - tick;
  return price < lo ? lo : price > hi ? hi : price;
}

/**
 * An ask on the market's token at `price`: a SELL when we hold enough of it that the venue lets us
 * sell (PositionView.sellable), otherwise the same exposure as a BUY of the complement at 1 - price
 * (a sell without the inventory to sell, or of shares bought in a trade not settled yet).
 * Returns undefined when the size is below the market minimum.
 */
export function askQuote(ctx: StrategyContext, price: number, size: number, offered = 0): Quote | undefined {
  const m = ctx.market;
  if (size < m.minSize) return undefined;
  // `offered`: shares of the token already sold by earlier quotes of the same set
  const held = ctx.position.sellable(m.tokenId) - offered;
  if (held >= size) return { tokenId: m.tokenId, side: 'SELL', price, size };
  return { tokenId: m.complementId, side: 'BUY', price: PRICE_SCALE - price, size };
}

/**
 * A bid on the market's token at `price`: a BUY, or, when we hold the complement (sellable), a SELL
 * of the complement at 1 - price (frees collateral instead of locking more).
 */
export function bidQuote(ctx: StrategyContext, price: number, size: number, offered = 0): Quote | undefined {
  const m = ctx.market;
  if (size < m.minSize) return undefined;
  const heldNo = ctx.position.sellable(m.complementId) - offered;
  if (heldNo >= size) return { tokenId: m.complementId, side: 'SELL', price: PRICE_SCALE - price, size };
  return { tokenId: m.tokenId, side: 'BUY', price, size };
}

/**
 * Keeps a post-only pair off the other side of the book: the bid below the best ask, the ask above
 * the best bid (a crossing post-only order is rejected by the venue). Returns [bid, ask].
 */
export function passive(bid: number, ask: number, book: BookView, tick: number, out: [number, number]): [number, number] {
  const bestAsk = book.bestAsk();
  const bestBid = book.bestBid();
  out[0] = bestAsk > 0 && bid >= bestAsk ? bestAsk - tick : bid;
  out[1] = bestBid > 0 && ask <= bestBid ? bestBid + tick : ask;
  return out;
}

/** Shares of the market's token and of its complement already offered for sale by earlier quotes of one quote() call. */
export interface Offered {
  token: number;
  complement: number;
}

export interface QuotePairOptions {
  /** No bid below this and no ask above this (price units of the market's token). */
  minBid?: number;
  maxAsk?: number;
  /** Counts the shares each SELL offers, so a later pair sells only what is left (reset it per quote() call). */
  offered?: Offered;
}

const pairScratch: [number, number] = [0, 0];

/**
 * The one way a strategy turns a wanted bid and ask on the market's token into quotes: rounds
 * them onto the tick grid away from each other, keeps them off the other side of the book
 * (post-only, passive()), quotes nothing when they then cross, drops a side outside
 * [minBid, maxAsk] or [tick, 1 - tick], and expresses each side the cheapest way (bidQuote / askQuote: a sell of
 * held shares, else a buy of the other token). Appends to `out` (bid first); returns how many.
 */
export function quotePair(ctx: StrategyContext, book: BookView, bid: number, ask: number, size: number, out: Quote[], opt?: QuotePairOptions): number {
  const tick = ctx.market.tick;
  // not moved to the edge: a side wanted beyond it (an ask at 1.02) would give away the edge asked for
  const [bidPx, askPx] = passive(onTick(bid, tick, 'BUY'), onTick(ask, tick, 'SELL'), book, tick, pairScratch);
  if (bidPx >= askPx) return 0;
  const offered = opt?.offered;
  let n = 0;
  // a side outside the grid's range, wanted there or pushed there by passive() (a bid under a best
  // ask of 0.01), is left out, not handed to the engine to drop as invalid
  if (bidPx >= (opt?.minBid ?? 0) && bidPx >= tick && bidPx <= PRICE_SCALE - tick) {
    const q = bidQuote(ctx, bidPx, size, offered ? offered.complement : 0);
    if (q) {
      out.push(q);
      n++;
      if (offered && q.side === 'SELL') offered.complement += size;
    }
  }
  if (askPx <= (opt?.maxAsk ?? PRICE_SCALE) && askPx <= PRICE_SCALE - tick && askPx >= tick) {
    const q = askQuote(ctx, askPx, size, offered ? offered.token : 0);
    if (q) {
      out.push(q);
      n++;
      if (offered && q.side === 'SELL') offered.token += size;
    }
  }
  return n;
}

/** Fair price of a book per the strategy's choice; NaN when a side is empty. */
export function fairPrice(book: BookView, kind: 'mid' | 'microprice'): number {
  return kind === 'mid' ? book.mid() : book.microprice();
}
