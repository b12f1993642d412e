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
 * The ids a duplicate check remembers, bounded: beyond `cap` the oldest is forgotten, so a
 * process that runs for weeks does not grow without limit. A ring keeps the age order (evicting
 * through a Set's iterator is O(deleted) in V8, which collapses throughput).
 */
export class IdMemory {
  private readonly set = new Set<string>();
  private readonly ring: string[] = [];
  private head = 0;
  private readonly cap: number;
  constructor(cap: number) {
    this.cap = Math.max(1, Math.floor(cap));
  }
  has(id: string): boolean {
    return this.set.has(id);
  }
  /** Remembers `id`; returns the id forgotten to make room, if any. */
  add(id: string): string | undefined {
    this.set.add(id);
    if (this.ring.length < this.cap) {
      this.ring.push(id);
      return undefined;
    }
    const oldest = this.ring[this.head];
    this.ring[this.head] = id;
    this.head = (this.head + 1) % this.cap;
    this.set.delete(oldest);
    return oldest;
  }
  get size(): number {
    return this.set.size;
  }
}
