// Our resting orders the market's book no longer holds (live venue only: its books show our
// orders). A level of a hash-verified book with less size than our unfilled orders there, for
// longer than the user channel takes to report a fill, means one of them filled or left the book
// unreported (a user channel that is connected but silent, or drops a message): the owner looks
// our orders and trades up at the venue then, instead of at its periodic reconciliation. So does
// an order whose cancel the venue refused as already matched when no fill of it is reported.
import type { Logger } from '../core/log.js';
import type { Clock } from '../core/clock.js';
import type { BookView } from '../book/view.js';
import type { TrackedOrder } from './orders.js';
import { formatPrice, formatSize } from '../core/units.js';

/** How long a book may show less than our orders before we ask: the user channel's report of a fill is normally milliseconds behind the book's. */
export const MISSING_GRACE_MS = 2000;
/** The first look-up for a token's shortfall, then doubling while it lasts (a book the venue's lists do not explain) up to MISSING_MAX_GAP_MS. */
const FIRST_GAP_MS = 5000;
const MISSING_MAX_GAP_MS = 60_000;
const WARN_EVERY_MS = 60_000;

/** A level of a book holding less than our aged resting orders there, or undefined. */
export interface Shortfall {
  side: 'BUY' | 'SELL';
  price: number;
  ours: number;
  book: number;
}

/**
 * Our orders of `tokenId` resting (live, partially filled) since before `agedBefore`, against the
 * book: the first level holding less than they leave unfilled. The book must have moved after each
 * such order went live (the venue's message showing it is then in), and be in sync.
 */
export function shortfallOf(tokenId: string, book: BookView, orders: readonly TrackedOrder[], agedBefore: number): Shortfall | undefined {
  if (!book.inSync()) return undefined;
  const bookMs = book.updatedAt();
  for (let i = 0; i < orders.length; i++) {
    const o = orders[i];
    if (!aged(o, tokenId, agedBefore, bookMs)) continue;
    // our aged size at this order's level (few orders per market: a nested walk)
    let ours = 0;
    for (let j = 0; j < orders.length; j++) {
      const p = orders[j];
      if (p.side === o.side && p.price === o.price && aged(p, tokenId, agedBefore, bookMs)) ours += p.size - p.filled;
    }
    const size = book.sizeAt(o.side, o.price);
    if (size < ours) return { side: o.side, price: o.price, ours, book: size };
  }
  return undefined;
}

function aged(o: TrackedOrder, tokenId: string, agedBefore: number, bookMs: number): boolean {
  return o.tokenId === tokenId && (o.state === 'live' || o.state === 'partially_filled') && o.updatedMs <= agedBefore && bookMs > o.updatedMs && o.size > o.filled;
}

interface Watched {
  since: number;
  nextAskMs: number;
  gapMs: number;
}

export class MissingOrderWatch {
  private readonly short = new Map<string, Watched>();
  /** Orders ended matched whose fill is not reported yet: the timer that asks. */
  private readonly unreported = new Map<string, number>();
  private warnedMs = -Infinity;
  asked = 0;

  constructor(
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly ask: () => void,
  ) {}

  /** Order `orderId` ended matched (its cancel refused: already matched) with part of it not reported filled. */
  matchedUnreported(orderId: string): void {
    if (this.unreported.has(orderId)) return;
    const timer = this.clock.schedule(this.clock.now() + MISSING_GRACE_MS, () => {
      this.unreported.delete(orderId);
      // a silent user channel leaves every matched order unreported: one WARN a minute, the rest info
      const now = this.clock.now();
      const level = now - this.warnedMs >= WARN_EVERY_MS ? 'warn' : 'info';
      if (level === 'warn') this.warnedMs = now;
      this.log[level]({ orderId }, 'no fill reported for an order the venue says matched: looking up our orders and trades at the venue');
      this.asked++;
      this.ask();
    });
    this.unreported.set(orderId, timer);
  }

  /** A fill of `orderId` was reported. */
  reported(orderId: string): void {
    const timer = this.unreported.get(orderId);
    if (timer === undefined) return;
    this.clock.cancel(timer);
    this.unreported.delete(orderId);
  }

  close(): void {
    for (const t of this.unreported.values()) this.clock.cancel(t);
    this.unreported.clear();
    this.short.clear();
  }

  /** A housekeeping look at one token's book against our orders of its market (`now`: the engine's clock). */
  check(tokenId: string, book: BookView | undefined, orders: readonly TrackedOrder[], now: number): void {
    const s = book ? shortfallOf(tokenId, book, orders, now - MISSING_GRACE_MS) : undefined;
    const w = this.short.get(tokenId);
    if (!s) {
      if (w) this.short.delete(tokenId);
      return;
    }
    if (!w) {
      // first seen: the user channel may only be a moment behind the book
      this.short.set(tokenId, { since: now, nextAskMs: now + MISSING_GRACE_MS, gapMs: FIRST_GAP_MS });
      return;
    }
    if (now < w.nextAskMs) return;
    if (w.gapMs === FIRST_GAP_MS) {
      const at = { side: s.side, price: formatPrice(s.price), ourShares: formatSize(s.ours), bookShares: formatSize(s.book) };
      this.log.warn(
        { tokenId, ...at, forMs: now - w.since },
        'our resting order is missing from the book: a fill or cancel the user channel did not report; looking up our orders and trades at the venue',
      );
    }
    w.nextAskMs = now + w.gapMs;
    w.gapMs = Math.min(w.gapMs * 2, MISSING_MAX_GAP_MS);
    this.asked++;
    this.ask();
  }

  /** Forgets a token (its market left the set). */
  forget(tokenId: string): void {
    this.short.delete(tokenId);
  }
}
