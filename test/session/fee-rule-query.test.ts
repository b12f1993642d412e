// Markets picked by the metadata query (config.marketQuery) carry the venue's fee rule as markets
// given by token do: without it the engine books a trade's fee_rate_bps as a flat fee on maker
// fills too (real captures carry 1000 on maker parts: 10% of each maker fill). A refresh whose
// fee-rule read fails keeps the rule known before. Against the emulator's polymarket profile on
// loopback, with a node:http proxy in front of its CLOB API to refuse the fee-rule reads.
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { polymarketProfile } from '../../src/api/polymarket-profile.js';
import { polymarketCredentialsFromEnv } from '../../src/api/polymarket-credentials.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/core/log.js';
import { PRICE_SCALE, SIZE_SCALE } from '../../src/core/units.js';
import { startEmulator, urlsEnv, type RunningEmulator } from '../../src/emulator/server.js';
import { Daemon } from '../../src/session/daemon.js';
import { accountEnv } from '../emulator/polymarket-helpers.js';

/** Never in a test's time: the periodic jobs stay out of it (the test calls refreshMarkets itself). */
const NEVER = '0 0 1 1 *';

async function bounded<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, rej) => (t = setTimeout(() => rej(new Error(`timed out after ${ms} ms: ${what}`)), ms)));
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(t);
  }
}

/** Forwards every request to the emulator; answers 404 to GET /clob-markets/{id} (the fee rule) while failFeeRules. */
interface Proxy {
  url: string;
  failFeeRules: boolean;
  /** GET /clob-markets/{id} requests seen. */
  feeRuleReads: number;
  close(): Promise<void>;
}

async function startProxy(targetPort: number): Promise<Proxy> {
  const agent = new Agent({ keepAlive: true });
  const p: Proxy = { url: '', failFeeRules: false, feeRuleReads: 0, close: async () => undefined };
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    if (req.method === 'GET' && path.includes('/clob-markets/')) {
      p.feeRuleReads++;
      if (p.failFeeRules) {
        req.resume();
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'market not found' }));
        return;
      }
    }
    const up = request({ host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers: req.headers, agent }, (ur) => {
      res.writeHead(ur.statusCode ?? 502, ur.headers);
      ur.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  p.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  p.close = async () => {
    server.closeAllConnections();
    agent.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return p;
}

interface Running {
  emu: RunningEmulator;
  daemon: Daemon;
  proxy: Proxy;
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

/** The emulator (polymarket profile, two quiet markets), a proxy before its CLOB API, and a live daemon picking its markets by the metadata query. */
async function launch(): Promise<Running> {
  const emu = await startEmulator({ seed: 7, markets: 2, profile: 'polymarket', params: { makers: 0, takerRatePerSec: 0 } });
  closers.push(() => emu.close());
  const proxy = await startProxy(emu.port);
  closers.push(() => proxy.close());
  const dir = mkdtempSync(join(tmpdir(), 'makerd-fee-rule-'));
  closers.push(async () => rmSync(dir, { recursive: true, force: true }));
  const venueEnv = accountEnv(emu.accounts[0]);
  const config = loadConfig({
    env: { ...urlsEnv(emu.urls), MAKERD_CLOB_URL: proxy.url + new URL(emu.urls.clob).pathname, ...venueEnv, MAKERD_DB: join(dir, 's.sqlite') },
    overrides: {
      mode: 'live',
      log: { level: 'silent' },
      markets: [],
      marketQuery: { enabled: true, active: true, minVolume: 0, minLiquidity: 0, order: 'volume', limit: 2 },
      cron: { refreshMarkets: NEVER, reconcile: NEVER, dailySummary: NEVER },
    },
  });
  const daemon = new Daemon({ config, venue: polymarketProfile(polymarketCredentialsFromEnv(venueEnv)), log: silentLogger, statusPort: 0 });
  closers.push(() =>
    bounded(daemon.stop('test'), 30_000, 'daemon stop').then(
      () => undefined,
      () => undefined,
    ),
  );
  await bounded(daemon.start(), 20_000, 'daemon start');
  return { emu, daemon, proxy };
}

/** The emulator's fee rules (polymarket-markets.ts feeRule): fee-free on even market indexes, r 0.25 e 2 on odd ones. */
const expectedRule = (i: number) => (i % 2 === 1 ? { rate: 0.25, exponent: 2 } : { rate: 0, exponent: 0 });

describe('fee rules of markets picked by the metadata query', () => {
  it("carries each market's fee rule into the engine's market terms; a maker fill under it books no fee whatever fee_rate_bps its trade carries", async () => {
    const { emu, daemon } = await launch();
    expect(daemon.markets.map((m) => m.conditionId).sort()).toEqual(emu.markets.map((m) => m.conditionId).sort());
    for (const [i, m] of emu.markets.entries()) {
      const st = daemon.engine.marketOf(m.facts.tokens[0]);
      expect(st?.meta.feeRule, `market ${i}`).toEqual(expectedRule(i));
    }
    // the fee-charging market: 10 shares at 0.50, the trade saying 1000 bps (as real maker parts do)
    const token = emu.markets[1].facts.tokens[0];
    const price = PRICE_SCALE / 2;
    const size = 10 * SIZE_SCALE;
    expect(daemon.engine.fillFee(token, price, size, 1000, 'MAKER')).toBe(0);
    // a taker pays the rule: 10 x 0.25 x (0.5 x 0.5)^2 = $0.15625
    expect(daemon.engine.fillFee(token, price, size, 1000, 'TAKER')).toBe(156_250);
  }, 60_000);

  it('a market refresh keeps the rules known before and reads none of them again (a venue refusing them meanwhile changes nothing)', async () => {
    const { emu, daemon, proxy } = await launch();
    const token = emu.markets[1].facts.tokens[0];
    expect(daemon.engine.marketOf(token)?.meta.feeRule).toEqual(expectedRule(1));
    proxy.failFeeRules = true;
    const before = proxy.feeRuleReads;
    const change = await bounded(daemon.refreshMarkets(), 20_000, 'market refresh');
    expect(change.added).toEqual([]);
    expect(change.removed).toEqual([]);
    // rules known are not asked for again (at 1,000 markets each refresh would send 1,000 requests)
    expect(proxy.feeRuleReads).toBe(before);
    for (const [i, m] of emu.markets.entries()) expect(daemon.engine.marketOf(m.facts.tokens[0])?.meta.feeRule, `market ${i}`).toEqual(expectedRule(i));
    expect(daemon.engine.fillFee(token, PRICE_SCALE / 2, 10 * SIZE_SCALE, 1000, 'MAKER')).toBe(0);
  }, 60_000);
});
