// Avellaneda-Stoikov (2008): quote around a reservation price r = s - q*gamma*sigma^2*tau with a
// total spread gamma*sigma^2*tau + (2/gamma)*ln(1 + gamma/kappa). sigma^2 is estimated online from
// mid changes (per second), kappa from public trades (distances from mid are ~ exponential with
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
    volAlpha: z.number().gt(0).max(1).default(0.05).describe('EWMA weight of the newest sample in the volatility estimate'),
    kappaAlpha: z.number().gt(0).max(1).default(0.05).describe('EWMA weight of the newest trade in the kappa estimate'),
    minSpread: z.number().nonnegative().default(0.01).describe("the quotes' total spread is at least this (price)"),
    maxSpread: z.number().positive().max(1).default(0.2).describe("the quotes' total spread is at most this (price)"),
    minPrice: z.number().min(0).max(1).default(0.05).describe('quote only while the mid is at or above this (price); no bid below it'),
    maxPrice: z.number().min(0).max(1).default(0.95).describe('quote only while the mid is at or below this (price); no ask above it'),
  })
  .superRefine(minNotAboveMax(['minSpread', 'maxSpread'], ['minPrice', 'maxPrice']))
  .describe('Avellaneda-Stoikov: quotes around an inventory-adjusted reservation price with volatility and order-arrival estimated online.');
export type AvellanedaParams = z.infer<typeof params>;

export class Avellaneda implements Strategy {
  private readonly p: AvellanedaParams;
  private readonly out: Quote[] = [];
  private readonly pairOpts: QuotePairOptions;
  /** Variance of the mid per second (price fraction squared). */
  variance: number;
  /** Mean distance of trades from the mid (price fraction). */
  meanDistance: number;
  private lastMid = NaN;
  private lastMidMs = 0;

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

  private observeMid(mid: number, now: number): void {
    if (this.lastMid === this.lastMid && now > this.lastMidMs) {
      const dt = (now - this.lastMidMs) / 1000;
      const dm = (mid - this.lastMid) / PRICE_SCALE;
      // Per-second variance sample; tiny dt is floored so bursts do not explode the estimate.
      const sample = (dm * dm) / Math.max(dt, 0.05);
      this.variance += this.p.volAlpha * (sample - this.variance);
    }
    if (now > this.lastMidMs || this.lastMid !== this.lastMid) {
      this.lastMid = mid;
      this.lastMidMs = now;
    }
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
