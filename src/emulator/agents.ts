// The synthetic market's participants: a fair value on a random walk with jumps, makers that rest
// ladders around their (lagged, noisy) view of it and refresh them, and takers that send
// marketable FAK orders at a Poisson rate, some informed (trading toward the fair value). Each
// acts through the one order-placing function it is given, so it meets users' orders in the book.
import type { Rng } from '../core/rng.js';
import type { Side } from '../core/events.js';
import type { MatchingEngineApi, MatchOrder } from '../venue/matching-api.js';
import { PRICE_SCALE } from '../core/units.js';

export interface SyntheticParams {
  /** Initial fair value, price units. */
  startPrice: number;
  /** Random-walk volatility in price units per sqrt(second). */
  volPerSqrtSec: number;
  jumpRatePerSec: number;
  /** Jump size standard deviation, price units. */
  jumpSd: number;
  fairStepMs: number;
  makers: number;
  /** Levels per side per maker. */
  levels: number;
  makerRefreshPerSec: number;
  /** Maker level sizes in shares. */
  makerSizeMin: number;
  makerSizeMax: number;
  /** Standard deviation of a maker's view of the fair value, price units. */
  makerNoise: number;
  takerRatePerSec: number;
  informedFraction: number;
  takerSizeMin: number;
  takerSizeMax: number;
  /** Bounds of the fair value's walk, price units (it reflects off them). */
  fairMin: number;
  fairMax: number;
  /** Multiplies the maker refresh and taker rates: 1 = the message and trade rates of the real captures; more for stress. */
  activity: number;
}

export const defaultSyntheticParams: SyntheticParams = {
  startPrice: 5000,
  volPerSqrtSec: 12,
  jumpRatePerSec: 0.01,
  jumpSd: 250,
  fairStepMs: 100,
  makers: 4,
  levels: 5,
  // calibrated to the real captures: ~1.4 price_change messages/s of 2 entries, ~80% of them in
  // multi-message batches, a trade every ~25 s (polytope: 1.3/s, 2 entries, no trade in 27 s)
  makerRefreshPerSec: 0.07,
  makerSizeMin: 10,
  makerSizeMax: 400,
  makerNoise: 60,
  takerRatePerSec: 0.02,
  informedFraction: 0.3,
  takerSizeMin: 5,
  takerSizeMax: 120,
  fairMin: 500,
  fairMax: PRICE_SCALE - 500,
  activity: 1,
};

/** The rates the emulator ran at before its feed was calibrated (about 22x the real message rate, 1.9 trades/s): tests and benchmarks that need load. */
export const stressSyntheticParams: Partial<SyntheticParams> = { makerRefreshPerSec: 2, takerRatePerSec: 2 };

/** What an agent may do: read the engine, place and cancel through the market (so frames are built). */
export interface AgentContext {
  engine: MatchingEngineApi;
  tokens: [string, string];
  tick: number;
  minSize: number;
  place(order: MatchOrder): void;
  cancel(orderId: string): void;
  nextOrderId(): string;
}

export class FairValue {
  value: number;
  constructor(
    private readonly p: SyntheticParams,
    private readonly rng: Rng,
  ) {
    this.value = p.startPrice;
  }
  step(dtMs: number): void {
    let v = this.value + this.p.volPerSqrtSec * Math.sqrt(dtMs / 1000) * this.rng.normal();
    if (this.rng.next() < (this.p.jumpRatePerSec * dtMs) / 1000) v += this.p.jumpSd * this.rng.normal();
    // keep clear of the edges so both sides of the book stay quotable
    const lo = this.p.fairMin;
    const hi = this.p.fairMax;
    this.value = v < lo ? lo + (lo - v) * 0.5 : v > hi ? hi - (v - hi) * 0.5 : v;
  }
}

/** A maker resting a ladder of `levels` bids and asks around its view of the fair value. */
export class Maker {
  private readonly bids = new Map<number, string>();
  private readonly asks = new Map<number, string>();
  private readonly halfSpreadTicks: number;

  constructor(
    readonly name: string,
    private readonly p: SyntheticParams,
    private readonly rng: Rng,
  ) {
    this.halfSpreadTicks = rng.int(1, 3);
  }

  refresh(ctx: AgentContext, fair: number): void {
    const view = fair + this.p.makerNoise * this.rng.normal();
    const t = ctx.tick;
    const topBid = Math.floor((view - this.halfSpreadTicks * t) / t) * t;
    const topAsk = Math.ceil((view + this.halfSpreadTicks * t) / t) * t;
    const wantBids = new Set<number>();
    const wantAsks = new Set<number>();
    for (let k = 0; k < this.p.levels; k++) {
      const b = topBid - k * t;
      const a = topAsk + k * t;
      if (b >= t) wantBids.add(b);
      if (a <= PRICE_SCALE - t) wantAsks.add(a);
    }
    this.sync(ctx, 'BUY', this.bids, wantBids);
    this.sync(ctx, 'SELL', this.asks, wantAsks);
  }

  private sync(ctx: AgentContext, side: Side, mine: Map<number, string>, want: Set<number>): void {
    for (const [price, id] of mine) {
      // filled or gone: forget it; unwanted, or a random requeue (queue churn): cancel it
      if (!ctx.engine.order(id)) mine.delete(price);
      else if (!want.has(price) || this.rng.next() < 0.1) {
        ctx.cancel(id);
        mine.delete(price);
      }
    }
    for (const price of want) {
      if (mine.has(price)) continue;
      const id = ctx.nextOrderId();
      const size = this.rng.int(this.p.makerSizeMin, this.p.makerSizeMax) * 100 + (this.rng.next() < 0.3 ? this.rng.int(1, 99) : 0);
      // half the asks rest as BUYs of the complement token: the engine's mint path
      const asComplement = side === 'SELL' && this.rng.next() < 0.5;
      ctx.place({
        orderId: id,
        owner: this.name,
        tokenId: asComplement ? ctx.tokens[1] : ctx.tokens[0],
        side: asComplement ? 'BUY' : side,
        price: asComplement ? PRICE_SCALE - price : price,
        size,
        orderType: 'GTC',
        postOnly: false,
      });
      if (ctx.engine.order(id)) mine.set(price, id);
    }
  }
}

/** A best price that is a real level (the engine reads an empty bid as 0, an empty ask as 10000). */
function isQuotable(p: number): boolean {
  return p > 0 && p < PRICE_SCALE;
}

/** A taker: one marketable FAK order per arrival; informed ones trade toward the fair value. */
export class Taker {
  constructor(
    readonly name: string,
    private readonly p: SyntheticParams,
    private readonly rng: Rng,
  ) {}

  act(ctx: AgentContext, fair: number): void {
    const a = ctx.tokens[0];
    const bid = ctx.engine.bestBid(a);
    const ask = ctx.engine.bestAsk(a);
    let side: Side;
    if (this.rng.next() < this.p.informedFraction && isQuotable(bid) && isQuotable(ask)) {
      const mid = (bid + ask) / 2;
      if (Math.abs(fair - mid) < ctx.tick / 2) return;
      side = fair > mid ? 'BUY' : 'SELL';
    } else {
      side = this.rng.next() < 0.5 ? 'BUY' : 'SELL';
    }
    const t = ctx.tick;
    const limit = side === 'BUY' ? ask : bid;
    if (!isQuotable(limit)) return;
    // the best level may sit off the current grid (it rested before a tick size change): round outward onto it
    const price = side === 'BUY' ? Math.min(Math.ceil((limit + 2 * t) / t) * t, PRICE_SCALE - t) : Math.max(Math.floor((limit - 2 * t) / t) * t, t);
    const shares = Math.round(this.p.takerSizeMin + (this.p.takerSizeMax - this.p.takerSizeMin) * this.rng.next() ** 2);
    const size = Math.max(ctx.minSize, shares * 100);
    // a SELL of the first token is sent half the time as a BUY of the second at 1-p
    const asComplement = side === 'SELL' && this.rng.next() < 0.5;
    ctx.place({
      orderId: ctx.nextOrderId(),
      owner: this.name,
      tokenId: asComplement ? ctx.tokens[1] : a,
      side: asComplement ? 'BUY' : side,
      price: asComplement ? PRICE_SCALE - price : price,
      size,
      orderType: 'FAK',
      postOnly: false,
    });
  }
}
