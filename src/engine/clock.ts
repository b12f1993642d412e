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
}

export class WallClock implements Clock {
  private next = 1;
  private readonly timers = new Map<number, NodeJS.Timeout>();
  private readonly keepAlive: boolean;
  constructor(opts: WallClockOptions = {}) {
    this.keepAlive = opts.keepAlive ?? false;
  }
  now(): number {
    return Date.now();
  }
  schedule(atMs: number, fn: () => void): number {
    const h = this.next++;
    const t = setTimeout(() => {
      this.timers.delete(h);
      fn();
    }, Math.max(0, atMs - Date.now()));
    if (!this.keepAlive) t.unref?.();
    this.timers.set(h, t);
    return h;
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
  handle: number;
  fn: () => void;
}

/**
 * Virtual time: advances only when told. Timers fire in (time, insertion) order, so a run is
 * deterministic. A binary heap keeps schedule and fire O(log n).
 */
export class VirtualClock implements Clock {
  private t: number;
  private seq = 0;
  private nextHandle = 1;
  private heap: Timer[] = [];
  private readonly cancelled = new Set<number>();

  constructor(startMs = 0) {
    this.t = startMs;
  }
  now(): number {
    return this.t;
  }
  schedule(atMs: number, fn: () => void): number {
    const handle = this.nextHandle++;
    this.push({ at: Math.max(atMs, this.t), seq: this.seq++, handle, fn });
    return handle;
  }
  cancel(handle: number): void {
    this.cancelled.add(handle);
  }
  /** Time of the earliest pending timer, or Infinity. */
  nextTimerAt(): number {
    while (this.heap.length && this.cancelled.has(this.heap[0].handle)) {
      this.cancelled.delete(this.pop().handle);
    }
    return this.heap.length ? this.heap[0].at : Infinity;
  }
  /** Moves time to `toMs`, firing every timer due on the way in order. */
  advanceTo(toMs: number): void {
    for (;;) {
      const at = this.nextTimerAt();
      if (at > toMs) break;
      const timer = this.pop();
      if (timer.at > this.t) this.t = timer.at;
      timer.fn();
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
