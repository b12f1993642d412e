// {"bench":"scheduler"}: the order scheduler under saturation over 20 minutes of virtual time
// (two sustained windows). Reports window violations on every trading scope (must be 0) and the
// POST /orders and DELETE /orders batches sent as a share of the theoretical maximum, measured in
// the same run by a greedy sender on bare sliding windows (the floor to compare against).
import { VirtualClock } from '../core/clock.js';
import { Limiter } from '../api/limiter.js';
import { scopesFor, type Scope } from '../api/limit-table.js';
import { SlidingWindow } from '../api/sliding-window.js';
import { OrderScheduler, type CancelTarget, type SchedulerSink } from '../engine/scheduler.js';
import { silentLogger } from '../core/log.js';
import type { Quote } from '../engine/strategy.js';
import { InstantVenue, type TradingEndpoint } from './instant-venue.js';

const DURATION_MS = 20 * 60_000;

/** Requests in `times` that broke a window of `scope` (any interval of windowMs holding more than limit). */
function violations(times: number[], scope: Scope): number {
  let v = 0;
  let lo = 0;
  for (let hi = 0; hi < times.length; hi++) {
    while (times[hi] - times[lo] >= scope.windowMs) lo++;
    if (hi - lo + 1 > scope.limit) v++;
  }
  return v;
}

/** The most requests any sender can make in [start, start + duration): greedy on bare windows. */
function greedyMax(scopes: Scope[], start: number, duration: number): number {
  const ws = scopes.map((s) => new SlidingWindow(s.limit, s.windowMs));
  let t = start;
  let n = 0;
  while (t < start + duration) {
    let free = t;
    for (const w of ws) free = Math.max(free, w.nextFreeAt(t));
    if (free >= start + duration) break;
    if (free > t) {
      t = free; // re-check every window at the new time before taking the slot
      continue;
    }
    for (const w of ws) w.record(t);
    n++;
  }
  return n;
}

export async function run(): Promise<Record<string, unknown>> {
  const clock = new VirtualClock(0);
  const limiter = new Limiter({ clock });
  const times: Record<TradingEndpoint, number[]> = { 'POST /orders': [], 'POST /order': [], 'DELETE /orders': [], 'DELETE /order': [], 'DELETE /cancel-all': [] };
  const venue = new InstantVenue((ep) => times[ep].push(clock.now()));
  let id = 0;
  const sink: SchedulerSink = {
    preparePlaces: (qs) => qs.map((q) => ({ clientId: `c${id++}`, tokenId: q.tokenId, side: q.side, price: q.price, size: q.size, orderType: 'GTC', postOnly: true })),
    placed: () => {},
    placeFailed: () => {},
    notSent: () => {},
    prepareCancels: () => {},
    canceled: () => {},
    cancelFailed: () => {},
  };
  const s = new OrderScheduler({ venue, limiter, clock, log: silentLogger, sink, maxBatch: 15, singleOverflow: true, recordUse: true, maxInFlight: 1_000_000 });
  const quotes: Quote[] = Array.from({ length: 15 }, (_, i) => ({ tokenId: 'T', side: 'BUY', price: 100 + i * 100, size: 500 }));
  const t0 = performance.now();
  let round = 0;
  // Keep every queue non-empty: 40 markets re-submit 15 places and 20 cancels whenever time moves.
  while (clock.now() < DURATION_MS) {
    for (let k = 0; k < 40; k++) {
      // old bids below the new ones: no place depends on them (a place that does waits for its
      // cancel's answer, and a market's next submit replaces it first: test/engine/scheduler-order.test.ts)
      const cancels = Array.from({ length: 20 }, (_, i): CancelTarget => ({ orderId: `x${round}-${k}-${i}`, tokenId: 'T', side: 'BUY', price: 50 }));
      s.submit(`m${k}`, cancels, quotes);
    }
    round++;
    // the instant venue answers at this same virtual time: its answers land before time moves
    await new Promise<void>((r) => setImmediate(r));
    // Time moves to the scheduler's next wake-up (windows full), or by 1 ms when it has none.
    const next = clock.nextTimerAt();
    clock.advanceTo(Math.min(next === Infinity ? clock.now() + 1 : next, DURATION_MS));
  }
  s.close();
  const wallMs = performance.now() - t0;
  const eps = ['POST /orders', 'POST /order', 'DELETE /orders', 'DELETE /order'] as const;
  let total = 0;
  const perScope: Record<string, number> = {};
  for (const ep of eps) {
    const [method, path] = ep.split(' ');
    for (const sc of scopesFor('clob', method, path).filter((x) => x.id.includes(path))) {
      const v = violations(times[ep], sc);
      perScope[sc.id] = v;
      total += v;
    }
  }
  const share = (ep: 'POST /orders' | 'DELETE /orders') => {
    const [method, path] = ep.split(' ');
    const max = greedyMax(
      scopesFor('clob', method, path).filter((x) => x.id.includes(path)),
      0,
      DURATION_MS,
    );
    const sent = times[ep].filter((t) => t < DURATION_MS).length;
    return { sent, max, share: +(sent / max).toFixed(4) };
  };
  return {
    bench: 'scheduler',
    virtualMinutes: DURATION_MS / 60_000,
    windowViolations: total,
    violationsByScope: perScope,
    placeBatches: share('POST /orders'),
    cancelBatches: share('DELETE /orders'),
    placeSingles: times['POST /order'].length,
    cancelSingles: times['DELETE /order'].length,
    ordersSent: s.stats.ordersSent,
    cancelsSent: s.stats.cancelsSent,
    wallMs: Math.round(wallMs),
  };
}
