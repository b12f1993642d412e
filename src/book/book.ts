// The integer-tick book of one token: dense arrays of sizes indexed by integer price (0..10000)
// with best-bid/best-ask pointers, so an update is O(1) and only an emptied best level walks.
// Each level keeps its exact wire strings because the venue's hash covers them as sent; the
// serialised level text of each side is cached and rebuilt only when that side changed.
import { PRICE_SCALE } from '../core/units.js';
import type { Side, WireLevel } from '../feed/events.js';
import type { BookView } from './view.js';
import { levelsText } from './hash.js';

const N = PRICE_SCALE + 1;

function gcd(a: number, b: number): number {
  while (b) {
    const t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/** One side: sizes and wire strings by price, its best and far-end pointers, a cached text. */
class SideArrays {
  readonly size = new Float64Array(N);
  readonly priceStr: string[] = new Array<string>(N).fill('');
  readonly sizeStr: string[] = new Array<string>(N).fill('');
  /** Each level's own hash text, '' until built and after the level changes. */
  readonly cell: string[] = new Array<string>(N).fill('');
  count = 0;
  /** Best level (highest bid / lowest ask), -1 when empty. */
  best = -1;
  /** Far end (lowest bid / highest ask), -1 when empty. */
  far = -1;
  /** Cached hash text of this side's levels, in wire order; null when dirty. */
  text: string | null = '[]';

  clear(): void {
    if (this.count > 0) {
      // clear only the occupied cells (between far and best), not all 10001
      const lo = Math.min(this.best, this.far);
      const hi = Math.max(this.best, this.far);
      this.size.fill(0, lo, hi + 1);
    }
    this.count = 0;
    this.best = -1;
    this.far = -1;
    this.text = '[]';
  }
}

export class DenseBook implements BookView {
  readonly bids = new SideArrays();
  readonly asks = new SideArrays();
  /** Price step the walks use: the gcd of every price seen since the last clear (tick-sized in practice). */
  private step = PRICE_SCALE;
  tick = 0;
  private updated = 0;
  private synced = false;

  constructor(readonly assetId: string) {}

  /** Empties both sides (a snapshot follows, or the book is dropped). */
  clear(): void {
    this.bids.clear();
    this.asks.clear();
    this.step = PRICE_SCALE;
  }

  setInSync(v: boolean): void {
    this.synced = v;
  }

  touch(nowMs: number): void {
    this.updated = nowMs;
  }

  /** Replaces the book with snapshot levels (bids ascending, asks descending, as sent). */
  loadSnapshot(bids: readonly WireLevel[], asks: readonly WireLevel[], nowMs: number): void {
    this.clear();
    for (let i = 0; i < bids.length; i++) this.set('BUY', bids[i].price, bids[i].size, bids[i].priceStr, bids[i].sizeStr);
    for (let i = 0; i < asks.length; i++) this.set('SELL', asks[i].price, asks[i].size, asks[i].priceStr, asks[i].sizeStr);
    this.updated = nowMs;
  }

  /**
   * Sets the aggregate size at a level; size 0 removes it. O(1) unless the best or far level
   * empties, which walks to the next occupied level. Returns false for a price outside 0..10000.
   * priceStr/sizeStr must be plain decimals (as parsePrice/parseSize accept): they are hashed unescaped.
   */
  set(side: Side, price: number, size: number, priceStr: string, sizeStr: string): boolean {
    if (!(price >= 0 && price <= PRICE_SCALE)) return false;
    const s = side === 'BUY' ? this.bids : this.asks;
    const isBid = side === 'BUY';
    const had = s.size[price] > 0;
    s.text = null;
    if (size > 0) {
      s.size[price] = size;
      // keep the stored (old-generation) price string when equal: the fresh one then dies young
      if (s.priceStr[price] !== priceStr) s.priceStr[price] = priceStr;
      s.sizeStr[price] = sizeStr;
      s.cell[price] = '';
      if (had) return true;
      if (price % this.step !== 0) this.step = gcd(this.step, price) || 1;
      s.count++;
      if (s.count === 1) {
        s.best = price;
        s.far = price;
      } else if (isBid) {
        if (price > s.best) s.best = price;
        if (price < s.far) s.far = price;
      } else {
        if (price < s.best) s.best = price;
        if (price > s.far) s.far = price;
      }
      return true;
    }
    if (!had) return true;
    s.size[price] = 0;
    s.count--;
    if (s.count === 0) {
      s.best = -1;
      s.far = -1;
      return true;
    }
    const st = this.step;
    // bids: best is the highest, walk down; far is the lowest, walk up (asks mirrored)
    if (price === s.best) s.best = this.walk(s, price, isBid ? -st : st);
    if (price === s.far) s.far = this.walk(s, price, isBid ? st : -st);
    return true;
  }

  private walk(s: SideArrays, from: number, dir: number): number {
    for (let p = from + dir; p >= 0 && p <= PRICE_SCALE; p += dir) if (s.size[p] > 0) return p;
    return -1;
  }

  /** The side's levels as hash text `[{"price":..,"size":..},...]` in wire order, cached until it changes. */
  sideText(side: Side): string {
    const s = side === 'BUY' ? this.bids : this.asks;
    if (s.text !== null) return s.text;
    if (s.count === 0) return (s.text = '[]');
    // bids ascending (far -> best), asks descending (far -> best): best last either way
    const dir = side === 'BUY' ? this.step : -this.step;
    s.text = levelsText(s.cell, s.priceStr, s.sizeStr, s.size, s.far, s.best, dir);
    return s.text;
  }

  /** Levels in wire order (best last) as [priceStr, sizeStr] pairs; allocates, for tools and tests. */
  wireLevels(side: Side): Array<[string, string]> {
    const out: Array<[string, string]> = [];
    this.forEachLevel(side, (_p, _s, ps, ss) => out.push([ps, ss]));
    return out;
  }

  /** Visits the levels in wire order (best last). */
  forEachLevel(side: Side, fn: (price: number, size: number, priceStr: string, sizeStr: string) => void): void {
    const s = side === 'BUY' ? this.bids : this.asks;
    if (s.count === 0) return;
    const dir = side === 'BUY' ? this.step : -this.step;
    for (let p = s.far; ; p += dir) {
      if (s.size[p] > 0) fn(p, s.size[p], s.priceStr[p], s.sizeStr[p]);
      if (p === s.best) break;
    }
  }

  levelCount(side: Side): number {
    return side === 'BUY' ? this.bids.count : this.asks.count;
  }

  // ---- BookView ----
  bestBid(): number {
    return this.bids.best;
  }
  bestAsk(): number {
    return this.asks.best;
  }
  sizeAt(side: 'BUY' | 'SELL', price: number): number {
    if (!(price >= 0 && price <= PRICE_SCALE)) return 0;
    return (side === 'BUY' ? this.bids : this.asks).size[price];
  }
  depth(side: 'BUY' | 'SELL', n: number, out: number[]): number {
    const s = side === 'BUY' ? this.bids : this.asks;
    if (s.count === 0 || n <= 0) return 0;
    const dir = side === 'BUY' ? -this.step : this.step;
    let k = 0;
    for (let p = s.best; p >= 0 && p <= PRICE_SCALE && k < n; p += dir) {
      const sz = s.size[p];
      if (sz > 0) {
        out[2 * k] = p;
        out[2 * k + 1] = sz;
        k++;
      }
      if (p === s.far) break;
    }
    return k;
  }
  mid(): number {
    const b = this.bids.best;
    const a = this.asks.best;
    return b < 0 || a < 0 ? NaN : (a + b) / 2;
  }
  microprice(): number {
    const b = this.bids.best;
    const a = this.asks.best;
    if (b < 0 || a < 0) return NaN;
    const bs = this.bids.size[b];
    const as = this.asks.size[a];
    // weight each side's price by the opposite side's size: a heavy bid pulls toward the ask
    return (b * as + a * bs) / (bs + as);
  }
  spread(): number {
    const b = this.bids.best;
    const a = this.asks.best;
    return b < 0 || a < 0 ? NaN : a - b;
  }
  updatedAt(): number {
    return this.updated;
  }
  inSync(): boolean {
    return this.synced;
  }
}
