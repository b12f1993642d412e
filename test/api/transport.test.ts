import { specProfile } from '../../src/api/clob-profile.js';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Transport, type RequestSpec } from '../../src/api/transport.js';
import { MAX_BODY_BYTES } from '../../src/api/http-exchange.js';
import { Limiter } from '../../src/api/limiter.js';
import { resetAtMs, retryAfterAtMs } from '../../src/api/envelope.js';
import { WallClock } from '../../src/core/clock.js';
import type { Config } from '../../src/config.js';
import { AmbiguousSubmitError, ApiError, RateLimitError, ResponseShapeError, TransportError, VenueNotReadyError } from '../../src/core/errors.js';
import { refusalOf } from '../../src/venue/rejections.js';
import { fixture, send, startServer, testHttp, testRetry, type Handler, type TestServer } from './http-server.js';

let srv: TestServer;
let handler: Handler = (_r, res) => send(res, 200, {});
beforeAll(async () => {
  srv = await startServer((r, res) => handler(r, res));
});
afterAll(async () => {
  await srv.close();
});

function transport(opts: { apiKey?: string; attempts?: number; limiter?: Limiter; http?: Config['http']; retry?: Partial<Config['retry']> } = {}): Transport {
  return new Transport({
    api: 'clob',
    baseUrl: srv.url,
    http: opts.http ?? testHttp,
    retry: { ...testRetry, ...opts.retry, attempts: opts.attempts ?? testRetry.attempts },
    limiter: opts.limiter ?? new Limiter({ clock: new WallClock({ keepAlive: true }) }),
    auth: specProfile(opts.apiKey).authHeaders,
  });
}

async function run(spec: RequestSpec, h: Handler, opts: Parameters<typeof transport>[0] = {}): Promise<{ result?: unknown; error?: unknown; count: number }> {
  handler = h;
  const before = srv.requests.length;
  const t = transport(opts);
  try {
    const result = await t.request(spec);
    return { result, count: srv.requests.length - before };
  } catch (error) {
    return { error, count: srv.requests.length - before };
  } finally {
    await t.close();
  }
}

describe('transport: bodies', () => {
  it('unwraps the success envelope', async () => {
    const r = await run({ method: 'GET', path: '/tick-size', query: { token_id: '1' } }, (_q, res) => send(res, 200, { success: true, data: { minimum_tick_size: 0.01 } }));
    expect(r.result).toEqual({ minimum_tick_size: 0.01 });
  });
  it('accepts a bare body and sends query and Bearer header', async () => {
    const book = fixture('nautilus_trader/rust_test_data/clob_book_response.json');
    const r = await run({ method: 'GET', path: '/book', query: { token_id: '123', skip: undefined } }, (_q, res) => send(res, 200, book), { apiKey: 'k-secret-1234' });
    expect(r.result).toEqual(book);
    const last = srv.requests[srv.requests.length - 1];
    expect(last.query.get('token_id')).toBe('123');
    expect(last.query.has('skip')).toBe(false);
    expect(last.headers.authorization).toBe('Bearer k-secret-1234');
  });
  it('sends no Authorization header without a key; JSON body with content-type', async () => {
    await run({ method: 'POST', path: '/order', body: { a: 1 } }, (_q, res) => send(res, 200, { success: true, orderID: 'x', errorMsg: '' }));
    const last = srv.requests[srv.requests.length - 1];
    expect(last.headers.authorization).toBeUndefined();
    expect(last.headers['content-type']).toBe('application/json');
    expect(JSON.parse(last.body)).toEqual({ a: 1 });
  });
  it('returns a text body such as OK', async () => {
    const r = await run({ method: 'GET', path: '/health' }, (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('OK');
    });
    expect(r.result).toBe('OK');
  });
});

describe('transport: errors', () => {
  for (const status of [400, 401, 403, 404]) {
    it(`bare ${status} -> ApiError HTTP_${status}, not retried`, async () => {
      const r = await run({ method: 'GET', path: '/book' }, (_q, res) => send(res, status, { error: 'Invalid token id' }));
      expect(r.error).toBeInstanceOf(ApiError);
      const e = r.error as ApiError;
      expect([e.status, e.code, e.apiMessage, e.method, e.path]).toEqual([status, `HTTP_${status}`, 'Invalid token id', 'GET', '/book']);
      expect(r.count).toBe(1);
    });
  }
  it('enveloped error keeps its code and message', async () => {
    const r = await run({ method: 'GET', path: '/order' }, (_q, res) => send(res, 404, { success: false, error: { code: 'ORDER_NOT_FOUND', message: 'no such order' } }));
    const e = r.error as ApiError;
    expect(e).toBeInstanceOf(ApiError);
    expect([e.status, e.code, e.apiMessage]).toEqual([404, 'ORDER_NOT_FOUND', 'no such order']);
  });
  it('success:false on a 200 envelope is an ApiError too', async () => {
    const r = await run({ method: 'GET', path: '/order' }, (_q, res) => send(res, 200, { success: false, error: { code: 'BAD', message: 'nope' } }));
    expect((r.error as ApiError).code).toBe('BAD');
  });
  it.each([['yes'], [1], [null]])('an envelope whose success is %j (not a boolean) is a response-shape error, not data', async (success) => {
    const r = await run({ method: 'GET', path: '/data/orders' }, (_q, res) => send(res, 200, { success, data: [] }));
    expect(r.error).toBeInstanceOf(ResponseShapeError);
    expect(String((r.error as Error).message)).toMatch(/success must be a boolean/);
    expect(r.result).toBeUndefined();
  });
  it('GET 500 on every attempt -> ApiError 500 after `attempts` tries', async () => {
    const body = fixture('nautilus_trader/rust_test_data/http_order_response_error_500.json');
    const r = await run({ method: 'GET', path: '/orders' }, (_q, res) => send(res, 500, body));
    const e = r.error as ApiError;
    expect(e).toBeInstanceOf(ApiError);
    expect([e.status, e.code, e.apiMessage]).toEqual([500, 'HTTP_500', 'Internal server error']);
    expect(r.count).toBe(3);
  });
  it('GET retried on 500 then succeeds', async () => {
    let n = 0;
    const r = await run({ method: 'GET', path: '/midpoint' }, (_q, res) => (++n < 3 ? send(res, 500, { error: 'boom' }) : send(res, 200, { mid: '0.5' })));
    expect(r.result).toEqual({ mid: '0.5' });
    expect(r.count).toBe(3);
  });
  it('DELETE retried after a dropped connection', async () => {
    let n = 0;
    const r = await run({ method: 'DELETE', path: '/order', body: { orderID: 'a' } }, (_q, res) => (++n === 1 ? res.socket?.destroy() : send(res, 200, { canceled: ['a'], not_canceled: {} })));
    expect(r.result).toEqual({ canceled: ['a'], not_canceled: {} });
    expect(r.count).toBe(2);
  });
  it('GET dropped every time -> TransportError', async () => {
    const r = await run({ method: 'GET', path: '/book' }, (_q, res) => res.socket?.destroy());
    expect(r.error).toBeInstanceOf(TransportError);
    expect(r.count).toBe(3);
  });
  it('a body over MAX_BODY_BYTES is refused without holding it all (TransportError naming the limit)', async () => {
    const chunk = Buffer.alloc(1 << 20, 0x20);
    let written = 0;
    const r = await run(
      { method: 'GET', path: '/book' },
      (_q, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        // a runaway answer: more than the limit, written while the client reads
        const more = () => {
          while (written <= MAX_BODY_BYTES + chunk.length && !res.destroyed) {
            written += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', more);
          }
          res.end();
        };
        res.on('error', () => {});
        more();
      },
      { attempts: 1 },
    );
    expect(r.error).toBeInstanceOf(TransportError);
    expect(String((r.error as TransportError).cause)).toContain(`over ${MAX_BODY_BYTES} bytes`);
  });
});

describe('transport: connections and dispatch', () => {
  it('keepSubmitWarm opens the order connections ahead of any order and reopens a closed one in the background', async () => {
    handler = (q, res) => send(res, 200, q.path.endsWith('/time') ? 1700000000 : []);
    const before = srv.requests.length;
    const t = transport();
    const until = async (ok: () => boolean) => {
      for (let i = 0; i < 300 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
      expect(ok()).toBe(true);
    };
    const warmups = () => srv.requests.slice(before).filter((r) => r.method === 'GET' && r.path.endsWith('/time'));
    try {
      t.keepSubmitWarm();
      await until(() => warmups().length === 4);
      const warmPorts = new Set(warmups().map((r) => r.remotePort));
      expect(warmPorts.size).toBe(4);
      // orders, even several at once, go over those connections: none is opened for them
      await Promise.all([1, 2, 3].map((i) => t.request({ method: 'POST', path: '/orders', body: [i] })));
      const posts = srv.requests.slice(before).filter((r) => r.method === 'POST');
      expect(posts).toHaveLength(3);
      for (const r of posts) expect(warmPorts.has(r.remotePort)).toBe(true);
      // the venue closes one: it is opened again (a GET on a new port) without an order asking
      handler = (q, res) => (q.body === '["close"]' ? res.socket?.destroy() : send(res, 200, q.path.endsWith('/time') ? 1700000000 : []));
      const n = warmups().length;
      await t.request({ method: 'POST', path: '/orders', body: ['close'] }).catch(() => undefined);
      await until(() => warmups().length > n);
      expect(warmPorts.has(warmups()[warmups().length - 1].remotePort)).toBe(false);
    } finally {
      await t.close();
    }
  });
  // Found in review: every request but a place shared one pool, which undici serves in arrival
  // order: a burst of slow reads (a resync's books) held a cancel behind them until its deadline.
  it('a cancel and a heartbeat are not queued behind reads that fill the pool: they are answered first', async () => {
    const done: string[] = [];
    handler = (q, res) => {
      if (q.method === 'GET') setTimeout(() => send(res, 200, { ok: true }), 800);
      else send(res, 200, q.method === 'DELETE' ? { canceled: [], not_canceled: {} } : { heartbeat_id: 'h1' });
    };
    const t = transport({ http: { ...testHttp, headersTimeoutMs: 3000, bodyTimeoutMs: 3000 } });
    try {
      const calls: Array<Promise<unknown>> = [];
      // twice the pool's connections of slow reads, then a cancel and a heartbeat
      for (let i = 0; i < 2 * testHttp.connectionsPerOrigin; i++) calls.push(t.request({ method: 'GET', path: '/book', query: { token_id: String(i) } }).then(() => done.push('GET')));
      calls.push(t.request({ method: 'DELETE', path: '/orders', body: ['o1'] }).then(() => done.push('DELETE')));
      calls.push(t.request({ method: 'POST', path: '/v1/heartbeats', body: { heartbeat_id: '' } }).then(() => done.push('HEARTBEAT')));
      await Promise.all(calls);
    } finally {
      await t.close();
    }
    expect(done.slice(0, 2).sort()).toEqual(['DELETE', 'HEARTBEAT']);
  });

  // Found reviewing that change: a pool of 2 for both queued the heartbeat behind slow cancels (the
  // scheduler has up to 8 requests in flight), past its 2 s deadline: the dead-man switch fires.
  it('a heartbeat is not queued behind slow cancels, nor a cancel behind fewer than 8 others', async () => {
    const done: string[] = [];
    let deletes = 0;
    let arrivedAtFirstAnswer = 0;
    handler = (q, res) => {
      if (q.method !== 'DELETE') return send(res, 200, { heartbeat_id: 'h1' });
      deletes++;
      setTimeout(() => {
        arrivedAtFirstAnswer ||= deletes;
        send(res, 200, { canceled: [], not_canceled: {} });
      }, 800);
    };
    const t = transport({ http: { ...testHttp, connectionsPerOrigin: 16, headersTimeoutMs: 3000, bodyTimeoutMs: 3000 } });
    try {
      const calls: Array<Promise<unknown>> = [];
      for (let i = 0; i < 8; i++) {
        calls.push(t.request({ method: 'DELETE', path: '/orders', body: [`o${i}`] }).then(() => done.push(`DELETE ${i}`)));
      }
      calls.push(t.request({ method: 'POST', path: '/v1/heartbeats', body: { heartbeat_id: '' } }).then(() => done.push('HEARTBEAT')));
      await Promise.all(calls);
    } finally {
      await t.close();
    }
    expect(done[0]).toBe('HEARTBEAT');
    // the 8 cancels went together: all 8 had arrived when the first was answered
    expect(arrivedAtFirstAnswer).toBe(8);
  });

  it('keeps the keep-alive connection across DELETEs with a body (no reconnect per cancel)', async () => {
    handler = (_q, res) => send(res, 200, { canceled: [], not_canceled: {} });
    const before = srv.requests.length;
    const t = transport();
    try {
      for (let i = 0; i < 6; i++) await t.request({ method: 'DELETE', path: '/orders', body: [`o${i}`] });
      await t.request({ method: 'POST', path: '/orders', body: [] });
    } finally {
      await t.close();
    }
    const ports = srv.requests.slice(before).map((r) => r.remotePort);
    expect(ports).toHaveLength(7);
    // back-to-back requests may alternate between two pooled sockets (undici frees a socket one
    // loop turn after its response); a socket closed after each DELETE would give 6 ports
    const deletes = new Set(ports.slice(0, 6));
    expect(deletes.size).toBeLessThanOrEqual(2);
    // POST /orders has a connection of its own
    expect(deletes.has(ports[6])).toBe(false);
  });
  it("writes a POST /orders on its warm keep-alive connection in the caller's turn (no wait for the check phase)", async () => {
    handler = (_q, res) => send(res, 200, []);
    const before = srv.requests.length;
    const t = transport();
    const written: string[] = [];
    const onSent = (m: unknown) => written.push((m as { request: { path: string } }).request.path);
    subscribe('undici:request:bodySent', onSent);
    try {
      for (let i = 0; i < 5; i++) {
        await t.request({ method: 'POST', path: '/orders', body: [] });
        // a read and a cancel in between use the other pool
        await t.request({ method: 'GET', path: '/book' });
        await new Promise((r) => setTimeout(r, 5));
        written.length = 0;
        const p = t.request({ method: 'POST', path: '/orders', body: [i] });
        expect(written).toEqual(['/orders']); // on the socket before any await
        await p;
      }
    } finally {
      unsubscribe('undici:request:bodySent', onSent);
      await t.close();
    }
    const ports = srv.requests
      .slice(before)
      .filter((r) => r.method === 'POST')
      .map((r) => r.remotePort);
    expect(ports).toHaveLength(10);
    expect(new Set(ports).size).toBe(1); // never reopened
  });
  it("a request the limiter grants at once is handed to undici in the caller's turn", async () => {
    handler = (_q, res) => send(res, 200, []);
    const t = transport();
    const created: string[] = [];
    const onCreate = (m: unknown) => created.push((m as { request: { path: string } }).request.path);
    subscribe('undici:request:create', onCreate);
    try {
      const p = t.request({ method: 'POST', path: '/orders', body: [] });
      expect(created).toEqual(['/orders']); // synchronously, before any await
      await p;
    } finally {
      unsubscribe('undici:request:create', onCreate);
      await t.close();
    }
  });
});

describe('transport: ambiguous submits are never re-sent', () => {
  for (const path of ['/order', '/orders']) {
    it(`POST ${path} 500 -> AmbiguousSubmitError, one request`, async () => {
      const r = await run({ method: 'POST', path, body: {} }, (_q, res) => send(res, 500, { error: 'Internal server error' }));
      expect(r.error).toBeInstanceOf(AmbiguousSubmitError);
      expect(r.count).toBe(1);
    });
    it(`POST ${path} dropped connection -> AmbiguousSubmitError, one request`, async () => {
      const r = await run({ method: 'POST', path, body: {} }, (_q, res) => res.socket?.destroy());
      expect(r.error).toBeInstanceOf(AmbiguousSubmitError);
      expect(r.count).toBe(1);
    });
  }
  it('POST /order with no answer before headersTimeout -> AmbiguousSubmitError, one request', async () => {
    const t0 = Date.now();
    const r = await run({ method: 'POST', path: '/order', body: {} }, (_q, res) => setTimeout(() => send(res, 200, {}), 1500).unref());
    expect(r.error).toBeInstanceOf(AmbiguousSubmitError);
    expect(r.count).toBe(1);
    expect(Date.now() - t0).toBeLessThan(1400);
  });
  it('POST /order 400 is a plain rejection (ApiError), not ambiguous', async () => {
    const body = fixture('nautilus_trader/rust_test_data/http_order_response_failed.json');
    const r = await run({ method: 'POST', path: '/order', body: {} }, (_q, res) => send(res, 400, body));
    expect(r.error).toBeInstanceOf(ApiError);
    expect(r.error).not.toBeInstanceOf(AmbiguousSubmitError);
    expect((r.error as ApiError).apiMessage).toBe('Insufficient balance');
    expect(r.count).toBe(1);
  });
});

describe('transport: 429', () => {
  it('429 with headers pauses the scope, then succeeds', async () => {
    let n = 0;
    const limiter = new Limiter({ clock: new WallClock({ keepAlive: true }) });
    const t0 = Date.now();
    const r = await run(
      { method: 'GET', path: '/book' },
      (_q, res) =>
        ++n === 1 ? send(res, 429, { error: 'rate limited' }, { 'X-RateLimit-Limit': '100', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': String(Date.now() + 150) }) : send(res, 200, { ok: 1 }),
      { limiter },
    );
    expect(r.result).toEqual({ ok: 1 });
    expect(r.count).toBe(2);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
    expect(limiter.pausedUntil('clob:GET /book')).toBeGreaterThan(0);
    expect(limiter.pausedUntil('clob')).toBe(0);
    // the venue's window is full (Remaining 0) though ours held one request: ours is counted full
    // too, its slots coming back one per 10 s / 100 from the reset, not all at once (each of a
    // drained queue would be answered 429 again)
    const book = limiter.scopesOf('clob', 'GET', '/book').find((s) => s.id === 'clob:GET /book');
    if (!book) throw new Error('no GET /book scope');
    const now = limiter.clock.now();
    expect(limiter.window(book).used(now)).toBe(100);
    expect(limiter.window(book).nextFreeAt(now) - now).toBeGreaterThan(40);
  });
  it('the 429 pauses the scope whose limit X-RateLimit-Limit names', async () => {
    let n = 0;
    const limiter = new Limiter({ clock: new WallClock({ keepAlive: true }), scale: 0.5 });
    const r = await run(
      { method: 'GET', path: '/book' },
      (_q, res) => (++n === 1 ? send(res, 429, { error: 'rate limited' }, { 'X-RateLimit-Limit': '7500', 'X-RateLimit-Reset': '0.05' }) : send(res, 200, { ok: 1 })),
      { limiter },
    );
    expect(r.result).toEqual({ ok: 1 });
    expect(limiter.pausedUntil('clob')).toBeGreaterThan(0); // 15000 x 0.5: CLOB general
    expect(limiter.pausedUntil('clob:GET /book')).toBe(0);
  });
  it("a 429 naming no limit, on a request without a scope of its own (the real venue's GET /data/orders), pauses no API-wide scope: every cancel would wait behind it", async () => {
    const limiter = new Limiter({ clock: new WallClock({ keepAlive: true }) });
    expect((await run({ method: 'GET', path: '/data/orders' }, (_q, res) => send(res, 429, { error: 'Too Many Requests' }, { 'Retry-After': '60' }), { limiter })).error).toBeInstanceOf(
      RateLimitError,
    );
    expect(limiter.pausedUntil('clob')).toBe(0);
    expect(limiter.pausedUntil('general')).toBe(0);
    // one with a scope of its own still pauses that scope
    expect((await run({ method: 'GET', path: '/book' }, (_q, res) => send(res, 429, { error: 'Too Many Requests' }, { 'Retry-After': '60' }), { limiter })).error).toBeInstanceOf(RateLimitError);
    expect(limiter.pausedUntil('clob:GET /book')).toBeGreaterThan(Date.now());
    expect(limiter.pausedUntil('clob')).toBe(0);
  });
  it('a 429 pauses a scope no longer than that scope can be full: a 15-minute reset on the CLOB-wide scope (10 s window) held every cancel for 15 minutes', async () => {
    // found in review: X-RateLimit-Limit 15000 names the CLOB-wide scope, every CLOB request's
    // (cancels and cancel-all too); its window is 10 s, so a reset 15 min away is a wrong header
    // or a limit we do not know, and pausing every cancel on it left stale quotes resting
    const limiter = new Limiter({ clock: new WallClock({ keepAlive: true }) });
    const r = await run({ method: 'GET', path: '/book' }, (_q, res) => send(res, 429, { error: 'rate limited' }, { 'X-RateLimit-Limit': '15000', 'X-RateLimit-Reset': String(Date.now() + 900_000) }), {
      limiter,
    });
    expect(r.error).toBeInstanceOf(RateLimitError);
    const now = limiter.clock.now();
    expect(limiter.pausedUntil('clob')).toBeGreaterThan(now);
    expect(limiter.pausedUntil('clob') - now).toBeLessThanOrEqual(10_000);
    // a per-signer bucket at most its refill from the deepest debt a venue's count may put it in
    const signer = new Limiter({ clock: new WallClock({ keepAlive: true }), signerTier: 'standard' });
    const c = await run({ method: 'DELETE', path: '/orders', body: ['a'] }, (_q, res) => send(res, 429, { error: 'Too Many Requests' }, { 'Retry-After': '900' }), {
      limiter: signer,
    });
    expect(c.error).toBeInstanceOf(RateLimitError);
    const bucket = signer.scopesOf('clob', 'DELETE', '/orders').find((x) => x.bucket !== undefined);
    if (!bucket) throw new Error('no cancel bucket');
    const left = signer.pausedUntil(bucket.id) - signer.clock.now();
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(11 * signer.window(bucket).windowMs);
    expect(left).toBeLessThan(60_000);
    // a 10-minute window's reset is taken whole
    const w = new Limiter({ clock: new WallClock({ keepAlive: true }) });
    const d = await run(
      { method: 'DELETE', path: '/orders', body: ['a'] },
      (_q, res) => send(res, 429, { error: 'rate limited' }, { 'X-RateLimit-Limit': '15000', 'X-RateLimit-Reset': String(Date.now() + 300_000) }),
      { limiter: w },
    );
    expect(d.error).toBeInstanceOf(RateLimitError);
    expect(w.pausedUntil('clob:DELETE /orders:sustained') - w.clock.now()).toBeGreaterThan(250_000);
    // a submit's 429 (not retried) is bounded the same way: its burst scope's 10 s
    const p = new Limiter({ clock: new WallClock({ keepAlive: true }) });
    const sub = await run(
      { method: 'POST', path: '/orders', body: [] },
      (_q, res) => send(res, 429, { error: 'rate limited' }, { 'X-RateLimit-Limit': '1000', 'X-RateLimit-Reset': String(Date.now() + 900_000) }),
      { limiter: p },
    );
    expect(sub.error).toBeInstanceOf(RateLimitError);
    const held = p.pausedUntil('clob:POST /orders:burst') - p.clock.now();
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThanOrEqual(10_000);
    expect((sub.error as RateLimitError).resetAtMs).toBe(p.pausedUntil('clob:POST /orders:burst'));
  });
  it('a 429 that pauses no scope (GET /data/orders, Retry-After: 2) still holds the retry until then: the venue asked us to wait', async () => {
    const at: number[] = [];
    const limiter = new Limiter({ clock: new WallClock({ keepAlive: true }) });
    const r = await run(
      { method: 'GET', path: '/data/orders' },
      (_q, res) => {
        at.push(Date.now());
        if (at.length === 1) send(res, 429, { error: 'Too Many Requests' }, { 'Retry-After': '2' });
        else send(res, 200, { data: [], next_cursor: 'LTE=' });
      },
      // a read deadline with room for the 2 s wait (and the backoff far below it)
      { limiter, http: { ...testHttp, readDeadlineMs: 4000 } },
    );
    expect(r.result).toEqual({ data: [], next_cursor: 'LTE=' });
    expect(r.count).toBe(2);
    expect(at[1] - at[0]).toBeGreaterThanOrEqual(1900);
    // nothing was paused: the wait was the request's own
    expect(limiter.pausedUntil('clob')).toBe(0);
    expect(limiter.pausedUntil('general')).toBe(0);
  });
  it('POST /order 429 is not retried: nothing was accepted, and the same quote sent seconds later would be stale (the caller sends its newest after the pause)', async () => {
    let n = 0;
    const r = await run({ method: 'POST', path: '/order', body: {} }, (_q, res) =>
      ++n === 1 ? send(res, 429, { error: 'slow down' }, { 'Retry-After': '1' }) : send(res, 200, { success: true, orderID: 'o1', errorMsg: '' }),
    );
    expect(r.error).toBeInstanceOf(RateLimitError);
    expect((r.error as RateLimitError).notSent).toBe(true);
    expect(r.count).toBe(1);
    // a read is still retried after the wait
    n = 0;
    const read = await run({ method: 'GET', path: '/book', query: { token_id: '1' } }, (_q, res) => (++n === 1 ? send(res, 429, { error: 'slow down' }) : send(res, 200, { bids: [], asks: [] })));
    expect(read.count).toBe(2);
    expect(read.result).toEqual({ bids: [], asks: [] });
  });
  it('a POST /order 429 naming no reset still pauses the order scope, longer at each 429 in a row (the newest quote would otherwise be resent at the debounce, ten times a second)', async () => {
    const limiter = new Limiter({ clock: new WallClock({ keepAlive: true }) });
    // steps of 100, 200, 400 ms: the test's own measuring, late by a loaded machine's few ms, cannot reorder them
    const t = transport({ limiter, retry: { baseMs: 100, maxMs: 1000 } });
    const held = () => Math.max(...limiter.scopesOf('clob', 'POST', '/order').map((s) => limiter.pausedUntil(s.id))) - limiter.clock.now();
    try {
      handler = (_q, res) => send(res, 429, { error: 'slow down' });
      const waits: number[] = [];
      for (let i = 0; i < 3; i++) {
        // each once the previous pause is over (the scheduler waits for it)
        const wait = held();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait + 5));
        const err = await t.request({ method: 'POST', path: '/order', body: {} }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(RateLimitError);
        waits.push(held());
      }
      expect(waits[0]).toBeGreaterThan(0);
      expect(waits[1]).toBeGreaterThan(waits[0]);
      expect(waits[2]).toBeGreaterThan(waits[1]);
      // one that goes through ends the run: the next 429 waits the first step again
      handler = (_q, res) => send(res, 200, { success: true, orderID: 'o1', errorMsg: '' });
      await new Promise((r) => setTimeout(r, held() + 5));
      await t.request({ method: 'POST', path: '/order', body: {} });
      handler = (_q, res) => send(res, 429, { error: 'slow down' });
      await t.request({ method: 'POST', path: '/order', body: {} }).catch(() => undefined);
      expect(held()).toBeLessThanOrEqual(waits[0] + 5);
    } finally {
      await t.close();
    }
  });
  // the venue's per-signer order and cancel buckets (docs.polymarket.com/api-reference/trading-rate-limits):
  // a 429 names its wait in Retry-After (seconds) and Poly-RateLimit-Reset (epoch seconds), not X-RateLimit-Reset
  it('a per-signer 429 (Retry-After, Poly-RateLimit-Reset) pauses every endpoint of that bucket until then', async () => {
    let n = 0;
    const limiter = new Limiter({ clock: new WallClock({ keepAlive: true }), signerTier: 'standard' });
    const t0 = Date.now();
    const r = await run(
      { method: 'POST', path: '/orders', body: [] },
      (_q, res) =>
        ++n === 1
          ? send(res, 429, { error: 'Too Many Requests' }, { 'Retry-After': '1', 'Poly-RateLimit-Reset': String(Math.ceil(Date.now() / 1000) + 1), 'Poly-RateLimit-Tier': 'standard' })
          : send(res, 200, []),
      { limiter },
    );
    // not retried (see above): the bucket waits the venue's time
    expect(r.error).toBeInstanceOf(RateLimitError);
    expect(r.count).toBe(1);
    expect(limiter.pausedUntil('signer:orders') - limiter.clock.now()).toBeGreaterThan(800);
    // the order bucket is paused, and POST /order draws from it too; the cancel bucket is not, nor any per-IP window
    const held = (method: string, path: string) => limiter.scopesOf('clob', method, path).some((s) => limiter.pausedUntil(s.id) > t0);
    expect(held('POST', '/orders')).toBe(true);
    expect(held('POST', '/order')).toBe(true);
    expect(held('DELETE', '/orders')).toBe(false);
    expect(held('GET', '/book')).toBe(false);
    expect(limiter.pausedUntil('signer:orders')).toBeGreaterThan(t0);
  });
  it('a per-signer 429 from a venue whose clock runs 5 s ahead (a skew start-up lets pass) waits its Retry-After, not the reset read on our clock', async () => {
    // found in review: the latest of Retry-After and the absolute Poly-RateLimit-Reset was taken, and
    // the absolute one read on our clock put the pause past the place deadline: no retry, and the
    // batch counted as failed orders toward the error-rate breaker
    let n = 0;
    const limiter = new Limiter({ clock: new WallClock({ keepAlive: true }), signerTier: 'standard' });
    const aheadS = () => Math.ceil((Date.now() + 5000) / 1000);
    const r = await run(
      { method: 'POST', path: '/orders', body: [] },
      (_q, res) =>
        ++n === 1 ? send(res, 429, { error: 'Too Many Requests' }, { 'Retry-After': '1', 'Poly-RateLimit-Reset': String(aheadS() + 1), 'Poly-RateLimit-Tier': 'standard' }) : send(res, 200, []),
      { limiter, http: { ...testHttp, placeDeadlineMs: 5000 } },
    );
    expect(r.error).toBeInstanceOf(RateLimitError);
    expect(r.count).toBe(1);
    // the bucket waits its Retry-After (1 s), not the absolute reset read on our clock (6 s)
    const left = limiter.pausedUntil('signer:orders') - limiter.clock.now();
    expect(left).toBeGreaterThan(800);
    expect(left).toBeLessThanOrEqual(1000);
  });
  it('per-signer headers that make no sense move nothing far: an unknown tier is ignored, a wild balance is taken down to 10 bursts of debt at most', async () => {
    const clock = new WallClock({ keepAlive: true });
    const limiter = new Limiter({ clock, signerTier: 'standard' });
    const orders = limiter.scopesOf('clob', 'POST', '/orders');
    for (const [tier, left] of [
      ['ultra', '1e400'],
      ['', 'NaN'],
      ['Gold ', '-1e12'],
    ]) {
      const r = await run({ method: 'POST', path: '/orders', body: [], cost: 1 }, (_q, res) => send(res, 200, [], { 'Poly-RateLimit-Tier': tier, 'Poly-RateLimit-Remaining': left }), { limiter });
      expect(r.error).toBeUndefined();
    }
    // 'Gold ' is a tier (trimmed); its order burst is 600, so the debt stops at -6000 tokens: 15 s at 400/s
    expect(limiter.signerTier).toBe('gold');
    const wait = limiter.window(orders[orders.length - 1]).nextFreeAt(clock.now(), 1) - clock.now();
    expect(wait).toBeGreaterThan(14_000);
    expect(wait).toBeLessThan(16_000);
  });
  it('a cancel-bucket 429 pauses every cancel endpoint and no order endpoint', async () => {
    let n = 0;
    const limiter = new Limiter({ clock: new WallClock({ keepAlive: true }), signerTier: 'standard' });
    const t0 = Date.now();
    const r = await run(
      { method: 'DELETE', path: '/order', body: { orderID: 'o1' } },
      (_q, res) => (++n === 1 ? send(res, 429, { error: 'Too Many Requests' }, { 'Retry-After': '0.2' }) : send(res, 200, { canceled: ['o1'], not_canceled: {} })),
      { limiter },
    );
    expect(r.count).toBe(2);
    const held = (method: string, path: string) => limiter.scopesOf('clob', method, path).some((s) => limiter.pausedUntil(s.id) > t0);
    for (const path of ['/order', '/orders', '/cancel-all', '/cancel-market-orders']) expect(held('DELETE', path), path).toBe(true);
    expect(held('POST', '/orders')).toBe(false);
    expect(held('POST', '/order')).toBe(false);
  });
  it('429 until attempts run out -> RateLimitError naming the endpoint', async () => {
    const r = await run({ method: 'GET', path: '/price' }, (_q, res) => send(res, 429, { error: 'rate limited' }, { 'X-RateLimit-Reset': '0' }), { attempts: 4 });
    expect(r.error).toBeInstanceOf(RateLimitError);
    const e = r.error as RateLimitError;
    expect([e.status, e.method, e.path]).toEqual([429, 'GET', '/price']);
    expect(e.message).toContain('GET /price');
    expect(r.count).toBe(4);
  });
  it('Retry-After in seconds (fractions too) or as an HTTP date', () => {
    const now = 1_700_000_000_000;
    expect(retryAfterAtMs('2', now)).toBe(now + 2000);
    expect(retryAfterAtMs('0.25', now)).toBe(now + 250);
    // seconds even past an hour (resetAtMs would read 5000 as ms), clamped to 15 minutes
    expect(retryAfterAtMs('5000', now)).toBe(now + 15 * 60_000);
    expect(retryAfterAtMs(new Date(now + 3000).toUTCString(), now)).toBe(now + 3000);
    expect(retryAfterAtMs(new Date(now - 3000).toUTCString(), now)).toBe(now);
    for (const bad of ['', 'soon', '-1', undefined]) expect(retryAfterAtMs(bad, now)).toBeUndefined();
  });
  it('X-RateLimit-Reset in epoch ms, epoch s and deltas', () => {
    const now = 1_700_000_000_000;
    expect(resetAtMs(String(now + 2000), now)).toBe(now + 2000);
    expect(resetAtMs(String(now / 1000 + 3), now)).toBe(now + 3000);
    expect(resetAtMs('5', now)).toBe(now + 5000);
    expect(resetAtMs('4000', now)).toBe(now + 4000);
    expect(resetAtMs(String(now - 5000), now)).toBe(now);
    expect(resetAtMs('1e15', now)).toBe(now + 15 * 60_000);
    expect(resetAtMs('abc', now)).toBeUndefined();
    expect(resetAtMs(undefined, now)).toBeUndefined();
  });
});

describe('transport: 425 (the venue restarting its matching engine)', () => {
  it('is neither retried nor a refusal: the order scope waits 1 s, then 2 s at the next 425; requests answered together are one wait', async () => {
    const limiter = new Limiter({ clock: new WallClock({ keepAlive: true }) });
    const scope = limiter.scopesOf('clob', 'POST', '/order')[0].id;
    handler = (_q, res) => send(res, 425, { error: 'Too Early' });
    const t = transport({ limiter });
    try {
      const before = srv.requests.length;
      const t0 = limiter.clock.now();
      const e1: unknown = await t.request({ method: 'POST', path: '/order', body: { a: 1 } }).catch((e: unknown) => e);
      expect(e1).toBeInstanceOf(VenueNotReadyError);
      expect(refusalOf(e1)).toBeUndefined();
      expect(srv.requests.length - before).toBe(1);
      const first = limiter.pausedUntil(scope);
      expect(first - t0).toBeGreaterThanOrEqual(1000);
      expect(first - t0).toBeLessThan(1500);
      // a cancel answered 425 meanwhile: the same wait, not a longer one
      const e2: unknown = await t.request({ method: 'DELETE', path: '/order', body: { orderID: 'x' } }).catch((e: unknown) => e);
      expect(e2).toBeInstanceOf(VenueNotReadyError);
      expect((e2 as VenueNotReadyError).retryAtMs).toBe(first);
      // the next place waits out the pause, is answered 425 again: 2 s
      const e3: unknown = await t.request({ method: 'POST', path: '/order', body: { a: 2 } }).catch((e: unknown) => e);
      expect(e3).toBeInstanceOf(VenueNotReadyError);
      expect(limiter.clock.now()).toBeGreaterThanOrEqual(first);
      const second = limiter.pausedUntil(scope);
      expect(second - first).toBeGreaterThanOrEqual(2000);
      expect(second - first).toBeLessThan(2600);
      expect(srv.requests.length - before).toBe(3);
    } finally {
      await t.close();
    }
  });

  it("a heartbeat's success does not end the waits (it says nothing of the matching engine); an order request's does", async () => {
    const limiter = new Limiter({ clock: new WallClock({ keepAlive: true }) });
    const scope = limiter.scopesOf('clob', 'POST', '/order')[0].id;
    let orderStatus = 425;
    handler = (q, res) =>
      q.path.endsWith('/heartbeats') ? send(res, 200, { heartbeat_id: 'h' }) : send(res, orderStatus, orderStatus === 425 ? { error: 'Too Early' } : { success: true, orderID: 'o', errorMsg: '' });
    const t = transport({ limiter });
    try {
      await t.request({ method: 'POST', path: '/order', body: { a: 1 } }).catch(() => undefined);
      const first = limiter.pausedUntil(scope);
      await t.request({ method: 'POST', path: '/v1/heartbeats', body: { heartbeat_id: '' } });
      await t.request({ method: 'POST', path: '/order', body: { a: 2 } }).catch(() => undefined);
      // the second wait is 2 s: the heartbeat between them reset nothing
      expect(limiter.pausedUntil(scope) - first).toBeGreaterThanOrEqual(2000);
      // an order request gone through ends the waits: the next 425 waits 1 s again
      orderStatus = 200;
      await t.request({ method: 'DELETE', path: '/order', body: { orderID: 'x' } });
      orderStatus = 425;
      const before = limiter.clock.now();
      await t.request({ method: 'DELETE', path: '/order', body: { orderID: 'y' } }).catch(() => undefined);
      const delScope = limiter.scopesOf('clob', 'DELETE', '/order')[0].id;
      expect(limiter.pausedUntil(delScope) - before).toBeLessThan(1500);
    } finally {
      await t.close();
    }
  }, 15_000);
});
