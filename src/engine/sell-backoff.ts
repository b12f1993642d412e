// A token's shares wait a while after the venue refuses a SELL of them for balance. The venue's
// balance cache can lag the chain even once a trade has settled (py-clob-client issue 290: the same
// SELL refused 3-10 times, then accepted); without a wait every requote sends the SELL again, and
// each refusal counts toward the order-error-rate halt. The wait doubles per refusal in a row
// (1 s up to 30 s); an accepted SELL of the token resets it. When a wait ends, `ended` requotes.
import type { Clock } from '../core/clock.js';

const FIRST_WAIT_MS = 1000;
const MAX_WAIT_MS = 30_000;

interface Wait {
  untilMs: number;
  waitMs: number;
  timer: number | undefined;
}

export class SellBackoff {
  private readonly tokens = new Map<string, Wait>();

  constructor(
    private readonly clock: Clock,
    private readonly ended: (tokenId: string) => void,
  ) {}

  /** A SELL of `tokenId` was refused for balance: its shares wait. Returns the wait, ms. */
  refused(tokenId: string): number {
    const last = this.tokens.get(tokenId);
    if (last?.timer !== undefined) this.clock.cancel(last.timer);
    const waitMs = last ? Math.min(last.waitMs * 2, MAX_WAIT_MS) : FIRST_WAIT_MS;
    const w: Wait = { untilMs: this.clock.now() + waitMs, waitMs, timer: undefined };
    w.timer = this.clock.schedule(w.untilMs, () => {
      w.timer = undefined;
      this.ended(tokenId);
    });
    this.tokens.set(tokenId, w);
    return waitMs;
  }

  /** A SELL of `tokenId` was accepted: the next refusal starts from the first wait. */
  accepted(tokenId: string): void {
    const w = this.tokens.get(tokenId);
    if (!w) return;
    if (w.timer !== undefined) this.clock.cancel(w.timer);
    this.tokens.delete(tokenId);
  }

  /** True while `tokenId`'s shares wait. */
  waiting(tokenId: string): boolean {
    const w = this.tokens.get(tokenId);
    return w !== undefined && this.clock.now() < w.untilMs;
  }

  /** Stops the timers (shutdown). */
  close(): void {
    for (const w of this.tokens.values()) if (w.timer !== undefined) this.clock.cancel(w.timer);
    this.tokens.clear();
  }
}
