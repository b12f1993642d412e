// The matching engine's storage: one side of the canonical book as a dense array of price levels,
// each a FIFO of intrusive order nodes (O(1) append and unlink), with a best-price pointer.
import { PRICE_SCALE } from '../core/units.js';
import type { Side } from '../core/events.js';
import type { MatchOrder, RestingOrder } from './matching-api.js';

export const BID = 0;
export const ASK = 1;
export type BookSide = typeof BID | typeof ASK;
export const LEVELS = PRICE_SCALE + 1;
/** Best-pointer sentinels: no bid reads as 0, no ask as 10000 (the wire's empty-side values). */
const NO_BID = 0;
const NO_ASK = PRICE_SCALE;

export class OrderNode implements RestingOrder {
  orderId: string;
  owner: string;
  tokenId: string;
  side: Side;
  price: number;
  size: number;
  orderType: MatchOrder['orderType'];
  postOnly: boolean;
  expiresAtMs?: number;
  remaining: number;
  originalSize: number;
  createdAtMs: number;
  prev: OrderNode | null = null;
  next: OrderNode | null = null;
  constructor(
    o: MatchOrder,
    remaining: number,
    nowMs: number,
    readonly bookSide: BookSide,
    readonly bookPrice: number,
  ) {
    this.orderId = o.orderId;
    this.owner = o.owner;
    this.tokenId = o.tokenId;
    this.side = o.side;
    this.price = o.price;
    this.size = o.size;
    this.orderType = o.orderType;
    this.postOnly = o.postOnly;
    if (o.expiresAtMs !== undefined) this.expiresAtMs = o.expiresAtMs;
    this.remaining = remaining;
    this.originalSize = o.size;
    this.createdAtMs = nowMs;
  }
}

export class Ladder {
  readonly total = new Float64Array(LEVELS);
  readonly head: Array<OrderNode | null> = new Array<OrderNode | null>(LEVELS).fill(null);
  readonly tail: Array<OrderNode | null> = new Array<OrderNode | null>(LEVELS).fill(null);
  best: number;
  constructor(readonly isBid: boolean) {
    this.best = isBid ? NO_BID : NO_ASK;
  }
  append(n: OrderNode): void {
    const p = n.bookPrice;
    const t = this.tail[p];
    n.prev = t;
    n.next = null;
    if (t) t.next = n;
    else this.head[p] = n;
    this.tail[p] = n;
    this.total[p] += n.remaining;
    if (this.isBid ? p > this.best : p < this.best) this.best = p;
  }
  unlink(n: OrderNode): void {
    const p = n.bookPrice;
    if (n.prev) n.prev.next = n.next;
    else this.head[p] = n.next;
    if (n.next) n.next.prev = n.prev;
    else this.tail[p] = n.prev;
    n.prev = n.next = null;
    this.total[p] -= n.remaining;
    if (this.total[p] <= 0) {
      this.total[p] = 0;
      if (p === this.best) this.repairBest();
    }
  }
  /** Moves the best pointer outward past empty levels. */
  repairBest(): void {
    let p = this.best;
    if (this.isBid) while (p > NO_BID && this.total[p] === 0) p--;
    else while (p < NO_ASK && this.total[p] === 0) p++;
    this.best = p;
  }
}

/** A detached copy: callers never hold the book's linked nodes (which are also circular). */
export function view(n: OrderNode): RestingOrder {
  const o: RestingOrder = {
    orderId: n.orderId,
    owner: n.owner,
    tokenId: n.tokenId,
    side: n.side,
    price: n.price,
    size: n.size,
    orderType: n.orderType,
    postOnly: n.postOnly,
    remaining: n.remaining,
    originalSize: n.originalSize,
    createdAtMs: n.createdAtMs,
  };
  if (n.expiresAtMs !== undefined) o.expiresAtMs = n.expiresAtMs;
  return o;
}
