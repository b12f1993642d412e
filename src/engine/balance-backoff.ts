// What waits a while after the venue refuses an order for balance: a token's shares after a SELL
// of them (key: the token id), our collateral after a BUY (key: COLLATERAL). The venue's balance
// cache can lag the chain even once a trade has settled (py-clob-client issue 290: the same SELL
// refused 3-10 times, then accepted); without a wait every requote sends the order again, and
// each refusal counts toward the order-error-rate halt. The wait doubles per refusal in a row
// (1 s up to 30 s); an accepted order of the same key resets it. When a wait ends, `ended` requotes.
import type { Clock } from '../core/clock.js';

const FIRST_WAIT_MS = 1000;
const MAX_WAIT_MS = 30_000;

interface Wait {
  untilMs: number;
  waitMs: number;
  timer: number | undefined;
}

/** The key of the BUYs' wait (a token id is decimal digits). */
export const COLLATERAL = 'collateral';

export class BalanceBackoff {
  private readonly waits = new Map<string, Wait>();

  constructor(
    private readonly clock: Clock,
    private readonly ended: (key: string) => void,
  ) {}

  /** An order of `key` was refused for balance: it waits. Returns the wait, ms. */
  refused(key: string): number {
    const last = this.waits.get(key);
    if (last?.timer !== undefined) this.clock.cancel(last.timer);
    const waitMs = last ? Math.min(last.waitMs * 2, MAX_WAIT_MS) : FIRST_WAIT_MS;
    const w: Wait = { untilMs: this.clock.now() + waitMs, waitMs, timer: undefined };
    w.timer = this.clock.schedule(w.untilMs, () => {
      w.timer = undefined;
      this.ended(key);
    });
    this.waits.set(key, w);
    return waitMs;
  }

  /** An order of `key` was accepted: the next refusal starts from the first wait. */
  accepted(key: string): void {
    const w = this.waits.get(key);
    if (!w) return;
    if (w.timer !== undefined) this.clock.cancel(w.timer);
    this.waits.delete(key);
  }

  /** True while `key` waits. */
  waiting(key: string): boolean {
    const w = this.waits.get(key);
    return w !== undefined && this.clock.now() < w.untilMs;
  }

  /** Stops the timers (shutdown). */
  close(): void {
    for (const w of this.waits.values()) if (w.timer !== undefined) this.clock.cancel(w.timer);
    this.waits.clear();
  }
}
