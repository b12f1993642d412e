// What of a strategy's wanted quotes may reach the reconciler: on the market's two tokens, on the
// token's tick grid, inside [tick, 1 - tick], at least the market's minimum size, and not on a
// complement token the risk gate has blocked (stale or out-of-sync book).
import { PRICE_SCALE } from '../core/units.js';
import type { MarketMeta, Quote } from './strategy.js';

/**
 * Appends the valid quotes of `qs` to `out`; returns how many were dropped as invalid.
 * `complementBlock` is asked at most once, and only when a quote is on the complement token.
 */
export function validQuotes(
  qs: readonly Quote[],
  m: MarketMeta,
  tickOf: (tokenId: string) => number,
  complementBlock: () => string | undefined,
  out: Quote[],
): number {
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
