// Markouts of our fills: for each fill and each horizon h, the move of the token's mid from the
// fill to h later, signed by side: mid(t + h) - mid(t) for a buy, mid(t) - mid(t + h) for a sell
// (positive: the market moved our way; negative: adverse selection). mid(t) is the mid in force at
// t (the last one seen at or before t; the engine's feed view, as for spread capture), so a fill
// waits in a queue until the token's mid changes after t + h (or the run ends at or after t + h),
// and the mid it had until then is its answer. Fills with no mid yet, and fills less than h before
// the end, are not measured. Memory: the fills of the last h per horizon, plus one count per
// distinct move (moves are whole or half price units).
import type { MarkoutFigures } from './types.js';
import { round6 } from './series.js';

export const DEFAULT_MARKOUT_HORIZONS_MS = [1_000, 10_000, 60_000];

interface Pending {
  due: number;
  sign: number;
  size: number;
  mid0: number;
}

/** What one horizon's measured fills add up to; mergeable across tokens. */
export class MarkoutSums {
  fills = 0;
  /** Sum of move x size: price units x size units. */
  moveSize = 0;
  /** Size units. */
  size = 0;
  adverse = 0;
  /** Move (price units) -> fills. */
  readonly hist = new Map<number, number>();

  add(move: number, size: number): void {
    this.fills++;
    this.moveSize += move * size;
    this.size += size;
    if (move < 0) this.adverse++;
    this.hist.set(move, (this.hist.get(move) ?? 0) + 1);
  }

  merge(o: MarkoutSums): void {
    this.fills += o.fills;
    this.moveSize += o.moveSize;
    this.size += o.size;
    this.adverse += o.adverse;
    for (const [k, v] of o.hist) this.hist.set(k, (this.hist.get(k) ?? 0) + v);
  }

  /** [move, fills] ascending by move, price units. */
  sorted(): Array<[number, number]> {
    return [...this.hist.entries()].sort((a, b) => a[0] - b[0]);
  }

  /** The median move (the mean of the two middle ones for an even count), price units. */
  median(): number {
    const s = this.sorted();
    const lo = Math.floor((this.fills - 1) / 2);
    const hi = Math.ceil((this.fills - 1) / 2);
    let seen = 0;
    let a = NaN;
    let b = NaN;
    for (const [move, n] of s) {
      if (Number.isNaN(a) && seen + n > lo) a = move;
      if (seen + n > hi) {
        b = move;
        break;
      }
      seen += n;
    }
    return (a + b) / 2;
  }

  figures(horizonMs: number): MarkoutFigures {
    const n = this.fills;
    return {
      horizonMs,
      fills: n,
      meanMove: this.size > 0 ? round6(this.moveSize / this.size / 10_000) : null,
      medianMove: n > 0 ? round6(this.median() / 10_000) : null,
      adverseShare: n > 0 ? round6(this.adverse / n) : null,
    };
  }
}

/** One token's markouts at every horizon. */
export class MarkoutTracker {
  private readonly queues: Pending[][];
  private readonly heads: number[];
  readonly sums: MarkoutSums[];

  constructor(readonly horizons: readonly number[]) {
    this.queues = horizons.map(() => []);
    this.heads = horizons.map(() => 0);
    this.sums = horizons.map(() => new MarkoutSums());
  }

  /** A fill at t (size units) with the mid then in force (price units; NaN: not measured). */
  fill(t: number, side: 'BUY' | 'SELL', size: number, mid: number): void {
    if (Number.isNaN(mid)) return;
    const sign = side === 'BUY' ? 1 : -1;
    for (let h = 0; h < this.horizons.length; h++) this.queues[h].push({ due: t + this.horizons[h], sign, size, mid0: mid });
  }

  /**
   * `mid` was in force until (not including) `until`: every fill due before it is measured with
   * it. inclusive: also those due exactly at `until` (the end of the run).
   */
  settle(until: number, mid: number, inclusive = false): void {
    if (Number.isNaN(mid)) return;
    for (let h = 0; h < this.horizons.length; h++) {
      const q = this.queues[h];
      let i = this.heads[h];
      while (i < q.length && (q[i].due < until || (inclusive && q[i].due === until))) {
        const p = q[i++];
        this.sums[h].add(p.sign * (mid - p.mid0), p.size);
      }
      if (i > 1024 && i * 2 > q.length) {
        q.splice(0, i);
        i = 0;
      }
      this.heads[h] = i;
    }
  }

  figures(): MarkoutFigures[] {
    return this.horizons.map((h, i) => this.sums[i].figures(h));
  }
}
