// The engine state the risk gate reads, computed from the open orders and positions on demand.
// Every non-terminal order counts as possibly live: in flight and ambiguous ones may rest any
// moment, and one with a cancel out may still fill until the cancel lands. (The reconciler's
// per-side cap, unlike these limits, lets a replacement go out beside a pending cancel.) Places
// accepted but still queued for a rate window in other markets count toward the global limits.
import type { OrderTracker } from './orders.js';
import type { Positions } from './positions.js';
import type { RiskInputs } from './risk.js';
import type { QueuedPlaces } from './scheduler.js';

export interface EngineRiskInputs extends RiskInputs {
  /** Set before each batch of checks (OrderScheduler.queuedElsewhere). */
  readonly queued: QueuedPlaces;
}

export function riskInputs(orders: OrderTracker, positions: Positions, mark: (tokenId: string) => number): EngineRiskInputs {
  const queued: QueuedPlaces = { orders: 0, notional: 0 };
  const sumOpen = (tokenId: string, side: 'BUY' | 'SELL'): number => {
    let s = 0;
    for (const o of orders.open()) if (o.tokenId === tokenId && o.side === side) s += o.size - o.filled;
    return s;
  };
  return {
    queued,
    qty: (t) => positions.qty(t),
    openBuy: (t) => sumOpen(t, 'BUY'),
    openSell: (t) => sumOpen(t, 'SELL'),
    openNotional: () => {
      let n = queued.notional;
      for (const o of orders.open()) n += o.price * (o.size - o.filled);
      return n;
    },
    openOrders: () => orders.openCount() + queued.orders,
    mid: mark,
  };
}
