// When a market requotes (requote.ts says what it sends): after a change of its book, orders or
// position (dirty: at once, debounced per market; in real time once at the end of the synchronous
// run), and once every housekeeping period, which in real time is spread over HOUSEKEEPING_SLICES
// ticks so 1,000 markets never hold the loop at once.
import type { Logger } from '../core/log.js';
import type { Clock } from '../core/clock.js';
import type { OrderScheduler } from './scheduler.js';
import type { MarketState } from './market-state.js';

/** Ticks a spread housekeeping period is cut into. */
export const HOUSEKEEPING_SLICES = 10;

export interface RequoteTimingDeps {
  clock: Clock;
  log: Logger;
  counters: { errors: number };
  /** EngineOptions.realTime: defer requotes to the end of the run and spread the housekeeping period. */
  realTime: boolean;
  debounceMs: number;
  /** The housekeeping period. */
  periodMs: number;
  scheduler: OrderScheduler;
  markets: () => Iterable<MarketState>;
  requote: (st: MarketState) => void;
  /** A market's housekeeping look before its period requote (the missing-order watch), if any. */
  housekeep?: (st: MarketState, now: number) => void;
  /** Quoting and not stopping: a dirty market waits for nothing otherwise. */
  active: () => boolean;
  /** The period's checks, before the first slice's requotes (`now`) and after them. */
  periodStart: () => void;
  periodEnd: (now: number) => void;
}

export class RequoteTiming {
  private housekeeping: number | undefined;
  private stopped = false;
  /** The next slice of a spread housekeeping period (realTime). */
  private slice = 0;
  /** Markets whose requote waits for the end of the synchronous run (realTime; see dirty). */
  private readonly deferred = new Set<MarketState>();
  private deferScheduled = false;

  constructor(private readonly d: RequoteTimingDeps) {}

  /** The requotes deferred to the end of the synchronous run (dirty, realTime), each market once, in the order they came. */
  private readonly requoteDeferred = (): void => {
    this.deferScheduled = false;
    const due = [...this.deferred];
    this.deferred.clear();
    const d = this.d;
    // what the markets want leaves together, once all have decided (one batch each way; the
    // scheduler's pump catches its own failures)
    d.scheduler.together(() => {
      for (const st of due) {
        // out of the frame's turn, nothing above catches: a throw here would end the process
        try {
          d.requote(st);
        } catch (err) {
          d.counters.errors++;
          d.log.error({ err, market: st.meta.conditionId }, 'engine: requote failed');
        }
      }
    });
  };

  /** Debounce: requote now unless one ran within debounceMs; then once at the end of the interval. */
  dirty(st: MarketState): void {
    const d = this.d;
    if (!d.active()) return;
    const now = d.clock.now();
    const at = st.lastQuoteMs + d.debounceMs;
    // a wall clock stepped back (now before the last requote) must not hold requotes for the step
    if (now >= at || now < st.lastQuoteMs) {
      if (!d.realTime) {
        d.requote(st);
        return;
      }
      // Real time: once, at the end of this synchronous run (the frames of one socket read), on
      // the newest books: a requote per frame would decide on books the same read replaces.
      this.deferred.add(st);
      if (!this.deferScheduled) {
        this.deferScheduled = true;
        queueMicrotask(this.requoteDeferred);
      }
      return;
    }
    if (st.timer === undefined) {
      st.timer = d.clock.schedule(at, () => {
        st.timer = undefined;
        d.requote(st);
      });
    }
  }

  /** Starts the housekeeping timer. */
  start(): void {
    const d = this.d;
    const slices = d.realTime ? HOUSEKEEPING_SLICES : 1;
    this.housekeeping = d.clock.schedule(d.clock.now() + d.periodMs / slices, () => {
      this.housekeeping = undefined;
      if (this.stopped) return;
      this.onTimerSlice(slices);
      this.start();
    });
  }

  stop(): void {
    this.stopped = true;
    if (this.housekeeping !== undefined) this.d.clock.cancel(this.housekeeping);
    this.housekeeping = undefined;
  }

  /**
   * One of `slices` ticks of a housekeeping period: the first does the period's checks, and each
   * requotes its share of the markets (the k-th of every `slices`), so every market is still
   * requoted once a period but the loop never stops for all of them at once.
   */
  onTimerSlice(slices: number): void {
    const i = this.slice;
    this.slice = (i + 1) % slices;
    this.tick(i, slices);
  }

  /** Slice `i` of `slices` (0 of 1: the whole period at once, as a backtest runs it). */
  tick(i: number, slices: number): void {
    const d = this.d;
    const now = d.clock.now();
    if (i === 0) d.periodStart();
    let k = 0;
    const look = d.housekeep;
    for (const st of d.markets()) {
      if (k++ % slices !== i) continue;
      if (look) look(st, now);
      d.requote(st);
    }
    if (i === 0) d.periodEnd(now);
  }
}
