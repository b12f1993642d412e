// A token's book as the market shows it WITHOUT our own resting orders. A real venue's book (and the
// emulator's) includes them: a strategy pricing off the raw mid chases its own quotes (our bid
// becomes the best bid, the mid rises, the next requote raises our bid), and a PnL mark off it lets
// our fresh bid hold up a losing position. Where Venue.booksIncludeOwnOrders, the engine hands
// strategies, the requote skip and the mark this view instead of the raw book; one object per token,
// refreshed (reset) with our current orders, so nothing is allocated per requote.
import type { BookView } from '../book/view.js';
import { PRICE_SCALE } from '../core/units.js';
import type { Side } from '../core/events.js';
import type { TrackedOrder } from './orders.js';

/**
 * States in which an order may be resting in the venue's book. A place not answered yet counts
 * too: the feed often shows it before the answer comes, and priced off that, the next requote would
 * chase it with another order (the first cannot be cancelled yet). Where the feed does not show it
 * yet, taking it out only thins that level for a round trip (never below 0). An unclear place
 * (ambiguous) does not: it may never have landed, and it stays so until a look-up settles it, which
 * in the venue trouble that made it may take long.
 */
function resting(o: TrackedOrder): boolean {
  return o.state === 'live' || o.state === 'partially_filled' || o.state === 'pending_cancel' || o.state === 'pending_new';
}

/**
 * Our resting size at a level of `tokenId`'s book: our orders on that token at that side and price,
 * and our orders on the complement, which the venue mirrors there (a BUY of the complement at q is
 * an ask at 1 - q). Only the unfilled part of an order counts.
 */
export function ownSizeAt(tokenId: string, complementId: string, side: Side, price: number, orders: readonly TrackedOrder[]): number {
  let size = 0;
  for (let i = 0; i < orders.length; i++) {
    const o = orders[i];
    if (!resting(o)) continue;
    const left = o.size - o.filled;
    if (left <= 0) continue;
    if (o.tokenId === tokenId ? o.side === side && o.price === price : o.tokenId === complementId && o.side !== side && PRICE_SCALE - o.price === price) {
      size += left;
    }
  }
  return size;
}

/** Stands in for the raw book until the first reset: both sides empty, never in sync. */
const NO_BOOK: BookView = {
  assetId: '',
  tick: 0,
  bestBid: () => -1,
  bestAsk: () => -1,
  sizeAt: () => 0,
  depth: () => 0,
  mid: () => NaN,
  microprice: () => NaN,
  spread: () => NaN,
  updatedAt: () => 0,
  inSync: () => false,
};
const NO_ORDERS: readonly TrackedOrder[] = [];

export class OwnExcludedView implements BookView {
  private raw: BookView = NO_BOOK;
  private orders: readonly TrackedOrder[] = NO_ORDERS;
  /** Raw levels read by a walk (never handed out). */
  private readonly scratch: number[] = [];

  /** `tokenId` is the book's token; our orders on `complementId` show in it mirrored. */
  constructor(
    readonly tokenId: string,
    readonly complementId: string,
  ) {}

  /**
   * Points the view at the token's raw book and our orders of the market (any states: only resting
   * ones count). The view reads `orders` on every call, so keep the array as it is until the next
   * reset; a view kept past the call that handed it out sees later orders only after one.
   */
  reset(raw: BookView, orders: readonly TrackedOrder[]): this {
    this.raw = raw;
    this.orders = orders;
    return this;
  }

  get assetId(): string {
    return this.raw.assetId;
  }
  get tick(): number {
    return this.raw.tick;
  }
  updatedAt(): number {
    return this.raw.updatedAt();
  }
  inSync(): boolean {
    return this.raw.inSync();
  }

  /** Our resting size at a level of this token's book. */
  own(side: Side, price: number): number {
    return ownSizeAt(this.tokenId, this.complementId, side, price, this.orders);
  }

  bestBid(): number {
    return this.orders.length === 0 ? this.raw.bestBid() : this.best('BUY');
  }
  bestAsk(): number {
    return this.orders.length === 0 ? this.raw.bestAsk() : this.best('SELL');
  }

  /** Best price of a side with our size taken out, or -1 when only we (or nobody) are there. */
  private best(side: Side): number {
    const s = this.scratch;
    // Each of our orders empties at most one level, so one level more than we have orders is enough.
    const levels = this.raw.depth(side, this.orders.length + 1, s);
    for (let i = 0; i < levels; i++) {
      const price = s[2 * i];
      if (s[2 * i + 1] > this.own(side, price)) return price;
    }
    return -1;
  }

  sizeAt(side: Side, price: number): number {
    const size = this.raw.sizeAt(side, price);
    if (this.orders.length === 0 || size <= 0) return size;
    const left = size - this.own(side, price);
    return left > 0 ? left : 0;
  }

  depth(side: Side, n: number, out: number[]): number {
    const orders = this.orders;
    if (orders.length === 0) return this.raw.depth(side, n, out);
    if (n <= 0) return 0;
    const s = this.scratch;
    const levels = this.raw.depth(side, n + orders.length, s);
    let k = 0;
    for (let i = 0; i < levels && k < n; i++) {
      const price = s[2 * i];
      const left = s[2 * i + 1] - this.own(side, price);
      if (left > 0) {
        out[2 * k] = price;
        out[2 * k + 1] = left;
        k++;
      }
    }
    return k;
  }

  mid(): number {
    if (this.orders.length === 0) return this.raw.mid();
    const b = this.best('BUY');
    const a = this.best('SELL');
    return b < 0 || a < 0 ? NaN : (a + b) / 2;
  }

  microprice(): number {
    if (this.orders.length === 0) return this.raw.microprice();
    const b = this.best('BUY');
    const a = this.best('SELL');
    if (b < 0 || a < 0) return NaN;
    const bs = this.sizeAt('BUY', b);
    const as = this.sizeAt('SELL', a);
    // as the dense book: each side's price weighted by the opposite side's size
    return (b * as + a * bs) / (bs + as);
  }

  spread(): number {
    if (this.orders.length === 0) return this.raw.spread();
    const b = this.best('BUY');
    const a = this.best('SELL');
    return b < 0 || a < 0 ? NaN : a - b;
  }
}
