// The external book of one token as the simulated venue sees it: per side a short sorted array of
// the levels held (best last; memory follows the levels, not the price range), rebuilt from the
// feed (snapshots and price_change entries), plus an overlay of what our own orders took from each
// level. The feed's book never contains our fills, so without the overlay a resting remainder
// would look crossed by liquidity it already consumed. The feed's later updates of a level are
// read against that overlay (change, snapshotKeepingTaken): a decrease uses up what we took first
// (others' trades or cancels of the shares we already took), an increase is fresh size beside it.
// So the overlay of a level never exceeds its size, and goes with the level when it empties.
import { PRICE_SCALE } from '../core/units.js';
import type { Side } from '../core/events.js';
import { LEVELS_INITIAL, grownF64, grownI32, levelIndex } from '../book/levels.js';

/** One side's levels sorted with the best last (bids ascending, asks descending): external size and our takers' overlay. */
class SimSide {
  price = new Int32Array(LEVELS_INITIAL);
  size = new Float64Array(LEVELS_INITIAL);
  taken = new Float64Array(LEVELS_INITIAL);
  count = 0;
  constructor(readonly isBid: boolean) {}

  indexOf(price: number): number {
    return levelIndex(this.price, this.count, price, this.isBid);
  }

  insertAt(i: number, price: number, size: number): void {
    const n = this.count;
    if (n === this.price.length) {
      this.price = grownI32(this.price, n, n * 2);
      this.size = grownF64(this.size, n, n * 2);
      this.taken = grownF64(this.taken, n, n * 2);
    }
    const px = this.price;
    const sz = this.size;
    const tk = this.taken;
    for (let k = n; k > i; k--) {
      px[k] = px[k - 1];
      sz[k] = sz[k - 1];
      tk[k] = tk[k - 1];
    }
    px[i] = price;
    sz[i] = size;
    tk[i] = 0;
    this.count = n + 1;
  }

  removeAt(i: number): void {
    const n = this.count - 1;
    const px = this.price;
    const sz = this.size;
    const tk = this.taken;
    for (let k = i; k < n; k++) {
      px[k] = px[k + 1];
      sz[k] = sz[k + 1];
      tk[k] = tk[k + 1];
    }
    this.count = n;
  }
}

/** Scratch of snapshotKeepingTaken, shared by every book (a snapshot is applied synchronously). */
const kept = { n: 0, price: new Int32Array(8), size: new Float64Array(8), taken: new Float64Array(8) };

export class SimBook {
  private readonly sides: [SimSide, SimSide] = [new SimSide(true), new SimSide(false)];
  /** False until the first snapshot: orders are refused (MARKET_NOT_READY) before. */
  ready = false;

  /** The book built afresh from a snapshot (the overlay forgotten; see snapshotKeepingTaken). */
  snapshot(bids: ReadonlyArray<{ price: number; size: number }>, asks: ReadonlyArray<{ price: number; size: number }>): void {
    this.sides[0].count = 0;
    this.sides[1].count = 0;
    for (const l of bids) this.set('BUY', l.price, l.size);
    for (const l of asks) this.set('SELL', l.price, l.size);
    this.ready = true;
  }

  /**
   * Seeds this book as the mirror image of the complement token's (bids at 1 - its asks, asks at
   * 1 - its bids): real captures may snapshot only one token of a binary market.
   */
  seedFromComplement(other: SimBook): void {
    const bids: Array<{ price: number; size: number }> = [];
    const asks: Array<{ price: number; size: number }> = [];
    other.forEachLevel(1, (p, s) => bids.push({ price: PRICE_SCALE - p, size: s }));
    other.forEachLevel(0, (p, s) => asks.push({ price: PRICE_SCALE - p, size: s }));
    this.snapshot(bids, asks);
  }

  private forEachLevel(s: 0 | 1, fn: (price: number, size: number) => void): void {
    const side = this.sides[s];
    for (let i = 0; i < side.count; i++) fn(side.price[i], side.size[i]);
  }

  /**
   * A snapshot read against the overlay: each level we took from keeps what we took, less what
   * the feed removed from it since (as change does); levels gone take their overlay with them.
   */
  snapshotKeepingTaken(bids: ReadonlyArray<{ price: number; size: number }>, asks: ReadonlyArray<{ price: number; size: number }>): void {
    for (let k = 0; k < 2; k++) {
      const s = this.sides[k];
      kept.n = 0;
      for (let i = 0; i < s.count; i++) if (s.taken[i] > 0) keep(s.price[i], s.size[i], s.taken[i]);
      s.count = 0;
      const side: Side = k === 0 ? 'BUY' : 'SELL';
      for (const l of k === 0 ? bids : asks) this.set(side, l.price, l.size);
      for (let j = 0; j < kept.n; j++) {
        const i = s.indexOf(kept.price[j]);
        if (i >= 0) s.taken[i] = takenAfter(kept.taken[j], kept.size[j], s.size[i]);
      }
    }
    this.ready = true;
  }

  /** Sets a level's external size (the feed's new total), forgetting what we took there; returns the previous size. */
  set(side: Side, price: number, size: number): number {
    return this.level(side, price, size, false);
  }

  /**
   * The feed's new total of a level, read against what we took there: a decrease uses that up
   * first, an increase is fresh size beside it. Returns the previous size.
   */
  change(side: Side, price: number, size: number): number {
    return this.level(side, price, size, true);
  }

  private level(side: Side, price: number, size: number, keepTaken: boolean): number {
    if (!Number.isInteger(price) || !(price > 0 && price < PRICE_SCALE) || !(size >= 0)) return this.size(side, price); // malformed: ignored
    const s = this.sides[side === 'BUY' ? 0 : 1];
    const i = s.indexOf(price);
    if (i < 0) {
      if (size > 0) s.insertAt(~i, price, size);
      return 0;
    }
    const old = s.size[i];
    if (size > 0) {
      s.taken[i] = keepTaken ? takenAfter(s.taken[i], old, size) : 0;
      s.size[i] = size;
    } else s.removeAt(i);
    return old;
  }

  size(side: Side, price: number): number {
    const s = this.sides[side === 'BUY' ? 0 : 1];
    const i = s.indexOf(price);
    return i >= 0 ? s.size[i] : 0;
  }

  /** What is still available to our takers at a level: external size minus what we took. */
  available(side: Side, price: number): number {
    const s = this.sides[side === 'BUY' ? 0 : 1];
    const i = s.indexOf(price);
    if (i < 0) return 0;
    const v = s.size[i] - s.taken[i];
    return v > 0 ? v : 0;
  }

  /** Records what our orders took from a level, at most what it has left (a price without external size has none: ignored). */
  take(side: Side, price: number, size: number): void {
    const s = this.sides[side === 'BUY' ? 0 : 1];
    const i = s.indexOf(price);
    if (i >= 0) {
      const t = s.taken[i] + size;
      s.taken[i] = t < s.size[i] ? t : s.size[i];
    }
  }

  /** Best bid with liquidity left after the overlay; 0 when none. */
  bestBid(): number {
    const s = this.sides[0];
    for (let i = s.count - 1; i >= 0; i--) if (s.size[i] - s.taken[i] > 0) return s.price[i];
    return 0;
  }

  /** Best ask with liquidity left after the overlay; 10000 when none. */
  bestAsk(): number {
    const s = this.sides[1];
    for (let i = s.count - 1; i >= 0; i--) if (s.size[i] - s.taken[i] > 0) return s.price[i];
    return PRICE_SCALE;
  }
}

/** What we took from a level once the feed moved it from `oldSize` to `newSize`: decreases use it up first. */
function takenAfter(taken: number, oldSize: number, newSize: number): number {
  if (!(taken > 0) || newSize >= oldSize) return taken;
  const t = taken - (oldSize - newSize);
  return t > 0 ? t : 0;
}

function keep(price: number, size: number, taken: number): void {
  const n = kept.n;
  if (n === kept.price.length) {
    kept.price = grownI32(kept.price, n, n * 2);
    kept.size = grownF64(kept.size, n, n * 2);
    kept.taken = grownF64(kept.taken, n, n * 2);
  }
  kept.price[n] = price;
  kept.size[n] = size;
  kept.taken[n] = taken;
  kept.n = n + 1;
}
