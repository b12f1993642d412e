// The complement book of a binary market: a BUY at p on one token is a SELL at 1-p on the other
// with the same size, so one token's book determines its sibling's exactly (verified by hashes on
// the polytope capture). Used by the mirror's complement seeding.
import { complementPrice, formatPrice } from '../core/units.js';
import type { DenseBook } from './book.js';

/** Replaces `dst` with the mirror of `src`: prices 1-p (shortest decimal form), bids<->asks, same size strings. */
export function mirrorBookInto(src: DenseBook, dst: DenseBook): void {
  dst.clear();
  src.forEachLevel('BUY', (p, size, _ps, ss) => dst.set('SELL', complementPrice(p), size, formatPrice(complementPrice(p)), ss));
  src.forEachLevel('SELL', (p, size, _ps, ss) => dst.set('BUY', complementPrice(p), size, formatPrice(complementPrice(p)), ss));
}
