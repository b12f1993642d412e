// What of a strategy's wanted quotes may reach the reconciler: on the market's two tokens, a side
// of BUY or SELL, on the token's tick grid, inside [tick, 1 - tick], at least the market's minimum
// size, and not on a complement token the risk gate has blocked (stale or out-of-sync book).
import type { BookView } from '../book/view.js';
import { PRICE_SCALE } from '../core/units.js';
import type { MarketMeta, Quote } from './strategy.js';
import { TERMINAL, type TrackedOrder } from './orders.js';

/** What quote() gave when it is not an array of quotes (an async quote, a missing return), or undefined when it is an array. */
export function notQuotes(qs: unknown): TypeError | undefined {
  if (Array.isArray(qs)) return undefined;
  const promise = qs !== null && typeof qs === 'object' && typeof (qs as { then?: unknown }).then === 'function';
  // its rejection would end the process as an unhandled one; the failure is counted by the caller
  if (promise) (qs as PromiseLike<unknown>).then(undefined, () => undefined);
  const what = qs === null ? 'null' : promise ? 'a Promise (quote() must not be async)' : typeof qs;
  return new TypeError(`quote() returned ${what}, not an array of quotes`);
}

/** Why a quote cannot reach the reconciler, or undefined when it can (the complement block aside). */
export function quoteProblem(q: Quote, m: MarketMeta, tick: number): string | undefined {
  if (q === null || typeof q !== 'object') return 'not a quote object';
  if (q.tokenId !== m.tokenId && q.tokenId !== m.complementId) return "tokenId is neither of the market's tokens";
  // anything else went down the SELL branch of the risk gate, and the store refuses it: a halt
  if (q.side !== 'BUY' && q.side !== 'SELL') return "side is neither 'BUY' nor 'SELL'";
  if (!Number.isInteger(q.price)) return 'price is not an integer number of units (1 unit = 0.0001)';
  if (!Number.isInteger(q.size) || q.size <= 0) return 'size is not a positive integer number of units (1 unit = 0.01 share)';
  if (q.price % tick !== 0) return `price is off the tick of ${tick} units`;
  if (q.price < tick || q.price > PRICE_SCALE - tick) return `price is outside [${tick}, ${PRICE_SCALE - tick}]`;
  if (q.size < m.minSize) return `size is below the market's minimum of ${m.minSize} units`;
  return undefined;
}

/**
 * Appends the valid quotes of `qs` to `out`; returns how many were dropped as invalid.
 * `complementBlock` is asked at most once, and only when a quote is on the complement token.
 */
export function validQuotes(qs: readonly Quote[], m: MarketMeta, tickOf: (tokenId: string) => number, complementBlock: () => string | undefined, out: Quote[]): number {
  let invalid = 0;
  let blocked: string | undefined | null = null;
  for (const q of qs) {
    // an entry that is no object (bidQuote gave none) is refused by quoteProblem, not read here
    if (quoteProblem(q, m, q !== null && typeof q === 'object' ? tickOf(q.tokenId) : 1) !== undefined) {
      invalid++;
      continue;
    }
    if (q.tokenId === m.complementId) {
      if (blocked === null) blocked = complementBlock();
      if (blocked) continue;
    }
    out.push(q); // used within this requote; the scheduler queues a copy (scheduler.ts submit)
  }
  return invalid;
}

/** The first invalid quote of `qs` and why (the log line of a market whose quotes are dropped). */
export function firstInvalid(qs: readonly Quote[], m: MarketMeta, tickOf: (tokenId: string) => number): { quote: unknown; why: string } | undefined {
  for (const q of qs) {
    const why = quoteProblem(q, m, q !== null && typeof q === 'object' ? tickOf(q.tokenId) : 1);
    if (why !== undefined) return { quote: q, why };
  }
  return undefined;
}

/**
 * True when a new order would cross one of our own working orders: on its token, our opposite
 * side at a price it reaches; on the complement, our same side at a price summing past 1 (a BUY
 * at p meets our complement BUY at q when p + q >= 1; a SELL when p + q <= 1). A post-only order
 * that crosses is rejected by the venue (and counted by the error-rate breaker), so such a place
 * waits for the cancel of the order it would cross; the cancel's answer requotes the market.
 */
export function crossesOwn(q: Quote, m: MarketMeta, own: readonly TrackedOrder[]): boolean {
  for (const o of own) {
    if (TERMINAL.has(o.state) || o.size - o.filled <= 0) continue;
    if (meets(q, o, m)) return true;
  }
  return false;
}

/**
 * True when `q` would take from `book` (its token's book, without our own orders): a BUY at or
 * above the best ask, a SELL at or below the best bid. Every order is post-only, so the venue
 * refuses it; sent again at every requote, each refusal would count against the order error rate.
 */
export function crossesBook(q: Quote, book: BookView | undefined): boolean {
  if (!book) return false;
  if (q.side === 'BUY') {
    const ask = book.bestAsk();
    return ask >= 0 && q.price >= ask;
  }
  const bid = book.bestBid();
  return bid >= 0 && q.price <= bid;
}

/** True when `q` would cross one of `qs`, the places already taken in the same requote (same rule as crossesOwn). */
export function crossesQuotes(q: Quote, m: MarketMeta, qs: readonly Quote[]): boolean {
  for (const o of qs) if (meets(q, o, m)) return true;
  return false;
}

/** Whether `q` and our order `o` would trade with each other (see crossesOwn). */
/** True when `q` and `o` would cross: opposite sides of one token through each other, or BUYs of both tokens summing to 1 or more (SELLs to 1 or less). */
export function meets(q: Quote, o: { tokenId: string; side: string; price: number }, m: MarketMeta): boolean {
  if (o.tokenId === q.tokenId) return o.side !== q.side && (q.side === 'BUY' ? o.price <= q.price : o.price >= q.price);
  const other = q.tokenId === m.tokenId ? m.complementId : m.tokenId;
  if (o.tokenId !== other || o.side !== q.side) return false;
  const sum = q.price + o.price;
  return q.side === 'BUY' ? sum >= PRICE_SCALE : sum <= PRICE_SCALE;
}
