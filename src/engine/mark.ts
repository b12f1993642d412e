// Mark prices for PnL and the daily-loss limit. A real venue's book shows our own resting orders,
// and a mid that includes them lets our fresh bid hold up the mark of a position that just lost
// (the kill-switch e2e test caught the daemon hiding a loss this way). Where the venue's books
// include our orders, the mark steps past levels that are only ours.
import type { BookView } from '../book/view.js';
import { PRICE_SCALE } from '../core/units.js';
import type { Side } from '../feed/events.js';
import type { TrackedOrder } from './orders.js';

/** States in which an order is resting in the venue's book (a new order may not be there yet). */
function resting(o: TrackedOrder): boolean {
  return o.state === 'live' || o.state === 'partially_filled' || o.state === 'pending_cancel';
}

/**
 * Our resting size at a level of `tokenId`'s book: our orders on that token at that side and price,
 * and our orders on the complement, which the venue mirrors there (a BUY of the complement at q is
 * an ask at 1 - q).
 */
export function ownSizeAt(tokenId: string, complementId: string, side: Side, price: number, orders: Iterable<TrackedOrder>): number {
  let size = 0;
  for (const o of orders) {
    if (!resting(o)) continue;
    const left = o.size - o.filled;
    if (left <= 0) continue;
    if (o.tokenId === tokenId ? o.side === side && o.price === price : o.tokenId === complementId && o.side !== side && PRICE_SCALE - o.price === price) {
      size += left;
    }
  }
  return size;
}

/** Best price of a side with our own size taken out, or -1 when only we are there. */
function externalBest(book: BookView, side: Side, tokenId: string, complementId: string, orders: readonly TrackedOrder[], scratch: number[]): number {
  // Each of our orders fills at most one level, so one level more than we have orders is enough.
  const levels = book.depth(side, orders.length + 1, scratch);
  for (let i = 0; i < levels; i++) {
    const price = scratch[2 * i];
    if (scratch[2 * i + 1] > ownSizeAt(tokenId, complementId, side, price, orders)) return price;
  }
  return -1;
}

/** The mid of `tokenId`'s book without our own orders; NaN when a side holds only ours or nothing. */
export function externalMid(book: BookView, tokenId: string, complementId: string, orders: readonly TrackedOrder[], scratch: number[]): number {
  if (orders.length === 0) return book.mid();
  const bid = externalBest(book, 'BUY', tokenId, complementId, orders, scratch);
  const ask = externalBest(book, 'SELL', tokenId, complementId, orders, scratch);
  return bid < 0 || ask < 0 ? NaN : (bid + ask) / 2;
}
