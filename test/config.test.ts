import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { apiKeyFromEnv, deepMerge, loadConfig, parseWith } from '../src/config.js';
import { configError } from './config/helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'makerd-config-'));
let n = 0;
function file(content: unknown): string {
  const p = join(dir, `c${n++}.json`);
  writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
  return p;
}

describe('loadConfig', () => {
  it('loads the defaults', () => {
    const c = loadConfig({ env: {} });
    expect(c.mode).toBe('paper');
    expect(c.retry.attempts).toBeGreaterThan(0);
    expect(c.http.connectTimeoutMs).toBeLessThan(10_000); // far below undici's defaults
  });
  it('merges a user file over the defaults, key by key', () => {
    const c = loadConfig({ file: file({ retry: { attempts: 7 }, markets: ['123'] }), env: {} });
    expect(c.retry).toMatchObject({ attempts: 7, baseMs: 500 });
    expect(c.markets).toEqual(['123']);
  });
  it('env overrides win over the file', () => {
    const c = loadConfig({
      file: file({ urls: { gamma: 'http://10.0.0.1:1' } }),
      env: { MAKERD_GAMMA_URL: 'http://127.0.0.1:9', MAKERD_LIMIT_SCALE: '0.5', MAKERD_WINDOW_SCALE: '0.1', MAKERD_DB: '/tmp/x.db', MAKERD_STATUS_PORT: '0' },
    });
    expect(c.urls.gamma).toBe('http://127.0.0.1:9');
    expect(c.limits).toEqual({ scale: 0.5, windowScale: 0.1 });
    expect(c.store.path).toBe('/tmp/x.db');
    expect(c.status.port).toBe(0);
  });
  it('an unknown key is named with its full path', () => {
    expect(configError(() => loadConfig({ file: file({ retry: { atempts: 3 } }), env: {} }))).toMatchObject({ key: 'retry.atempts', reason: 'unknown key' });
    expect(configError(() => loadConfig({ file: file({ colour: 'red' }), env: {} })).key).toBe('colour');
  });
  it('a wrong type is named', () => {
    const e = configError(() => loadConfig({ file: file({ status: { port: '9464' } }), env: {} }));
    expect(e.key).toBe('status.port');
    expect(configError(() => loadConfig({ file: file({ mode: 'yolo' }), env: {} })).key).toBe('mode');
    expect(configError(() => loadConfig({ file: file({ scheduler: { maxBatch: 16 } }), env: {} })).key).toBe('scheduler.maxBatch');
    expect(configError(() => loadConfig({ file: file({ markets: ['0xabc'] }), env: {} })).key).toBe('markets.0');
  });
  it('a cron expression that does not parse is named at load (exit 2), not after start-up has cancelled orders', () => {
    const e = configError(() => loadConfig({ file: file({ cron: { reconcile: '*/2 * * *x' } }), env: {} }));
    expect(e).toMatchObject({ key: 'cron.reconcile' });
    expect(e.reason).toMatch(/cron expression/);
    expect(loadConfig({ file: file({ cron: { reconcile: '*/30 * * * * *' } }), env: {} }).cron.reconcile).toBe('*/30 * * * * *');
  });
  it('a delay past what a timer can hold (2^31 ms: Node fires it after 1 ms) is named at load', () => {
    // a shutdown bound meant as "as long as it takes" would have exited before the cancel-all
    expect(configError(() => loadConfig({ file: file({ daemon: { shutdownTimeoutMs: 2 ** 31 - 1 } }), env: {} }))).toMatchObject({ key: 'daemon.shutdownTimeoutMs' });
    expect(configError(() => loadConfig({ file: file({ daemon: { startupTimeoutMs: 3e9 } }), env: {} })).key).toBe('daemon.startupTimeoutMs');
    expect(configError(() => loadConfig({ file: file({ feed: { pingIntervalMs: 2 ** 31 } }), env: {} })).key).toBe('feed.pingIntervalMs');
    expect(configError(() => loadConfig({ file: file({ http: { placeDeadlineMs: 2 ** 32 } }), env: {} })).key).toBe('http.placeDeadlineMs');
    expect(configError(() => loadConfig({ file: file({ sim: { orderLatencyMs: 2 ** 31 } }), env: {} })).key).toBe('sim.orderLatencyMs');
    expect(configError(() => loadConfig({ file: file({ risk: { staleBookMs: 2 ** 31 } }), env: {} })).key).toBe('risk.staleBookMs');
    // a week still is one; ages that are never timers may be longer
    expect(loadConfig({ file: file({ daemon: { shutdownTimeoutMs: 604_800_000 } }), env: {} }).daemon.shutdownTimeoutMs).toBe(604_800_000);
    expect(loadConfig({ file: file({ store: { orderRetentionMs: 90 * 86_400_000 } }), env: {} }).store.orderRetentionMs).toBe(90 * 86_400_000);
  });
  it("a heartbeat interval too long for a failed beat's retry to land inside the venue's 10 s window is named at load", () => {
    // a beat at T + interval that gets no answer fails after its own deadline, and its retry must
    // still land before T + 10 s (session/heartbeats.ts heartbeatDeadlineMs): 7 s leaves 1 s each
    expect(configError(() => loadConfig({ file: file({ venue: { profile: 'polymarket', heartbeatIntervalMs: 9000 } }), env: {} })).key).toBe('venue.heartbeatIntervalMs');
    expect(loadConfig({ file: file({ venue: { profile: 'polymarket', heartbeatIntervalMs: 7000 } }), env: {} }).venue.heartbeatIntervalMs).toBe(7000);
  });
  it('a MAKERD_ variable makerd does not read is refused, naming it and the one it is nearest to: a misspelt one would be ignored in silence', () => {
    // review: MAKERD_LIMITS_SCALE=0.5 (two daemons on one key) ran both at the full rate
    const e = configError(() => loadConfig({ env: { MAKERD_LIMITS_SCALE: '0.5' } }));
    expect(e.key).toBe('MAKERD_LIMITS_SCALE');
    expect(e.message).toMatch(/not a variable makerd reads \(did you mean MAKERD_LIMIT_SCALE\?\)/);
    expect(configError(() => loadConfig({ env: { MAKERD_CLOB_URl: 'http://127.0.0.1:9' } })).message).toMatch(/did you mean MAKERD_CLOB_URL\?/);
    expect(configError(() => loadConfig({ env: { MAKERD_SOMETHING_ELSE: '1' } })).message).not.toMatch(/did you mean/);
    // every variable makerd reads, an empty one, the benchmarks' and other programs' are taken
    const every = [
      'MAKERD_VENUE',
      'MAKERD_CLOB_URL',
      'MAKERD_GAMMA_URL',
      'MAKERD_DATA_URL',
      'MAKERD_CONTENT_URL',
      'MAKERD_WS_URL',
      'MAKERD_PRICE_FEED_URL',
      'MAKERD_DB',
      'MAKERD_STATUS_PORT',
      'MAKERD_STATUS_HOST',
      'MAKERD_LIMIT_SCALE',
      'MAKERD_WINDOW_SCALE',
      'MAKERD_LOG_LEVEL',
      'MAKERD_API_KEY',
      'MAKERD_API_SECRET',
      'MAKERD_API_PASSPHRASE',
      'MAKERD_PRIVATE_KEY',
      'MAKERD_FUNDER',
      'MAKERD_SIGNATURE_TYPE',
    ];
    expect(() => loadConfig({ env: Object.fromEntries(every.map((k) => [k, ''])) })).not.toThrow();
    expect(() => loadConfig({ env: { MAKERD_LIMITS_SCALE: '', MAKERD_BENCH_MARKETS: '10', PATH: '/bin', MAKERDX: '1' } })).not.toThrow();
    // the test suite's switches, which the README tells developers to export
    expect(() => loadConfig({ env: { MAKERD_CHROMIUM: '/usr/bin/chromium', MAKERD_MATRIX_SECONDS: '5', MAKERD_MATRIX_ONLY: 'x', MAKERD_SOAK_KILLS: '3' } })).not.toThrow();
  });

  it('a bad environment variable is named', () => {
    expect(configError(() => loadConfig({ env: { MAKERD_LIMIT_SCALE: 'abc' } })).key).toBe('MAKERD_LIMIT_SCALE');
    expect(configError(() => loadConfig({ env: { MAKERD_STATUS_PORT: 'x' } })).key).toBe('MAKERD_STATUS_PORT');
    expect(configError(() => loadConfig({ env: { MAKERD_WINDOW_SCALE: '-1' } })).key).toBe('MAKERD_WINDOW_SCALE');
    expect(configError(() => loadConfig({ env: { MAKERD_GAMMA_URL: 'not a url' } })).key).toBe('MAKERD_GAMMA_URL');
    // the orders retention: 0 (keep all) or at least the hour start-up reads back
    expect(loadConfig({ env: {} }).store.orderRetentionMs).toBe(86_400_000);
    expect(loadConfig({ env: {}, overrides: { store: { orderRetentionMs: 0 } } }).store.orderRetentionMs).toBe(0);
    expect(configError(() => loadConfig({ env: {}, overrides: { store: { orderRetentionMs: 60_000 } } })).key).toBe('store.orderRetentionMs');
  });
  it('never takes the API key from a file', () => {
    expect(configError(() => loadConfig({ file: file({ apiKey: 'k' }), env: {} })).key).toBe('apiKey');
    expect(apiKeyFromEnv({ MAKERD_API_KEY: 'abc' })).toBe('abc');
    // the Polymarket credentials too (issue 12): a config file holding one is refused, naming the key
    for (const k of ['privateKey', 'apiSecret', 'passphrase']) expect(configError(() => loadConfig({ file: file({ [k]: 'x' }), env: {} })).key).toBe(k);
    // the venue profile: spec by default, MAKERD_VENUE picks it, anything else names the key
    expect(loadConfig({ env: {} }).venue.profile).toBe('spec');
    expect(loadConfig({ env: { MAKERD_VENUE: 'polymarket' } }).venue.profile).toBe('polymarket');
    // a refused variable is named as the variable (the user set it there, not in a config file)
    expect(configError(() => loadConfig({ env: { MAKERD_VENUE: 'binance' } })).key).toBe('MAKERD_VENUE');
    expect(configError(() => loadConfig({ env: { MAKERD_CLOB_URL: 'ftp://127.0.0.1:1' } })).key).toBe('MAKERD_CLOB_URL');
    expect(configError(() => loadConfig({ env: { MAKERD_WS_URL: 'http://127.0.0.1:1' } })).key).toBe('MAKERD_WS_URL');
    expect(apiKeyFromEnv({ MAKERD_API_KEY: '' })).toBeUndefined();
  });
  it('settings that pass alone but not together, or past what a timer holds, are refused naming the key', () => {
    // the user channel has no data check: a PING answered no sooner than the pong timeout ends it every time
    expect(configError(() => loadConfig({ file: file({ feed: { pingIntervalMs: 9000, pongTimeoutMs: 9000 } }), env: {} })).key).toBe('feed.pingIntervalMs');
    expect(configError(() => loadConfig({ file: file({ feed: { pingIntervalMs: 9000, pongTimeoutMs: 15000 } }), env: {} })).key).toBe('feed.pingIntervalMs');
    expect(loadConfig({ file: file({ feed: { pingIntervalMs: 10000, pongTimeoutMs: 20000 } }), env: {} }).feed.pingIntervalMs).toBe(10000);
    // and at most the venue's 10 s: it drops a client soon after a missed PING (the emulator at 20 s)
    expect(configError(() => loadConfig({ file: file({ feed: { pingIntervalMs: 15000, pongTimeoutMs: 60000 } }), env: {} })).key).toBe('feed.pingIntervalMs');
    // a 10-minute window scaled past Node's longest timer: the limiter re-armed every millisecond
    expect(configError(() => loadConfig({ env: { MAKERD_WINDOW_SCALE: '5000' } })).key).toBe('MAKERD_WINDOW_SCALE');
    expect(configError(() => loadConfig({ file: file({ limits: { windowScale: 5000 } }), env: {} })).key).toBe('limits.windowScale');
    // a reconnect ceiling below its first wait: a failing endpoint redialled at the ceiling, every few ms
    expect(configError(() => loadConfig({ file: file({ feed: { reconnectBaseMs: 500, reconnectMaxMs: 5 } }), env: {} })).key).toBe('feed.reconnectMaxMs');
  });
  it('unreadable or invalid files are ConfigErrors', () => {
    expect(configError(() => loadConfig({ file: join(dir, 'missing.json'), env: {} })).reason).toMatch(/ENOENT/);
    expect(configError(() => loadConfig({ file: file('{ nope'), env: {} })).reason).toMatch(/not valid JSON/);
  });
  it('a key written twice in one object is refused naming it and both lines: JSON.parse keeps the last in silence, and a risk section written again at the end would drop the limits of the first', () => {
    const text = ['{', '  "risk": { "maxPositionPerToken": 50 },', '  "markets": [],', '  "risk": { "dailyLossLimit": 20 }', '}'].join('\n');
    const e = configError(() => loadConfig({ file: file(text), env: {} }));
    expect(e.key).toBe('risk');
    expect(e.reason).toMatch(/twice/);
    expect(e.reason).toMatch(/lines 2 and 4/);
    // nested, and spelt with an escape: the same name
    const nested = configError(() => loadConfig({ file: file('{"risk": {"maxPositionPerToken": 50, "maxPositionPer\\u0054oken": 5000}}'), env: {} }));
    expect(nested.key).toBe('risk.maxPositionPerToken');
    // the same name in sibling objects, or in objects inside an array, is no repeat
    expect(
      loadConfig({ file: file('{"risk": {"maxPositionPerToken": 50}, "sim": {"queueModel": true}, "strategy": {"name": "bands", "params": {"bands": [{"size": 5}, {"size": 6}]}}}'), env: {} }).risk
        .maxPositionPerToken,
    ).toBe(50);
    expect(configError(() => loadConfig({ file: file('{"strategy": {"params": {"bands": [{"size": 5, "size": 6}]}}}'), env: {} })).key).toBe('strategy.params.bands.0.size');
  });
  it('a __proto__ key cannot smuggle values past the strict schema', () => {
    const e = configError(() => loadConfig({ file: file('{"__proto__": {"mode": "live"}, "mode": "bad"}'), env: {} }));
    expect(e.key === '__proto__' || e.key === 'mode').toBe(true);
    const merged = deepMerge({ a: 1 }, JSON.parse('{"__proto__": {"polluted": true}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(configError(() => loadConfig({ file: file('{"__proto__": {"x": 1}}'), env: {} })).key).toBe('__proto__');
  });
  it('parseWith names keys under a prefix (strategy params)', () => {
    const schema = z.strictObject({ spread: z.number().positive() });
    expect(parseWith(schema, { spread: 2 }, 'strategy.params')).toEqual({ spread: 2 });
    expect(configError(() => parseWith(schema, { spread: -1 }, 'strategy.params')).key).toBe('strategy.params.spread');
    expect(configError(() => parseWith(schema, { spread: 1, x: 1 }, 'strategy.params')).key).toBe('strategy.params.x');
  });
});
