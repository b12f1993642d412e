// What a venue's trade must agree with before it is believed as a fill of ours: the order's
// token, side and price (a maker fill at our price; a taker fill only for an order that could
// take, within its limit), a size within what the order has left, a fee rate within the rule, and
// finite numbers in the unit ranges. A trade that fails is not a fill (issue 10, item 4).
import type { Side } from '../core/events.js';
import { MAX_SIZE_UNITS, PRICE_SCALE } from '../core/units.js';
import { sizeToCome, type TrackedOrder } from './orders.js';

export interface FillClaim {
  tokenId: string;
  /** The side the venue names for our order, when it names one. */
  side: Side | undefined;
  price: number;
  size: number;
  /** The size exactly, millionths of a share, when the venue's is finer than 0.01 share. */
  micros?: number;
  feeRateBps: number;
  liquidity: 'MAKER' | 'TAKER';
}

/** Orders the daemon placed are post-only; an order adopted from the venue may have been placed to take. */
export function couldTake(o: TrackedOrder): boolean {
  return o.clientId.startsWith('adopted-');
}

/**
 * Why the claim cannot be a fill of `o`, or undefined when it can. `remaining`: the size must fit
 * what the order has left, `unseen` included (a user-channel trade); the venue's own trade list
 * (REST) is held only to the order's size: the venue lists the trade itself, and refusing it
 * would leave a position wrong.
 */
export function fillProblem(o: TrackedOrder, c: FillClaim, maxFeeRateBps: number, remaining = true): string | undefined {
  if (!Number.isSafeInteger(c.size) || c.size <= 0 || c.size > MAX_SIZE_UNITS) return `size ${c.size} is not a plausible amount`;
  if (!Number.isSafeInteger(c.price) || c.price <= 0 || c.price >= PRICE_SCALE) return `price ${c.price} is outside (0, 1)`;
  if (!(Number.isFinite(c.feeRateBps) && c.feeRateBps >= 0 && c.feeRateBps <= maxFeeRateBps)) return `fee rate ${c.feeRateBps} bps is outside 0..${maxFeeRateBps}`;
  if (c.tokenId !== o.tokenId) return `token ${c.tokenId || '(empty)'} is not the order's ${o.tokenId}`;
  if (c.side !== undefined && c.side !== o.side) return `side ${c.side} is not the order's ${o.side}`;
  if (c.liquidity === 'MAKER') {
    if (c.price !== o.price) return `maker fill at ${c.price}, the order rests at ${o.price}`;
  } else {
    if (!couldTake(o)) return 'taker fill on a post-only order';
    if (o.side === 'BUY' ? c.price > o.price : c.price < o.price) return `taker fill at ${c.price}, beyond the order's limit ${o.price}`;
  }
  // what the venue's list counted before its trade came is still this trade's to fill
  const left = remaining ? sizeToCome(o) : o.size;
  if (c.size > left) return `size ${c.size} is above the ${left} the order has left`;
  return undefined;
}
