// Queue position of one simulated order resting among external liquidity that it cannot see
// individually (only the aggregate level from the feed). Pure: no clock, no events; the
// simulated venue feeds it the level sizes and trades at the order's price on the order's side,
// each with its feed timestamp.
//
// Model (after hftbacktest's queue models): an order joins BEHIND everything visible at its price.
// A trade at that price consumes the queue ahead first; what is left of it fills us. A level
// decrease not explained by a trade is taken to be cancellations spread uniformly over the level,
// so the queue ahead shrinks in proportion (ahead *= newSize / oldSize). Increases are arrivals
// and queue behind us.
//
// Trades and the book updates that show them come in either order: the real feed usually sends
// the update first (its hash covers a trade not yet announced) and the emulator prints
// last_trade_price after the batch. So the two are matched up per level:
// - trade first: its volume explains the next update of the level (then it is forgotten, as
//   hftbacktest zeroes its traded quantity at every depth update: it never explains later ones);
// - update first: the unexplained decrease is held as pending cancellations until the feed's
//   timestamp moves on; a trade in the same timestamp consumes the queue ahead as it stood
//   (FIFO) and takes its size out of the pending decrease, whose rest then shrinks the queue in
//   proportion. So a batch gives the same queue in either order. "The same timestamp" is any
//   within PAIR_WINDOW_MS of the decrease: the real feed prints a trade up to ~200 ms after the
//   update that shows it. A trade later than that is a new one (its decrease was cancellations);
//   one inside it that was in fact new is taken as the decrease (pessimistic, not optimistic).

/** How long after an unexplained decrease a trade at its level is still taken as that decrease. */
export const PAIR_WINDOW_MS = 500;

export class QueueTracker {
  /** Size ahead of the order at its level, before the pending cancellations. */
  private front: number;
  /** The visible external size at the level as last seen. */
  levelSize: number;
  /** Traded volume at the level not yet matched by a level update. */
  private unexplainedTraded = 0;
  /** Decrease of the level since `pendingTs` (within PAIR_WINDOW_MS) that no trade explained yet. */
  private pendingCancel = 0;
  /** The level those cancellations came out of (after the trades, before them). */
  private pendingBase = 0;
  private pendingTs = 0;

  /** `visibleAtJoin`: the external size at the order's price and side when it reached the book. */
  constructor(visibleAtJoin: number) {
    this.front = Math.max(0, visibleAtJoin);
    this.levelSize = this.front;
  }

  /** Size (units) ahead of the order at its level, the pending cancellations applied. */
  get ahead(): number {
    const a = this.pendingCancel > 0 ? this.shrunk() : this.front;
    return a < this.levelSize ? a : this.levelSize;
  }

  /** A trade of `size` at the order's price against the order's side; returns the part that reaches the order. */
  onTrade(size: number, ts: number): number {
    if (!(size > 0)) return 0;
    if (this.pendingCancel > 0 && (ts - this.pendingTs > PAIR_WINDOW_MS || ts < this.pendingTs)) this.flush();
    const consumed = size < this.front ? size : this.front;
    this.front -= consumed;
    let rest = size;
    if (this.pendingCancel > 0) {
      // the decrease already seen in this timestamp was (partly) this trade
      const shown = rest < this.pendingCancel ? rest : this.pendingCancel;
      this.pendingCancel -= shown;
      this.pendingBase -= shown;
      rest -= shown;
    }
    this.unexplainedTraded += rest;
    return size - consumed;
  }

  /** The visible level at the order's price is now `newSize` (feed timestamp `ts`). */
  onLevel(newSize: number, ts: number): void {
    if (this.pendingCancel > 0 && (ts - this.pendingTs > PAIR_WINDOW_MS || ts < this.pendingTs)) this.flush();
    const old = this.levelSize;
    this.levelSize = newSize;
    if (newSize < old) {
      let dec = old - newSize;
      const explained = dec < this.unexplainedTraded ? dec : this.unexplainedTraded;
      dec -= explained;
      if (dec > 0) {
        if (this.pendingCancel === 0) this.pendingTs = ts;
        // the cancellations so far and this one come out of the level as it stood before it
        // (arrivals since the last decrease included: conservative when they happened between)
        this.pendingBase = old - explained + this.pendingCancel;
        this.pendingCancel += dec;
      }
    }
    this.unexplainedTraded = 0;
    if (this.pendingCancel === 0 && this.front > newSize) this.front = newSize;
  }

  /** A fresh snapshot replaced the level: read as an update of it (unmatched trades are forgotten). */
  onSnapshot(newSize: number, ts: number): void {
    this.onLevel(newSize, ts);
  }

  /** The pending cancellations applied: the queue ahead shrinks in proportion. */
  private flush(): void {
    this.front = this.ahead;
    this.pendingCancel = 0;
    this.pendingBase = 0;
  }

  private shrunk(): number {
    const base = this.pendingBase;
    const a = this.front;
    if (!(a > 0 && base > 0)) return a;
    // Integer ceil of ahead * left / base: rounds against us (conservative).
    const left = base - this.pendingCancel;
    return Math.floor((a * left + base - 1) / base);
  }
}
