// Issue 10 finding 1: a venue that answers one byte at a time must not hold a call past its
// deadline. undici's bodyTimeout only measures the gaps between chunks, so a trickle every
// 100 ms under a 300 ms bodyTimeout never trips it; the per-kind deadline must.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerResponse } from 'node:http';
import { Transport, type RequestSpec } from '../../src/api/transport.js';
import { Limiter } from '../../src/api/limiter.js';
import { WallClock } from '../../src/core/clock.js';
import { AmbiguousSubmitError, DeadlineError } from '../../src/core/errors.js';
import { startServer, testHttp, testRetry, type TestServer } from './http-server.js';

let srv: TestServer;
const open = new Set<NodeJS.Timeout>();
/** Headers at once, then one byte of the body every 100 ms, never finished. */
function trickle(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{');
  const t = setInterval(() => {
    if (res.destroyed) {
      clearInterval(t);
      open.delete(t);
    } else res.write(' ');
  }, 100);
  open.add(t);
}

beforeAll(async () => {
  srv = await startServer((_r, res) => trickle(res));
});
afterAll(async () => {
  for (const t of open) clearInterval(t);
  await srv.close();
});

const deadlines = { placeDeadlineMs: 400, cancelDeadlineMs: 500, readDeadlineMs: 700 };

async function timed(spec: RequestSpec): Promise<{ err: unknown; ms: number }> {
  const t = new Transport({
    api: 'clob',
    baseUrl: srv.url,
    http: { ...testHttp, ...deadlines },
    retry: testRetry,
    limiter: new Limiter({ clock: new WallClock({ keepAlive: true }) }),
  });
  const t0 = Date.now();
  try {
    await t.request(spec);
    return { err: undefined, ms: Date.now() - t0 };
  } catch (err) {
    return { err, ms: Date.now() - t0 };
  } finally {
    await t.close();
  }
}

describe('transport: an overall deadline per kind of call', () => {
  it('a trickled DELETE ends at the cancel deadline with a DeadlineError', async () => {
    const r = await timed({ method: 'DELETE', path: '/orders', body: ['a'] });
    expect(r.err).toBeInstanceOf(DeadlineError);
    expect((r.err as DeadlineError).kind).toBe('cancel');
    expect(r.ms).toBeGreaterThanOrEqual(450);
    expect(r.ms).toBeLessThan(1500);
  });
  it('a trickled GET ends at the read deadline (its retries included)', async () => {
    const before = srv.requests.length;
    const r = await timed({ method: 'GET', path: '/data/orders' });
    expect(r.err).toBeInstanceOf(DeadlineError);
    expect((r.err as DeadlineError).kind).toBe('read');
    expect(r.ms).toBeLessThan(1700);
    expect(srv.requests.length - before).toBeGreaterThanOrEqual(1);
  });
  it('a trickled POST /order past the place deadline is ambiguous, sent once, caused by the deadline', async () => {
    const before = srv.requests.length;
    const r = await timed({ method: 'POST', path: '/order', body: {} });
    expect(r.err).toBeInstanceOf(AmbiguousSubmitError);
    expect((r.err as AmbiguousSubmitError).cause).toBeInstanceOf(DeadlineError);
    expect(srv.requests.length - before).toBe(1);
    expect(r.ms).toBeLessThan(1400);
  });
});

describe('transport: a deadline that comes while the request waits for a rate-limit slot', () => {
  it('ends the wait: the request leaves the limiter queue and takes no slot when the scope frees', async () => {
    // found in review: the wait stayed queued, and when the pause ended it was granted a slot it
    // never used, ahead of the requests still wanted (a cancel-all retried every second added one each time)
    const clock = new WallClock({ keepAlive: true });
    const limiter = new Limiter({ clock });
    const t = new Transport({ api: 'clob', baseUrl: srv.url, http: { ...testHttp, ...deadlines }, retry: testRetry, limiter });
    try {
      limiter.pause('clob:DELETE /order:burst', clock.now() + 2000);
      const before = srv.requests.length;
      const t0 = Date.now();
      const err = await t.request({ method: 'DELETE', path: '/order', body: { orderID: 'x' } }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DeadlineError);
      expect(Date.now() - t0).toBeLessThan(1500);
      expect(limiter.waiting).toBe(0);
      const scope = limiter.scopesOf('clob', 'DELETE', '/order').find((s) => s.id === 'clob:DELETE /order:burst');
      if (!scope) throw new Error('no DELETE /order scope');
      expect(limiter.window(scope).used(clock.now())).toBe(0);
      expect(srv.requests.length).toBe(before);
    } finally {
      await t.close();
    }
  });
});
