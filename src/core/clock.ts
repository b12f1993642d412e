// Time for the engine and strategies: a wall clock for live, paper and demo, a virtual clock for
// backtests. Nothing in the engine or a strategy reads Date.now() or setTimeout directly.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs fn once at or after `atMs`; returns a handle for cancel(). */
  schedule(atMs: number, fn: () => void): number;
  cancel(handle: number): void;
}

export interface WallClockOptions {
  /** Timers keep the process alive (a CLI request waiting for a rate-limit slot must not exit). */
  keepAlive?: boolean;
  /** Time from monotonicNow(): for what measures durations (rate windows), which a step of the system clock must not move. */
  monotonic?: boolean;
}

/** A jump of the wall clock against the monotonic one larger than this is a step (NTP slews far less). */
const STEP_MS = 100;
let lastWall = Date.now();
let lastMono = performance.now();
let stepOffset = 0;
let lastOut = lastWall;

/**
 * Date.now() with its steps taken out: equal to it until the system clock is stepped (an NTP step
 * at boot, a `date -s`), then moved by that step and no more. For durations (rate windows,
 * deadlines, watchdogs): a step would hold a full rate window or hide a silent feed for its length,
 * or release a window early. Whole ms, never going back; while no step came, the same instants as
 * Date.now() in every process (a venue on the same machine, the emulator, reads those). Timestamps
 * that name a moment (records, the UTC day) stay on Date.now().
 */
export function monotonicNow(): number {
  const wall = Date.now();
  const mono = performance.now();
  const drift = wall - lastWall - (mono - lastMono);
  if (drift > STEP_MS || drift < -STEP_MS) stepOffset -= Math.round(drift);
  lastWall = wall;
  lastMono = mono;
  const out = wall + stepOffset;
  if (out > lastOut) lastOut = out;
  return lastOut;
}

/** The longest delay Node's setTimeout holds (2^31 - 1 ms, about 24.8 days). */
const NODE_TIMER_MAX_MS = 2 ** 31 - 1;

export class WallClock implements Clock {
  private next = 1;
  private readonly timers = new Map<number, NodeJS.Timeout>();
  private readonly keepAlive: boolean;
  readonly now: () => number;
  constructor(opts: WallClockOptions = {}) {
    this.keepAlive = opts.keepAlive ?? false;
    this.now = opts.monotonic === true ? monotonicNow : () => Date.now();
  }
  schedule(atMs: number, fn: () => void): number {
    const h = this.next++;
    this.arm(h, atMs, fn);
    return h;
  }
  /** A delay past what Node's timers hold (it fires one of 2^31 ms or more after 1 ms) is waited in parts. */
  private arm(h: number, atMs: number, fn: () => void): void {
    const delay = Math.max(0, atMs - this.now());
    const t = setTimeout(
      () => {
        if (delay > NODE_TIMER_MAX_MS) return this.arm(h, atMs, fn);
        this.timers.delete(h);
        fn();
      },
      Math.min(delay, NODE_TIMER_MAX_MS),
    );
    if (!this.keepAlive) t.unref?.();
    this.timers.set(h, t);
  }
  cancel(handle: number): void {
    const t = this.timers.get(handle);
    if (t) clearTimeout(t);
    this.timers.delete(handle);
  }
}

interface Timer {
  at: number;
  seq: number;
  /** null once cancelled: left in the heap and skipped when it reaches the top (lazy deletion). */
  fn: (() => void) | null;
}

/**
 * Virtual time: advances only when told. Timers fire in (time, insertion) order, so a run is
 * deterministic. A binary heap keeps schedule and fire O(log n); a cancelled timer is marked and
 * dropped when it reaches the top. Only pending timers are indexed by handle, so cancelling a timer
 * that already fired (or twice) costs a lookup and leaves nothing behind.
 */
export class VirtualClock implements Clock {
  private t: number;
  private seq = 0;
  private heap: Timer[] = [];
  private readonly pending = new Map<number, Timer>();

  constructor(startMs = 0) {
    this.t = startMs;
  }
  now(): number {
    return this.t;
  }
  schedule(atMs: number, fn: () => void): number {
    const timer: Timer = { at: Math.max(atMs, this.t), seq: this.seq++, fn };
    this.push(timer);
    this.pending.set(timer.seq + 1, timer);
    return timer.seq + 1; // handles start at 1
  }
  cancel(handle: number): void {
    const timer = this.pending.get(handle);
    if (timer === undefined) return;
    timer.fn = null;
    this.pending.delete(handle);
  }
  /** Timers scheduled and neither fired nor cancelled. */
  get pendingCount(): number {
    return this.pending.size;
  }
  /** Time of the earliest pending timer, or Infinity. */
  nextTimerAt(): number {
    const h = this.heap;
    while (h.length && h[0].fn === null) this.pop();
    return h.length ? h[0].at : Infinity;
  }
  /** Moves time to `toMs`, firing every timer due on the way in order. */
  advanceTo(toMs: number): void {
    for (;;) {
      const at = this.nextTimerAt();
      if (at > toMs) break;
      const timer = this.pop();
      const fn = timer.fn as () => void;
      timer.fn = null;
      this.pending.delete(timer.seq + 1);
      if (timer.at > this.t) this.t = timer.at;
      fn();
    }
    if (toMs > this.t) this.t = toMs;
  }

  private push(x: Timer): void {
    const h = this.heap;
    h.push(x);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (less(h[p], h[i])) break;
      [h[p], h[i]] = [h[i], h[p]];
      i = p;
    }
  }
  private pop(): Timer {
    const h = this.heap;
    const top = h[0];
    const last = h.pop() as Timer;
    if (h.length) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && less(h[l], h[m])) m = l;
        if (r < h.length && less(h[r], h[m])) m = r;
        if (m === i) break;
        [h[m], h[i]] = [h[i], h[m]];
        i = m;
      }
    }
    return top;
  }
}

function less(a: Timer, b: Timer): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

/** `p`'s value, or undefined once `ms` of wall time have passed first (the timer is cleared either way): for I/O deadlines in the API and the session, never the engine's time. */
export async function settleWithin<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let t: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<undefined>((r) => (t = setTimeout(() => r(undefined), Math.max(0, ms))))]);
  } finally {
    clearTimeout(t);
  }
}

/** The next turn of the event loop: what waits (socket reads, timers) runs first. For long work cut into slices, never the engine's time. */
export const nextTurn = (): Promise<void> => new Promise((r) => setImmediate(r));
