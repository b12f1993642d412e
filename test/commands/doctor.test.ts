// Issue 12, items 2 and 9: `makerd doctor` and `makerd keys derive` against the emulator's
// polymarket profile (L1 and L2 verified as the venue does): with a seeded account's credentials
// every check passes; a wrong secret fails with one clear line; a venue answering 403 is explained
// as a region refusal; a venue whose order version is not the one makerd signs (2) fails the version
// check; keys derive gives back the credentials the venue issued to the wallet.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../../src/cli.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { send, startServer, type TestServer } from '../api/http-server.js';
import { accountEnv } from '../emulator/polymarket-helpers.js';
import { EXCHANGE_V2 } from '../../src/api/polymarket-contracts.js';
import { setOrderVersion } from '../../src/emulator/polymarket-markets.js';

let emu: RunningEmulator;
let spec: RunningEmulator;
let refusing: TestServer;
beforeAll(async () => {
  emu = await startEmulator({ profile: 'polymarket', seed: 3 });
  spec = await startEmulator({ seed: 3, keys: ['spec-key'] });
  refusing = await startServer((_r, res) => send(res, 403, { error: 'Trading restricted in your region' }));
});
afterAll(async () => {
  await Promise.all([emu.close(), spec.close(), refusing.close()]);
});

async function run(args: string[], env: Record<string, string>): Promise<{ code: number; out: string[] }> {
  const out: string[] = [];
  const code = await cli(args, { out: (l) => void out.push(l), err: (l) => void out.push(l), env });
  return { code, out };
}

function polyEnv(clob: string, over: Record<string, string> = {}): Record<string, string> {
  return { ...accountEnv(emu.accounts[0]), MAKERD_CLOB_URL: clob, ...over };
}

const line = (out: string[], check: string) => out.find((l) => new RegExp(`^(ok  |FAIL|skip) ${check} `).test(l)) ?? '';

/**
 * A proxy in front of an emulator's CLOB whose GET /balance-allowance answers `rewrite` changes
 * (given the asset type and the parsed body; the rest passes as is): a venue answering otherwise.
 */
async function balanceProxy(clobUrl: string, rewrite: (assetType: string | null, body: Record<string, unknown>) => unknown): Promise<TestServer> {
  const base = new URL(clobUrl).origin;
  return startServer((r, res) => {
    const headers = Object.fromEntries(Object.entries(r.headers).filter(([k, v]) => k !== 'host' && k !== 'content-length' && typeof v === 'string')) as Record<string, string>;
    const url = `${base}${r.path}${r.query.size ? `?${r.query.toString()}` : ''}`;
    void fetch(url, { method: r.method, headers, body: r.method === 'GET' || r.method === 'HEAD' ? undefined : r.body, signal: AbortSignal.timeout(5000) })
      .then(async (up) => {
        const text = await up.text();
        if (!r.path.endsWith('/balance-allowance') || up.status !== 200) return send(res, up.status, text);
        send(res, 200, rewrite(r.query.get('asset_type'), JSON.parse(text) as Record<string, unknown>));
      })
      .catch((e: unknown) => send(res, 502, { error: String(e) }));
  });
}

describe('makerd doctor', () => {
  it('passes every check against the polymarket emulator with a seeded account', async () => {
    const token = emu.markets[0].facts.tokens[0];
    const r = await run(['doctor', '--markets', token], polyEnv(emu.urls.clob));
    expect(r.out.join('\n')).toMatch(/every check passed/);
    expect(r.code).toBe(0);
    for (const c of ['credentials', 'clock', 'version', 'markets', 'balance', 'shares', 'heartbeat']) expect(line(r.out, c), c).toMatch(/^ok {3}/);
    expect(line(r.out, 'shares')).toMatch(/^ok {3}shares +the (neg-risk )?exchange may move the wallet's shares: SELLs can rest$/);
    expect(line(r.out, 'version')).toMatch(/^ok {3}version +venue order version 2, the version makerd signs$/);
    expect(line(r.out, 'markets')).toContain(emu.markets[0].conditionId);
    expect(line(r.out, 'markets')).toMatch(/tick 0\.\d+ neg-risk (true|false) min size \d/);
  });

  it('a second run right after the first passes the heartbeat check too (the first chain is still open at the venue)', async () => {
    // a fresh account's key, so no earlier test's chain is in the way of the first run
    const env = { ...accountEnv(emu.accounts[1]), MAKERD_CLOB_URL: emu.urls.clob };
    const token = emu.markets[0].facts.tokens[0];
    const first = await run(['doctor', '--markets', token], env);
    expect(line(first.out, 'heartbeat')).toMatch(/^ok {3}/);
    const second = await run(['doctor', '--markets', token], env);
    expect(line(second.out, 'heartbeat')).toMatch(/^ok {3}/);
  });

  it('says when the balance is below risk.maxTotalNotional: open BUYs will be capped at it (the check still passes)', async () => {
    const token = emu.markets[0].facts.tokens[0];
    const dir = mkdtempSync(join(tmpdir(), 'makerd-doctor-'));
    const cfg = join(dir, 'config.json');
    writeFileSync(cfg, JSON.stringify({ risk: { maxTotalNotional: 20_000 } }));
    try {
      const r = await run(['doctor', '--config', cfg, '--markets', token], polyEnv(emu.urls.clob));
      expect(line(r.out, 'balance')).toMatch(/^ok {3}balance +balance 10000\.000000, allowances set; below risk\.maxTotalNotional \(\$20000\): open BUYs will be capped at the balance$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("says when an exchange's allowance is below the balance: open BUYs will be capped at it (the check still passes)", async () => {
    const token = emu.markets[0].facts.tokens[0];
    const account = emu.exchange.account(emu.accounts[0].apiKey);
    account.allowanceMicros = 50_000_000;
    try {
      const r = await run(['doctor', '--markets', token], polyEnv(emu.urls.clob));
      expect(line(r.out, 'balance')).toMatch(
        /^ok {3}balance +balance 10000\.000000, allowances set; the exchange's allowance 50\.000000 (and the neg-risk exchange's allowance 50\.000000 )?below the balance: open BUYs will be capped at 50\.000000 \(approve more from the wallet\)$/,
      );
    } finally {
      account.allowanceMicros = Infinity;
    }
  });

  it('with --markets, needs the allowances of the exchanges those markets use only: a neg-risk market with only the neg-risk exchange approved passes', async () => {
    // two markets, the first neg-risk; the venue's answer names no allowance for the plain exchange
    // (a wallet that approved the neg-risk exchange only): a proxy in front of the emulator zeroes it
    const negEmu = await startEmulator({ profile: 'polymarket', seed: 4, markets: 2 });
    negEmu.markets[0].facts.negRisk = true;
    const proxy = await balanceProxy(negEmu.urls.clob, (_type, b) => ({ ...b, allowances: { ...(b.allowances as Record<string, string>), [EXCHANGE_V2]: '0' } }));
    try {
      const env = { ...accountEnv(negEmu.accounts[0]), MAKERD_CLOB_URL: `${proxy.url}/clob` };
      const [neg, plain] = negEmu.markets.map((m) => m.facts.tokens[0]);
      const onlyNeg = await run(['doctor', '--markets', neg], env);
      expect(line(onlyNeg.out, 'markets')).toMatch(/neg-risk true/);
      expect(line(onlyNeg.out, 'balance')).toMatch(/^ok {3}balance +balance 10000\.000000, allowances set$/);
      expect(onlyNeg.out.join('\n')).toMatch(/every check passed/);
      expect(onlyNeg.code).toBe(0);
      // a market on the plain exchange still needs that exchange's allowance
      for (const tokens of [plain, `${neg},${plain}`]) {
        const r = await run(['doctor', '--markets', tokens], env);
        expect(line(r.out, 'balance'), tokens).toMatch(/^FAIL balance +balance 10000\.000000, but no allowance for the exchange: approve it from the wallet$/);
        expect(r.code).toBe(1);
      }
    } finally {
      await proxy.close();
      await negEmu.close();
    }
  });

  it('fails when the wallet has not approved the exchange to move its shares (conditional tokens): every SELL would be refused', async () => {
    // the venue answers SELLs of such a wallet "not enough balance / allowance" (py-clob-client
    // issues 109, 290; clob-client issue 310); its CONDITIONAL balance-allowance names 0 for the exchanges
    const token = emu.markets[0].facts.tokens[0];
    const account = emu.exchange.account(emu.accounts[0].apiKey);
    account.sharesApproved = false;
    try {
      const r = await run(['doctor', '--markets', token], polyEnv(emu.urls.clob));
      expect(line(r.out, 'shares')).toMatch(
        /^FAIL shares +the wallet has not approved the (neg-risk )?exchange to move its shares: every SELL would be refused \(not enough balance \/ allowance\); approve the conditional tokens from the wallet \(setApprovalForAll\)$/,
      );
      expect(line(r.out, 'balance')).toMatch(/^ok/);
      expect(r.code).toBe(1);
      // the emulator refuses such a SELL as the venue does (shares split to the account first)
      account.positions.set(token, 100);
      const refused = emu.exchange.hasFunds(emu.accounts[0].apiKey, token, 'SELL', 5000, 10);
      expect(refused).toBe(false);
      account.sharesApproved = true;
      expect(emu.exchange.hasFunds(emu.accounts[0].apiKey, token, 'SELL', 5000, 10)).toBe(true);
    } finally {
      account.sharesApproved = true;
      account.positions.delete(token);
    }
  });

  it("reads the share approval in every shape the venue's answer may take: per exchange, one lone allowance, or none named (then the check is skipped, not failed)", async () => {
    // the CONDITIONAL answer's shape is not in a real capture: a proxy rewrites the emulator's
    const shapes: Array<[string, (b: Record<string, unknown>) => Record<string, unknown>, RegExp]> = [
      ['lone allowance 0', (b) => ({ balance: b.balance, allowance: '0' }), /^FAIL shares +the wallet has not approved/],
      ['lone allowance unlimited', (b) => ({ balance: b.balance, allowance: '115792089237316195423570985008687907853269984665640564039457584007913129639935' }), /^ok {3}shares /],
      ['no allowance named', (b) => ({ balance: b.balance }), /^skip shares +the venue's answer names no allowance of the wallet's shares for the (neg-risk )?exchange/],
    ];
    for (const [name, rewrite, want] of shapes) {
      const proxy = await balanceProxy(emu.urls.clob, (type, b) => (type === 'CONDITIONAL' ? rewrite(b) : b));
      try {
        const r = await run(['doctor', '--markets', emu.markets[0].facts.tokens[0]], polyEnv(`${proxy.url}/clob`));
        expect(line(r.out, 'shares'), name).toMatch(want);
      } finally {
        await proxy.close();
      }
    }
  });

  it('fails with one clear line for a wrong secret, and for missing credentials', async () => {
    const token = emu.markets[0].facts.tokens[0];
    const wrong = await run(['doctor', '--markets', token], polyEnv(emu.urls.clob, { MAKERD_API_SECRET: Buffer.from('not the secret').toString('base64') }));
    expect(wrong.code).toBe(1);
    expect(line(wrong.out, 'credentials')).toMatch(/^FAIL credentials +the venue refused the credentials \(401/);
    const missing = await run(['doctor', '--markets', token], { MAKERD_VENUE: 'polymarket', MAKERD_CLOB_URL: emu.urls.clob });
    expect(missing.code).toBe(1);
    expect(line(missing.out, 'credentials')).toMatch(/needs MAKERD_PRIVATE_KEY, MAKERD_API_KEY, MAKERD_API_SECRET, MAKERD_API_PASSPHRASE/);
  });

  it('posts no heartbeat when the open orders could not be read (orders may rest unseen), and does not call that a pass', async () => {
    // a proxy in front of the emulator's CLOB: GET /data/orders answers 500, the rest goes through
    const heartbeats: string[] = [];
    const proxy = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
      if (req.method === 'GET' && path.endsWith('/data/orders')) {
        req.resume();
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"test"}');
        return;
      }
      if (path.endsWith('/heartbeats')) heartbeats.push(path);
      const target = new URL(emu.urls.clob);
      const up = request({ host: target.hostname, port: target.port, method: req.method, path: target.pathname.replace(/\/$/, '') + (req.url ?? ''), headers: req.headers }, (ur) => {
        res.writeHead(ur.statusCode ?? 502, ur.headers);
        ur.pipe(res);
      });
      up.on('error', () => res.destroy());
      req.pipe(up);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    try {
      const port = (proxy.address() as AddressInfo).port;
      const r = await run(['doctor', '--markets', emu.markets[0].facts.tokens[0]], polyEnv(`http://127.0.0.1:${port}`));
      expect(line(r.out, 'credentials')).toMatch(/^FAIL/);
      expect(line(r.out, 'heartbeat')).toMatch(/^skip .*could not be read/);
      expect(heartbeats).toEqual([]);
      expect(r.out.join('\n')).not.toMatch(/every check passed/);
    } finally {
      await new Promise<void>((r) => proxy.close(() => r()));
    }
  }, 60_000);

  it('checks the markets the metadata query picks when no token is given (as the daemon picks them)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'doctor-query-'));
    try {
      const cfg = join(dir, 'config.json');
      writeFileSync(cfg, JSON.stringify({ marketQuery: { enabled: true, limit: 1 } }));
      const r = await run(['doctor', '--config', cfg], polyEnv(emu.urls.clob, { MAKERD_GAMMA_URL: emu.urls.gamma }));
      expect(line(r.out, 'markets')).toMatch(/^ok {3}markets +0x[0-9a-f]+ tick /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it('explains a 403 as the venue refusing the region', async () => {
    const r = await run(['doctor', '--markets', '1'], polyEnv(refusing.url));
    expect(r.code).toBe(1);
    expect(line(r.out, 'credentials')).toMatch(/403.*not offered in some regions/);
  });

  it("fails the clock check, naming the skew, when the venue's clock runs 10 s ahead of ours", async () => {
    emu.admin.set({ clockAheadMs: 10_000 });
    try {
      const token = emu.markets[0].facts.tokens[0];
      const r = await run(['doctor', '--markets', token], polyEnv(emu.urls.clob));
      expect(r.code).toBe(1);
      expect(line(r.out, 'clock')).toMatch(/^FAIL clock .*behind the venue by (9|10|11)\d{3} ms/);
      // within the venue's 30 s tolerance signed requests still pass
      expect(line(r.out, 'credentials')).toMatch(/^ok/);
    } finally {
      emu.admin.clear();
    }
  });

  it("fails the version check with one clear line when the venue's order version is 3: every order would be refused", async () => {
    // an emulator of its own: the shared one's key carries the heartbeat chains earlier runs started
    const v3 = await startEmulator({ profile: 'polymarket', seed: 5 });
    setOrderVersion(v3.exchange, 3);
    try {
      const token = v3.markets[0].facts.tokens[0];
      const r = await run(['doctor', '--markets', token], { ...accountEnv(v3.accounts[0]), MAKERD_CLOB_URL: v3.urls.clob });
      expect(r.code).toBe(1);
      expect(line(r.out, 'version')).toBe('FAIL version      venue order version 3; makerd signs version 2 orders: every order would be refused');
      // the only check that fails
      expect(
        r.out.filter((l) => l.startsWith('FAIL')),
        r.out.join('\n'),
      ).toHaveLength(1);
      expect(r.out.join('\n')).toMatch(/1 check\(s\) failed/);
    } finally {
      await v3.close();
    }
  });

  it('in the spec profile: a Bearer read, no /time to check', async () => {
    const token = spec.markets[0].facts.tokens[0];
    const r = await run(['doctor', '--markets', token], { MAKERD_CLOB_URL: spec.urls.clob, MAKERD_API_KEY: 'spec-key' });
    expect(r.code).toBe(0);
    expect(line(r.out, 'credentials')).toMatch(/^ok/);
    expect(line(r.out, 'clock')).toMatch(/^skip/);
    expect(line(r.out, 'version')).toMatch(/^skip version +the spec interface has no GET \/version/);
    const refused = await run(['doctor', '--markets', token], { MAKERD_CLOB_URL: spec.urls.clob, MAKERD_API_KEY: 'not-accepted' });
    expect(refused.code).toBe(1);
  });
});

describe('makerd keys derive against the polymarket emulator', () => {
  it('prints the credentials the venue issued to the wallet', async () => {
    const a = emu.accounts[0];
    const r = await run(['keys', 'derive'], { MAKERD_CLOB_URL: emu.urls.clob, MAKERD_PRIVATE_KEY: a.privateKey });
    expect(r.code).toBe(0);
    expect(r.out).toEqual([`export MAKERD_API_KEY=${a.apiKey}`, `export MAKERD_API_SECRET=${a.secret}`, `export MAKERD_API_PASSPHRASE=${a.passphrase}`]);
    expect(r.out.join('\n')).not.toContain(a.privateKey.slice(2));
  });

  it('names the create\'s refusal when the derive fails too (a create refused for a clock or region is not hidden behind "no key to derive")', async () => {
    const a = emu.accounts[0];
    const asked: string[] = [];
    const venue = await startServer((r, res) => {
      asked.push(`${r.method} ${r.path}`);
      if (r.path === '/auth/api-key') return send(res, 401, { error: 'Invalid L1 Request headers' });
      return send(res, 400, { error: 'Could not derive api key!' });
    });
    try {
      const r = await run(['keys', 'derive'], { MAKERD_CLOB_URL: venue.url, MAKERD_PRIVATE_KEY: a.privateKey });
      expect(asked).toEqual(['POST /auth/api-key', 'GET /auth/derive-api-key']);
      expect(r.code).toBe(1);
      const text = r.out.join('\n');
      expect(text).toContain('POST /auth/api-key answered 401: Invalid L1 Request headers');
      expect(text).toContain('GET /auth/derive-api-key answered 400: Could not derive api key!');
      expect(text).not.toContain(a.privateKey.slice(2));
    } finally {
      await venue.close();
    }
  });

  it('explains a 403 on the create as the venue refusing the region', async () => {
    const venue = await startServer((_r, res) => send(res, 403, { error: 'Trading restricted in your region' }));
    try {
      const r = await run(['keys', 'derive'], { MAKERD_CLOB_URL: venue.url, MAKERD_PRIVATE_KEY: emu.accounts[0].privateKey });
      expect(r.code).toBe(1);
      expect(r.out.join('\n')).toMatch(/403.*not offered in some regions/);
    } finally {
      await venue.close();
    }
  });

  it('needs the key alone: a wallet signature type set without its funder yet does not refuse it', async () => {
    const a = emu.accounts[0];
    const r = await run(['keys', 'derive'], { MAKERD_CLOB_URL: emu.urls.clob, MAKERD_PRIVATE_KEY: a.privateKey, MAKERD_SIGNATURE_TYPE: '2' });
    expect(r.code).toBe(0);
    expect(r.out[0]).toBe(`export MAKERD_API_KEY=${a.apiKey}`);
  });
});
