// Issue 12, item 5: the dead-man switch against a real node:http server. The first heartbeat must be
// accepted before start() resolves; the chain continues with the id each answer names (also the id
// a 400 refusal carries); a missed heartbeat is a health failure until one lands again.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ClobClient } from '../../src/api/clob-client.js';
import { Limiter } from '../../src/api/limiter.js';
import { polymarketProfile } from '../../src/api/polymarket-profile.js';
import { Transport } from '../../src/api/transport.js';
import { WallClock } from '../../src/core/clock.js';
import { createLogger, silentLogger } from '../../src/core/log.js';
import { heartbeatDeadlineMs, Heartbeats } from '../../src/session/heartbeats.js';
import { send, startServer, testHttp, testRetry, type TestServer } from '../api/http-server.js';

const PK = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80' as const;
let srv: TestServer;
let clob: ClobClient;
beforeAll(async () => {
  srv = await startServer((_r, res) => send(res, 200, {}));
  const profile = polymarketProfile({ privateKey: PK, apiKey: 'k', apiSecret: 'c2VjcmV0', apiPassphrase: 'p', signatureType: 0 });
  const limiter = new Limiter({ clock: new WallClock({ keepAlive: true }) });
  clob = new ClobClient(new Transport({ api: 'clob', baseUrl: srv.url, http: testHttp, retry: { ...testRetry, attempts: 1 }, limiter, auth: profile.authHeaders }), profile);
});
afterAll(async () => {
  await srv.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(cond: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(10);
  }
}

describe('heartbeats', () => {
  it('one failed heartbeat retried at once does not lapse the switch; a heartbeat and its retry both failed does', async () => {
    let mode: 'ok' | 'fail-once' | 'down' = 'ok';
    srv.setHandler((_r, res) => {
      if (mode === 'down') return send(res, 503, { error: 'unavailable' });
      if (mode === 'fail-once') {
        mode = 'ok';
        return send(res, 503, { error: 'unavailable' });
      }
      send(res, 200, { heartbeat_id: 'hb' });
    });
    const hb = new Heartbeats({ clob, intervalMs: 50, log: silentLogger });
    try {
      await hb.start();
      const seen: Array<string | undefined> = [];
      mode = 'fail-once';
      const end = performance.now() + 400;
      while (performance.now() < end) {
        seen.push(hb.lapsing());
        await sleep(5);
      }
      expect(hb.counters.failed).toBe(1);
      expect(seen.every((x) => x === undefined)).toBe(true);
      mode = 'down';
      await until(() => hb.lapsing() !== undefined);
      const reason = hb.lapsing();
      expect(reason).toMatch(/dead-man switch lapsing/);
      // the same words while it lasts: every market logs a change of its reason
      const failed = hb.counters.failed;
      await until(() => hb.counters.failed > failed + 1);
      expect(hb.lapsing()).toBe(reason);
      mode = 'ok';
      await until(() => hb.lapsing() === undefined);
    } finally {
      hb.stop();
    }
  });

  it('a step of the system clock forward is not a missed heartbeat (the age is measured on the monotonic clock)', async () => {
    srv.setHandler((_r, res) => send(res, 200, { heartbeat_id: 'hb' }));
    const realNow = Date.now.bind(Date);
    let stepMs = 0;
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + stepMs);
    const hb = new Heartbeats({ clob, intervalMs: 60_000, log: silentLogger });
    try {
      await hb.start();
      expect(hb.failing()).toBeUndefined();
      stepMs = 600_000;
      expect(hb.failing()).toBeUndefined();
    } finally {
      vi.restoreAllMocks();
      hb.stop();
    }
  });

  it('chains ids, follows the id a refusal names, and reports a missed heartbeat until one lands', async () => {
    const sent: string[] = [];
    let mode: 'ok' | 'refuse-once' | 'down' = 'ok';
    let n = 0;
    srv.setHandler((r, res) => {
      const id = (JSON.parse(r.body) as { heartbeat_id: string }).heartbeat_id;
      sent.push(id);
      if (mode === 'down') return send(res, 503, { error: 'unavailable' });
      if (mode === 'refuse-once') {
        mode = 'ok';
        return send(res, 400, { heartbeat_id: 'venue-says', error: 'Invalid Heartbeat ID' });
      }
      send(res, 200, { heartbeat_id: `hb${++n}` });
    });
    const hb = new Heartbeats({ clob, intervalMs: 50, log: silentLogger });
    try {
      await hb.start();
      expect(sent[0]).toBe('');
      expect(hb.failing()).toBeUndefined();
      await until(() => sent.length >= 3);
      expect(sent.slice(0, 3)).toEqual(['', 'hb1', 'hb2']);
      // a refused id: the next attempt carries the id the venue named
      mode = 'refuse-once';
      const at = sent.length;
      await until(() => sent.length >= at + 2);
      expect(sent[at + 1]).toBe('venue-says');
      // the venue stops answering: a health failure, then healthy again once one lands
      mode = 'down';
      await until(() => hb.failing() !== undefined);
      expect(hb.failing()).toMatch(/heartbeat failing/);
      mode = 'ok';
      await until(() => hb.failing() === undefined);
      // after a failure without an id the chain starts anew
      expect(sent.includes('')).toBe(true);
    } finally {
      hb.stop();
    }
    const stoppedAt = sent.length;
    await sleep(150);
    expect(sent.length).toBe(stoppedAt);
  });

  it('a failed heartbeat is tried again within a second, not a whole interval later (the venue cancels our orders 10 s after the last one)', async () => {
    const at: number[] = [];
    srv.setHandler((_r, res) => {
      at.push(Date.now());
      // the second one fails (a 500 the transport does not retry: a POST)
      if (at.length === 2) return send(res, 503, { error: 'unavailable' });
      send(res, 200, { heartbeat_id: `hb${at.length}` });
    });
    const hb = new Heartbeats({ clob, intervalMs: 3000, log: silentLogger });
    try {
      await hb.start();
      await until(() => at.length >= 3, 6000);
      expect(at[1] - at[0]).toBeGreaterThanOrEqual(2900);
      expect(at[2] - at[1]).toBeLessThan(1500);
      // the server saw the third before its answer reached the client: wait for the answer
      await until(() => hb.failing() === undefined, 1000);
      expect(hb.failing()).toBeUndefined();
      // accepted again: the interval is back
      await sleep(1500);
      expect(at.length).toBe(3);
    } finally {
      hb.stop();
    }
  }, 10_000);

  it('a heartbeat that gets no answer is cut by a deadline of its own, so its retry lands inside the venue window (not a read deadline later)', async () => {
    // undici's own timeouts far off and a long read deadline: only the heartbeat's deadline can cut the stall
    const http = { ...testHttp, headersTimeoutMs: 30_000, bodyTimeoutMs: 30_000, readDeadlineMs: 8000 };
    const limiter = new Limiter({ clock: new WallClock({ keepAlive: true }) });
    const profile = polymarketProfile({ privateKey: PK, apiKey: 'k', apiSecret: 'c2VjcmV0', apiPassphrase: 'p', signatureType: 0 });
    const slow = new ClobClient(new Transport({ api: 'clob', baseUrl: srv.url, http, retry: { ...testRetry, attempts: 1 }, limiter, auth: profile.authHeaders }), profile);
    const at: number[] = [];
    srv.setHandler((_r, res) => {
      at.push(Date.now());
      if (at.length === 2) return; // accepted, then a stall: never answered
      send(res, 200, { heartbeat_id: `hb${at.length}` });
    });
    // a 5 s venue window with a 2 s interval: deadline (5000 - 2000 - 1000) / 2 = 1000 ms
    const windowMs = 5000;
    const hb = new Heartbeats({ clob: slow, intervalMs: 2000, windowMs, log: silentLogger });
    try {
      await hb.start();
      // long enough to see where today's retry lands (2 s + the 8 s read deadline + 1 s)
      await until(() => at.length >= 3, 12_000);
      expect(at[1] - at[0]).toBeGreaterThanOrEqual(1900);
      // the stalled one was given its deadline, then the retry wait
      expect(at[2] - at[1]).toBeGreaterThanOrEqual(1900);
      // the next heartbeat after the accepted one reaches the venue within its window
      expect(at[2] - at[0]).toBeLessThan(windowMs);
      await until(() => hb.failing() === undefined, 1000);
    } finally {
      hb.stop();
      await slow.transport.close();
    }
  }, 20_000);

  it('the heartbeat deadline: a failed beat and its retry both fit the window after the accepted one, within the read deadline, at least 500 ms', () => {
    // default config: interval 5 s, read deadline 10 s, the venue's 10 s -> (10000 - 5000 - 1000) / 2
    expect(heartbeatDeadlineMs(5000, 10_000)).toBe(2000);
    expect(heartbeatDeadlineMs(2000, 10_000)).toBe(3500);
    expect(heartbeatDeadlineMs(2000, 1500)).toBe(1500);
    // the config's longest interval leaves no room: the floor
    expect(heartbeatDeadlineMs(9000, 10_000)).toBe(500);
    // a short interval retries after the interval, not RETRY_MS
    expect(heartbeatDeadlineMs(500, 10_000)).toBe(4500);
    expect(heartbeatDeadlineMs(2000, 8000, 5000)).toBe(1000);
  });

  it("a restart's first heartbeat, refused with the id to continue with, is no error: the retry is accepted (soak 6 logged ERROR at every start)", async () => {
    // the venue still holds the last process's chain: "" is refused, naming the id to carry
    srv.setHandler((r, res) => {
      const id = (JSON.parse(r.body) as { heartbeat_id: string }).heartbeat_id;
      if (id === '') return send(res, 400, { heartbeat_id: 'old-chain', error: 'Invalid Heartbeat ID' });
      send(res, 200, { heartbeat_id: 'next' });
    });
    const lines: Array<{ level: number; msg: string; afterMs?: number }> = [];
    const log = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(JSON.parse(s) as { level: number; msg: string }) } });
    const hb = new Heartbeats({ clob, intervalMs: 60_000, log });
    try {
      await hb.start();
      expect(hb.failing()).toBeUndefined();
      expect(lines.filter((l) => l.level >= 50)).toEqual([]);
      // nothing was failing before: no 'accepted again' (its afterMs was the epoch)
      expect(lines.filter((l) => /accepted again/.test(l.msg))).toEqual([]);
    } finally {
      hb.stop();
    }
  });

  it('start() fails when the venue refuses the first heartbeat', async () => {
    srv.setHandler((_r, res) => send(res, 401, { error: 'Unauthorized/Invalid api key' }));
    const hb = new Heartbeats({ clob, intervalMs: 50, log: silentLogger });
    await expect(hb.start()).rejects.toThrow(/did not accept a heartbeat: .*Invalid api key/);
    hb.stop();
  });
});
