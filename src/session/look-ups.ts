// Look-ups at the venue while the daemon runs (reconcileWithVenue: its open orders and trades).
// The periodic one reads the last hour; those the engine asks for (an unclear submit, a report the
// user channel missed, a trade that failed its checks) read only the trades since the last look-up
// that succeeded, less an overlap, so a busy account does not page through an hour every 2 s.
import type { Logger } from '../core/log.js';
import type { Clock } from '../core/clock.js';
import type { Venue } from '../venue/types.js';
import type { Engine } from '../engine/engine.js';
import { HOUR, reconcileWithVenue, type ReconcileReport } from './startup.js';

export { HOUR };
/** Look-ups asked for by the engine: at most one this often. */
export const LOOKUP_GAP_MS = 2000;
/**
 * How far before the last successful look-up's start an asked-for one reads trades again: a trade
 * the venue listed late, or our clock ahead of the venue's. The periodic hour covers the rest.
 */
export const LOOKUP_OVERLAP_MS = 60_000;

export interface LookUpsOptions {
  engine: Engine;
  venue: Venue;
  clock: Clock;
  log: Logger;
  /** A look-up went through: it read the trades from `sinceMs` up to `throughMs` (its start less the overlap). */
  onRead?: (sinceMs: number, throughMs: number) => void;
  /**
   * Look-ups asked for (now, soon) wait until open(): the daemon's, until start-up has restored the
   * store's orders and checked them with the venue (one before would adopt them anew). full() is
   * never held: start-up's check is one.
   */
  held?: boolean;
}

export class VenueLookUps {
  private running: Promise<unknown> | undefined;
  private stopped = false;
  /** When the last look-up that succeeded (any kind) began: everything before it less the overlap is read. */
  private lastOkStartMs = -Infinity;
  /** Where the next asked-for look-up reads from instead, when earlier (catchUpFrom); Infinity when none is due. */
  private catchUpMs = Infinity;
  /** The one look-up waiting to start (soon()), when it is due, and when the last one it started began. */
  private timer: NodeJS.Timeout | undefined;
  private dueMs = Infinity;
  private lastSoonMs = -Infinity;
  /** Told when the next look-up that starts has ended (caughtUp). */
  private waiting: Array<() => void> = [];
  /** Held (LookUpsOptions.held) until open(); whether one was asked for meanwhile. */
  private held: boolean;
  private askedWhileHeld = false;
  /** Asked for while one ran: another follows it (soon, within LOOKUP_GAP_MS). */
  private again = false;

  constructor(private readonly o: LookUpsOptions) {
    this.held = o.held === true;
  }

  /** Asked-for look-ups run from now on; one asked for while held starts at once. */
  open(): void {
    if (!this.held) return;
    this.held = false;
    if (this.askedWhileHeld) this.soon(0);
  }

  /** A reconciliation reading trades from `sinceMs` (start-up, the periodic one); it throws what failed. */
  async full(sinceMs: number): Promise<ReconcileReport> {
    const startMs = this.o.clock.now();
    const rep = await reconcileWithVenue(this.o.engine, this.o.venue, sinceMs, this.o.log);
    this.lastOkStartMs = Math.max(this.lastOkStartMs, startMs);
    if (sinceMs <= this.catchUpMs) this.catchUpMs = Infinity;
    this.o.onRead?.(sinceMs, startMs - LOOKUP_OVERLAP_MS);
    return rep;
  }

  /** Whence every trade has been read (the last success's start less the overlap); undefined before any success. */
  checkedFromMs(): number | undefined {
    return this.lastOkStartMs === -Infinity ? undefined : this.lastOkStartMs - LOOKUP_OVERLAP_MS;
  }

  /** Where an asked-for look-up starts reading trades: since the last success less the overlap, at most an hour back (unless a catch-up asks for more). */
  sinceMs(): number {
    return Math.min(this.catchUpMs, Math.max(this.o.clock.now() - HOUR, this.lastOkStartMs - LOOKUP_OVERLAP_MS));
  }

  /** The next look-up (soon) reads trades from `fromMs`, once: trades no look-up read (a gap longer than the hour). */
  catchUpFrom(fromMs: number): void {
    this.catchUpMs = Math.min(this.catchUpMs, fromMs);
    this.soon(0);
  }

  /** One asked-for look-up at a time (a failure is logged); the one running when one is already. */
  now(): Promise<unknown> {
    if (this.held) {
      this.askedWhileHeld = true;
      return Promise.resolve();
    }
    if (this.stopped) return this.running ?? Promise.resolve();
    if (this.running) {
      // it began before what asks now (a message just refused, an order just unknown): one more after it
      this.again = true;
      return this.running;
    }
    const told = this.waiting;
    this.waiting = [];
    this.running = this.full(this.sinceMs())
      .then(
        () => {
          for (const f of told) f();
        },
        (err: unknown) => {
          // those waiting wait on: the next look-up (soon) may tell them
          this.waiting.push(...told);
          this.o.log.warn({ err }, 'look-up at the venue failed');
        },
      )
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.soon(0);
        }
      });
    return this.running;
  }

  /**
   * A look-up as soon() starts one, and a promise settled once one that started after this call has
   * succeeded (one that fails is followed by another every LOOKUP_GAP_MS), or at stop: what the
   * venue did while we were not listening is known.
   */
  caughtUp(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const p = new Promise<void>((r) => this.waiting.push(r));
    this.soon(0);
    return p;
  }

  /**
   * A look-up `delayMs` from now (an ambiguous place: 1 s, for the venue to list the order; a
   * report the user channel missed: at once), but at most one every LOOKUP_GAP_MS however many
   * ask, one waiting at a time (the earliest asked for). After it, ambiguous orders still left are
   * looked up again 2 s later.
   */
  soon(delayMs: number): void {
    if (this.stopped) return;
    if (this.held) {
      this.askedWhileHeld = true;
      return;
    }
    const now = this.o.clock.now();
    const at = Math.max(now + delayMs, this.lastSoonMs + LOOKUP_GAP_MS);
    if (this.timer) {
      if (at >= this.dueMs) return;
      clearTimeout(this.timer);
    }
    this.dueMs = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.dueMs = Infinity;
      this.lastSoonMs = this.o.clock.now();
      void this.now().then(() => {
        // one already running when this was due began too early for those waiting: another
        if (this.o.engine.ambiguousCount() > 0 || this.waiting.length > 0) this.soon(this.waiting.length > 0 ? 0 : 2000);
      });
    }, at - now);
    this.timer.unref?.();
  }

  /** No look-up is asked for or started after this (the one running ends by itself). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const f of this.waiting.splice(0)) f();
  }
}
