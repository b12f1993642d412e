// The venue's dead-man switch (polymarket profile, live): a heartbeat every venue.heartbeatIntervalMs
// so the venue cancels our orders by itself when the daemon dies. The first must be accepted before
// the first quote; a heartbeat missed since is a health failure until one is accepted again, and
// is tried again every RETRY_MS meanwhile: the venue cancels our orders ~10 s after the last one.
import { monotonicNow } from '../core/clock.js';
import { ApiError } from '../core/errors.js';
import type { Logger } from '../core/log.js';
import type { ClobClient } from '../api/clob-client.js';

export interface HeartbeatOptions {
  clob: ClobClient;
  intervalMs: number;
  log: Logger;
  now?: () => number;
  /** The venue's window after the last accepted heartbeat (default VENUE_WINDOW_MS; tests shorten it). */
  windowMs?: number;
}

/** The id a refusal carries (the venue answers an expired or wrong id with the one to continue with). */
export function heartbeatIdOf(err: unknown): string | undefined {
  if (!(err instanceof ApiError) || err.status !== 400) return undefined;
  const b = err.body as { heartbeat_id?: unknown } | undefined;
  return typeof b?.heartbeat_id === 'string' ? b.heartbeat_id : undefined;
}

/** The wait after a heartbeat that was not accepted (at most the interval). */
const RETRY_MS = 1000;

/** The venue cancels every order of ours this long after the last accepted heartbeat (wire-formats 4.6: 10 s, maybe 5 s more). */
export const VENUE_WINDOW_MS = 10_000;
/** The least a heartbeat is given: a round trip to the venue must fit. */
const MIN_DEADLINE_MS = 500;

/**
 * A heartbeat's own deadline d (the read deadline, 10 s by default, would outlast the venue's
 * window). After the beat accepted at T the next goes at T + interval; with no answer it fails at
 * T + interval + d, its retry goes min(RETRY_MS, interval) later and is cut d after that:
 * d = (window - interval - retry) / 2 ends that retry by T + window (default 5 s interval: d = 2 s,
 * the retry goes at T + 8 s). At most the read deadline; at least MIN_DEADLINE_MS, so an interval
 * above window - RETRY_MS - 2 x 500 (8 s) leaves the retry only the venue's extra few seconds.
 */
export function heartbeatDeadlineMs(intervalMs: number, readDeadlineMs: number, windowMs = VENUE_WINDOW_MS): number {
  const retry = Math.min(RETRY_MS, intervalMs);
  return Math.max(MIN_DEADLINE_MS, Math.min(readDeadlineMs, Math.floor((windowMs - intervalMs - retry) / 2)));
}

export class Heartbeats {
  private id = '';
  private timer: NodeJS.Timeout | undefined;
  private lastOkMs = 0;
  private lastError: string | undefined;
  /** Heartbeats not accepted since the last that was (each with its retry of a refused id). */
  private failuresInRow = 0;
  private stopped = false;
  readonly counters = { sent: 0, accepted: 0, failed: 0 };
  private readonly now: () => number;
  private readonly deadlineMs: number;

  constructor(private readonly o: HeartbeatOptions) {
    this.now = o.now ?? monotonicNow;
    this.deadlineMs = heartbeatDeadlineMs(o.intervalMs, o.clob.transport.deadlineOf('read'), o.windowMs);
  }

  /** Sends the first heartbeat; resolves once the venue accepted it (throws when it refuses), then keeps them going. */
  async start(): Promise<void> {
    if (!(await this.beat())) throw new Error(`the venue did not accept a heartbeat: ${this.lastError}`);
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    const wait = this.lastError === undefined ? this.o.intervalMs : Math.min(RETRY_MS, this.o.intervalMs);
    this.timer = setTimeout(() => void this.beat().then(() => this.schedule()), wait);
  }

  /** One heartbeat (one retry with the id a refusal names); true when accepted. */
  private async beat(): Promise<boolean> {
    let failure: unknown;
    for (let attempt = 0; attempt < 2 && !this.stopped; attempt++) {
      this.counters.sent++;
      try {
        this.id = await this.o.clob.postHeartbeat(this.id, this.deadlineMs);
        this.counters.accepted++;
        if (this.lastError !== undefined) this.o.log.info({ afterMs: this.now() - this.lastOkMs }, 'heartbeat accepted again');
        this.lastOkMs = this.now();
        this.lastError = undefined;
        this.failuresInRow = 0;
        return true;
      } catch (err) {
        this.counters.failed++;
        failure = err;
        const next = heartbeatIdOf(err);
        // a refused id (a restart meets the last process's chain): continue the chain the venue
        // names, at once; anything else starts a new chain next time
        this.id = next ?? '';
        if (next === undefined) break;
      }
    }
    if (failure === undefined) return false;
    this.failuresInRow++;
    if (this.lastError === undefined) this.o.log.error({ err: failure }, 'heartbeat failed: the venue cancels every order of ours unless one lands within 10 s');
    this.lastError = failure instanceof Error ? failure.message : String(failure);
    return false;
  }

  /**
   * Why no order may be placed now, or undefined: a heartbeat and its retry both failed, so the
   * venue's switch lapses (it cancels our orders 10 s after the last accepted one) and an order
   * placed now would rest unguarded should the daemon die. One failure, retried a second later,
   * does not pull every quote (at 1,000 markets a cancel and a re-place of every order).
   */
  lapsing(): string | undefined {
    // the same words while it lasts (every market logs a change of its reason); failing() has the detail
    return this.failuresInRow >= 2 ? 'dead-man switch lapsing: a heartbeat and its retry were not accepted' : undefined;
  }

  /** Why the dead-man switch is not known to be armed, or undefined (a health reason). */
  failing(): string | undefined {
    if (this.lastError !== undefined) return `heartbeat failing: ${this.lastError}`;
    const age = this.now() - this.lastOkMs;
    return age > 2 * this.o.intervalMs ? `no heartbeat accepted for ${age} ms` : undefined;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
