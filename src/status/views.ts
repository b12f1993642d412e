// Per-token figures the metrics and the live page share, read from the running daemon: the book's
// top, our best resting order per side, the position and its value at the engine's mark.
import { PRICE_SCALE } from '../core/units.js';
import type { DenseBook } from '../book/book.js';
import type { StatusSource } from './source.js';

export interface TokenView {
  market: string;
  token: string;
  book: DenseBook | undefined;
  /** Price units (1e-4); -1 when the side is empty, NaN for mid and spread then. */
  bestBid: number;
  bestAsk: number;
  mid: number;
  spread: number;
  /** Position in size units (1e-2 shares); mark in price units (NaN: no book). */
  qty: number;
  mark: number;
  /** The holding at the mark (at cost when there is none), and realized plus unrealized, before fees; micro-dollars. */
  valueMicros: number;
  pnlMicros: number;
}

const RESTING = new Set(['live', 'partially_filled']);

/** Our best resting price per token and side. */
export function ourQuotes(d: StatusSource): Map<string, { bid: number; ask: number }> {
  const out = new Map<string, { bid: number; ask: number }>();
  for (const o of d.engine.orders.open()) {
    if (!RESTING.has(o.state)) continue;
    let q = out.get(o.tokenId);
    if (!q) out.set(o.tokenId, (q = { bid: -1, ask: -1 }));
    if (o.side === 'BUY') q.bid = Math.max(q.bid, o.price);
    else q.ask = q.ask < 0 ? o.price : Math.min(q.ask, o.price);
  }
  return out;
}

/** The tokens of `markets` (default: every market of the daemon). */
export function tokenViews(d: StatusSource, markets: StatusSource['markets'] = d.markets): TokenView[] {
  const e = d.engine;
  const views: TokenView[] = [];
  for (const m of markets) {
    for (const token of [m.tokenId, m.complementId]) {
      const book = d.feed.book(token);
      const bestBid = book ? book.bestBid() : -1;
      const bestAsk = book ? book.bestAsk() : -1;
      const p = e.positions.has(token) ? e.positions.get(token) : undefined;
      const qty = p?.qty ?? 0;
      const mark = e.valueOf(token);
      const cost = p?.cost ?? 0;
      const valueMicros = mark === mark ? qty * mark : cost;
      views.push({
        market: m.conditionId,
        token,
        book,
        bestBid,
        bestAsk,
        mid: bestBid >= 0 && bestAsk >= 0 ? (bestBid + bestAsk) / 2 : NaN,
        spread: bestBid >= 0 && bestAsk >= 0 ? bestAsk - bestBid : NaN,
        qty,
        mark,
        valueMicros,
        pnlMicros: (p?.realized ?? 0) + valueMicros - cost,
      });
    }
  }
  return views;
}

/** A market's quotes in its first token's terms (price units, -1: none): ours and the book's top. */
export interface MarketQuote {
  market: string;
  ourBid: number;
  ourAsk: number;
  bestBid: number;
  bestAsk: number;
}

/**
 * Our best bid and ask per market in the first token's terms (a BUY of the complement at q is an
 * ask at 1 - q, a SELL of it a bid), against the first token's book.
 */
export function marketQuotes(d: StatusSource): MarketQuote[] {
  const byToken = ourQuotes(d);
  const flip = (p: number | undefined) => (p !== undefined && p >= 0 ? PRICE_SCALE - p : -1);
  return d.markets.map((m) => {
    const a = byToken.get(m.tokenId);
    const b = byToken.get(m.complementId);
    const asks = [a?.ask ?? -1, flip(b?.bid)].filter((p) => p >= 0);
    const book = d.feed.book(m.tokenId);
    return {
      market: m.conditionId,
      ourBid: Math.max(a?.bid ?? -1, flip(b?.ask)),
      ourAsk: asks.length ? Math.min(...asks) : -1,
      bestBid: book ? book.bestBid() : -1,
      bestAsk: book ? book.bestAsk() : -1,
    };
  });
}

/** Each market's PnL before fees (its tokens' realized plus unrealized), micro-dollars. */
export function marketPnl(views: readonly TokenView[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const v of views) out.set(v.market, (out.get(v.market) ?? 0) + v.pnlMicros);
  return out;
}

/** A price in price units as a number in dollars per share. */
export const price = (p: number): number => p / PRICE_SCALE;
