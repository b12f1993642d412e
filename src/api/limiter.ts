// The client-side rate limiter: a request is granted only when every one of its scopes has room
// at the same instant (all windows take the slot together). Over-rate requests wait in a queue
// ordered by priority then arrival; a waiting request blocks later ones only on the scopes they
// share, so a saturated endpoint does not hold up others. Time comes from an injected Clock.
import type { Clock } from '../core/clock.js';
import { scaleScope, type Scope } from './limit-table.js';
import { SlidingWindow } from './sliding-window.js';
import { PACED_MIN_WINDOW_MS, PacedWindow } from './paced-window.js';

/** How long a grant is held past its window: 2% of it, at most 500 ms. */
const HOLD_SHARE = 0.02;
const HOLD_MAX_MS = 500;

/** How long the limiter holds a grant past a window of `windowMs` (the venue counts it on arrival, after our grant). */
export function grantHoldMs(windowMs: number): number {
  return Math.min(HOLD_MAX_MS, Math.round(windowMs * HOLD_SHARE));
}

/** Lower runs first: cancels before places before everything else. */
export const PRIORITY = { cancel: 0, place: 1, normal: 2 } as const;
const LEVELS = 3;

export interface LimiterOptions {
  clock: Clock;
  /** Multiplies every limit (floor, min 1); 0.5 when two processes share one key. */
  scale?: number;
  /** Multiplies every window length (emulator rehearsals with compressed windows). */
  windowScale?: number;
}

export interface ScopeUsage {
  scope: string;
  used: number;
  limit: number;
  windowMs: number;
  pausedUntil: number;
}

interface Entry {
  windows: SlidingWindow[];
  ids: string[];
  grant: () => void;
}

export class Limiter {
  readonly clock: Clock;
  private readonly scale: number;
  private readonly windowScale: number;
  private readonly windows = new Map<string, SlidingWindow>();
  private readonly paused = new Map<string, number>();
  private readonly queues: Entry[][] = Array.from({ length: LEVELS }, () => []);
  private queued = 0;
  private timer: number | undefined;
  private timerAt = Infinity;

  constructor(opts: LimiterOptions) {
    this.clock = opts.clock;
    this.scale = opts.scale ?? 1;
    this.windowScale = opts.windowScale ?? 1;
  }

  /** The (scaled) window of a scope, created on first use. */
  window(s: Scope): SlidingWindow {
    let w = this.windows.get(s.id);
    if (!w) {
      const scaled = scaleScope(s, this.scale, this.windowScale);
      // each grant held a little past its window: the venue counts it on arrival, after our grant
      const hold = grantHoldMs(scaled.windowMs);
      w = scaled.windowMs >= PACED_MIN_WINDOW_MS ? new PacedWindow(scaled.limit, scaled.windowMs, hold) : new SlidingWindow(scaled.limit, scaled.windowMs, hold);
      this.windows.set(s.id, w);
    }
    return w;
  }

  /** Resolves when the request may be sent; it then already counts in every scope. */
  acquire(scopes: ReadonlyArray<Scope>, priority: number = PRIORITY.normal): Promise<void> {
    return new Promise((resolve) => this.submit(scopes, priority, resolve));
  }

  /**
   * The fast path alone: takes the slot now and returns true when nothing waits ahead and every
   * scope has room; otherwise changes nothing. Lets a caller send in the same turn (no await).
   */
  tryAcquire(scopes: ReadonlyArray<Scope>): boolean {
    if (this.queued !== 0) return false;
    return this.take(
      scopes.map((s) => this.window(s)),
      scopes.map((s) => s.id),
      this.clock.now(),
    );
  }

  /** Callback form of acquire (virtual-time simulations): `grant` runs synchronously when granted. */
  submit(scopes: ReadonlyArray<Scope>, priority: number, grant: () => void): void {
    if (this.tryAcquire(scopes)) {
      grant();
      return;
    }
    const windows = scopes.map((s) => this.window(s));
    const ids = scopes.map((s) => s.id);
    const level = Math.min(LEVELS - 1, Math.max(0, Math.trunc(priority)));
    this.queues[level].push({ windows, ids, grant });
    this.queued++;
    this.pump();
  }

  /** Stops granting on a scope until untilMs (a 429 answered with X-RateLimit-Reset). */
  pause(scopeId: string, untilMs: number): void {
    const cur = this.paused.get(scopeId) ?? 0;
    if (untilMs > cur) this.paused.set(scopeId, untilMs);
    if (this.queued > 0) this.pump();
  }

  pausedUntil(scopeId: string): number {
    return this.paused.get(scopeId) ?? 0;
  }

  /** Per-scope use for /metrics. */
  usage(): ScopeUsage[] {
    const now = this.clock.now();
    return [...this.windows].map(([scope, w]) => ({
      scope,
      used: w.used(now),
      limit: w.limit,
      windowMs: w.windowMs,
      pausedUntil: this.paused.get(scope) ?? 0,
    }));
  }

  /** Requests waiting for a slot. */
  get waiting(): number {
    return this.queued;
  }

  private freeAt(windows: SlidingWindow[], ids: string[], now: number): number {
    let t = now;
    for (let i = 0; i < windows.length; i++) {
      const p = this.paused.get(ids[i]);
      if (p !== undefined && p > t) t = p;
      const f = windows[i].nextFreeAt(now);
      if (f > t) t = f;
    }
    return t;
  }

  private take(windows: SlidingWindow[], ids: string[], now: number): boolean {
    if (this.freeAt(windows, ids, now) > now) return false;
    for (const w of windows) w.record(now);
    return true;
  }

  /**
   * Grants every waiting request that can go now, in order. A request that cannot go reserves
   * only the scopes that refused it, so later requests on those scopes stay behind it (FIFO per
   * scope) while requests that merely share a scope with room are not held up.
   */
  private pump(): void {
    const now = this.clock.now();
    const blocked = new Set<string>();
    let next = Infinity;
    const granted: Array<() => void> = [];
    for (const q of this.queues) {
      let keep = 0;
      for (let i = 0; i < q.length; i++) {
        const e = q[i];
        let shares = false;
        for (const id of e.ids) if (blocked.has(id)) shares = true;
        if (!shares) {
          let at = now;
          for (let k = 0; k < e.windows.length; k++) {
            const id = e.ids[k];
            const p = this.paused.get(id);
            const f = Math.max(e.windows[k].nextFreeAt(now), p ?? 0);
            if (f > now) {
              blocked.add(id);
              if (f > at) at = f;
            }
          }
          if (at <= now) {
            for (const w of e.windows) w.record(now);
            granted.push(e.grant);
            continue;
          }
          if (at < next) next = at;
        }
        q[keep++] = e;
      }
      this.queued -= q.length - keep;
      q.length = keep;
    }
    this.arm(next);
    for (const g of granted) g();
  }

  private arm(at: number): void {
    if (at === Infinity) return;
    if (this.timer !== undefined) {
      if (this.timerAt <= at) return;
      this.clock.cancel(this.timer);
    }
    this.timerAt = at;
    this.timer = this.clock.schedule(at, () => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.pump();
    });
  }
}
