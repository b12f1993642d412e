// The engine's figures at one moment, for the backtest result, the status page and the demo.
import type { Clock } from '../core/clock.js';
import type { Positions } from './positions.js';
import type { FillLedger } from './fills.js';
import type { OrderTracker } from './orders.js';
import type { RiskGate } from './risk.js';
import type { OrderScheduler, SchedulerStats } from './scheduler.js';

/** What the results are read from: the engine (an interface here, so this file does not import it). */
export interface ResultsSource {
  readonly clock: Clock;
  readonly positions: Positions;
  readonly ledger: FillLedger;
  readonly orders: OrderTracker;
  readonly risk: RiskGate;
  readonly scheduler: OrderScheduler;
  pnlMicros(): number;
}

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

export function engineResults(e: ResultsSource): EngineResults {
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
