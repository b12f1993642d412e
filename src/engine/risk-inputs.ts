// The engine state the risk gate reads, computed from the open orders and positions on demand.
// Every non-terminal order counts as possibly live: in flight and ambiguous ones may rest any
// moment, and one with a cancel out may still fill until the cancel lands. (The reconciler's
// per-side cap, unlike these limits, lets a replacement go out beside a pending cancel.) Places
// accepted but still queued for a rate window in other markets count toward the global limits.
// One exception, the shares a SELL promises: a SELL on its way out (its cancel sent, or cancelled
// by the requote being checked, whose cancels go out before its places) does not count against
// the position, or its replacement would promise the same shares a second time and be refused as
// sell_exceeds_position on every price move of a held position until the cancel's answer came
// back. The price: should the leaving order fill before its cancel lands, the replacement may
// still rest for shares we no longer hold (the venue refuses or the next requote cancels it).
// What a leaving SELL sold already (its unseen size) still counts, and as a hedge for a BUY of the
// other token (openSellAll) a leaving SELL counts whole: it may fill until its cancel lands.
// Size the venue lists as matched whose trade has not come (TrackedOrder.unseen) is in `filled`
// but not yet in the position: both sides count it as open (sizeToCome).
// Nothing here walks every open order: the per-token sums walk that token's orders (the tracker's
// index) and the total notional is the tracker's running sum, so a check costs the same at 1 or
// 1,000 markets.
import { sizeToCome, type OrderTracker, type TrackedOrder } from './orders.js';
import type { Positions } from './positions.js';
import type { RiskInputs } from './risk.js';
import type { QueuedPlaces } from './scheduler.js';
import type { Quote } from './strategy.js';

export interface EngineRiskInputs extends RiskInputs {
  /** Set before each batch of checks (OrderScheduler.queuedElsewhere). */
  readonly queued: QueuedPlaces;
  /** The orders the requote being checked cancels; set before each batch of checks. */
  cancelling: readonly TrackedOrder[];
}

/** A SELL whose shares a replacement may promise again: its cancel is out or about to go. */
function leaving(o: TrackedOrder, cancelling: readonly TrackedOrder[]): boolean {
  return o.state === 'pending_cancel' || (o.orderId !== undefined && cancelling.length > 0 && cancelling.includes(o));
}

/** What the gate reads of our collateral (collateral.ts, balance-backoff.ts). */
export interface CollateralInputs {
  available(): number;
  buyWaiting(): boolean;
}

const UNCAPPED: CollateralInputs = { available: () => Infinity, buyWaiting: () => false };

export function riskInputs(
  orders: OrderTracker,
  positions: Positions,
  mark: (tokenId: string) => number,
  unmined: (tokenId: string) => number,
  sellWaiting: (tokenId: string) => boolean = () => false,
  collateral: CollateralInputs = UNCAPPED,
  unreportedBuy: (tokenId: string) => number = () => 0,
  unreportedSell: (tokenId: string) => number = () => 0,
): EngineRiskInputs {
  const queued: QueuedPlaces = { orders: 0, notional: 0, buyNotional: 0 };
  const inputs: EngineRiskInputs = {
    queued,
    cancelling: [],
    qty: (t) => positions.qty(t),
    unreportedBuy,
    unreportedSell,
    unmined,
    sellWaiting,
    openBuy: (t) => {
      let s = 0;
      const open = orders.openOf(t);
      // what the venue lists as matched whose trade has not come (unseen) is not in the position yet
      if (open) for (const o of open) if (o.side === 'BUY') s += sizeToCome(o);
      return s;
    },
    openSell: (t) => openSells(orders, t, inputs.cancelling),
    openSellAll: (t) => openSells(orders, t, undefined),
    openNotional: () => queued.notional + orders.openNotional(),
    openBuyCost: () => queued.buyNotional + orders.openBuyCost(),
    collateral: () => collateral.available(),
    buyWaiting: () => collateral.buyWaiting(),
    openOrders: () => orders.openCount() + queued.orders,
    mid: mark,
  };
  return inputs;
}

/**
 * For each of a requote's places, whether it is a SELL that the shares `held` (the ones the venue
 * counts: Engine passes the position less shares bought in trades not yet on chain) cover with
 * every open SELL of its token counted, the ones on their way out included, and the SELLs of the
 * token before it in `places`: the venue accepts it while the SELLs being cancelled still rest, so
 * it need not wait for their cancels (OrderScheduler.submit). Into `out` (reused), parallel to `places`.
 */
/**
 * What our open SELLs of `tokenId` still sell, with the unseen size (sold, still in the position:
 * sizeToCome). With `cancelling` (openSell), of a SELL on its way out only its unseen size counts:
 * those shares are gone, not a promise its replacement makes again; without it (openSellAll), all.
 */
function openSells(orders: OrderTracker, tokenId: string, cancelling: readonly TrackedOrder[] | undefined): number {
  let s = 0;
  const open = orders.openOf(tokenId);
  if (open) for (const o of open) if (o.side === 'SELL') s += cancelling !== undefined && leaving(o, cancelling) ? (o.unseen ?? 0) : sizeToCome(o);
  return s;
}

export function sellsCovered(orders: OrderTracker, held: (tokenId: string) => number, places: readonly Quote[], out: boolean[]): boolean[] {
  out.length = 0;
  for (let i = 0; i < places.length; i++) {
    const q = places[i];
    if (q.side !== 'SELL') {
      out.push(false);
      continue;
    }
    let promised = q.size;
    const open = orders.openOf(q.tokenId);
    // sizeToCome: what the venue lists as matched of a SELL before its trade came is sold, still in `held`
    if (open) for (const o of open) if (o.side === 'SELL') promised += sizeToCome(o);
    for (let k = 0; k < i; k++) if (places[k].side === 'SELL' && places[k].tokenId === q.tokenId) promised += places[k].size;
    out.push(held(q.tokenId) >= promised);
  }
  return out;
}
