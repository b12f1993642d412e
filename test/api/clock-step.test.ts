// A step of the system clock (NTP correcting a drift, a VM resumed, an operator's `date -s`) must
// not freeze the rate limiter or cut a request's deadline short: both measure durations, so they
// run on a monotonic clock. The clients are built as the daemon builds them (createClients) against
// a real node:http server on loopback; the step is Date.now() moving while performance.now() goes on.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createClients, type Clients } from '../../src/api/index.js';
import { loadConfig } from '../../src/config.js';
import { send, startServer, testHttp, type TestServer } from './http-server.js';

const BOOK = {
  market: '0xm',
  asset_id: '1',
  timestamp: '1',
  hash: 'h',
  bids: [{ price: '0.4', size: '10' }],
  asks: [{ price: '0.6', size: '10' }],
};

let srv: TestServer;
let clients: Clients | undefined;
let stepMs = 0;

beforeEach(async () => {
  srv = await startServer((_r, res) => send(res, 200, BOOK));
  const realNow = Date.now.bind(Date);
  stepMs = 0;
  vi.spyOn(Date, 'now').mockImplementation(() => realNow() + stepMs);
});

afterEach(async () => {
  vi.restoreAllMocks();
  await clients?.close();
  clients = undefined;
  await srv.close();
});

/** GET /book may be sent once per 200 ms window (limit 100 * 0.01, window 10 s * 0.02). */
function make(windowScale = 0.02, scale = 0.01): Clients {
  const config = loadConfig({
    env: {},
    overrides: {
      urls: { clob: srv.url },
      http: { ...testHttp, readDeadlineMs: 1500 },
      retry: { baseMs: 20, maxMs: 50, attempts: 3 },
      limits: { scale, windowScale },
      log: { level: 'silent' },
    },
  });
  return (clients = createClients(config));
}

describe('a step of the system clock', () => {
  it('backwards does not hold a full rate window for the length of the step', async () => {
    const c = make();
    await c.clob.getBook('1'); // takes the window's one slot
    stepMs = -60_000;
    const t0 = performance.now();
    await c.clob.getBook('1'); // its slot frees 200 ms after the first, not 60 s
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(srv.requests).toHaveLength(2);
  });

  it('forwards does not end a request before its deadline: the retry of a 503 still goes', async () => {
    const c = make();
    let n = 0;
    srv.setHandler((_r, res) => {
      if (n++ === 0) {
        stepMs = 60_000; // the clock jumps while the first attempt is out
        return send(res, 503, { error: 'busy' });
      }
      send(res, 200, BOOK);
    });
    const book = await c.clob.getBook('1');
    expect(book.assetId).toBe('1');
    expect(srv.requests).toHaveLength(2);
  });

  it('forwards does not let a full window go early (the venue counts on its own clock)', async () => {
    const c = make();
    await c.clob.getBook('1');
    stepMs = 60_000;
    const t0 = performance.now();
    await c.clob.getBook('1');
    // the second waits out the first's window: it was not granted at once by the jump
    expect(performance.now() - t0).toBeGreaterThanOrEqual(150);
    expect(srv.requests).toHaveLength(2);
  });

  it("a 429's absolute reset is read against the system clock, then waited on the monotonic one", async () => {
    // GET /book: 10 per 1 s window; a pause is never longer than the window (Limiter.longestHoldMs), so a reset misread as 60 s would wait 1 s
    const c = make(0.1, 0.1);
    stepMs = 60_000; // the system clock (and the venue's, which agrees with it) is a minute ahead of where it stood
    let n = 0;
    srv.setHandler((_r, res) => {
      if (n++ === 0) return send(res, 429, { error: 'slow down' }, { 'x-ratelimit-limit': '1', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Date.now() + 300) });
      send(res, 200, BOOK);
    });
    const t0 = performance.now();
    const book = await c.clob.getBook('1');
    const took = performance.now() - t0;
    expect(book.assetId).toBe('1');
    expect(srv.requests).toHaveLength(2);
    expect(took).toBeGreaterThanOrEqual(250); // the reset was waited for
    expect(took).toBeLessThan(900); // and read as 300 ms away, not 60.3 s
  });
});
