// A long (sustained) rate window of the client limiter, paced: besides the sliding window's hard
// cap, a token bucket of capacity `burst` refilled at (limit - burst) / windowMs, so any window
// holds at most burst + (limit - burst) = limit grants and a busy client settles at the sustained
// rate instead of spending the whole 10-minute budget in its first minutes and then sending
// nothing until the oldest grants expire (at 1,000 markets: every quote lost for ~3 minutes).
// The price: at most 95% of the window's budget over long runs (the burst is 5% of it).
import { SlidingWindow } from './sliding-window.js';

/** Windows at least this long are paced (the trading endpoints' 10-minute ones). */
export const PACED_MIN_WINDOW_MS = 60_000;
/** Share of the limit usable at once (at least PACED_BURST_MIN grants); the rest comes at the sustained rate. */
export const PACED_BURST_SHARE = 0.05;
export const PACED_BURST_MIN = 10;

/** Float slack on a token's arrival. */
const EPS = 1e-9;

export class PacedWindow extends SlidingWindow {
  readonly burst: number;
  /** Tokens per ms. */
  private readonly rate: number;
  private tokens: number;
  private at = -Infinity;

  constructor(limit: number, windowMs: number, holdMs = 0) {
    super(limit, windowMs, holdMs);
    this.burst = Math.max(Math.min(limit, PACED_BURST_MIN), Math.floor(limit * PACED_BURST_SHARE));
    this.rate = Math.max(limit - this.burst, 1) / (windowMs + holdMs);
    this.tokens = this.burst;
  }

  private refill(nowMs: number): void {
    if (this.at === -Infinity) this.at = nowMs;
    if (nowMs > this.at) {
      this.tokens = Math.min(this.burst, this.tokens + (nowMs - this.at) * this.rate);
      this.at = nowMs;
    }
  }

  override hasRoom(nowMs: number): boolean {
    this.refill(nowMs);
    return this.tokens >= 1 - EPS && super.hasRoom(nowMs);
  }

  override record(nowMs: number): void {
    this.refill(nowMs);
    this.tokens -= 1;
    super.record(nowMs);
  }

  override nextFreeAt(nowMs: number): number {
    this.refill(nowMs);
    // a whole ms, when a token has surely come (no float edge in which hasRoom still says no)
    const paced = this.tokens >= 1 - EPS ? nowMs : nowMs + Math.ceil((1 - this.tokens) / this.rate);
    return Math.max(paced, super.nextFreeAt(nowMs));
  }
}
