// The integer-tick book of one token: per side, its levels as a short array sorted in wire order
// (best last), so it costs what its levels cost (not the whole 0..10000 price range), a change at
// the top touches only the last cells, and the best price is the last cell.
// Each level keeps its exact wire strings because the venue's hash covers them as sent. Once a book
// is hashed it also keeps the levels' hash text as bytes (`,{"price":"p","size":"s"}` per level,
// in wire order) in one buffer laid out as the hash payload's middle: room for the head, the bids,
// `],"asks":`, the asks, room for the tail. Every change splices its level in place, so a hash
// (hash.ts BookHasher) writes only the head, the timestamp and the tail around them and hashes the
// bytes where they lie.
import { PRICE_SCALE } from '../core/units.js';
import type { Side, WireLevel } from '../core/events.js';
import type { BookView } from './view.js';
import { LEVELS_INITIAL, grownF64, grownI32, levelIndex } from './levels.js';

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

/**
 * One side: its levels in wire order (bids by ascending price, asks by descending: the best last)
 * as parallel arrays that grow with the levels held, and where its hash text lies. A removed
 * level leaves a hole (size 0, no text) where it was, so a level that comes back (prices on the
 * tick grid near the top come and go) costs no move; the last cell is never a hole, and holes are
 * squeezed out when they outnumber the levels.
 */
class SideArrays {
  price = new Int32Array(LEVELS_INITIAL);
  size = new Float64Array(LEVELS_INITIAL);
  /** Bytes of each level's hash text (cellLen; 0 for a hole), kept only while DenseBook.kept (layout sets them). */
  cell = new Int32Array(LEVELS_INITIAL);
  /** Wire strings, exactly `count` long (a hole keeps its level's last strings). */
  readonly priceStr: string[] = [];
  readonly sizeStr: string[] = [];
  /** Cells in use, holes included. */
  count = 0;
  /** Levels (cells that are not holes). */
  live = 0;
  /** The levels' hash text in wire order, each with a leading comma: DenseBook.pay[base, base + len). */
  base = 0;
  len = 0;
  /** Cached '[...]' string of the levels' text; null when stale. */
  text: string | null = '[]';

  constructor(readonly isBid: boolean) {}

  clear(): void {
    this.count = 0;
    this.live = 0;
    this.priceStr.length = 0;
    this.sizeStr.length = 0;
    this.len = 0;
    this.text = '[]';
  }

  /** Index of the level at `price`, or ~(where it would go). */
  indexOf(price: number): number {
    return levelIndex(this.price, this.count, price, this.isBid);
  }

  /** Best price (highest bid / lowest ask), -1 when empty. */
  best(): number {
    return this.count === 0 ? -1 : this.price[this.count - 1];
  }

  /** Adds a level at cell index `i` (between i - 1 and i): into a hole beside it, or moving the cells behind it up one. */
  insertAt(i: number, price: number, size: number, p: string, s: string, cell: number): void {
    const n = this.count;
    let at = i;
    if (i > 0 && this.size[i - 1] === 0) at = i - 1;
    else if (i < n && this.size[i] === 0) at = i;
    else {
      if (n === this.price.length) {
        const cap = n * 2;
        this.price = grownI32(this.price, n, cap);
        this.size = grownF64(this.size, n, cap);
        this.cell = grownI32(this.cell, n, cap);
      }
      const px = this.price;
      const sz = this.size;
      const cl = this.cell;
      const ps = this.priceStr;
      const ss = this.sizeStr;
      ps.push(p);
      ss.push(s);
      // the cells behind it move up one: few near the top, where changes cluster
      for (let k = n; k > i; k--) {
        px[k] = px[k - 1];
        sz[k] = sz[k - 1];
        cl[k] = cl[k - 1];
        ps[k] = ps[k - 1];
        ss[k] = ss[k - 1];
      }
      this.count = n + 1;
    }
    this.price[at] = price;
    this.size[at] = size;
    this.cell[at] = cell;
    this.priceStr[at] = p;
    this.sizeStr[at] = s;
    this.live++;
  }

  /** Removes the level at cell `i`, leaving a hole (none at the end). */
  removeAt(i: number): void {
    this.size[i] = 0;
    this.cell[i] = 0;
    this.live--;
    if (i === this.count - 1) {
      let n = i;
      while (n > 0 && this.size[n - 1] === 0) n--;
      this.count = n;
      this.priceStr.length = n;
      this.sizeStr.length = n;
    } else if (this.count - this.live > this.live + 16) this.squeeze();
  }

  /** Drops the holes. */
  private squeeze(): void {
    const px = this.price;
    const sz = this.size;
    const cl = this.cell;
    const ps = this.priceStr;
    const ss = this.sizeStr;
    let j = 0;
    for (let k = 0; k < this.count; k++) {
      if (sz[k] === 0) continue;
      px[j] = px[k];
      sz[j] = sz[k];
      cl[j] = cl[k];
      ps[j] = ps[k];
      ss[j] = ss[k];
      j++;
    }
    this.count = j;
    ps.length = j;
    ss.length = j;
  }

  /** Bytes of the levels' text, setting each level's cell length. */
  textLength(): number {
    let n = 0;
    for (let i = 0; i < this.count; i++) n += this.cell[i] = this.size[i] > 0 ? cellLen(this.priceStr[i], this.sizeStr[i]) : 0;
    return n;
  }

  /** Writes the levels' text (wire order) at `o`; returns the end. */
  write(b: Buffer, o: number): number {
    for (let i = 0; i < this.count; i++) if (this.size[i] > 0) o = writeCell(b, o, this.priceStr[i], this.sizeStr[i]);
    return o;
  }

  /**
   * Offset, within the side's text, of the level at index `i` (or where a level inserted at `i`
   * goes): the bytes of the levels before it, summed from whichever end is nearer (changes
   * cluster at the top of book, which is last). Runs before the side changes.
   */
  offsetOf(i: number): number {
    const n = this.count;
    const cell = this.cell;
    if (i >= n >> 1) {
      let after = 0;
      for (let k = i; k < n; k++) after += cell[k];
      return this.len - after;
    }
    let before = 0;
    for (let k = 0; k < i; k++) before += cell[k];
    return before;
  }
}

export class DenseBook implements BookView {
  readonly bids = new SideArrays(true);
  readonly asks = new SideArrays(false);
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
    const bl = this.bids.textLength();
    const al = this.asks.textLength();
    const need = HEAD_ROOM + bl + MIDDLE.length + al + 512;
    if (need > this.pay.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(2048, need, this.pay.length * 2));
      if (this.pay.length >= HEAD_ROOM) this.pay.copy(grown, 0, 0, HEAD_ROOM);
      else this.headTag = undefined;
      this.pay = grown;
    }
    this.bids.base = HEAD_ROOM;
    this.bids.len = bl;
    let o = this.bids.write(this.pay, HEAD_ROOM);
    this.pay.set(MIDDLE, o);
    o += MIDDLE.length;
    this.asks.base = o;
    this.asks.len = al;
    this.asks.write(this.pay, o);
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
   * Replaces the text of the level at index `i` (absent when oldLen is 0: then where it goes) by
   * the cell of p and sz (none when p is ''), moving what follows it (for a bid: the rest of the
   * bids, MIDDLE, the asks).
   */
  private splice(s: SideArrays, i: number, oldLen: number, p: string, sz: string): void {
    const at = s.base + s.offsetOf(i);
    const newLen = p === '' ? 0 : cellLen(p, sz);
    const delta = newLen - oldLen;
    const used = this.asks.base + this.asks.len;
    if (delta > 0) this.room(used + delta);
    if (delta !== 0 && at + oldLen < used) this.pay.copyWithin(at + newLen, at + oldLen, used);
    if (newLen > 0) writeCell(this.pay, at, p, sz);
    s.len += delta;
    if (s.isBid) this.asks.base += delta;
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
   * Sets the aggregate size at a level; size 0 removes it. Near-O(1) at the top of book (the
   * levels behind a changed one move by a cell); deeper levels bisect. Returns false for a price
   * outside 0..10000. priceStr/sizeStr must be plain decimals (as parsePrice/parseSize accept):
   * they are hashed unescaped.
   */
  set(side: Side, price: number, size: number, priceStr: string, sizeStr: string): boolean {
    if (!(price >= 0 && price <= PRICE_SCALE)) return false;
    const s = side === 'BUY' ? this.bids : this.asks;
    s.text = null;
    const i = s.indexOf(price);
    if (i >= 0) {
      // a level, or a hole where one was (its cell is 0 bytes: a splice there inserts)
      if (size > 0) {
        if (this.kept) this.splice(s, i, s.cell[i], priceStr, sizeStr);
        if (s.size[i] === 0) s.live++;
        s.size[i] = size;
        // keep the stored (old-generation) price string when equal: the fresh one then dies young
        if (s.priceStr[i] !== priceStr) s.priceStr[i] = priceStr;
        s.sizeStr[i] = sizeStr;
        if (this.kept) s.cell[i] = cellLen(priceStr, sizeStr);
      } else if (s.size[i] > 0) {
        if (this.kept) this.splice(s, i, s.cell[i], '', '');
        s.removeAt(i);
      }
      return true;
    }
    if (!(size > 0)) return true;
    if (this.kept) this.splice(s, ~i, 0, priceStr, sizeStr);
    s.insertAt(~i, price, size, priceStr, sizeStr, this.kept ? cellLen(priceStr, sizeStr) : 0);
    return true;
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
    for (let i = 0; i < s.count; i++) if (s.size[i] > 0) fn(s.price[i], s.size[i], s.priceStr[i], s.sizeStr[i]);
  }

  levelCount(side: Side): number {
    return side === 'BUY' ? this.bids.live : this.asks.live;
  }

  // ---- BookView ----
  bestBid(): number {
    return this.bids.best();
  }
  bestAsk(): number {
    return this.asks.best();
  }
  sizeAt(side: 'BUY' | 'SELL', price: number): number {
    const s = side === 'BUY' ? this.bids : this.asks;
    const i = s.indexOf(price);
    return i >= 0 ? s.size[i] : 0;
  }
  depth(side: 'BUY' | 'SELL', n: number, out: number[]): number {
    const s = side === 'BUY' ? this.bids : this.asks;
    let k = 0;
    for (let i = s.count - 1; i >= 0 && k < n; i--) {
      const sz = s.size[i];
      if (sz === 0) continue;
      out[2 * k] = s.price[i];
      out[2 * k + 1] = sz;
      k++;
    }
    return k;
  }
  mid(): number {
    const b = this.bids.best();
    const a = this.asks.best();
    return b < 0 || a < 0 ? NaN : (a + b) / 2;
  }
  microprice(): number {
    const bl = this.bids;
    const al = this.asks;
    if (bl.count === 0 || al.count === 0) return NaN;
    const b = bl.price[bl.count - 1];
    const a = al.price[al.count - 1];
    const bs = bl.size[bl.count - 1];
    const as = al.size[al.count - 1];
    // weight each side's price by the opposite side's size: a heavy bid pulls toward the ask
    return (b * as + a * bs) / (bs + as);
  }
  spread(): number {
    const b = this.bids.best();
    const a = this.asks.best();
    return b < 0 || a < 0 ? NaN : a - b;
  }
  updatedAt(): number {
    return this.updated;
  }
  inSync(): boolean {
    return this.synced;
  }
}
