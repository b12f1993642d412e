// Bounded time series for the report charts. A run may produce millions of samples; the page
// must stay small and the memory constant, so samples fall into time buckets whose width doubles
// (pairs merge) whenever a series would exceed its point budget. Each bucket keeps the last, the
// last finite, the lowest and the highest value, so a spike survives the downsampling (min/max
// per bucket). Deterministic: no wall time.
//
// Every series of one collector shares one TimeGrid (same origin, same width), so at the end all
// of them are cut into the same buckets: the report draws every chart on one time axis whose
// point k is the bucket [t0 + k x width, t0 + (k + 1) x width).

export interface SeriesPoint {
  /** Bucket start, ms. */
  t: number;
  /** Last value seen in the bucket (NaN = no value, e.g. not quoted). */
  v: number;
  /** Last finite value seen in the bucket (NaN when none). */
  lastFinite: number;
  min: number;
  max: number;
}

/** The buckets shared by a collector's series: origin at the first sample, width doubling as time goes on. */
export class TimeGrid {
  t0 = NaN;
  width: number;
  constructor(
    readonly maxPoints = 2000,
    initialWidthMs = 100,
  ) {
    this.width = Math.max(1, initialWidthMs);
  }
  /** Widens the grid (doubling) until t falls in its first maxPoints buckets; returns t clamped to the origin. */
  fit(t: number): number {
    if (Number.isNaN(this.t0)) this.t0 = t;
    if (t < this.t0) return this.t0; // virtual time never goes back; clamp defensively
    while (Math.floor((t - this.t0) / this.width) >= this.maxPoints) this.width *= 2;
    return t;
  }
  /** Buckets from the origin up to and including the one holding `end`. */
  count(end: number): number {
    if (Number.isNaN(this.t0)) return 0;
    return Math.floor((Math.max(end, this.t0) - this.t0) / this.width) + 1;
  }
}

export class BoundedSeries {
  private width: number;
  readonly grid: TimeGrid;
  private readonly ts: number[] = [];
  private readonly last: number[] = [];
  private readonly fin: number[] = [];
  private readonly lo: number[] = [];
  private readonly hi: number[] = [];

  /** A series on a shared grid, or on its own one (maxPoints buckets at most, starting initialWidthMs wide). */
  constructor(grid: TimeGrid | number = 2000, initialWidthMs = 100) {
    this.grid = typeof grid === 'number' ? new TimeGrid(grid, initialWidthMs) : grid;
    this.width = this.grid.width;
  }

  get length(): number {
    return this.ts.length;
  }

  add(t: number, v: number): void {
    t = this.grid.fit(t);
    if (this.grid.width !== this.width) this.compact(this.grid.width);
    const g = this.grid;
    const start = g.t0 + Math.floor((t - g.t0) / this.width) * this.width;
    const n = this.ts.length;
    const finite = Number.isNaN(v) ? NaN : v;
    if (n > 0 && this.ts[n - 1] === start) {
      this.last[n - 1] = v;
      if (!Number.isNaN(v)) {
        this.fin[n - 1] = v;
        if (Number.isNaN(this.lo[n - 1]) || v < this.lo[n - 1]) this.lo[n - 1] = v;
        if (Number.isNaN(this.hi[n - 1]) || v > this.hi[n - 1]) this.hi[n - 1] = v;
      }
      return;
    }
    this.ts.push(start);
    this.last.push(v);
    this.fin.push(finite);
    this.lo.push(v);
    this.hi.push(v);
  }

  /** Re-buckets to a wider width (a power-of-two multiple of the current one), merging neighbours that now share a bucket. */
  private compact(width: number): void {
    this.width = width;
    const t0 = this.grid.t0;
    let w = 0;
    for (let r = 0; r < this.ts.length; r++) {
      const start = t0 + Math.floor((this.ts[r] - t0) / width) * width;
      if (w > 0 && this.ts[w - 1] === start) {
        this.last[w - 1] = this.last[r];
        if (!Number.isNaN(this.fin[r])) this.fin[w - 1] = this.fin[r];
        this.lo[w - 1] = nanMin(this.lo[w - 1], this.lo[r]);
        this.hi[w - 1] = nanMax(this.hi[w - 1], this.hi[r]);
      } else {
        this.ts[w] = start;
        this.last[w] = this.last[r];
        this.fin[w] = this.fin[r];
        this.lo[w] = this.lo[r];
        this.hi[w] = this.hi[r];
        w++;
      }
    }
    this.ts.length = this.last.length = this.fin.length = this.lo.length = this.hi.length = w;
  }

  /** The kept buckets, at the grid's current width. */
  points(): SeriesPoint[] {
    if (this.grid.width !== this.width) this.compact(this.grid.width);
    const out: SeriesPoint[] = [];
    for (let i = 0; i < this.ts.length; i++) out.push({ t: this.ts[i], v: this.last[i], lastFinite: this.fin[i], min: this.lo[i], max: this.hi[i] });
    return out;
  }

  /**
   * The series on `n` buckets of the grid, as columns: a bucket without a sample carries the value
   * the previous one ended with (every series here is a state: equity, mid, a quote, a position),
   * so its low and high are that value too. null before the first sample and where the state is
   * NaN (not quoted). `last`: the value at the bucket's end; `lastFinite`: the last non-NaN value
   * seen inside it, else the carried value.
   */
  columns(n: number): { last: Array<number | null>; lastFinite: Array<number | null>; min: Array<number | null>; max: Array<number | null> } {
    const pts = this.points();
    const g = this.grid;
    const last: Array<number | null> = new Array(n).fill(null);
    const lastFinite = last.slice();
    const min = last.slice();
    const max = last.slice();
    let carry = NaN;
    let j = 0;
    for (let k = 0; k < n; k++) {
      const start = g.t0 + k * this.width;
      const p = j < pts.length && pts[j].t === start ? pts[j++] : undefined;
      if (p) {
        // the state held into this bucket counts towards its range until the first sample
        const lo = nanMin(p.min, carry);
        const hi = nanMax(p.max, carry);
        last[k] = nn(p.v);
        lastFinite[k] = nn(Number.isNaN(p.lastFinite) ? carry : p.lastFinite);
        min[k] = nn(lo);
        max[k] = nn(hi);
        carry = p.v;
      } else {
        last[k] = lastFinite[k] = min[k] = max[k] = nn(carry);
      }
    }
    return { last, lastFinite, min, max };
  }
}

function nn(x: number): number | null {
  return Number.isNaN(x) ? null : x;
}

function nanMin(a: number, b: number): number {
  if (Number.isNaN(a)) return b;
  if (Number.isNaN(b)) return a;
  return a < b ? a : b;
}
function nanMax(a: number, b: number): number {
  if (Number.isNaN(a)) return b;
  if (Number.isNaN(b)) return a;
  return a > b ? a : b;
}

/** One side's fills inside one bucket: count, size (size units) and notional (price x size units). */
export interface FillBucket {
  /** Bucket start, ms. */
  t: number;
  buys: number;
  buySize: number;
  buyNotional: number;
  sells: number;
  sellSize: number;
  sellNotional: number;
}

/**
 * Our fills on one chart, summed per bucket of the shared grid and side (count, size, notional:
 * the size-weighted price), so every fill is counted whatever the run length and the page draws
 * at most one marker per side per bucket (fewer: it thins them again per few pixels).
 */
export class FillBuckets {
  private width: number;
  private readonly rows: FillBucket[] = [];
  total = 0;
  constructor(readonly grid: TimeGrid) {
    this.width = grid.width;
  }
  add(t: number, side: 'BUY' | 'SELL', price: number, size: number): void {
    t = this.grid.fit(t);
    if (this.grid.width !== this.width) this.compact();
    const start = this.grid.t0 + Math.floor((t - this.grid.t0) / this.width) * this.width;
    let r = this.rows[this.rows.length - 1];
    if (!r || r.t !== start) {
      r = { t: start, buys: 0, buySize: 0, buyNotional: 0, sells: 0, sellSize: 0, sellNotional: 0 };
      this.rows.push(r);
    }
    this.total++;
    if (side === 'BUY') {
      r.buys++;
      r.buySize += size;
      r.buyNotional += price * size;
    } else {
      r.sells++;
      r.sellSize += size;
      r.sellNotional += price * size;
    }
  }
  private compact(): void {
    this.width = this.grid.width;
    const t0 = this.grid.t0;
    let w = 0;
    for (let i = 0; i < this.rows.length; i++) {
      const r = this.rows[i];
      const start = t0 + Math.floor((r.t - t0) / this.width) * this.width;
      const prev = w > 0 ? this.rows[w - 1] : undefined;
      if (prev && prev.t === start) {
        prev.buys += r.buys;
        prev.buySize += r.buySize;
        prev.buyNotional += r.buyNotional;
        prev.sells += r.sells;
        prev.sellSize += r.sellSize;
        prev.sellNotional += r.sellNotional;
      } else {
        r.t = start;
        this.rows[w++] = r;
      }
    }
    this.rows.length = w;
  }
  buckets(): readonly FillBucket[] {
    if (this.grid.width !== this.width) this.compact();
    return this.rows;
  }
}

/** Rounded to 6 decimals, without -0. */
export function round6(x: number): number {
  const r = Math.round(x * 1e6) / 1e6;
  return r === 0 ? 0 : r; // no -0 in the JSON
}
