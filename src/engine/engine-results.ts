// The engine's figures at one moment, for the backtest result, the status page and the demo.
import type { Engine } from './engine.js';
import type { SchedulerStats } from './scheduler.js';

export interface EngineResults {
  timeMs: number;
  positions: Array<{ tokenId: string; qty: number; cost: number; realized: number }>;
  cashMicros: number;
  feesMicros: number;
  volumeMicros: number;
  pnlMicros: number;
  fills: number;
  ordersSent: number;
  openOrders: number;
  halted: string | undefined;
  riskBlocks: Record<string, number>;
  scheduler: SchedulerStats;
}

export function engineResults(e: Engine): EngineResults {
  const positions = [];
  for (const [tokenId, p] of e.positions.entries()) positions.push({ tokenId, qty: p.qty, cost: p.cost, realized: p.realized });
  return {
    timeMs: e.clock.now(),
    positions,
    cashMicros: e.positions.cash,
    feesMicros: e.positions.fees,
    volumeMicros: e.positions.volume,
    pnlMicros: e.pnlMicros(),
    fills: e.ledger.count(),
    ordersSent: e.scheduler.stats.ordersSent,
    openOrders: e.orders.openCount(),
    halted: e.risk.halted,
    riskBlocks: Object.fromEntries(e.risk.blocks),
    scheduler: { ...e.scheduler.stats },
  };
}
