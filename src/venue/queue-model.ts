// Queue position of one simulated order resting among external liquidity that it cannot see
// individually (only the aggregate level from the feed). Pure: no clock, no events; the
// simulated venue feeds it the level sizes and trades at the order's price on the order's side.
//
// Model (after hftbacktest's queue models): an order joins BEHIND everything visible at its price.
// A trade at that price consumes the queue ahead first; what is left of it fills us. A level
// decrease not explained by a trade is taken to be cancellations spread uniformly over the level,
// so the queue ahead shrinks in proportion (ahead *= newSize / oldSize). Increases are arrivals
// and queue behind us. Limitation: a decrease is "explained" only by trades reported BEFORE it;
// when the feed sends the book update first, the trade later consumes the queue again
// (optimistic), the same simplification hftbacktest makes with separate depth and trade feeds.

export class QueueTracker {
  /** Size (units) ahead of the order at its level. */
  ahead: number;
  /** The visible external size at the level as last seen. */
  levelSize: number;
  /** Traded volume at the level not yet matched by a level decrease. */
  private unexplainedTraded = 0;

  /** `visibleAtJoin`: the external size at the order's price and side when it reached the book. */
  constructor(visibleAtJoin: number) {
    this.ahead = Math.max(0, visibleAtJoin);
    this.levelSize = this.ahead;
  }

  /** A trade of `size` at the order's price against the order's side; returns the part that reaches the order. */
  onTrade(size: number): number {
    if (size <= 0) return 0;
    const consumed = size < this.ahead ? size : this.ahead;
    this.ahead -= consumed;
    this.unexplainedTraded += size;
    return size - consumed;
  }

  /** The visible level at the order's price is now `newSize`. */
  onLevel(newSize: number): void {
    const old = this.levelSize;
    this.levelSize = newSize;
    if (newSize >= old) return; // arrivals join behind us
    let dec = old - newSize;
    const explained = dec < this.unexplainedTraded ? dec : this.unexplainedTraded;
    this.unexplainedTraded -= explained;
    dec -= explained;
    const before = old - explained; // the level after the trades, before the cancellations
    if (dec > 0 && this.ahead > 0 && before > 0) {
      // Integer ceil of ahead * newSize / before: rounds against us (conservative).
      this.ahead = Math.floor((this.ahead * newSize + before - 1) / before);
    }
    if (this.ahead > newSize) this.ahead = newSize;
  }

  /** A fresh snapshot replaced the level: forget unmatched trades, then apply it as a level change. */
  onSnapshot(newSize: number): void {
    this.onLevel(newSize);
    this.unexplainedTraded = 0;
  }
}
