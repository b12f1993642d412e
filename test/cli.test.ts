import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../src/cli.js';
import type { CommandIO } from '../src/commands/command.js';
import { fixture, send, startServer, type Handler, type TestServer } from './api/http-server.js';

const gammaMarket = fixture('nautilus_trader/rust_test_data/gamma_market.json') as Record<string, unknown>;
const dir = mkdtempSync(join(tmpdir(), 'makerd-cli-'));
const fastRetry = join(dir, 'fast.json');
writeFileSync(fastRetry, JSON.stringify({ retry: { baseMs: 5, maxMs: 10, attempts: 2 }, http: { connectTimeoutMs: 500, headersTimeoutMs: 500, bodyTimeoutMs: 500 } }));

let srv: TestServer;
let handler: Handler = (_r, res) => send(res, 200, [gammaMarket]);
beforeAll(async () => {
  srv = await startServer((r, res) => handler(r, res));
});
afterAll(async () => {
  await srv.close();
});

async function run(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CommandIO = { out: (l) => out.push(l), err: (l) => err.push(l), env: { MAKERD_GAMMA_URL: srv.url, ...env } };
  const code = await cli(argv, io);
  return { code, out: out.join('\n'), err, errText: err.join('\n') };
}

describe('makerd markets', () => {
  it('is a public listing: venue credentials half set (a wallet signature type, no funder) do not refuse it', async () => {
    handler = (_r, res) => send(res, 200, [gammaMarket]);
    const r = await run(['markets'], { MAKERD_VENUE: 'polymarket', MAKERD_SIGNATURE_TYPE: '2' });
    expect(r.errText).toBe('');
    expect(r.code).toBe(0);
  });

  it('prints a table from the metadata API and sends the filters', async () => {
    handler = (_r, res) => send(res, 200, [gammaMarket, { ...gammaMarket, id: '2', question: 'Second market?', bestBid: 0.1, bestAsk: 0.2 }]);
    const r = await run(['markets', '--active', '--order', 'liquidity', '--limit', '2', '--tag', 'crypto']);
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^question\s+condition id\s+token ids/);
    expect(lines[1]).toContain(String(gammaMarket.conditionId));
    expect(lines[1]).toContain((JSON.parse(String(gammaMarket.clobTokenIds)) as string[])[0]);
    expect(lines[2]).toMatch(/Second market\?.*0\.1\s+0\.2/);
    const q = srv.requests[srv.requests.length - 1].query;
    expect([q.get('active'), q.get('order'), q.get('limit'), q.get('offset'), q.get('tag')]).toEqual(['true', 'liquidity', '2', '0', 'crypto']);
  });
  it('--json prints decoded markets', async () => {
    handler = (_r, res) => send(res, 200, { success: true, data: [gammaMarket] });
    const r = await run(['markets', '--json']);
    expect(r.code).toBe(0);
    const ms = JSON.parse(r.out) as Array<{ clobTokenIds: string[]; outcomes: string[] }>;
    expect(ms[0].outcomes).toEqual(['Up', 'Down']);
    expect(ms[0].clobTokenIds).toHaveLength(2);
  });
  it('a failed request prints one line with status and code, exit 1', async () => {
    handler = (_r, res) => send(res, 403, { error: 'forbidden region' });
    const r = await run(['markets']);
    expect(r.code).toBe(1);
    expect(r.err).toEqual(['makerd markets: GET /markets failed: HTTP 403 HTTP_403: forbidden region']);
  });
  it('a 500 after retries is one line too', async () => {
    handler = (_r, res) => send(res, 500, { success: false, error: { code: 'INTERNAL', message: 'db down' } });
    const r = await run(['markets', '--config', fastRetry]);
    expect(r.code).toBe(1);
    expect(r.err).toEqual(['makerd markets: GET /markets failed: HTTP 500 INTERNAL: db down']);
  });
  it('an unreachable API is one line, exit 1', async () => {
    const s = await startServer(() => {});
    const url = s.url;
    await s.close();
    const r = await run(['markets', '--config', fastRetry], { MAKERD_GAMMA_URL: url });
    expect(r.code).toBe(1);
    expect(r.err).toHaveLength(1);
    expect(r.errText).toMatch(/^makerd markets: GET \/markets: /);
  });
  it('a bad flag is a usage error, exit 2', async () => {
    expect((await run(['markets', '--order', 'newest'])).code).toBe(2);
    expect((await run(['markets', '--limit', 'ten'])).code).toBe(2);
    expect((await run(['markets', '--bogus'])).code).toBe(2);
  });
});

describe('config errors exit 2 with one line and no stack trace', () => {
  it('unknown key in the config file', async () => {
    const f = join(dir, 'unknown.json');
    writeFileSync(f, JSON.stringify({ retry: { atempts: 2 } }));
    const r = await run(['markets', '--config', f]);
    expect(r.code).toBe(2);
    expect(r.err).toEqual(['makerd: invalid config: retry.atempts: unknown key']);
  });
  it('wrong type', async () => {
    const f = join(dir, 'type.json');
    writeFileSync(f, JSON.stringify({ http: { connectTimeoutMs: 'fast' } }));
    const r = await run(['markets', '--config', f]);
    expect(r.code).toBe(2);
    expect(r.err).toHaveLength(1);
    expect(r.errText).toMatch(/^makerd: invalid config: http\.connectTimeoutMs: /);
    expect(r.errText).not.toMatch(/\n\s+at /);
  });
  it('bad environment variable', async () => {
    const r = await run(['markets'], { MAKERD_LIMIT_SCALE: 'lots' });
    expect(r.code).toBe(2);
    expect(r.err).toEqual(['makerd: invalid config: MAKERD_LIMIT_SCALE: must be a number, got "lots"']);
  });
  it('bad URL in the environment', async () => {
    const r = await run(['markets'], { MAKERD_GAMMA_URL: 'nowhere' });
    expect(r.code).toBe(2);
    expect(r.errText).toMatch(/^makerd: invalid config: MAKERD_GAMMA_URL: /);
  });
});

describe('dispatch', () => {
  it('help, version and unknown commands', async () => {
    expect((await run(['--help'])).out).toContain('markets');
    expect((await run(['--version'])).out).toBe('makerd 0.1.0');
    expect((await run(['markets', '--help'])).out).toContain('--order volume|liquidity');
    const r = await run(['nonsense']);
    expect(r.code).toBe(2);
    expect(r.errText).toContain("unknown command 'nonsense'");
  });
});
