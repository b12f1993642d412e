import { describe, expect, it } from 'vitest';
import { Limiter, PRIORITY, grantHoldMs } from '../../src/api/limiter.js';
import { PACED_BURST_MIN, PACED_BURST_SHARE, PACED_MIN_WINDOW_MS, PacedWindow } from '../../src/api/paced-window.js';
import { SlidingWindow } from '../../src/api/sliding-window.js';
import { scaleScope, scopesFor, type ApiName, type Scope } from '../../src/api/limit-table.js';
import { VirtualClock } from '../../src/core/clock.js';
import { SeededRng } from '../../src/core/rng.js';

describe('SlidingWindow', () => {
  it('holds at most `limit` grants in any window and frees a slot exactly windowMs after a grant', () => {
    const w = new SlidingWindow(3, 1000);
    expect([w.tryAcquire(0), w.tryAcquire(10), w.tryAcquire(20), w.tryAcquire(30)]).toEqual([true, true, true, false]);
    expect(w.nextFreeAt(30)).toBe(1000);
    expect(w.tryAcquire(999)).toBe(false);
    expect(w.tryAcquire(1000)).toBe(true);
    expect(w.nextFreeAt(1000)).toBe(1010);
    expect(w.used(1000)).toBe(3);
    expect(w.remaining(2021)).toBe(3);
  });
  it('saturate(): the server says the window is full until a reset (our log short of its: another process on the key); its slots come back one at a time from then, never all at once', () => {
    const w = new SlidingWindow(10, 1000);
    w.record(0); // one real grant of ours, leaving at 1000
    w.saturate(100, 300);
    expect(w.used(100)).toBe(10);
    // nothing before the reset; then one slot per window / limit (100 ms)
    const free: number[] = [];
    for (let t = 100; t <= 2000; t += 10) {
      while (w.tryAcquire(t)) free.push(t);
    }
    expect(free.slice(0, 4)).toEqual([300, 400, 500, 600]);
    // our own grant's slot counts until it leaves, as ever: never more than 10 in a window
    for (let i = 0; i < free.length; i++) expect(free.filter((t) => t > free[i] - 1000 && t <= free[i]).length).toBeLessThanOrEqual(10);
    // a window already full, or a reset already past, changes nothing
    const full = new SlidingWindow(2, 1000);
    full.record(0);
    full.record(5);
    full.saturate(10, 500);
    expect(full.nextFreeAt(10)).toBe(1000);
    const past = new SlidingWindow(2, 1000);
    past.saturate(10, 5);
    expect(past.used(10)).toBe(0);
  });
  it('rejects bad parameters', () => {
    expect(() => new SlidingWindow(0, 10)).toThrow(RangeError);
    expect(() => new SlidingWindow(2, 0)).toThrow(RangeError);
  });
});

interface Stream {
  api: ApiName;
  method: string;
  path: string;
  priority: number;
  /** Requests kept outstanding (a closed loop: a granted request is replaced at once). */
  concurrency: number;
  /** Max random think time (ms) before a replacement is issued; 0 = at once. */
  jitterMs?: number;
}

/** Runs saturated closed-loop demand in virtual time; returns grant times per stream. */
function simulate(limiter: Limiter, clock: VirtualClock, streams: Stream[], durationMs: number): number[][] {
  const grants: number[][] = streams.map(() => []);
  const rng = new SeededRng(7);
  streams.forEach((s, i) => {
    const scopes = scopesFor(s.api, s.method, s.path);
    const issue = (): void => {
      limiter.submit(scopes, s.priority, () => {
        if (clock.now() >= durationMs) return;
        grants[i].push(clock.now());
        // a random think time makes requests arrive between the limiter's own timer instants
        if (s.jitterMs) clock.schedule(clock.now() + rng.int(0, s.jitterMs), issue);
        else issue();
      });
    };
    for (let k = 0; k < s.concurrency; k++) issue();
  });
  let steps = 0;
  while (clock.nextTimerAt() < durationMs && steps++ < 5_000_000) clock.advanceTo(clock.nextTimerAt());
  return grants;
}

/** The most grants any window of `windowMs` holds, by scanning the sorted grant times. */
function maxInWindow(times: number[], windowMs: number): number {
  const t = [...times].sort((a, b) => a - b);
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < t.length; hi++) {
    while (t[hi] - t[lo] >= windowMs) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

function check(streams: Stream[], scale: number, windowScale: number, durationMs: number) {
  const clock = new VirtualClock(0);
  const limiter = new Limiter({ clock, scale, windowScale });
  const grants = simulate(limiter, clock, streams, durationMs);
  // independent check: for every scope, pool the grants of every stream in it
  const byScope = new Map<string, { scope: Scope; times: number[] }>();
  streams.forEach((s, i) => {
    for (const sc of scopesFor(s.api, s.method, s.path)) {
      const scaled = scaleScope(sc, scale, windowScale);
      const e = byScope.get(sc.id) ?? { scope: scaled, times: [] };
      e.times.push(...grants[i]);
      byScope.set(sc.id, e);
    }
  });
  for (const { scope, times } of byScope.values()) {
    expect(maxInWindow(times, scope.windowMs), scope.id).toBeLessThanOrEqual(scope.limit);
  }
  // throughput: each stream is bound by its tightest scope (the streams below share no binding scope)
  streams.forEach((s, i) => {
    const bound = Math.min(
      ...scopesFor(s.api, s.method, s.path).map((sc) => {
        const x = scaleScope(sc, scale, windowScale);
        return x.limit * Math.ceil(durationMs / x.windowMs);
      }),
    );
    expect(grants[i].length, `${s.method} ${s.path}`).toBeLessThanOrEqual(bound);
    // a paced (sustained) window gives its burst, then the rest of its budget spread over the window
    const share = Math.min(
      ...scopesFor(s.api, s.method, s.path).map((sc) => {
        const x = scaleScope(sc, scale, windowScale);
        if (x.windowMs < PACED_MIN_WINDOW_MS) return 1;
        const burst = Math.max(Math.min(x.limit, PACED_BURST_MIN), Math.floor(x.limit * PACED_BURST_SHARE));
        return (burst + ((x.limit - burst) * durationMs) / (x.windowMs + grantHoldMs(x.windowMs))) / (x.limit * Math.ceil(durationMs / x.windowMs));
      }),
    );
    expect(grants[i].length / bound, `${s.method} ${s.path}`).toBeGreaterThanOrEqual(0.97 * share);
  });
  return { grants, limiter };
}

const STREAMS: Stream[] = [
  { api: 'clob', method: 'POST', path: '/orders', priority: PRIORITY.place, concurrency: 40 },
  { api: 'clob', method: 'DELETE', path: '/orders', priority: PRIORITY.cancel, concurrency: 40 },
  { api: 'clob', method: 'GET', path: '/book', priority: PRIORITY.normal, concurrency: 10 },
  { api: 'gamma', method: 'GET', path: '/markets', priority: PRIORITY.normal, concurrency: 5 },
  { api: 'data', method: 'GET', path: '/users/0xabc/pnl', priority: PRIORITY.normal, concurrency: 5 },
  { api: 'clob', method: 'DELETE', path: '/cancel-market-orders', priority: PRIORITY.cancel, concurrency: 30, jitterMs: 3 },
  { api: 'clob', method: 'GET', path: '/midpoint', priority: PRIORITY.normal, concurrency: 30, jitterMs: 7 },
];

describe('Limiter (virtual time property test)', () => {
  it('never exceeds any window and reaches >= 97% of the allowed throughput (of the paced share on sustained windows) over 30 simulated minutes', () => {
    const { grants } = check(STREAMS, 1, 1, 30 * 60_000);
    const total = grants.reduce((a, g) => a + g.length, 0);
    expect(total).toBeGreaterThan(60_000); // tens of thousands of requests
    // POST /orders is held by its 10-min sustained window (15000 per 10 min), not its burst window,
    // paced: its burst (750), then the other 14,250 spread over each 10 minutes and the hold
    const paced = 750 + (14_250 * 30 * 60_000) / (600_000 + grantHoldMs(600_000));
    expect(Math.abs(grants[0].length - paced)).toBeLessThanOrEqual(1);
  });
  it('holds under a scaled config (limits x0.5, windows x0.05)', () => {
    check(STREAMS, 0.5, 0.05, 3 * 60_000);
  });
  it('holds a shared per-API scope when several endpoints compete for it', () => {
    // five Data API endpoints, each with room of its own, share the Data API's 50 / 10 s
    const streams: Stream[] = ['/events', '/markets', '/users/0x1', '/users/0x1/trades', '/users/0x1/pnl'].map((path) => ({
      api: 'data',
      method: 'GET',
      path,
      priority: PRIORITY.normal,
      concurrency: 20,
    }));
    const clock = new VirtualClock(0);
    const limiter = new Limiter({ clock });
    const grants = simulate(limiter, clock, streams, 200_000);
    const all = grants.flat();
    expect(maxInWindow(all, 10_000)).toBeLessThanOrEqual(50);
    expect(all.length).toBeGreaterThanOrEqual(0.97 * 50 * 20);
    for (const g of grants) expect(g.length).toBeGreaterThan(100); // nobody starves
  });
});

describe('PacedWindow (the sustained windows of the client limiter)', () => {
  it('a client asking faster than the sustained rate for 30 minutes is never silent: after its burst, one grant every window/(limit - burst)', () => {
    const w = new PacedWindow(15_000, 600_000, 500);
    expect(w.burst).toBe(750);
    const times: number[] = [];
    // ask every 5 ms (200/s, 8x the sustained 25/s); take what the window allows
    for (let t = 0; t < 30 * 60_000; t += 5) {
      if (!w.hasRoom(t)) continue;
      w.record(t);
      times.push(t);
    }
    expect(maxInWindow(times, 600_000)).toBeLessThanOrEqual(15_000);
    let gap = 0;
    for (let i = 751; i < times.length; i++) gap = Math.max(gap, times[i] - times[i - 1]);
    // 600.5 s / 14,250 = 42 ms per grant, rounded up to the 5 ms asks
    expect(gap).toBeLessThanOrEqual(45);
    // an exact window alone would have granted 15,000 at once and then nothing for ~10 minutes
    const exact = new SlidingWindow(15_000, 600_000);
    const ex: number[] = [];
    for (let t = 0; t < 30 * 60_000; t += 5) if (exact.tryAcquire(t)) ex.push(t);
    let exGap = 0;
    for (let i = 1; i < ex.length; i++) exGap = Math.max(exGap, ex[i] - ex[i - 1]);
    expect(exGap).toBeGreaterThan(500_000);
  });
  it('nextFreeAt names the instant hasRoom turns true', () => {
    const w = new PacedWindow(100, 60_000);
    for (let i = 0; i < w.burst; i++) w.record(0);
    const at = w.nextFreeAt(0);
    expect(at).toBeGreaterThan(0);
    expect(w.hasRoom(at - 1)).toBe(false);
    expect(w.hasRoom(at)).toBe(true);
  });
});

describe('Limiter behaviour', () => {
  it('grants cancels before places that wait on the same scope', () => {
    const clock = new VirtualClock(0);
    const limiter = new Limiter({ clock, scale: 0.001 }); // clob general 15 / 10 s
    const shared = scopesFor('clob', 'GET', '/orders'); // clob + general only
    for (let i = 0; i < 14; i++) limiter.submit(shared, PRIORITY.normal, () => {});
    clock.advanceTo(1);
    limiter.submit(shared, PRIORITY.normal, () => {});
    const order: string[] = [];
    limiter.submit(scopesFor('clob', 'POST', '/order'), PRIORITY.place, () => order.push(`place@${clock.now()}`));
    limiter.submit(scopesFor('clob', 'DELETE', '/order'), PRIORITY.cancel, () => order.push(`cancel@${clock.now()}`));
    expect(limiter.waiting).toBe(2);
    // a grant counts for its window and the hold (the venue counts it when it arrives)
    const free = 10_000 + grantHoldMs(10_000);
    clock.advanceTo(free - 1);
    expect(order).toEqual([]);
    clock.advanceTo(free);
    expect(order).toEqual([`cancel@${free}`, `place@${free}`]);
  });
  it("a wait given up (its signal aborted: the caller's deadline) leaves the queue: it takes no slot later, and what waits behind it goes first", async () => {
    const clock = new VirtualClock(1000);
    const limiter = new Limiter({ clock });
    const book = scopesFor('clob', 'GET', '/book');
    limiter.pause('clob:GET /book', 5000);
    const ac = new AbortController();
    const given = limiter.acquire(book, PRIORITY.normal, 1, ac.signal);
    let later = -1;
    limiter.submit(book, PRIORITY.normal, () => (later = clock.now()));
    expect(limiter.waiting).toBe(2);
    ac.abort();
    await expect(given).rejects.toThrow();
    expect(limiter.waiting).toBe(1);
    clock.advanceTo(5000);
    expect(later).toBe(5000);
    const w = limiter.window(book.find((s) => s.id === 'clob:GET /book') as Scope);
    expect(w.used(5000)).toBe(1); // the one that still wanted it
    // a signal already aborted is refused at once, and queues nothing
    await expect(limiter.acquire(book, PRIORITY.normal, 1, AbortSignal.abort())).rejects.toThrow();
    expect(limiter.waiting).toBe(0);
  });
  it('pause() blocks a scope until the given time, then the queue drains', async () => {
    const clock = new VirtualClock(1000);
    const limiter = new Limiter({ clock });
    limiter.pause('clob:GET /book', 5000);
    let at = -1;
    limiter.submit(scopesFor('clob', 'GET', '/book'), PRIORITY.normal, () => (at = clock.now()));
    let other = -1;
    limiter.submit(scopesFor('clob', 'GET', '/price'), PRIORITY.normal, () => (other = clock.now()));
    expect(other).toBe(1000); // other endpoints are not held up
    clock.advanceTo(4999);
    expect(at).toBe(-1);
    clock.advanceTo(6000);
    expect(at).toBe(5000);
    const u = limiter.usage().find((x) => x.scope === 'clob:GET /book');
    expect(u).toMatchObject({ used: 1, limit: 100, windowMs: 10_000, pausedUntil: 5000 });
    await expect(limiter.acquire(scopesFor('clob', 'GET', '/book'))).resolves.toBeUndefined();
  });
  it('tryAcquire takes a free slot at once, and refuses (taking nothing) when full or when others wait', () => {
    const clock = new VirtualClock(0);
    const limiter = new Limiter({ clock, scale: 0.02 }); // GET /book 2 / 10 s
    const book = scopesFor('clob', 'GET', '/book');
    const bookWindow = limiter.window(book[book.length - 1]);
    expect([limiter.tryAcquire(book), limiter.tryAcquire(book), limiter.tryAcquire(book)]).toEqual([true, true, false]);
    expect(bookWindow.used(0)).toBe(2);
    let granted = false;
    limiter.submit(book, PRIORITY.normal, () => (granted = true));
    expect(limiter.waiting).toBe(1);
    // another endpoint has room, but a queued request goes first: no overtaking through the fast path
    expect(limiter.tryAcquire(scopesFor('clob', 'GET', '/price'))).toBe(false);
    clock.advanceTo(10_000 + grantHoldMs(10_000));
    expect(granted).toBe(true);
    expect(limiter.tryAcquire(scopesFor('clob', 'GET', '/price'))).toBe(true);
  });
  it('a FIFO queue: over-rate requests are delayed, never dropped, in arrival order', () => {
    const clock = new VirtualClock(0);
    const limiter = new Limiter({ clock, scale: 0.02 }); // GET /book 2 / 10 s
    const got: number[] = [];
    for (let i = 0; i < 7; i++) limiter.submit(scopesFor('clob', 'GET', '/book'), PRIORITY.normal, () => got.push(i));
    clock.advanceTo(35_000);
    expect(got).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });
});
