// Order checks shared by the matching engine and the simulated venue, so both reject the same
// orders with the same venue error codes (wire-formats.md 4.4), in the venue's order of checks.
import { PRICE_SCALE } from '../core/units.js';
import type { RejectCode } from './matching-api.js';
import type { OrderType } from './types.js';

export interface OrderShape {
  price: number;
  size: number;
  orderType: OrderType;
  postOnly: boolean;
  expiresAtMs?: number;
}

/** The first rule the order breaks, or undefined when it may be matched. */
export function validateOrder(o: OrderShape, tick: number, minSize: number, nowMs: number): RejectCode | undefined {
  if (o.postOnly && (o.orderType === 'FOK' || o.orderType === 'FAK')) return 'INVALID_POST_ONLY_ORDER_TYPE';
  if (!Number.isInteger(o.price) || !Number.isInteger(o.size) || o.size <= 0) return 'INVALID_ORDER_ERROR';
  if (o.price % tick !== 0 || o.price < tick || o.price > PRICE_SCALE - tick) return 'INVALID_ORDER_MIN_TICK_SIZE';
  if (o.size < minSize) return 'INVALID_ORDER_MIN_SIZE';
  if (o.orderType === 'GTD' && (o.expiresAtMs === undefined || o.expiresAtMs <= nowMs)) return 'INVALID_ORDER_EXPIRATION';
  return undefined;
}

/**
 * Adds an id to a set used for duplicate checks, forgetting the oldest beyond `cap`, so a process
 * that runs for weeks does not grow without bound. Returns the evicted id, if any.
 */
export function rememberId(set: Set<string>, id: string, cap: number): string | undefined {
  set.add(id);
  if (set.size <= cap) return undefined;
  const oldest = set.values().next().value as string;
  set.delete(oldest);
  return oldest;
}
