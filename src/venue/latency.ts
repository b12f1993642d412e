// Request latency of the simulated venue: an action runs after a delay on the Clock and its
// promise resolves then; close() settles every request still in flight with its fallback.
import type { Clock } from '../core/clock.js';

export class LatencyGate {
  private readonly pending = new Map<number, () => void>();
  private closed = false;

  constructor(private readonly clock: Clock) {}

  /** Runs `act` after `latencyMs` (synchronously when 0); after close(), resolves with `failed()`. */
  after<T>(latencyMs: number, act: () => T, failed: () => T): Promise<T> {
    if (this.closed) return Promise.resolve(failed());
    if (latencyMs <= 0) return Promise.resolve(act());
    return new Promise<T>((resolve) => {
      const h = this.clock.schedule(this.clock.now() + latencyMs, () => {
        this.pending.delete(h);
        resolve(act());
      });
      this.pending.set(h, () => resolve(failed()));
    });
  }

  get inFlight(): number {
    return this.pending.size;
  }

  close(): void {
    this.closed = true;
    for (const [h, settle] of this.pending) {
      this.clock.cancel(h);
      settle();
    }
    this.pending.clear();
  }
}
