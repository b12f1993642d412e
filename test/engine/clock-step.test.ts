// A step of the system clock back (NTP at boot, a VM's clock corrected) while the engine quotes:
// the books move, and the new quotes must go out when the rate window frees (its 200 ms here), not
// a minute later when the wall clock is back where it stood. Against a real loopback CLOB server,
// with the clients as the daemon builds them; the step is Date.now() moving back by a minute.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClients } from '../../src/api/index.js';
import { loadConfig } from '../../src/config.js';
import { WallClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/log.js';
import { LiveVenue } from '../../src/venue/live-venue.js';
import { send, startServer, testHttp, testRetry, type TestServer } from '../api/http-server.js';
import { bandsEngine, books, deliver, until } from './helpers.js';

let server: TestServer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

describe('engine: a step of the system clock back', () => {
  it('requotes and places as soon as the rate window frees', async () => {
    let seq = 0;
    const posts: number[] = [];
    server = await startServer((req, res) => {
      if (req.method === 'POST' && req.path === '/orders') {
        posts.push(performance.now());
        const orders = JSON.parse(req.body) as unknown[];
        send(
          res,
          200,
          orders.map(() => ({ success: true, orderID: `0xorder${++seq}`, status: 'live', errorMsg: '' })),
        );
      } else if (req.method === 'DELETE' && (req.path === '/orders' || req.path === '/order')) {
        const ids = JSON.parse(req.body) as { orderIds?: string[]; orderID?: string };
        send(res, 200, { canceled: ids.orderIds ?? [ids.orderID ?? ''], not_canceled: {} });
      } else if (req.method === 'DELETE' && req.path === '/cancel-all') send(res, 200, { canceled: [], not_canceled: {} });
      else send(res, 404, { error: 'not found' });
    });
    // one POST /orders and one DELETE /orders per 200 ms window (1000 * 0.001 per 10 s * 0.02)
    const cfg = loadConfig({ env: { MAKERD_CLOB_URL: server.url } });
    const clients = createClients({ ...cfg, http: testHttp, retry: testRetry, limits: { scale: 0.001, windowScale: 0.02 } }, 'k');
    const venue = new LiveVenue({ clob: clients.clob, subscribeUser: () => {}, tickOf: () => 100, log: silentLogger });
    const realNow = Date.now.bind(Date);
    let stepMs = 0;
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + stepMs);
    const clock = new WallClock();
    const { engine, mirror } = await bandsEngine({
      clock,
      venue,
      limiter: clients.limiter,
      recordLimiterUse: false,
      realTime: true,
      params: { fair: 'mid', bands: [{ distance: 0.02, size: 10 }], skewPerShare: 0 },
    });
    const t0 = realNow();
    try {
      deliver(mirror, engine, books(4900, 5100, t0));
      engine.start();
      await until('the first quotes', () => posts.length === 1, 3000);
      stepMs = -60_000;
      // the market moves: the quotes are replaced (a cancel, then a place in the next free window)
      deliver(mirror, engine, books(5900, 6100, t0 + 1));
      const moved = performance.now();
      await until('the new quotes', () => posts.length === 2, 3000);
      // 200 ms without a step; a minute before the fix, or a housekeeping slice (~1 s) with only the
      // scheduler's clock fixed (the requote's debounce held until then)
      expect(posts[1] - moved).toBeLessThan(800);
      expect(server.requests.some((r) => r.method === 'DELETE' && r.path === '/orders')).toBe(true);
    } finally {
      await engine.stop();
      await clients.close();
    }
  });
});
