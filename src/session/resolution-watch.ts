// Held shares of markets no longer quoted (dropped from the set while held, or outside the set at a
// restart) get no book and no market_resolved: their value would stay at the last mark for good, a
// losing side's stake never in the PnL or the daily-loss check. This asks the venue about each such
// market (GET its CLOB market, whose tokens say `winner`) every few minutes, and marks a resolved
// one's tokens at what they pay.
import type { ClobMarket } from '../api/schemas.js';
import type { Logger } from '../core/log.js';
import type { Engine } from '../engine/engine.js';

/** Markets asked about per run at most (the rest wait for the next run). */
const PER_RUN = 50;
export const RESOLUTION_CHECK_MS = 5 * 60_000;

export interface ResolutionWatchOptions {
  engine: Engine;
  /** One CLOB market by condition id (ClobClient.getMarket). */
  market: (conditionId: string) => Promise<ClobMarket>;
  log: Logger;
  everyMs?: number;
}

export class ResolutionWatch {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private stopped = false;
  /** Where the next run starts in the list (a long list is asked about in turns). */
  private offset = 0;
  /** Failed reads in a row, per market (logged the first few times each). */
  private readonly failures = new Map<string, number>();

  constructor(private readonly o: ResolutionWatchOptions) {}

  start(): void {
    if (this.timer || this.stopped) return;
    void this.checkOnce();
    this.timer = setInterval(() => void this.checkOnce(), this.o.everyMs ?? RESOLUTION_CHECK_MS);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One run: the held markets outside the set asked about (at most PER_RUN); returns how many resolved. */
  async checkOnce(): Promise<number> {
    if (this.running || this.stopped) return 0;
    this.running = true;
    let resolved = 0;
    try {
      const all = [...this.o.engine.heldOutsideMarkets().keys()];
      if (all.length === 0) return 0;
      if (this.offset >= all.length) this.offset = 0;
      const batch = all.slice(this.offset, this.offset + PER_RUN);
      this.offset += batch.length;
      for (const conditionId of batch) {
        if (this.stopped) break;
        let m: ClobMarket;
        try {
          m = await this.o.market(conditionId);
        } catch (err) {
          // a venue that cannot say now is asked again next run; logged a few times in a row, not every five minutes for ever
          const n = (this.failures.get(conditionId) ?? 0) + 1;
          this.failures.set(conditionId, n);
          if (n <= 3) this.o.log.warn({ err, market: conditionId, failures: n }, 'resolution check: the market could not be read; asked again later');
          continue;
        }
        this.failures.delete(conditionId);
        // stopped meanwhile: the engine may be stopping, and a settle would check the loss (halt) on its way out
        if (this.stopped) break;
        // exactly one winner, of this market (the engine checks the tokens are its and not quoted)
        const winners = (m.tokens ?? []).filter((t) => t.winner === true);
        if (winners.length !== 1 || m.condition_id !== conditionId) continue;
        const tokens = (m.tokens ?? []).map((t) => t.token_id);
        if (this.o.engine.settleOutside(conditionId, winners[0].token_id, tokens)) resolved++;
      }
    } finally {
      this.running = false;
    }
    return resolved;
  }
}
