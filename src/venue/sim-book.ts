// The external book of one token as the simulated venue sees it: dense level arrays rebuilt from
// the feed (snapshots and price_change entries), plus an overlay of what our own taker orders took
// from each level since the feed last updated it. The feed's book never contains our fills, so
// without the overlay a resting remainder would look crossed by liquidity it already consumed.
import { PRICE_SCALE } from '../core/units.js';
import type { Side } from '../core/events.js';

const LEVELS = PRICE_SCALE + 1;

export class SimBook {
  private readonly sizes: [Float64Array, Float64Array] = [new Float64Array(LEVELS), new Float64Array(LEVELS)];
  private readonly taken: [Float64Array, Float64Array] = [new Float64Array(LEVELS), new Float64Array(LEVELS)];
  /** Best external bid (0 = none) and ask (10000 = none), ignoring the overlay. */
  private best: [number, number] = [0, PRICE_SCALE];
  /** Per side, the lowest and highest price ever written since the last clear: a snapshot clears only that range. */
  private lo: [number, number] = [LEVELS, LEVELS];
  private hi: [number, number] = [-1, -1];
  /** False until the first snapshot: orders are refused (MARKET_NOT_READY) before. */
  ready = false;

  snapshot(bids: ReadonlyArray<{ price: number; size: number }>, asks: ReadonlyArray<{ price: number; size: number }>): void {
    for (let s = 0; s < 2; s++) {
      if (this.hi[s] >= this.lo[s]) {
        this.sizes[s].fill(0, this.lo[s], this.hi[s] + 1);
        this.taken[s].fill(0, this.lo[s], this.hi[s] + 1);
      }
      this.lo[s] = LEVELS;
      this.hi[s] = -1;
    }
    this.best = [0, PRICE_SCALE];
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
    const sizes = this.sizes[s];
    for (let p = this.lo[s]; p <= this.hi[s]; p++) if (sizes[p] > 0) fn(p, sizes[p]);
  }

  /** Sets a level's external size (the feed's new total); returns the previous size. */
  set(side: Side, price: number, size: number): number {
    if (!Number.isInteger(price) || !(price > 0 && price < PRICE_SCALE) || !(size >= 0)) return this.size(side, price); // malformed: ignored
    const s = side === 'BUY' ? 0 : 1;
    const old = this.sizes[s][price];
    this.sizes[s][price] = size;
    this.written(s, price);
    this.taken[s][price] = 0; // the feed's own view of the level replaces our estimate
    if (s === 0) {
      if (size > 0 && price > this.best[0]) this.best[0] = price;
      else if (size === 0 && price === this.best[0]) this.best[0] = this.walk(0, price);
    } else {
      if (size > 0 && price < this.best[1]) this.best[1] = price;
      else if (size === 0 && price === this.best[1]) this.best[1] = this.walk(1, price);
    }
    return old;
  }

  size(side: Side, price: number): number {
    return Number.isInteger(price) && price > 0 && price < PRICE_SCALE ? this.sizes[side === 'BUY' ? 0 : 1][price] : 0;
  }

  /** What is still available to our takers at a level: external size minus what we took. */
  available(side: Side, price: number): number {
    const s = side === 'BUY' ? 0 : 1;
    const v = this.sizes[s][price] - this.taken[s][price];
    return v > 0 ? v : 0;
  }

  take(side: Side, price: number, size: number): void {
    const s = side === 'BUY' ? 0 : 1;
    this.taken[s][price] += size;
    this.written(s, price);
  }

  private written(s: 0 | 1, price: number): void {
    if (price < this.lo[s]) this.lo[s] = price;
    if (price > this.hi[s]) this.hi[s] = price;
  }

  /** Best bid with liquidity left after the overlay; 0 when none. */
  bestBid(): number {
    let p = this.best[0];
    while (p > 0 && this.available('BUY', p) === 0) p--;
    return p;
  }

  /** Best ask with liquidity left after the overlay; 10000 when none. */
  bestAsk(): number {
    let p = this.best[1];
    while (p < PRICE_SCALE && this.available('SELL', p) === 0) p++;
    return p;
  }

  private walk(s: 0 | 1, from: number): number {
    let p = from;
    if (s === 0) while (p > 0 && this.sizes[0][p] === 0) p--;
    else while (p < PRICE_SCALE && this.sizes[1][p] === 0) p++;
    return p;
  }
}
