// Bands: quotes a ladder of bids and asks at fixed distances around a fair price (mid or
// microprice), one size per band, skewed against inventory, never tighter than minSpread nor
// wider than maxSpread, and only while the fair price lies inside [minPrice, maxPrice].
import { z } from 'zod';
import {
  PRICE_SCALE,
  SIZE_SCALE,
  clamp,
  fairPrice,
  quotePair,
  type BookView,
  type Offered,
  type Quote,
  type QuotePairOptions,
  type Strategy,
  type StrategyContext,
  type StrategyModule,
  minNotAboveMax,
} from '../src/strategy/index.js';

const band = z.strictObject({
  distance: z.number().positive().max(0.5).describe('distance from fair to each quote of this band, in price (0.01 = one cent)'),
  size: z.number().positive().describe('shares per order of this band'),
});

export const params = z
  .strictObject({
    fair: z.enum(['mid', 'microprice']).default('mid').describe('the fair price the bands sit around: the mid, or the size-weighted microprice'),
    bands: z
      .array(band)
      .min(1)
      .max(15)
      .default([{ distance: 0.01, size: 10 }])
      .describe('the ladder: one bid and one ask per band'),
    skewPerShare: z.number().nonnegative().default(0.0001).describe('shift of both quotes per share of net inventory, against the position (price per share)'),
    minSpread: z.number().nonnegative().default(0.01).describe("the quotes' total spread is at least this (price)"),
    maxSpread: z.number().positive().max(1).default(0.2).describe("the quotes' total spread is at most this (price)"),
    minPrice: z.number().min(0).max(1).default(0.05).describe('quote only while fair is at or above this (price); no bid below it'),
    maxPrice: z.number().min(0).max(1).default(0.95).describe('quote only while fair is at or below this (price); no ask above it'),
  })
  .superRefine(minNotAboveMax(['minSpread', 'maxSpread'], ['minPrice', 'maxPrice']))
  .describe('Quotes a ladder of bids and asks at fixed distances around a fair price, skewed against inventory.');
export type BandsParams = z.infer<typeof params>;

class Bands implements Strategy {
  private readonly p: BandsParams;
  /** Reused between calls: the engine consumes the quotes before asking again. */
  private readonly out: Quote[] = [];
  /** Shares each band's SELL already uses: a later band sells only what is left, else buys the other token. */
  private readonly offered: Offered = { token: 0, complement: 0 };
  private readonly pairOpts: QuotePairOptions;
  private readonly minFair: number;
  private readonly maxFair: number;
  /** quote() reads the top of the book (sizes too for the microprice), the market and the position: nothing else. */
  readonly reads: 'topPrices' | 'top';
  constructor(p: BandsParams) {
    this.p = p;
    this.reads = p.fair === 'mid' ? 'topPrices' : 'top';
    // in whole price units: 0.07 x 10,000 is 700.0000000000001, which a bid at 700 is below
    this.minFair = Math.round(p.minPrice * PRICE_SCALE);
    this.maxFair = Math.round(p.maxPrice * PRICE_SCALE);
    this.pairOpts = { minBid: this.minFair, maxAsk: this.maxFair, offered: this.offered };
  }

  quote(ctx: StrategyContext, book: BookView): readonly Quote[] {
    const out = this.out;
    out.length = 0;
    const p = this.p;
    const fair = fairPrice(book, p.fair);
    if (!(fair === fair)) return out; // NaN: a side is empty
    if (fair < this.minFair || fair > this.maxFair) return out;
    // Inventory skew: long YES -> shift both quotes down so we sell more and buy less.
    const skew = (ctx.position.net() / SIZE_SCALE) * p.skewPerShare * PRICE_SCALE;
    const center = fair - skew;
    const minHalf = (p.minSpread * PRICE_SCALE) / 2;
    const maxHalf = (p.maxSpread * PRICE_SCALE) / 2;
    this.offered.token = 0;
    this.offered.complement = 0;
    for (const b of p.bands) {
      const half = clamp(b.distance * PRICE_SCALE, minHalf, maxHalf);
      quotePair(ctx, book, center - half, center + half, Math.round(b.size * SIZE_SCALE), out, this.pairOpts);
    }
    return out;
  }
}

const mod: StrategyModule<BandsParams> = {
  name: 'bands',
  params,
  create: (p) => new Bands(p),
};
export default mod;
