// Recovery of the hashed last_trade_price (wire-formats.md 5.4). The venue's book hash covers a
// last trade price printed with 3 decimals that the client may not know yet: a trade announced
// later, or the complement's trade as 1 - p. When a hash fails only because of that field the
// levels are right, so before calling it a mismatch the mirror tries candidates: the recent trades
// newest first (our own, announced on the feed, the complement's as 1 - p: mirror.ts), then here
// '' (REST books) and every price of the token's grid outward from the mid. The payload up to the
// field is hashed once; each candidate costs one copy of the SHA-1 state and its last block.
import * as crypto from 'node:crypto';
import { PRICE_SCALE, formatPrice } from '../core/units.js';

/** The payload built with last_trade_price "" ends with this; the candidates replace it. */
const SUFFIX_OF_EMPTY = '""}';

/** A hashed last_trade_price string: 3 decimals, more when the tick needs them ("0.570", "0.4525"). */
export function hashedLtp(priceUnits: number, tick: number): string {
  const d = tick > 0 && tick % 10 !== 0 ? 4 : 3;
  return formatPrice(priceUnits, d);
}

/** Small bounded list of recent distinct candidate strings, newest first. */
export class RecentPrices {
  private readonly items: string[] = [];
  constructor(private readonly cap: number) {}
  add(s: string): void {
    const i = this.items.indexOf(s);
    if (i === 0) return;
    if (i > 0) this.items.splice(i, 1);
    this.items.unshift(s);
    if (this.items.length > this.cap) this.items.pop();
  }
  values(): readonly string[] {
    return this.items;
  }
  clear(): void {
    this.items.length = 0;
  }
}

export interface LtpSearch {
  /** Price units the grid search starts from (mid or last known); -1: centre of the range. */
  centre: number;
  /** Grid step in price units (the tick); 0: 100 (0.01). */
  tick: number;
  /** The value the failed check used (skipped). */
  tried: string;
}

/**
 * Searches a last_trade_price under which `payloadWithEmptyLtp` (the hash payload built with
 * last_trade_price "") hashes to `expected`. Returns the value, or undefined when none does
 * (then the levels disagree: a real mismatch).
 */
export function recoverLtp(payloadWithEmptyLtp: string, expected: string, s: LtpSearch): string | undefined {
  if (!payloadWithEmptyLtp.endsWith(SUFFIX_OF_EMPTY)) return undefined;
  const base = crypto.createHash('sha1').update(payloadWithEmptyLtp.slice(0, -SUFFIX_OF_EMPTY.length));
  const seen = new Set<string>([s.tried]);
  const attempt = (v: string): boolean => {
    if (seen.has(v)) return false;
    seen.add(v);
    return (
      base
        .copy()
        .update('"' + v + '"}')
        .digest('hex') === expected
    );
  };
  if (attempt('')) return '';
  const tick = s.tick > 0 ? s.tick : 100;
  const lo = tick;
  const hi = PRICE_SCALE - tick;
  let c = s.centre >= 0 ? Math.round(s.centre / tick) * tick : Math.round(PRICE_SCALE / 2 / tick) * tick;
  c = Math.min(hi, Math.max(lo, c));
  // outward from the centre: trades happen near the top of book
  for (let k = 0; c - k * tick >= lo || c + k * tick <= hi; k++) {
    const down = c - k * tick;
    if (down >= lo && attempt(hashedLtp(down, tick))) return hashedLtp(down, tick);
    const up = c + k * tick;
    if (k > 0 && up <= hi && attempt(hashedLtp(up, tick))) return hashedLtp(up, tick);
  }
  return undefined;
}
