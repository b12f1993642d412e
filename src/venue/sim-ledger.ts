// What the simulated venue has done, for tests and reports: every fill with its fee, running
// counters, and the user-event listeners (a listener that throws is logged, never fatal).
import type { Logger } from '../core/log.js';
import type { UserEvent } from '../core/events.js';
import type { SimFill } from './sim-events.js';

export interface SimStats {
  placed: number;
  rejected: number;
  /** Of those, BUYs beyond our collateral (sim.cashUsd). */
  rejectedForBalance: number;
  /** Cancels and GTD expiries. */
  cancelled: number;
  fills: number;
  makerFills: number;
  takerFills: number;
  /** Size units. */
  makerVolume: number;
  takerVolume: number;
  /** Micro-dollars. */
  feesMicros: number;
  /** Token books seeded as the mirror of their sibling's (no snapshot of their own). */
  seeded: number;
  /** Size units of trade prints taken, per order of ours at or past their price, as a fall of the level shown before that order joined (trades made before it). */
  madeBeforeJoin: number;
}

export class SimLedger {
  readonly stats: SimStats = {
    placed: 0,
    rejected: 0,
    rejectedForBalance: 0,
    cancelled: 0,
    fills: 0,
    makerFills: 0,
    takerFills: 0,
    makerVolume: 0,
    takerVolume: 0,
    feesMicros: 0,
    seeded: 0,
    madeBeforeJoin: 0,
  };
  readonly fills: SimFill[] = [];
  private readonly listeners: Array<(e: UserEvent) => void> = [];

  /** Keeps the last `fillMemory` fills (trades(sinceMs) and reports read them). */
  constructor(
    private readonly logger?: Logger,
    private readonly fillMemory = 100_000,
  ) {}

  listen(listener: (e: UserEvent) => void): void {
    this.listeners.push(listener);
  }

  addFill(f: SimFill): void {
    this.fills.push(f);
    // trim in chunks so a long paper run stays bounded at amortised O(1) per fill
    if (this.fills.length > this.fillMemory * 1.5) this.fills.splice(0, this.fills.length - this.fillMemory);
    const s = this.stats;
    s.fills++;
    s.feesMicros += f.feeMicros;
    if (f.liquidity === 'MAKER') {
      s.makerFills++;
      s.makerVolume += f.size;
    } else {
      s.takerFills++;
      s.takerVolume += f.size;
    }
  }

  emit(e: UserEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch (err) {
        this.logger?.error({ err, event: e.type }, 'simulated venue: user-event listener threw');
      }
    }
  }
}
