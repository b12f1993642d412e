// Shared by the books that keep one side's levels as a short sorted array in wire order (bids by
// ascending price, asks by descending price: the best level last), so memory follows the levels
// held, not the price range, and a change near the top touches only the last few cells.

/** Initial capacity of a side's arrays; they double when full. */
export const LEVELS_INITIAL = 32;

/**
 * Index of `price` among the first `n` prices of `px` (ascending for bids, descending for asks),
 * or ~(insertion index) when absent. Scans from the best (the end) for the first few cells, where
 * changes cluster, then bisects the rest.
 */
export function levelIndex(px: Int32Array, n: number, price: number, isBid: boolean): number {
  const stop = n > 8 ? n - 8 : 0;
  let i = n - 1;
  if (isBid) {
    for (; i >= stop; i--) {
      const q = px[i];
      if (q === price) return i;
      if (q < price) return ~(i + 1);
    }
    if (stop === 0) return ~0;
    // every px[stop..] > price: first index in [0, stop) with px >= price
    let lo = 0;
    let hi = stop;
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      if (px[m] < price) lo = m + 1;
      else hi = m;
    }
    return lo < stop && px[lo] === price ? lo : ~lo;
  }
  for (; i >= stop; i--) {
    const q = px[i];
    if (q === price) return i;
    if (q > price) return ~(i + 1);
  }
  if (stop === 0) return ~0;
  let lo = 0;
  let hi = stop;
  while (lo < hi) {
    const m = (lo + hi) >> 1;
    if (px[m] > price) lo = m + 1;
    else hi = m;
  }
  return lo < stop && px[lo] === price ? lo : ~lo;
}

/** A copy of `a` with room for `cap` elements (the first `n` kept). */
export function grownI32(a: Int32Array, n: number, cap: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(cap);
  b.set(a.subarray(0, n));
  return b;
}

export function grownF64(a: Float64Array, n: number, cap: number): Float64Array<ArrayBuffer> {
  const b = new Float64Array(cap);
  b.set(a.subarray(0, n));
  return b;
}
