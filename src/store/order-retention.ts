// Deletes the orders that ended without a fill once they are older than store.orderRetentionMs:
// most of what a running daemon writes (a requote cancels an order that never filled), so without
// it the database grows until the disk is full. Runs at start, then every minute, in bounded
// batches of one loop turn each, so the feed and the orders never wait behind a long delete.
import { nextTurn, type Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import type { Store } from './store.js';

export interface OrderRetentionOptions {
  store: Store;
  clock: Clock;
  /** Orders ended unfilled are kept this long after their last change. */
  retentionMs: number;
  /** Never delete younger than this either: the start-up recovery window reads them (daemon.recoveryWindowMs). */
  keepAtLeastMs: number;
  /**
   * Nor any changed since where a start-up now would read the venue's trades from (recoveryStart:
   * an hour before the trades read-through): a trade read late must find its order there.
   */
  keepFrom?: () => number;
  log: Logger;
  /** Rows per delete (one loop turn). */
  batch?: number;
  /** Batches per run at most; the rest waits for the next run. */
  maxBatches?: number;
  everyMs?: number;
}

export class OrderRetention {
  /** Orders deleted by this process. */
  deleted = 0;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private stopped = false;

  constructor(private readonly o: OrderRetentionOptions) {}

  start(): void {
    if (this.timer || !(this.o.retentionMs > 0)) return;
    void this.runOnce(); // a backlog (a store from before retention) goes at start, a batch per turn
    this.timer = setInterval(() => void this.runOnce(), this.o.everyMs ?? 60_000);
    this.timer.unref();
  }

  /** No run starts, and a run between batches ends (the store may close next). */
  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One run: deletes what is past the cutoff, batch by batch; returns how many. A failure is logged, never thrown. */
  async runOnce(): Promise<number> {
    if (this.running || this.stopped) return 0;
    this.running = true;
    const { store, clock, log } = this.o;
    const batch = this.o.batch ?? 500;
    const maxBatches = this.o.maxBatches ?? 200;
    let before = clock.now() - Math.max(this.o.retentionMs, this.o.keepAtLeastMs);
    let n = 0;
    try {
      before = Math.min(before, this.o.keepFrom?.() ?? Infinity);
      for (let i = 0; i < maxBatches; i++) {
        const k = store.pruneOrders(before, batch);
        n += k;
        if (k < batch) break;
        await nextTurn();
        if (this.stopped) break;
      }
    } catch (err) {
      log.warn({ err }, 'store: deleting old unfilled orders failed; trying again in a minute');
    } finally {
      this.running = false;
    }
    this.deleted += n;
    if (n > 0) log.debug({ deleted: n, beforeMs: before }, 'store: old unfilled orders deleted');
    return n;
  }
}
