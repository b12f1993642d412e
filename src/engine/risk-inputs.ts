// The engine state the risk gate reads, computed from the open orders and positions on demand.
// Every non-terminal order counts as possibly live: in flight and ambiguous ones may rest any
// moment, and one with a cancel out may still fill until the cancel lands. (The reconciler's
// per-side cap, unlike these limits, lets a replacement go out beside a pending cancel.)
import type { OrderTracker } from './orders.js';
import type { Positions } from './positions.js';
import type { RiskInputs } from './risk.js';

export function riskInputs(orders: OrderTracker, positions: Positions, mark: (tokenId: string) => number): RiskInputs {
  const sumOpen = (tokenId: string, side: 'BUY' | 'SELL'): number => {
    let s = 0;
    for (const o of orders.open()) if (o.tokenId === tokenId && o.side === side) s += o.size - o.filled;
    return s;
  };
  return {
    qty: (t) => positions.qty(t),
    openBuy: (t) => sumOpen(t, 'BUY'),
    openSell: (t) => sumOpen(t, 'SELL'),
    openNotional: () => {
      let n = 0;
      for (const o of orders.open()) n += o.price * (o.size - o.filled);
      return n;
    },
    openOrders: () => orders.openCount(),
    mid: mark,
  };
}
