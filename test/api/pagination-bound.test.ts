// Issue 10, item 7: a cursor that never ends is an error after a bound on pages, not 10,000
// requests per reconciliation; and the key reaches the CLOB only (item 6).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClobClient } from '../../src/api/clob-client.js';
import { Limiter } from '../../src/api/limiter.js';
import { Transport } from '../../src/api/transport.js';
import { createClients } from '../../src/api/index.js';
import { ACCOUNT_MAX_PAGES } from '../../src/api/paginate.js';
import { WallClock } from '../../src/core/clock.js';
import { loadConfig } from '../../src/config.js';
import { PageLimitError } from '../../src/core/errors.js';
import { send, startServer, testHttp, testRetry, type TestServer } from './http-server.js';

let srv: TestServer;
beforeAll(async () => {
  // every page names a new cursor: the walk never ends by itself
  srv = await startServer((_r, res) => send(res, 200, { data: [], next_cursor: `c${srv.requests.length}`, limit: 100, count: 0 }));
});
afterAll(async () => {
  await srv.close();
});

describe('pagination bound', () => {
  it('open orders: a never-ending cursor stops at the bound with PageLimitError', async () => {
    const t = new Transport({ api: 'clob', baseUrl: srv.url, http: testHttp, retry: testRetry, limiter: new Limiter({ clock: new WallClock({ keepAlive: true }), windowScale: 0.001 }) });
    const clob = new ClobClient(t);
    const before = srv.requests.length;
    let err: unknown;
    try {
      for await (const _o of clob.iterateOrders()) void _o;
    } catch (e) {
      err = e;
    }
    await t.close();
    expect(err).toBeInstanceOf(PageLimitError);
    expect(srv.requests.length - before).toBe(ACCOUNT_MAX_PAGES);
  });

  it('the trading key goes to the CLOB only, never to the metadata, data or content APIs', async () => {
    const u = srv.url;
    const config = loadConfig({ env: { MAKERD_CLOB_URL: `${u}/clob`, MAKERD_GAMMA_URL: `${u}/gamma`, MAKERD_DATA_URL: `${u}/data`, MAKERD_CONTENT_URL: `${u}/content` } });
    const c = createClients(config, 'secret-key');
    const before = srv.requests.length;
    await Promise.allSettled([c.clob.getTickSize('1'), c.gamma.listMarkets({ limit: 1 }), c.data.userTrades('0xabc'), c.content.listArticles({ limit: 1 })]);
    await c.close();
    const seen = srv.requests.slice(before);
    const auth = (api: string) => seen.filter((r) => r.path.startsWith(`/${api}`)).map((r) => r.headers.authorization);
    expect(auth('clob')).toEqual(['Bearer secret-key']);
    for (const api of ['gamma', 'data', 'content']) {
      expect(auth(api).length).toBeGreaterThan(0);
      expect(auth(api).every((h) => h === undefined)).toBe(true);
    }
  });
});
