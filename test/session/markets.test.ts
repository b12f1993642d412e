// Market resolution on the polymarket profile against a real node:http CLOB: the fee rule comes
// from GET /clob-markets/{id}; when that answer is missing or malformed the market still resolves
// (live trading never reads the rule; paper falls back to the flat sim fees) and one warning says so.
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClobClient } from '../../src/api/clob-client.js';
import { Limiter } from '../../src/api/limiter.js';
import { polymarketProfile } from '../../src/api/polymarket-profile.js';
import { Transport } from '../../src/api/transport.js';
import { WallClock } from '../../src/core/clock.js';
import { createLogger } from '../../src/core/log.js';
import { feeRulesOutside, marketsFromQuery, marketsFromTokens } from '../../src/session/markets.js';
import { GammaClient } from '../../src/api/gamma-client.js';
import { loadConfig } from '../../src/config.js';
import { send, startServer, testHttp, testRetry, type TestServer } from '../api/http-server.js';

const PK = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80' as const;
const YES = '111';
const NO = '222';
const book = { market: '0xcond', asset_id: YES, timestamp: '1', hash: '', bids: [], asks: [], min_order_size: '5', tick_size: '0.01', neg_risk: false };
const market = { condition_id: '0xcond', tokens: [{ token_id: YES }, { token_id: NO }], minimum_tick_size: 0.01, minimum_order_size: 5, neg_risk: false };

// markets whose answers leave out neg_risk (the CLOB's GET /neg-risk tells: NR1's is one, BAD1's answers 500)
const nrBook = { market: '0xnr', asset_id: 'NR1', timestamp: '1', hash: '', bids: [], asks: [], min_order_size: '5', tick_size: '0.01' };
const nrMarket = { condition_id: '0xnr', tokens: [{ token_id: 'NR1' }, { token_id: 'NR2' }], minimum_tick_size: 0.01, minimum_order_size: 5 };
const gammaMarket = (id: string, tokens: string[], negRisk?: boolean) => ({
  id: `${id}-gamma`,
  conditionId: id,
  clobTokenIds: JSON.stringify(tokens),
  volumeNum: 1000,
  liquidityNum: 1000,
  orderPriceMinTickSize: 0.01,
  orderMinSize: 5,
  ...(negRisk === undefined ? {} : { negRisk }),
});

let srv: TestServer;
let gammaSrv: TestServer;
let clob: ClobClient;
let gamma: GammaClient;
let info: (res: ServerResponse) => void = (res) => send(res, 404, { error: 'market not found' });
beforeAll(async () => {
  srv = await startServer((r, res) => {
    if (r.path === '/book' && r.query.get('token_id') === 'NR1') return send(res, 200, nrBook);
    if (r.path === '/book') return send(res, 200, book);
    if (r.path === '/markets/0xcond') return send(res, 200, market);
    if (r.path === '/clob-markets/0xcond') return info(res);
    if (r.path === '/markets/0xnr') return send(res, 200, nrMarket);
    if (r.path === '/neg-risk') {
      const t = r.query.get('token_id');
      if (t === 'NR1' || t === 'Q1') return send(res, 200, { neg_risk: true });
      if (t === 'P1') return send(res, 200, { neg_risk: false });
      return send(res, 500, { error: 'down' });
    }
    if (r.path.startsWith('/clob-markets/0xslow')) return void setTimeout(() => send(res, 404, { error: 'market not found' }), 500);
    if (r.path.startsWith('/clob-markets/')) return send(res, 404, { error: 'market not found' });
    send(res, 404, { error: 'no route' });
  });
  gammaSrv = await startServer((r, res) => {
    if (r.path === '/markets' && r.query.get('offset') === '0') {
      return send(res, 200, [gammaMarket('0xq', ['Q1', 'Q2']), gammaMarket('0xp', ['P1', 'P2']), gammaMarket('0xbad', ['BAD1', 'BAD2']), gammaMarket('0xk', ['K1', 'K2'], true)]);
    }
    if (r.path === '/markets') return send(res, 200, []);
    send(res, 404, { error: 'no route' });
  });
  gamma = new GammaClient(
    new Transport({ api: 'gamma', baseUrl: gammaSrv.url, http: testHttp, retry: { ...testRetry, attempts: 1 }, limiter: new Limiter({ clock: new WallClock({ keepAlive: true }) }) }),
  );
  const profile = polymarketProfile({ privateKey: PK, apiKey: 'k', apiSecret: 'c2VjcmV0', apiPassphrase: 'p', signatureType: 0 });
  const limiter = new Limiter({ clock: new WallClock({ keepAlive: true }) });
  clob = new ClobClient(new Transport({ api: 'clob', baseUrl: srv.url, http: testHttp, retry: { ...testRetry, attempts: 1 }, limiter, auth: profile.authHeaders }), profile);
});
afterAll(async () => {
  await srv.close();
  await gammaSrv.close();
});

function capture() {
  const lines: string[] = [];
  return { log: createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(s) } }), lines };
}

describe('marketsFromTokens on the polymarket profile', () => {
  it('reads the fee rule of the market info', async () => {
    info = (res) => send(res, 200, { t: [{ t: YES }, { t: NO }], mts: 0.01, fd: { r: 0.25, e: 2 } });
    const [m] = await marketsFromTokens(clob, [YES], capture().log);
    expect(m.feeRule).toEqual({ rate: 0.25, exponent: 2 });
  });

  it('a market info that is missing or malformed leaves no rule and one warning, and the market resolves', async () => {
    for (const answer of [
      (res: ServerResponse) => send(res, 404, { error: 'market not found' }),
      (res: ServerResponse) => send(res, 200, { fd: { r: 'lots' } }),
      (res: ServerResponse) => send(res, 200, '{"t":[],"fd":{"r":1e400,"e":1}}'),
    ]) {
      info = answer;
      const { log, lines } = capture();
      const [m] = await marketsFromTokens(clob, [YES], log);
      expect(m).toMatchObject({ conditionId: '0xcond', tokenId: YES, complementId: NO, tick: 100 });
      expect(m.feeRule).toBeUndefined();
      expect(lines.filter((l) => l.includes('"level":40') && l.includes('fee rule'))).toHaveLength(1);
    }
  });
});

describe('a market whose answers leave out neg_risk', () => {
  // the official client asks the same (clob-client-v2 client.js getNegRisk: GET /neg-risk?token_id=,
  // its neg_risk). Found in review: it was taken as false, and every order of a neg-risk market was then signed
  // for the main exchange (refused as an invalid signature), its allowance checked on the wrong one
  it('from token ids: GET /neg-risk decides', async () => {
    const [m] = await marketsFromTokens(clob, ['NR1'], capture().log);
    expect(m).toMatchObject({ conditionId: '0xnr', tokenId: 'NR1', complementId: 'NR2', negRisk: true });
  });

  it('from the metadata query: GET /neg-risk decides; a market it cannot tell is left out with a warning', async () => {
    const { log, lines } = capture();
    const q = { ...loadConfig({ env: {} }).marketQuery, enabled: true, limit: 10 };
    const got = await marketsFromQuery(gamma, clob, q, log);
    expect(got.map((m) => [m.conditionId, m.negRisk])).toEqual([
      ['0xq', true],
      ['0xp', false],
      ['0xk', true],
    ]);
    expect(lines.filter((l) => l.includes('"level":40') && l.includes('0xbad') && l.includes('neg_risk'))).toHaveLength(1);
    // a refresh keeps what it knew of a quoted market: one failed ask does not drop it
    const again = await marketsFromQuery(gamma, clob, q, capture().log, (id) => (id === '0xbad' ? false : undefined));
    expect(again.map((m) => [m.conditionId, m.negRisk])).toEqual([
      ['0xq', true],
      ['0xp', false],
      ['0xbad', false],
      ['0xk', true],
    ]);
  });
});

describe('fee rules of markets outside the quoted set', () => {
  it("are read for the markets restored orders are in (a restart after the set rotated), by their orders' tokens; quoted markets are not asked again", async () => {
    info = (res) => send(res, 200, { t: [{ t: YES }, { t: NO }], mts: 0.01, fd: { r: 0.25, e: 2 } });
    const asked = srv.requests.length;
    const quoted = { conditionId: '0xquoted', tokenId: 'Q1', complementId: 'Q2', tick: 100, minSize: 500, negRisk: false };
    const rules = await feeRulesOutside(
      clob,
      [
        { market: '0xcond', tokenId: YES },
        { market: '0xcond', tokenId: NO },
        { market: '0xquoted', tokenId: 'Q1' },
      ],
      [quoted],
      capture().log,
    );
    expect(rules).toEqual([
      [YES, { rate: 0.25, exponent: 2 }],
      [NO, { rate: 0.25, exponent: 2 }],
    ]);
    expect(srv.requests.slice(asked).map((r) => r.path)).toEqual(['/clob-markets/0xcond']);
  });

  it('a venue that does not answer holds start-up no longer than the bound: none read, one warning', async () => {
    info = () => undefined; // never answered (the transport's own deadline is longer than the bound)
    const { log, lines } = capture();
    const t0 = performance.now();
    const rules = await feeRulesOutside(clob, [{ market: '0xcond', tokenId: YES }], [], log, 300);
    expect(performance.now() - t0).toBeLessThan(3000);
    expect(rules).toEqual([]);
    expect(lines.filter((l) => l.includes('"level":40') && l.includes('not all read in time'))).toHaveLength(1);
  });

  it('past the bound no further fee rule is asked for: the readers stop with start-up going on, using no more rate-limit room', async () => {
    const { log } = capture();
    const orders = Array.from({ length: 20 }, (_, i) => ({ market: `0xslow${i}`, tokenId: `S${i}` }));
    const asked = () => srv.requests.filter((r) => r.path.startsWith('/clob-markets/0xslow')).length;
    const before = asked();
    expect(await feeRulesOutside(clob, orders, [], log, 300)).toEqual([]);
    // the first answers come at 500 ms, after the bound: the readers that get them take no next market
    await new Promise((r) => setTimeout(r, 1200));
    expect(asked() - before).toBe(8);
  });
});
