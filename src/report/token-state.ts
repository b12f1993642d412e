// One token's running state inside the statistics collector: position on the average-cost basis,
// cash and fees in micro-dollars, time-weighted sums, drawdown, our quotes and its chart series.
import { BoundedSeries } from './series.js';
import type { PnlFigures } from './types.js';
import { averagePrice, emptyBasis, type CostBasis } from '../core/accounting.js';

export class TokenTally {
  /** Position on the average-cost basis (core/accounting.ts, the one fold): size units, micros. */
  readonly basis: CostBasis = emptyBasis();
  cash = 0; // micros
  fees = 0; // micros
  volume = 0; // size units
  notional = 0; // micros
  fills = 0;
  makerFills = 0;
  edgeSum = 0; // price units x size units
  edgeVol = 0; // size units filled with a known mid
  orders = 0;
  cancels = 0;
  maxAbs = 0;
  mid = NaN; // price units
  peak = 0; // micros (token equity)
  drawdown = 0;
  ourBid = -1;
  ourAsk = -1;
  firstMarkT = NaN;
  quotesTracked = false;
  lastT = NaN;
  posTime = 0; // size units x ms
  absTime = 0;
  quotedTime = 0;
  readonly midSeries: BoundedSeries;
  readonly bidSeries: BoundedSeries;
  readonly askSeries: BoundedSeries;
  readonly posSeries: BoundedSeries;
  constructor(
    readonly tokenId: string,
    maxPoints: number,
  ) {
    this.midSeries = new BoundedSeries(maxPoints);
    this.bidSeries = new BoundedSeries(maxPoints);
    this.askSeries = new BoundedSeries(maxPoints);
    this.posSeries = new BoundedSeries(maxPoints);
  }
  /** Size units (negative when short). */
  get pos(): number {
    return this.basis.qty;
  }
  /** Micros realized. */
  get realized(): number {
    return this.basis.realized;
  }
  /** Average cost of the open position, price units. */
  get avg(): number {
    return averagePrice(this.basis);
  }
  equity(): number {
    // without a mid the holding is worth its cost
    return this.cash + (Number.isNaN(this.mid) ? this.basis.cost : this.pos * this.mid) - this.fees;
  }
  /** Accumulates the time-weighted sums up to t. */
  advance(t: number): void {
    if (!Number.isNaN(this.lastT) && t > this.lastT) {
      const dt = t - this.lastT;
      this.posTime += this.pos * dt;
      this.absTime += Math.abs(this.pos) * dt;
      if (this.ourBid >= 0 && this.ourAsk >= 0) this.quotedTime += dt;
    }
    if (Number.isNaN(this.lastT) || t > this.lastT) this.lastT = t;
  }
  noteEquity(): void {
    const e = this.equity();
    if (e > this.peak) this.peak = e;
    if (this.peak - e > this.drawdown) this.drawdown = this.peak - e;
  }
}

export function notional(s: TokenTally): number {
  return Number.isNaN(s.mid) ? Math.abs(s.pos) * s.avg : Math.abs(s.pos) * s.mid;
}
export function round6(x: number): number {
  const r = Math.round(x * 1e6) / 1e6;
  return r === 0 ? 0 : r; // no -0 in the JSON
}
export function dollars(micros: number): number {
  return round6(Math.round(micros) / 1e6);
}
export function shares(units: number): number {
  return round6(units / 100);
}
export function ratio(a: number, b: number): number {
  return b > 0 ? round6(a / b) : 0;
}
export function pnl(realized: number, unrealized: number, fees: number): PnlFigures {
  return { realized: dollars(realized), unrealized: dollars(unrealized), fees: dollars(fees), total: dollars(realized + unrealized - fees) };
}
