// Bounded time series for the report charts. A run may produce millions of samples; the page
// must stay small and the memory constant, so samples fall into time buckets whose width doubles
// (pairs merge) whenever the series would exceed its point budget. Each bucket keeps the last,
// lowest and highest value, so a spike survives the downsampling. Deterministic: no wall time.

export interface SeriesPoint {
  /** Bucket start, ms. */
  t: number;
  /** Last value seen in the bucket (NaN = no value, e.g. not quoted). */
  v: number;
  min: number;
  max: number;
}

export class BoundedSeries {
  private t0 = NaN;
  private width: number;
  private readonly ts: number[] = [];
  private readonly last: number[] = [];
  private readonly lo: number[] = [];
  private readonly hi: number[] = [];

  /** maxPoints: upper bound of kept buckets; initialWidthMs: starting bucket width. */
  constructor(
    readonly maxPoints = 2000,
    initialWidthMs = 100,
  ) {
    this.width = Math.max(1, initialWidthMs);
  }

  get length(): number {
    return this.ts.length;
  }

  add(t: number, v: number): void {
    if (Number.isNaN(this.t0)) this.t0 = t;
    if (t < this.t0) t = this.t0; // virtual time never goes back; clamp defensively
    let b = Math.floor((t - this.t0) / this.width);
    while (b >= this.maxPoints) {
      this.compact();
      b = Math.floor((t - this.t0) / this.width);
    }
    const start = this.t0 + b * this.width;
    const n = this.ts.length;
    if (n > 0 && this.ts[n - 1] === start) {
      this.last[n - 1] = v;
      if (!Number.isNaN(v)) {
        if (Number.isNaN(this.lo[n - 1]) || v < this.lo[n - 1]) this.lo[n - 1] = v;
        if (Number.isNaN(this.hi[n - 1]) || v > this.hi[n - 1]) this.hi[n - 1] = v;
      }
      return;
    }
    this.ts.push(start);
    this.last.push(v);
    this.lo.push(v);
    this.hi.push(v);
  }

  /** Doubles the bucket width, merging neighbours that now share a bucket. */
  private compact(): void {
    this.width *= 2;
    let w = 0;
    for (let r = 0; r < this.ts.length; r++) {
      const start = this.t0 + Math.floor((this.ts[r] - this.t0) / this.width) * this.width;
      if (w > 0 && this.ts[w - 1] === start) {
        this.last[w - 1] = this.last[r];
        this.lo[w - 1] = nanMin(this.lo[w - 1], this.lo[r]);
        this.hi[w - 1] = nanMax(this.hi[w - 1], this.hi[r]);
      } else {
        this.ts[w] = start;
        this.last[w] = this.last[r];
        this.lo[w] = this.lo[r];
        this.hi[w] = this.hi[r];
        w++;
      }
    }
    this.ts.length = this.last.length = this.lo.length = this.hi.length = w;
  }

  points(): SeriesPoint[] {
    const out: SeriesPoint[] = [];
    for (let i = 0; i < this.ts.length; i++) out.push({ t: this.ts[i], v: this.last[i], min: this.lo[i], max: this.hi[i] });
    return out;
  }
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

/** Keeps at most `max` items of a stream by thinning evenly: when full, every other one goes and the stride doubles. */
export class ThinnedList<T> {
  private readonly items: T[] = [];
  private stride = 1;
  private seen = 0;
  constructor(readonly max = 2000) {}
  add(x: T): void {
    if (this.seen++ % this.stride !== 0) return;
    this.items.push(x);
    if (this.items.length > this.max) {
      let w = 0;
      for (let r = 0; r < this.items.length; r += 2) this.items[w++] = this.items[r];
      this.items.length = w;
      this.stride *= 2;
    }
  }
  get total(): number {
    return this.seen;
  }
  list(): readonly T[] {
    return this.items;
  }
}
