// The integer-tick book of one token: dense arrays of sizes indexed by integer price (0..10000)
// with best-bid/best-ask pointers, so an update is O(1) and only an emptied best level walks.
// Each level keeps its exact wire strings because the venue's hash covers them as sent. Once a book
// is hashed it also keeps the levels' hash text as bytes (`,{"price":"p","size":"s"}` per level,
// in wire order) in one buffer laid out as the hash payload's middle: room for the head, the bids,
// `],"asks":`, the asks, room for the tail. Every change splices its level in place, so a hash
// (hash.ts BookHasher) writes only the head, the timestamp and the tail around them and hashes the
// bytes where they lie.
import { PRICE_SCALE } from '../core/units.js';
import type { Side, WireLevel } from '../core/events.js';
import type { BookView } from './view.js';

const N = PRICE_SCALE + 1;

function gcd(a: number, b: number): number {
  while (b) {
    const t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/** Bytes of one level's hash text with its leading comma: `,{"price":"` p `","size":"` s `"}`. */
const cellLen = (p: string, s: string): number => 23 + p.length + s.length;
const OPEN = Buffer.from(',{"price":"', 'latin1');
const MID = Buffer.from('","size":"', 'latin1');

/** Writes one level's cell at `o` (ASCII decimals, validated by parsePrice/parseSize); returns the end. */
function writeCell(b: Buffer, o: number, p: string, s: string): number {
  for (let k = 0; k < OPEN.length; k++) b[o++] = OPEN[k];
  for (let k = 0; k < p.length; k++) b[o++] = p.charCodeAt(k);
  for (let k = 0; k < MID.length; k++) b[o++] = MID[k];
  for (let k = 0; k < s.length; k++) b[o++] = s.charCodeAt(k);
  b[o++] = 34; // "
  b[o++] = 125; // }
  return o;
}

/** Bytes before the bids in DenseBook.pay, for the hash payload's head (`{"market":..,"bids":`, about 220 bytes). */
export const HEAD_ROOM = 320;
/** Between the bids and the asks in DenseBook.pay. */
const MIDDLE = Buffer.from('],"asks":', 'latin1');
const NO_BYTES = Buffer.alloc(0);

/** One side: sizes and wire strings by price, its best and far-end pointers, where its hash text lies. */
class SideArrays {
  readonly size = new Float64Array(N);
  readonly priceStr: string[] = new Array<string>(N).fill('');
  readonly sizeStr: string[] = new Array<string>(N).fill('');
  count = 0;
  /** Best level (highest bid / lowest ask), -1 when empty. */
  best = -1;
  /** Far end (lowest bid / highest ask), -1 when empty. */
  far = -1;
  /** The levels' hash text in wire order, each with a leading comma: DenseBook.pay[base, base + len). */
  base = 0;
  len = 0;
  /** Cached '[...]' string of the levels' text; null when stale. */
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
    this.len = 0;
    this.text = '[]';
  }

  /** Bytes of the levels' text (far -> best). */
  textLength(isBid: boolean, step: number): number {
    let n = 0;
    if (this.count === 0) return 0;
    const dir = isBid ? step : -step;
    for (let p = this.far; ; p += dir) {
      if (this.size[p] > 0) n += cellLen(this.priceStr[p], this.sizeStr[p]);
      if (p === this.best) break;
    }
    return n;
  }

  /** Writes the levels' text (far -> best) at `o`; returns the end. */
  write(b: Buffer, o: number, isBid: boolean, step: number): number {
    if (this.count === 0) return o;
    const dir = isBid ? step : -step;
    for (let p = this.far; ; p += dir) {
      if (this.size[p] > 0) o = writeCell(b, o, this.priceStr[p], this.sizeStr[p]);
      if (p === this.best) break;
    }
    return o;
  }

  /**
   * Offset, within the side's text, of the level at `price` (its text oldLen bytes, 0 when absent):
   * the byte length of the levels before it in wire order, summed from whichever end is nearer
   * (changes cluster at the top of book, which is last). Runs before the level's own state changes.
   */
  offsetOf(price: number, isBid: boolean, step: number, oldLen: number): number {
    const best = this.best;
    const far = this.far;
    if (this.count === 0) return 0;
    if (isBid ? price > best : price < best) return this.len; // a new best: last
    if (isBid ? price < far : price > far) return 0; // a new far end: first
    if (Math.abs(best - price) <= Math.abs(price - far)) {
      // levels after it in wire order lie between it and the best
      let after = 0;
      const dir = isBid ? -step : step;
      for (let q = best; isBid ? q > price : q < price; q += dir) if (this.size[q] > 0) after += cellLen(this.priceStr[q], this.sizeStr[q]);
      return this.len - after - oldLen;
    }
    let before = 0;
    const dir = isBid ? step : -step;
    for (let q = far; isBid ? q < price : q > price; q += dir) if (this.size[q] > 0) before += cellLen(this.priceStr[q], this.sizeStr[q]);
    return before;
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
  /**
   * The levels' hash text, kept from the first hash on (a book never hashed pays nothing per
   * change): HEAD_ROOM bytes for the payload's head, the bids' text at bids.base, MIDDLE, the asks'
   * text at asks.base, then free room. Only the hasher writes outside the levels and MIDDLE.
   */
  pay: Buffer = NO_BYTES;
  kept = false;
  /** What the hasher last wrote into the head room (BookHasher compares it before rewriting). */
  headTag: unknown = undefined;

  constructor(readonly assetId: string) {}

  /** Empties both sides (a snapshot follows, or the book is dropped). */
  clear(): void {
    this.bids.clear();
    this.asks.clear();
    this.step = PRICE_SCALE;
    if (this.kept) {
      this.asks.base = HEAD_ROOM + MIDDLE.length;
      this.pay.set(MIDDLE, HEAD_ROOM);
    }
  }

  /** Keeps the levels' text from now on: lays both sides out in `pay`. */
  private keep(): void {
    this.layout();
    this.kept = true;
  }

  /** Writes both sides' text after the head room (which stays as it is, in a grown buffer too). */
  private layout(): void {
    const bl = this.bids.textLength(true, this.step);
    const al = this.asks.textLength(false, this.step);
    const need = HEAD_ROOM + bl + MIDDLE.length + al + 512;
    if (need > this.pay.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(2048, need, this.pay.length * 2));
      if (this.pay.length >= HEAD_ROOM) this.pay.copy(grown, 0, 0, HEAD_ROOM);
      else this.headTag = undefined;
      this.pay = grown;
    }
    this.bids.base = HEAD_ROOM;
    this.bids.len = bl;
    let o = this.bids.write(this.pay, HEAD_ROOM, true, this.step);
    this.pay.set(MIDDLE, o);
    o += MIDDLE.length;
    this.asks.base = o;
    this.asks.len = al;
    this.asks.write(this.pay, o, false, this.step);
  }

  /**
   * The payload buffer with room for `n` bytes after the asks' text (for the hasher's tail),
   * laying the text out first if it is not kept yet. Valid until the book changes.
   */
  payRoom(n: number): Buffer {
    if (!this.kept) this.keep();
    this.room(this.asks.base + this.asks.len + n);
    return this.pay;
  }

  /** Room for `n` bytes in `pay`, keeping everything up to the end of the asks' text. */
  private room(n: number): void {
    if (n <= this.pay.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(this.pay.length * 2, n + 512));
    this.pay.copy(grown, 0, 0, this.asks.base + this.asks.len);
    this.pay = grown;
  }

  /**
   * Replaces the text of the level at `price` (absent when oldLen is 0) by the cell of p and sz
   * (none when p is ''), moving what follows it (for a bid: the rest of the bids, MIDDLE, the asks).
   */
  private splice(s: SideArrays, price: number, isBid: boolean, step: number, oldLen: number, p: string, sz: string): void {
    const at = s.base + s.offsetOf(price, isBid, step, oldLen);
    const newLen = p === '' ? 0 : cellLen(p, sz);
    const delta = newLen - oldLen;
    const used = this.asks.base + this.asks.len;
    if (delta > 0) this.room(used + delta);
    if (delta !== 0 && at + oldLen < used) this.pay.copyWithin(at + newLen, at + oldLen, used);
    if (newLen > 0) writeCell(this.pay, at, p, sz);
    s.len += delta;
    if (isBid) this.asks.base += delta;
  }

  setInSync(v: boolean): void {
    this.synced = v;
  }

  touch(nowMs: number): void {
    this.updated = nowMs;
  }

  /** Replaces the book with snapshot levels (bids ascending, asks descending, as sent). */
  loadSnapshot(bids: readonly WireLevel[], asks: readonly WireLevel[], nowMs: number): void {
    // the levels' text (when kept) is written once at the end, not spliced level by level
    const kept = this.kept;
    this.kept = false;
    this.clear();
    for (let i = 0; i < bids.length; i++) this.set('BUY', bids[i].price, bids[i].size, bids[i].priceStr, bids[i].sizeStr);
    for (let i = 0; i < asks.length; i++) this.set('SELL', asks[i].price, asks[i].size, asks[i].priceStr, asks[i].sizeStr);
    if (kept) {
      this.layout();
      this.kept = true;
    }
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
    if (this.kept && (had || size > 0)) {
      const oldLen = had ? cellLen(s.priceStr[price], s.sizeStr[price]) : 0;
      const step = size > 0 && price % this.step !== 0 ? gcd(this.step, price) || 1 : this.step;
      if (size > 0) this.splice(s, price, isBid, step, oldLen, priceStr, sizeStr);
      else this.splice(s, price, isBid, step, oldLen, '', '');
    }
    if (size > 0) {
      s.size[price] = size;
      // keep the stored (old-generation) price string when equal: the fresh one then dies young
      if (s.priceStr[price] !== priceStr) s.priceStr[price] = priceStr;
      s.sizeStr[price] = sizeStr;
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

  /**
   * The side's levels as hash text `[{"price":..,"size":..},...]` in wire order. Cached until the
   * side changes, and a flat string (decoded once from the level bytes with its brackets in
   * place), so writing it out or hashing it never flattens a concatenation.
   */
  sideText(side: Side): string {
    const s = side === 'BUY' ? this.bids : this.asks;
    if (s.text !== null) return s.text;
    if (s.count === 0) return (s.text = '[]');
    const b = this.payRoom(1);
    // [ over the first level's comma, ] just past the last level (MIDDLE's own after the bids); both go back
    const a = s.base;
    const e = a + s.len;
    const after = b[e];
    b[a] = 91;
    b[e] = 93;
    s.text = b.toString('latin1', a, e + 1);
    b[a] = 44;
    b[e] = after;
    return s.text;
  }

  /** Byte length of the side's levels text without brackets (what copySide writes). */
  sideLength(side: Side): number {
    if (!this.kept) this.keep();
    const s = side === 'BUY' ? this.bids : this.asks;
    return s.len === 0 ? 0 : s.len - 1;
  }

  /**
   * Copies the side's levels text without brackets (sideBytes) into `target` at `at`; returns the
   * offset just past it. The caller makes room (sideLength).
   */
  copySide(side: Side, target: Uint8Array, at: number): number {
    if (!this.kept) this.keep();
    const s = side === 'BUY' ? this.bids : this.asks;
    const n = s.len - 1;
    if (n <= 0) return at;
    const b = this.pay;
    target.set(new Uint8Array(b.buffer, b.byteOffset + s.base + 1, n), at);
    return at + n;
  }

  /** The side's hash text bytes without brackets (levels joined by commas); valid until the next change. */
  sideBytes(side: Side): Buffer {
    if (!this.kept) this.keep();
    const s = side === 'BUY' ? this.bids : this.asks;
    return s.len === 0 ? this.pay.subarray(0, 0) : this.pay.subarray(s.base + 1, s.base + s.len);
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
