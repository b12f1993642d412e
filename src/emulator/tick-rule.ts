// The venue's tick rule for the synthetic market: the tick goes from 0.01 to 0.001 "when the
// book's price reaches the limits: price > 0.96 or price < 0.04" (wire-formats.md 1.6), and back
// to 0.01 once the book is well inside again. The way back is not documented by the venue; here
// it needs both best prices within 0.05..0.95 (hysteresis, so the tick does not flap at the edge).
import { parsePrice, PRICE_SCALE } from '../core/units.js';

export const COARSE_TICK = 100;
export const FINE_TICK = 10;
/** A best price beyond these (exclusive) moves a coarse market to the fine tick. */
const EDGE_LO = 400;
const EDGE_HI = PRICE_SCALE - 400;
/** Both best prices within these (inclusive) move a fine market back to the coarse tick. */
const BACK_LO = 500;
const BACK_HI = PRICE_SCALE - 500;

/** Ticks the venue uses, price units (0.1, 0.01, 0.001, 0.0001). */
export const VENUE_TICKS: readonly number[] = [1000, 100, 10, 1];

/** The tick the rule wants given the current tick and the first token's best bid/ask (0 / 10000 = empty side). */
export function ruleTick(tick: number, bestBid: number, bestAsk: number): number {
  const bid = bestBid > 0 && bestBid < PRICE_SCALE ? bestBid : -1;
  const ask = bestAsk > 0 && bestAsk < PRICE_SCALE ? bestAsk : -1;
  if (tick === COARSE_TICK) {
    const atEdge = (p: number): boolean => p >= 0 && (p > EDGE_HI || p < EDGE_LO);
    return atEdge(bid) || atEdge(ask) ? FINE_TICK : tick;
  }
  if (tick === FINE_TICK) {
    if (bid < 0 && ask < 0) return tick; // an empty book says nothing
    const inside = (p: number): boolean => p < 0 || (p >= BACK_LO && p <= BACK_HI);
    return inside(bid) && inside(ask) ? COARSE_TICK : tick;
  }
  return tick; // other ticks are only ever forced
}

/** Parses an admin tick ("0.001", or "auto"); a string error message when it is not a venue tick. */
export function parseTickSize(v: unknown): number | 'auto' | string {
  if (v === 'auto') return 'auto';
  if (typeof v !== 'string') return 'tickSize must be a string: "0.1", "0.01", "0.001", "0.0001" or "auto"';
  const t = parsePrice(v);
  return VENUE_TICKS.includes(t) ? t : `tickSize must be "0.1", "0.01", "0.001", "0.0001" or "auto", got '${v}'`;
}
