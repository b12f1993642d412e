// The client-side rate limiter: a request is granted only when every one of its scopes has room
// at the same instant (all windows take the slot together). Over-rate requests wait in a queue
// ordered by priority then arrival; a waiting request blocks later ones only on the scopes they
// share, so a saturated endpoint does not hold up others. Time comes from an injected Clock.
// With a signer tier (the polymarket profile) a trading request also draws its orders from the
// venue's per-signer token bucket: `cost` is counted there, every window counts the request once.
import type { Clock } from '../core/clock.js';
import { OverBurstError } from '../core/errors.js';
import { scaleScope, scaledBucket, scopesFor, signerScopeOf, type ApiName, type Scope, type SignerBucket, type SignerTier } from './limit-table.js';
import { SlidingWindow } from './sliding-window.js';
import { PACED_MIN_WINDOW_MS, PacedWindow } from './paced-window.js';
import { TokenBucket } from './token-bucket.js';

/** How long a grant is held past its window: 2% of it, at most 500 ms. */
const HOLD_SHARE = 0.02;
/**
 * Grants awaiting no answer (submit: a simulated venue's virtual time): a per-signer bucket taken
 * from full refills only after this long (TokenBucket's fullHoldMs). While the first request is on
 * its way the venue's bucket is still full and loses the refill our count would have. A live
 * request (untilAnswered) is taken from the bucket at its answer instead, however late it arrived.
 */
const ARRIVAL_JITTER_MS = 50;
const HOLD_MAX_MS = 500;

/** How long the limiter holds a grant past a window of `windowMs` (the venue counts it on arrival, after our grant). */
export function grantHoldMs(windowMs: number): number {
  return Math.min(HOLD_MAX_MS, Math.round(windowMs * HOLD_SHARE));
}

/** The deepest debt a Poly-RateLimit-Remaining may put a bucket in, in bursts. */
const MAX_DEBT_BURSTS = 10;

/** Lower runs first: cancels before places before everything else. */
export const PRIORITY = { cancel: 0, place: 1, normal: 2 } as const;
const LEVELS = 3;

export interface LimiterOptions {
  clock: Clock;
  /** Multiplies every limit (floor, min 1); 0.5 when two processes share one key. */
  scale?: number;
  /** Multiplies every window length (emulator rehearsals with compressed windows). */
  windowScale?: number;
  /** The venue's per-signer buckets apply (polymarket profile), at this tier until an answer names another. */
  signerTier?: SignerTier;
}

/** A scope's rate state: a sliding window (counts requests) or a token bucket (counts `cost`). */
export interface RateWindow {
  readonly limit: number;
  readonly windowMs: number;
  used(nowMs: number): number;
  nextFreeAt(nowMs: number, cost?: number): number;
  record(nowMs: number, cost?: number): void;
}

export interface ScopeUsage {
  scope: string;
  used: number;
  limit: number;
  windowMs: number;
  pausedUntil: number;
}

interface Entry {
  windows: RateWindow[];
  ids: string[];
  cost: number;
  /** Its per-signer tokens are held until answered() (a live request), not taken at the grant. */
  untilAnswered: boolean;
  grant: () => void;
  /** Told when the request can never go (its cost above a bucket's burst, after the tier fell). */
  refuse?: (err: Error) => void;
}

export class Limiter {
  readonly clock: Clock;
  private readonly scale: number;
  private readonly windowScale: number;
  private readonly windows = new Map<string, RateWindow>();
  private readonly buckets = new Map<SignerBucket, TokenBucket>();
  private tier: SignerTier | undefined;
  private readonly scopeMemo = new Map<string, Scope[]>();
  private readonly paused = new Map<string, number>();
  private readonly queues: Entry[][] = Array.from({ length: LEVELS }, () => []);
  private queued = 0;
  private timer: number | undefined;
  private timerAt = Infinity;
  private pumpQueued = false;

  constructor(opts: LimiterOptions) {
    this.clock = opts.clock;
    this.scale = opts.scale ?? 1;
    this.windowScale = opts.windowScale ?? 1;
    this.tier = opts.signerTier;
  }

  /** The account's per-signer tier (undefined: the venue has no per-signer buckets). */
  get signerTier(): SignerTier | undefined {
    return this.tier;
  }

  /**
   * Every scope a request counts against: the spec's table (limit-table.ts scopesFor), and the
   * per-signer bucket of a trading request when the venue has them. Shared: do not mutate.
   */
  scopesOf(api: ApiName, method: string, path: string): Scope[] {
    const base = scopesFor(api, method, path);
    if (this.tier === undefined) return base;
    const b = signerScopeOf(api, method, path);
    if (!b) return base;
    const key = `${api} ${method} ${path}`;
    let s = this.scopeMemo.get(key);
    if (!s) this.scopeMemo.set(key, (s = [...base, b]));
    return s;
  }

  /** Rate and burst of a bucket at the current tier, under the configured scales (a 2% margin on the rate, as on the windows: the venue counts on arrival). */
  private bucketParams(b: SignerBucket): [number, number] {
    const [burst, rate] = scaledBucket(this.tier ?? 'standard', b, this.scale, this.windowScale);
    return [burst, rate * (1 - HOLD_SHARE)];
  }

  /** The venue named the tier it applied (Poly-RateLimit-Tier): both buckets take its rate and burst. True when it changed. */
  setSignerTier(tier: SignerTier): boolean {
    if (this.tier === undefined || this.tier === tier) return false;
    this.tier = tier;
    const now = this.clock.now();
    for (const [b, bucket] of this.buckets) bucket.retune(now, ...this.bucketParams(b));
    if (this.queued > 0) this.pump();
    return true;
  }

  /**
   * The venue's token balance after a request (Poly-RateLimit-Remaining): ours is lowered to it,
   * never raised. A debt (a cancel-all's debit) is taken down to 10 bursts at most, so a wild
   * figure cannot stop trading for hours: a real one is bounded by the orders we had open.
   */
  signerRemaining(scope: Scope, remaining: number): void {
    if (!scope.bucket || this.tier === undefined || !Number.isFinite(remaining)) return;
    const b = this.bucketOf(scope.bucket);
    b.lowerTo(this.clock.now(), Math.max(remaining, -MAX_DEBT_BURSTS * b.burst));
  }

  private bucketOf(b: SignerBucket): TokenBucket {
    let t = this.buckets.get(b);
    if (!t) this.buckets.set(b, (t = new TokenBucket(...this.bucketParams(b), ARRIVAL_JITTER_MS)));
    return t;
  }

  /** The most a request on these scopes may cost: a bucket's burst (Infinity without one). A dearer one can never go. */
  maxCost(scopes: ReadonlyArray<Scope>): number {
    let m = Infinity;
    for (const s of scopes) if (s.bucket && this.tier !== undefined) m = Math.min(m, this.bucketOf(s.bucket).burst);
    return m;
  }

  /** Whole tokens at hand now in these scopes' buckets (Infinity without one): the largest batch that can go at once. */
  room(scopes: ReadonlyArray<Scope>): number {
    let m = Infinity;
    const now = this.clock.now();
    for (const s of scopes) if (s.bucket && this.tier !== undefined) m = Math.min(m, Math.floor(this.bucketOf(s.bucket).available(now) + 1e-9));
    return Math.max(0, m);
  }

  /** The (scaled) window of a scope, created on first use. */
  window(s: Scope): RateWindow {
    if (s.bucket) return this.bucketOf(s.bucket);
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

  /**
   * Resolves when the request may be sent; it then already counts in every scope. `signal`: the
   * caller gives up (its deadline): a wait still queued leaves the queue and rejects, so it takes
   * no slot later (a throttled scope's capacity is what is short then) and holds up nothing behind it.
   */
  acquire(scopes: ReadonlyArray<Scope>, priority: number = PRIORITY.normal, cost = 1, signal?: AbortSignal, untilAnswered = false): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const e = this.enqueue(scopes, priority, resolve, cost, reject, untilAnswered);
      if (e && signal) {
        const drop = (): void => {
          if (this.withdraw(e)) reject(signal.reason);
        };
        signal.addEventListener('abort', drop, { once: true });
        // granted: the listener is no longer needed
        e.grant = () => {
          signal.removeEventListener('abort', drop);
          resolve();
        };
      }
    });
  }

  /** Takes a queued entry out (true), or false when it is no longer queued (granted, refused). */
  private withdraw(e: Entry): boolean {
    for (const q of this.queues) {
      const i = q.indexOf(e);
      if (i < 0) continue;
      q.splice(i, 1);
      this.queued--;
      // what waited behind it on its scopes may go now
      this.pump();
      return true;
    }
    return false;
  }

  /**
   * The fast path alone: takes the slot now and returns true when nothing waits ahead and every
   * scope has room; otherwise changes nothing. Lets a caller send in the same turn (no await).
   * `untilAnswered`: a live request, whose caller calls answered() once it is answered or given up.
   */
  tryAcquire(scopes: ReadonlyArray<Scope>, cost = 1, untilAnswered = false): boolean {
    if (this.queued !== 0) return false;
    return this.take(
      scopes.map((s) => this.window(s)),
      scopes.map((s) => s.id),
      this.clock.now(),
      cost,
      untilAnswered,
    );
  }

  /**
   * A request granted `untilAnswered` was answered, failed, or (`sent` false) was given up before
   * it was sent: its per-signer tokens leave the buckets now, or come back (TokenBucket.answered).
   * Exactly once per such grant. The queue is looked at a microtask later, after the caller has
   * read the answer's balance (signerRemaining) and any 429's pause, in the same turn.
   */
  answered(scopes: ReadonlyArray<Scope>, cost = 1, sent = true): void {
    if (this.tier === undefined) return;
    const now = this.clock.now();
    for (const s of scopes) if (s.bucket) this.bucketOf(s.bucket).answered(now, cost, sent);
    if (this.queued > 0 && !this.pumpQueued) {
      this.pumpQueued = true;
      queueMicrotask(() => {
        this.pumpQueued = false;
        if (this.queued > 0) this.pump();
      });
    }
  }

  /**
   * Callback form of acquire (virtual-time simulations): `grant` runs synchronously when granted.
   * `cost`: the orders of the request, counted in a per-signer bucket (the callers keep it within
   * maxCost); one dearer than a bucket's burst can never go and is refused (`refuse`), at once or
   * when the tier falls while it waits, so it holds no scope.
   */
  submit(scopes: ReadonlyArray<Scope>, priority: number, grant: () => void, cost = 1, refuse?: (err: Error) => void): void {
    this.enqueue(scopes, priority, grant, cost, refuse);
  }

  /** submit(), returning the entry while it waits in the queue (undefined: granted or refused already). */
  private enqueue(scopes: ReadonlyArray<Scope>, priority: number, grant: () => void, cost: number, refuse?: (err: Error) => void, untilAnswered = false): Entry | undefined {
    if (this.tryAcquire(scopes, cost, untilAnswered)) {
      grant();
      return undefined;
    }
    const windows = scopes.map((s) => this.window(s));
    const ids = scopes.map((s) => s.id);
    const e: Entry = { windows, ids, cost, untilAnswered, grant, refuse };
    if (this.overBurst(e)) return undefined;
    const level = Math.min(LEVELS - 1, Math.max(0, Math.trunc(priority)));
    this.queues[level].push(e);
    this.queued++;
    this.pump();
    // granted in that pump: nothing left to withdraw
    return this.queues[level].includes(e) ? e : undefined;
  }

  /**
   * Stops granting on a scope until untilMs (a 429's reset, a 425's wait), but never longer than
   * the venue can rightly hold it: its window's length (every request in it has left by then), a
   * bucket's refill from the deepest debt we let the venue's count put it in. A reset past that is
   * a wrong header or a limit we do not know; paused on it, a scope every cancel shares (the
   * CLOB-wide one) held stale quotes for up to 15 minutes. Asked again later, the venue answers 429
   * again, one request per such hold. Returns the time paused to.
   */
  pause(scopeId: string, untilMs: number): number {
    const until = Math.min(untilMs, this.clock.now() + this.longestHoldMs(scopeId));
    const cur = this.paused.get(scopeId) ?? 0;
    if (until > cur) this.paused.set(scopeId, until);
    if (this.queued > 0) this.pump();
    return until;
  }

  /**
   * The server counts a scope's window full until resetAtMs (a 429 with nothing remaining): ours is
   * made full too, its slots coming back one at a time from then (SlidingWindow.saturate). A
   * per-signer bucket is not a window: its remaining tokens come in its own header.
   */
  saturate(scope: Scope, resetAtMs: number): void {
    if (scope.bucket) return;
    const w = this.window(scope);
    if (w instanceof SlidingWindow) w.saturate(this.clock.now(), resetAtMs);
  }

  /** The longest a venue can rightly hold the scope `id` (pause); Infinity for one never used here. */
  private longestHoldMs(id: string): number {
    for (const [b, w] of this.buckets) if (`signer:${b}` === id) return (1 + MAX_DEBT_BURSTS) * w.windowMs;
    return this.windows.get(id)?.windowMs ?? Infinity;
  }

  pausedUntil(scopeId: string): number {
    return this.paused.get(scopeId) ?? 0;
  }

  /** Per-scope use for /metrics. */
  usage(): ScopeUsage[] {
    const now = this.clock.now();
    const all: Array<[string, RateWindow]> = [...this.windows, ...[...this.buckets].map(([b, w]): [string, RateWindow] => [`signer:${b}`, w])];
    return all.map(([scope, w]) => ({
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

  private freeAt(windows: RateWindow[], ids: string[], now: number, cost: number): number {
    let t = now;
    for (let i = 0; i < windows.length; i++) {
      const p = this.paused.get(ids[i]);
      if (p !== undefined && p > t) t = p;
      const f = windows[i].nextFreeAt(now, cost);
      if (f > t) t = f;
    }
    return t;
  }

  /** Refuses `e` (true) when its cost is above a bucket's burst: it could never go. */
  private overBurst(e: Entry): boolean {
    if (e.cost <= 1) return false;
    for (let k = 0; k < e.windows.length; k++) {
      const w = e.windows[k];
      if (w instanceof TokenBucket && e.cost > w.burst) {
        e.refuse?.(new OverBurstError(e.ids[k], e.cost, w.burst, this.tier ?? 'standard'));
        return true;
      }
    }
    return false;
  }

  private take(windows: RateWindow[], ids: string[], now: number, cost: number, untilAnswered: boolean): boolean {
    if (this.freeAt(windows, ids, now, cost) > now) return false;
    spend(windows, now, cost, untilAnswered);
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
        if (this.overBurst(e)) continue;
        let shares = false;
        for (const id of e.ids) if (blocked.has(id)) shares = true;
        if (!shares) {
          let at = now;
          for (let k = 0; k < e.windows.length; k++) {
            const id = e.ids[k];
            const p = this.paused.get(id);
            const f = Math.max(e.windows[k].nextFreeAt(now, e.cost), p ?? 0);
            if (f > now) {
              blocked.add(id);
              if (f > at) at = f;
            }
          }
          if (at <= now) {
            spend(e.windows, now, e.cost, e.untilAnswered);
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

/** Counts a grant in every window; a live request's per-signer tokens are held until its answer. */
function spend(windows: RateWindow[], now: number, cost: number, untilAnswered: boolean): void {
  for (const w of windows) {
    if (untilAnswered && w instanceof TokenBucket) w.send(cost);
    else w.record(now, cost);
  }
}
