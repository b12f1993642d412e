// What of a strategy's wanted quotes may reach the reconciler: on the market's two tokens, on the
// token's tick grid, inside [tick, 1 - tick], at least the market's minimum size, and not on a
// complement token the risk gate has blocked (stale or out-of-sync book).
import { PRICE_SCALE } from '../core/units.js';
import type { MarketMeta, Quote } from './strategy.js';
import { TERMINAL, type TrackedOrder } from './orders.js';

/**
 * Appends the valid quotes of `qs` to `out`; returns how many were dropped as invalid.
 * `complementBlock` is asked at most once, and only when a quote is on the complement token.
 */
export function validQuotes(qs: readonly Quote[], m: MarketMeta, tickOf: (tokenId: string) => number, complementBlock: () => string | undefined, out: Quote[]): number {
  let invalid = 0;
  let blocked: string | undefined | null = null;
  for (const q of qs) {
    const tick = tickOf(q.tokenId);
    const ok =
      (q.tokenId === m.tokenId || q.tokenId === m.complementId) &&
      Number.isInteger(q.price) &&
      Number.isInteger(q.size) &&
      q.price % tick === 0 &&
      q.price >= tick &&
      q.price <= PRICE_SCALE - tick &&
      q.size >= m.minSize;
    if (!ok) {
      invalid++;
      continue;
    }
    if (q.tokenId === m.complementId) {
      if (blocked === null) blocked = complementBlock();
      if (blocked) continue;
    }
    out.push(q);
  }
  return invalid;
}

/**
 * True when a new order would cross one of our own working orders: on its token, our opposite
 * side at a price it reaches; on the complement, our same side at a price summing past 1 (a BUY
 * at p meets our complement BUY at q when p + q >= 1; a SELL when p + q <= 1). A post-only order
 * that crosses is rejected by the venue (and counted by the error-rate breaker), so such a place
 * waits for the cancel of the order it would cross; the cancel's answer requotes the market.
 */
export function crossesOwn(q: Quote, m: MarketMeta, own: readonly TrackedOrder[]): boolean {
  const other = q.tokenId === m.tokenId ? m.complementId : m.tokenId;
  for (const o of own) {
    if (TERMINAL.has(o.state) || o.size - o.filled <= 0) continue;
    if (o.tokenId === q.tokenId) {
      if (o.side === q.side) continue;
      if (q.side === 'BUY' ? o.price <= q.price : o.price >= q.price) return true;
    } else if (o.tokenId === other && o.side === q.side) {
      const sum = q.price + o.price;
      if (q.side === 'BUY' ? sum >= PRICE_SCALE : sum <= PRICE_SCALE) return true;
    }
  }
  return false;
}
