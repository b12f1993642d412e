// Avellaneda-Stoikov (2008): quote around a reservation price r = s - q*gamma*sigma^2*tau with a
// total spread gamma*sigma^2*tau + (2/gamma)*ln(1 + gamma/kappa). sigma^2 is estimated online from
// the mid sampled once a second of the strategy's clock (so the estimate does not depend on how
// often quote() is called: paper and backtest call it at different rates), kappa from public trades (distances from mid are ~ exponential with
// rate kappa, so kappa = 1 / mean distance). tau is the time left to the market's end (capped),
// or a fixed rolling horizon. Prices are fractions of 1 here; the engine's units are converted.
import { z } from 'zod';
import {
  PRICE_SCALE,
  SIZE_SCALE,
  clamp,
  quotePair,
  type BookView,
  type LastTradePriceEvent,
  type Quote,
  type QuotePairOptions,
  type Strategy,
  type StrategyContext,
  type StrategyModule,
  minNotAboveMax,
} from '../src/strategy/index.js';

export const params = z
  .strictObject({
    gamma: z.number().positive().default(0.1).describe('risk aversion (per share): larger shifts the reservation price harder against inventory'),
    size: z.number().positive().default(10).describe('shares per quote'),
    horizon: z.enum(['end', 'rolling']).default('rolling').describe("end: time left to the market's end (capped at horizonSec); rolling: always horizonSec"),
    horizonSec: z.number().positive().default(3600).describe('the horizon tau in seconds'),
    sigmaPerSec: z.number().positive().default(0.001).describe('starting volatility of the mid per second (price), used until samples arrive'),
    kappa: z.number().positive().default(100).describe('starting order-arrival decay (1 / mean trade distance from the mid), used until trades arrive'),
    volAlpha: z.number().gt(0).max(1).default(0.05).describe('EWMA weight of the newest one-second sample in the volatility estimate'),
    kappaAlpha: z.number().gt(0).max(1).default(0.05).describe('EWMA weight of the newest trade in the kappa estimate'),
    minSpread: z.number().nonnegative().default(0.01).describe("the quotes' total spread is at least this (price)"),
    maxSpread: z.number().positive().max(1).default(0.2).describe("the quotes' total spread is at most this (price)"),
    minPrice: z.number().min(0).max(1).default(0.05).describe('quote only while the mid is at or above this (price); no bid below it'),
    maxPrice: z.number().min(0).max(1).default(0.95).describe('quote only while the mid is at or below this (price); no ask above it'),
  })
  .superRefine(minNotAboveMax(['minSpread', 'maxSpread'], ['minPrice', 'maxPrice']))
  .describe('Avellaneda-Stoikov: quotes around an inventory-adjusted reservation price with volatility and order-arrival estimated online.');
export type AvellanedaParams = z.infer<typeof params>;

/** The volatility estimate samples the mid once per this many ms of the clock (its variance is per second). */
const SAMPLE_MS = 1000;

export class Avellaneda implements Strategy {
  private readonly p: AvellanedaParams;
  private readonly out: Quote[] = [];
  private readonly pairOpts: QuotePairOptions;
  /** Variance of the mid per second (price fraction squared). */
  variance: number;
  /** Mean distance of trades from the mid (price fraction). */
  meanDistance: number;
  /** The mid as of the last quote() call, and that call's time. */
  private lastMid = NaN;
  private lastMidMs = 0;
  /** The mid at the last grid second sampled (NaN before the first), and that second (ms / SAMPLE_MS). */
  private gridMid = NaN;
  private gridSec = -Infinity;

  constructor(p: AvellanedaParams) {
    this.p = p;
    this.variance = p.sigmaPerSec * p.sigmaPerSec;
    this.meanDistance = 1 / p.kappa;
    // in whole price units: 0.07 x 10,000 is 700.0000000000001, which a bid at 700 is below
    this.pairOpts = { minBid: Math.round(p.minPrice * PRICE_SCALE), maxAsk: Math.round(p.maxPrice * PRICE_SCALE) };
  }

  get kappa(): number {
    return 1 / this.meanDistance;
  }

  onTrade(ctx: StrategyContext, t: LastTradePriceEvent): void {
    const m = ctx.market;
    const book = ctx.book(m.tokenId);
    if (!book) return;
    const mid = book.mid();
    if (!(mid === mid)) return;
    // Trades on the complement are mirrored into the main token's terms.
    const px = t.assetId === m.tokenId ? t.price : PRICE_SCALE - t.price;
    const d = Math.max(Math.abs(px - mid), m.tick / 2) / PRICE_SCALE;
    this.meanDistance += this.p.kappaAlpha * (d - this.meanDistance);
  }

  /**
   * The mid at each whole second of the clock is the one the last call before it saw (the mid
   * moves only with the book, and quote() follows every book change); each second's change is a
   * variance sample. The seconds in [last call, this call) all saw the last call's mid: the first
   * of them may be a change, the others are not (their samples are 0: one power, however long the gap).
   */
  private observeMid(mid: number, now: number): void {
    if (this.lastMid === this.lastMid && now > this.lastMidMs) {
      const from = Math.max(Math.ceil(this.lastMidMs / SAMPLE_MS), this.gridSec + 1);
      const to = Math.ceil(now / SAMPLE_MS) - 1;
      if (to >= from) {
        const a = this.p.volAlpha;
        // the first second sampled ever has no second before it: no sample
        if (this.gridMid === this.gridMid) {
          const dm = (this.lastMid - this.gridMid) / PRICE_SCALE;
          this.variance += a * (dm * dm - this.variance);
        }
        if (to > from) this.variance *= Math.pow(1 - a, to - from);
        this.gridMid = this.lastMid;
        this.gridSec = to;
      }
    }
    if (now > this.lastMidMs || this.lastMid !== this.lastMid) this.lastMidMs = now;
    this.lastMid = mid;
  }

  quote(ctx: StrategyContext, book: BookView): readonly Quote[] {
    const out = this.out;
    out.length = 0;
    const p = this.p;
    const mid = book.mid();
    if (!(mid === mid)) return out;
    const now = ctx.clock.now();
    this.observeMid(mid, now);
    const s = mid / PRICE_SCALE;
    if (s < p.minPrice || s > p.maxPrice) return out;
    let tau = p.horizonSec;
    const end = ctx.market.endMs;
    if (p.horizon === 'end' && end !== undefined) tau = Math.min(p.horizonSec, Math.max(0, (end - now) / 1000));
    const q = ctx.position.net() / SIZE_SCALE;
    const g = p.gamma;
    const gs2t = g * this.variance * tau;
    const r = s - q * gs2t;
    const spread = clamp(gs2t + (2 / g) * Math.log(1 + g / this.kappa), p.minSpread, p.maxSpread);
    quotePair(ctx, book, (r - spread / 2) * PRICE_SCALE, (r + spread / 2) * PRICE_SCALE, Math.round(p.size * SIZE_SCALE), out, this.pairOpts);
    return out;
  }
}

const mod: StrategyModule<AvellanedaParams> = {
  name: 'avellaneda',
  params,
  create: (p) => new Avellaneda(p),
};
export default mod;
