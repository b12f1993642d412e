// The one average-cost fold of fills into a position (issue 11, item 4), used by the engine's
// positions, the store and the report statistics. Integer units throughout: qty in size units
// (negative when short), cost and realized in micro-dollars (price units x size units).
//
// The rule, the same both ways: a fill in the position's direction (or from flat) adds its size and
// its notional to the basis; a fill against it closes up to |qty| at the average cost (the closed
// share of the basis, rounded to a whole micro-dollar), realizing the difference; what exceeds the
// position opens a new one, the other way, at the fill price. Long: realized = proceeds - cost of
// the shares sold. Short (cost negative: what the sale brought in): realized = that - the buyback.
import type { Side } from './events.js';

export interface CostBasis {
  /** Size units; negative when short. */
  qty: number;
  /** Micro-dollars: the open position's cost (negative for a short: the proceeds of its sale). */
  cost: number;
  /** Micro-dollars realized so far. */
  realized: number;
}

export function emptyBasis(): CostBasis {
  return { qty: 0, cost: 0, realized: 0 };
}

/** Folds one fill (price units, size units) into `p`. */
export function foldFill(p: CostBasis, side: Side, price: number, size: number): void {
  const dir = side === 'BUY' ? 1 : -1;
  if (p.qty === 0 || Math.sign(p.qty) === dir) {
    p.qty += dir * size;
    p.cost += dir * price * size;
    return;
  }
  const open = Math.abs(p.qty);
  const closing = size < open ? size : open;
  // the closed share of the basis; all of it when the position closes
  const closedCost = closing === open ? p.cost : Math.round((p.cost / open) * closing);
  const value = price * closing;
  p.realized += p.qty > 0 ? value - closedCost : -closedCost - value;
  p.cost -= closedCost;
  p.qty += dir * closing;
  const rest = size - closing;
  if (rest > 0) {
    p.qty += dir * rest;
    p.cost += dir * price * rest;
  }
  if (p.qty === 0) p.cost = 0;
}

/** Average cost in price units (0 when flat). */
export function averagePrice(p: CostBasis): number {
  return p.qty === 0 ? 0 : p.cost / p.qty;
}
