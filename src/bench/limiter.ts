// Limiter hot path: grants per second on the fast path (room in every window) and under a
// saturated queue in virtual time, against a floor of bare SlidingWindow.tryAcquire calls.
import { Limiter, PRIORITY } from '../api/limiter.js';
import { scopesFor } from '../api/limit-table.js';
import { SlidingWindow } from '../api/sliding-window.js';
import { VirtualClock } from '../core/clock.js';

export async function run(): Promise<Record<string, unknown>> {
  const N = 200_000;
  // floor: one window, no limiter
  const w = new SlidingWindow(1_000_000, 10_000);
  let t0 = performance.now();
  for (let i = 0; i < N; i++) w.tryAcquire(i * 0.01);
  const floorNs = ((performance.now() - t0) * 1e6) / N;

  // fast path: POST /orders (4 scopes), limits scaled up so every request has room
  const clock = new VirtualClock(0);
  const big = new Limiter({ clock, scale: 1000 });
  const scopes = scopesFor('clob', 'POST', '/orders');
  let granted = 0;
  t0 = performance.now();
  for (let i = 0; i < N; i++) big.submit(scopes, PRIORITY.place, () => granted++);
  const fastNs = ((performance.now() - t0) * 1e6) / N;

  // saturated: 40 outstanding POST /orders + 40 DELETE /orders for 10 simulated minutes
  const vc = new VirtualClock(0);
  const lim = new Limiter({ clock: vc });
  let sat = 0;
  const end = 600_000;
  for (const [m, p] of [
    ['POST', PRIORITY.place],
    ['DELETE', PRIORITY.cancel],
  ] as const) {
    const sc = scopesFor('clob', m, '/orders');
    const issue = (): void =>
      lim.submit(sc, p, () => {
        if (vc.now() >= end) return;
        sat++;
        issue();
      });
    for (let k = 0; k < 40; k++) issue();
  }
  t0 = performance.now();
  while (vc.nextTimerAt() < end) vc.advanceTo(vc.nextTimerAt());
  const satMs = performance.now() - t0;
  return {
    bench: 'limiter',
    floor_window_ns_per_acquire: +floorNs.toFixed(1),
    fast_path_ns_per_grant_4_scopes: +fastNs.toFixed(1),
    fast_path_granted: granted,
    saturated_grants: sat,
    saturated_us_per_grant: +((satMs * 1000) / Math.max(1, sat)).toFixed(2),
  };
}
