// One token's running state inside the statistics collector: position on the average-cost basis,
// cash and fees in micro-dollars, time-weighted sums, drawdown, our quotes and its chart series.
import { BoundedSeries, round6, type TimeGrid } from './series.js';

export { round6 };
import type { PnlFigures } from './types.js';
import type { MarkoutTracker } from './markouts.js';
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
  /** Spread capture: sum of (mid at fill - price) x signed size over fills with a known mid; price units x size units = micros. */
  edgeSum = 0;
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
    grid: TimeGrid,
    readonly markouts: MarkoutTracker,
  ) {
    this.midSeries = new BoundedSeries(grid);
    this.bidSeries = new BoundedSeries(grid);
    this.askSeries = new BoundedSeries(grid);
    this.posSeries = new BoundedSeries(grid);
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
export function dollars(micros: number): number {
  return round6(Math.round(micros) / 1e6);
}
export function shares(units: number): number {
  return round6(units / 100);
}
export function ratio(a: number, b: number): number {
  return b > 0 ? round6(a / b) : 0;
}
/**
 * The PnL figures from micro-dollar sums. The split is made on whole micro-dollars so that it adds
 * up exactly: total and spread capture are rounded, fees are whole already, and inventory is what
 * remains (total - spread capture + fees).
 */
export function pnl(realized: number, unrealized: number, fees: number, spread: number): PnlFigures {
  const total = Math.round(realized + unrealized - fees);
  const spreadCapture = Math.round(spread);
  const paid = Math.round(fees);
  return {
    realized: dollars(realized),
    unrealized: dollars(unrealized),
    fees: dollars(paid),
    total: dollars(total),
    spreadCapture: dollars(spreadCapture),
    inventory: dollars(total - spreadCapture + paid),
  };
}
