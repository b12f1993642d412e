// The matching engine's contract (implemented in matching-engine.ts). One engine per binary
// market holds one canonical book in the first token's terms: a BUY of the second token at q is
// a SELL of the first at 1-q, so two BUYs whose prices sum to at least 1 match ("mint"). Both
// token views are derived from the one book. Integer units throughout (src/core/units.ts).
// Notes from the implementation (additive): cancelAll() was added below; MatchingEngine also has
// setTick(tick) for tick_size_change; every RestingOrder returned is a detached copy; bestBid()
// is 0 and bestAsk() 10000 when that side is empty; FAK status is 'matched' when anything filled.
import type { Side } from '../core/events.js';
import type { OrderType } from './types.js';

export interface MarketSpec {
  conditionId: string;
  /** [first token, second token]; the second's book is the mirror of the first's. */
  tokens: [string, string];
  /** Price units (100 = 0.01). */
  tick: number;
  /** Size units (500 = 5 shares). */
  minSize: number;
}

export interface MatchOrder {
  orderId: string;
  /** Who owns it: an API key, or a synthetic agent's name. Fills are reported per owner. */
  owner: string;
  tokenId: string;
  side: Side;
  price: number;
  size: number;
  orderType: OrderType;
  postOnly: boolean;
  /** GTD: expiry in ms since the epoch (engine clock). */
  expiresAtMs?: number;
}

export interface MatchFill {
  tradeId: string;
  makerOrderId: string;
  makerOwner: string;
  /** The maker's own token, side and price. */
  makerTokenId: string;
  makerSide: Side;
  makerPrice: number;
  takerOrderId: string;
  takerOwner: string;
  takerTokenId: string;
  takerSide: Side;
  /** The taker's execution price in its own token (= maker price, or 1 - maker price for a complement match). */
  takerPrice: number;
  size: number;
  timeMs: number;
}

/** Venue error codes (wire-formats.md 4.4): the one list in rejections.ts. */
export type { RejectCode } from './rejections.js';
import type { RejectCode } from './rejections.js';

export interface PlaceOutcome {
  ok: boolean;
  error?: RejectCode;
  /** 'live' rests (maybe after partial fills), 'matched' fully filled, 'unmatched' FAK/FOK remainder killed. */
  status?: 'live' | 'matched' | 'unmatched';
  fills: MatchFill[];
  /** Size left resting on the book (0 unless status is 'live'). */
  resting: number;
}

export interface RestingOrder extends MatchOrder {
  /** Size still open. */
  remaining: number;
  originalSize: number;
  createdAtMs: number;
}

/** A change of one aggregate level on one token's view, after an operation. */
export interface LevelChange {
  tokenId: string;
  /** BUY = bid level, SELL = ask level, in that token's terms. */
  side: Side;
  price: number;
  /** New total at the level; 0 removes it. */
  size: number;
}

export interface MatchingEngineApi {
  readonly spec: MarketSpec;
  place(order: MatchOrder, nowMs: number): PlaceOutcome;
  /** Returns the cancelled order, or undefined when it is unknown or already done. */
  cancel(orderId: string): RestingOrder | undefined;
  cancelOwner(owner: string): RestingOrder[];
  /** Added by the matching-engine helper (additive): removes every resting order of the market. */
  cancelAll(): RestingOrder[];
  /** Removes GTD orders whose expiry has passed. */
  expire(nowMs: number): RestingOrder[];
  order(orderId: string): RestingOrder | undefined;
  ordersOf(owner: string): RestingOrder[];
  /** Aggregate levels of one token's view: bids ascending, asks descending (best last), as the wire sends them. */
  levels(tokenId: string, side: Side): Array<{ price: number; size: number }>;
  bestBid(tokenId: string): number;
  bestAsk(tokenId: string): number;
  /** Every level change since the last call, for both tokens (the emulator turns these into price_change frames). */
  drainChanges(): LevelChange[];
}
