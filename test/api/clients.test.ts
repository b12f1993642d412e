import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClobClient } from '../../src/api/clob-client.js';
import { cursorItems } from '../../src/api/paginate.js';
import { GammaClient } from '../../src/api/gamma-client.js';
import { DataClient } from '../../src/api/data-client.js';
import { ContentClient } from '../../src/api/content-client.js';
import { Limiter } from '../../src/api/limiter.js';
import { Transport } from '../../src/api/transport.js';
import { createClients } from '../../src/api/index.js';
import { WallClock } from '../../src/core/clock.js';
import { loadConfig } from '../../src/config.js';
import { ResponseShapeError } from '../../src/core/errors.js';
import { fixture, send, startServer, testHttp, testRetry, type Received, type TestServer } from './http-server.js';

const F = (p: string) => fixture(`nautilus_trader/rust_test_data/${p}`);
const gammaMarket = F('gamma_market.json') as Record<string, unknown>;
const marketsPage = fixture('nautilus_trader/python_resources/http_responses/markets.json') as { data: unknown[] };
const openOrder = F('http_open_order.json');
const cancelOk = F('http_cancel_response_ok.json');
const TOKEN = '71321045679252212594626385532706912750332728571942532289631379312455583992563';

/** Route table: "METHOD /path" -> response body (sent bare or enveloped, alternately). */
const routes: Record<string, unknown> = {
  'GET /markets': marketsPage,
  'GET /market': fixture('nautilus_trader/python_resources/http_responses/market.json'),
  'GET /sampling-markets': { data: marketsPage.data.slice(0, 2), next_cursor: 'LTE=' },
  'GET /sampling-simplified-markets': { data: [{ condition_id: '0x1', tokens: [] }], next_cursor: 'LTE=' },
  'GET /book': fixture('polymercado/clob_book.json'),
  'GET /midpoint': { mid_price: '0.45' },
  'GET /price': { price: '0.51' },
  'GET /spread': { spread: '0.02' },
  'POST /order': F('http_order_response_ok.json'),
  'GET /order': openOrder,
  'DELETE /order': cancelOk,
  'POST /orders': [F('http_order_response_ok.json'), F('http_order_response_failed.json')],
  'GET /orders': F('http_open_orders_page.json'),
  'DELETE /orders': F('http_batch_cancel_response.json'),
  'DELETE /cancel-all': cancelOk,
  'DELETE /cancel-market-orders': cancelOk,
  'GET /trades': F('http_trades_page.json'),
  'GET /data/trades': F('http_trades_page.json'),
  'GET /balances': F('http_balance_allowance_collateral.json'),
  'GET /positions': F('data_api_positions_response.json'),
  'GET /tick-size': { minimum_tick_size: 0.001 },
  'GET /neg-risk': { neg_risk: true },
  'POST /auth/api-key': { apiKey: 'new-key' },
  'GET /auth/api-key': { apiKeys: ['k'] },
  'DELETE /auth/api-key': {},
  // gamma
  'GAMMA GET /markets': [gammaMarket],
  'GAMMA GET /markets/0xabc': gammaMarket,
  'GAMMA GET /markets/data': { markets: [] },
  'GAMMA GET /events': F('gamma_event.json'),
  'GAMMA GET /events/some-slug': (F('gamma_event.json') as unknown[])[0],
  'GAMMA GET /comments': [{ id: 'c1', body: 'hi' }],
  'GAMMA POST /comments': { id: 'c2' },
  'GAMMA GET /profiles/0xabc': { name: 'x' },
  'GAMMA GET /tags': F('gamma_tags.json'),
  'GAMMA GET /sports': [{ sport: 'nba' }],
  'GAMMA GET /series': [{ id: 's1' }],
  'GAMMA GET /health': 'OK',
  // data
  'DATA GET /events': [{ id: 1 }],
  'DATA GET /markets': [{ id: 2 }],
  'DATA GET /prices': { history: [{ t: 1, p: 0.5 }] },
  'DATA GET /users/0xabc': { volume: 1 },
  'DATA GET /users/0xabc/trades': F('data_api_trades_response.json'),
  'DATA GET /users/0xabc/positions': F('data_api_positions_response.json'),
  'DATA GET /users/0xabc/pnl': { pnl: 1.5 },
  'DATA GET /builders/key1': { builder: 'b' },
  'DATA GET /builders/key1/volume': [{ volume: 3 }],
  'DATA GET /health': { status: 'ok' },
  // content
  'CONTENT GET /articles': [{ id: 'a1' }],
  'CONTENT GET /articles/a1': { id: 'a1', title: 't' },
};

let srv: TestServer;
let n = 0;
let clob: ClobClient, gamma: GammaClient, data: DataClient, content: ContentClient;
const transports: Transport[] = [];

beforeAll(async () => {
  srv = await startServer((r, res) => {
    const prefix = r.path.split('/')[1];
    const api = ['_gamma', '_data', '_content'].includes(prefix) ? prefix.slice(1).toUpperCase() + ' ' : '';
    const path = api ? r.path.slice(prefix.length + 1) : r.path;
    const key = `${api}${r.method} ${path}`;
    if (!(key in routes)) return send(res, 404, { error: `no route ${key}` });
    const body = routes[key];
    if (typeof body === 'string') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end(body);
    }
    send(res, 200, n++ % 2 ? { success: true, data: body } : body);
  });
  const limiter = new Limiter({ clock: new WallClock({ keepAlive: true }) });
  const t = (api: 'clob' | 'gamma' | 'data' | 'content', prefix: string) => {
    const x = new Transport({ api, baseUrl: srv.url + prefix, http: testHttp, retry: testRetry, limiter });
    transports.push(x);
    return x;
  };
  clob = new ClobClient(t('clob', ''));
  gamma = new GammaClient(t('gamma', '/_gamma'));
  data = new DataClient(t('data', '/_data'));
  content = new ContentClient(t('content', '/_content'));
});
afterAll(async () => {
  await Promise.all(transports.map((t) => t.close()));
  await srv.close();
});

function lastReq(): Received {
  return srv.requests[srv.requests.length - 1];
}

describe('ClobClient (every endpoint)', () => {
  const cases: Array<[string, () => Promise<unknown>, (r: unknown, req: Received) => void]> = [
    [
      'listMarkets',
      () => clob.listMarkets({ limit: 100 }),
      (r, q) => {
        expect((r as { data: unknown[]; next_cursor: string }).next_cursor).toBe('MTAw');
        expect((r as { data: unknown[] }).data).toHaveLength(100);
        expect(q.query.get('limit')).toBe('100');
      },
    ],
    [
      'getMarket',
      () => clob.getMarket('0xcond'),
      (r, q) => {
        expect(r).toMatchObject({ condition_id: expect.any(String) });
        expect(q.query.get('condition_id')).toBe('0xcond');
      },
    ],
    ['samplingMarkets', () => clob.samplingMarkets(), (r) => expect((r as { data: unknown[] }).data).toHaveLength(2)],
    [
      'samplingSimplifiedMarkets',
      () => clob.samplingSimplifiedMarkets('MA=='),
      (r, q) => {
        expect((r as { data: unknown[] }).data).toHaveLength(1);
        expect(q.query.get('next_cursor')).toBe('MA==');
      },
    ],
    [
      'getBook',
      () => clob.getBook(TOKEN),
      (r, q) => {
        const b = r as { bids: Array<{ price: number; size: number }>; bestBid: number; bestAsk: number; tickSize: number; minOrderSize: number; negRisk: boolean };
        expect(q.query.get('token_id')).toBe(TOKEN);
        expect(b.bids).toHaveLength(20);
        expect([b.bestBid, b.bestAsk, b.tickSize, b.minOrderSize, b.negRisk]).toEqual([4900, 5100, 100, 500, false]);
        expect(b.bids[19]).toEqual({ price: 4900, size: 102800 });
      },
    ],
    ['getMidpoint (mid_price)', () => clob.getMidpoint(TOKEN), (r) => expect(r).toBe(4500)],
    [
      'getPrice',
      () => clob.getPrice(TOKEN, 'BUY'),
      (r, q) => {
        expect(r).toBe(5100);
        expect(q.query.get('side')).toBe('BUY');
      },
    ],
    ['getSpread', () => clob.getSpread(TOKEN), (r) => expect(r).toBe(200)],
    [
      'postOrder',
      () => clob.postOrder({ tokenId: TOKEN, price: 5000, size: 1050, side: 'BUY', orderType: 'GTC', postOnly: true, priceDecimals: 2 }),
      (r, q) => {
        expect(r).toMatchObject({ success: true, orderID: expect.stringMatching(/^0x/) });
        expect(JSON.parse(q.body)).toEqual({ tokenID: TOKEN, price: '0.50', size: '10.5', side: 'BUY', orderType: 'GTC', postOnly: true });
        expect(q.headers['content-type']).toBe('application/json');
      },
    ],
    [
      'getOrder',
      () => clob.getOrder('0x12'),
      (r, q) => {
        expect(r).toMatchObject({ side: 'BUY', price: '0.5000' });
        expect(q.query.get('id')).toBe('0x12');
      },
    ],
    [
      'cancelOrder',
      () => clob.cancelOrder('0xb8'),
      (r, q) => {
        expect((r as { canceled: string[] }).canceled).toHaveLength(1);
        expect(JSON.parse(q.body)).toEqual({ orderID: '0xb8' });
        expect(q.method).toBe('DELETE');
      },
    ],
    [
      'postOrders',
      () =>
        clob.postOrders([
          { tokenId: TOKEN, price: 4000, size: 500, side: 'BUY' },
          { tokenId: TOKEN, price: 6000, size: 500, side: 'SELL' },
        ]),
      (r, q) => {
        const rs = r as Array<{ success: boolean; errorMsg?: string | null }>;
        expect(rs.map((x) => x.success)).toEqual([true, false]);
        expect(rs[1].errorMsg).toBe('Insufficient balance');
        expect(JSON.parse(q.body)).toEqual([
          { tokenID: TOKEN, price: '0.4', size: '5', side: 'BUY' },
          { tokenID: TOKEN, price: '0.6', size: '5', side: 'SELL' },
        ]);
      },
    ],
    [
      'getOrders',
      () => clob.getOrders({ market: '0xm' }),
      (r, q) => {
        expect((r as { next_cursor: string }).next_cursor).toBe('LTE=');
        expect(q.query.get('market')).toBe('0xm');
      },
    ],
    [
      'cancelOrders',
      () => clob.cancelOrders(['0x1', '0x2']),
      (r, q) => {
        expect((r as { not_canceled: Record<string, string> }).not_canceled).toEqual({ ['0x' + '3'.repeat(64)]: 'already canceled or matched' });
        expect(JSON.parse(q.body)).toEqual({ orderIds: ['0x1', '0x2'] });
      },
    ],
    [
      'cancelAll',
      () => clob.cancelAll(),
      (r, q) => {
        expect(r).toMatchObject({ canceled: expect.any(Array) });
        expect(q.body).toBe('');
      },
    ],
    ['cancelMarketOrders', () => clob.cancelMarketOrders('0xcond', TOKEN), (_r, q) => expect(JSON.parse(q.body)).toEqual({ market: '0xcond', asset_id: TOKEN })],
    [
      'getTrades',
      () => clob.getTrades({ asset_id: TOKEN }),
      (r, q) => {
        expect((r as { data: unknown[] }).data.length).toBeGreaterThan(0);
        expect(q.query.get('asset_id')).toBe(TOKEN);
      },
    ],
    ['getDataTrades', () => clob.getDataTrades(), (r) => expect((r as { data: unknown[] }).data.length).toBeGreaterThan(0)],
    ['getBalances', () => clob.getBalances(), (r) => expect(r).toHaveProperty('balance')],
    ['getPositions', () => clob.getPositions(), (r) => expect(Array.isArray(r)).toBe(true)],
    ['getTickSize', () => clob.getTickSize(TOKEN), (r) => expect(r).toBe(10)],
    ['getNegRisk', () => clob.getNegRisk(TOKEN), (r) => expect(r).toBe(true)],
    [
      'createApiKey',
      () => clob.createApiKey(),
      (r, q) => {
        expect(r).toEqual({ apiKey: 'new-key' });
        expect(q.method).toBe('POST');
      },
    ],
    ['getApiKey', () => clob.getApiKey(), (r) => expect(r).toEqual({ apiKeys: ['k'] })],
    [
      'deleteApiKey',
      () => clob.deleteApiKey(),
      (r, q) => {
        expect(r).toEqual({});
        expect(q.method).toBe('DELETE');
      },
    ],
  ];
  it('covers all 25 endpoints', () => expect(new Set(Object.keys(routes).filter((k) => !/^[A-Z]+ [A-Z]+ /.test(k))).size).toBe(25));
  for (const [name, call, verify] of cases) {
    it(name, async () => {
      const r = await call();
      verify(r, lastReq());
    });
  }
  it('iterates cursor pages to the "LTE=" end marker', async () => {
    const before = srv.requests.length;
    const ids: string[] = [];
    for await (const o of clob.iterateOrders()) ids.push(o.id);
    expect(ids.length).toBeGreaterThan(0);
    expect(srv.requests.length - before).toBe(1);
  });
  it('rejects a batch over 15 without sending', async () => {
    const o = { tokenId: TOKEN, price: 5000, size: 500, side: 'BUY' as const };
    await expect(clob.postOrders(Array.from({ length: 16 }, () => o))).rejects.toThrow(RangeError);
  });
});

describe('cursor pagination across pages', () => {
  it('follows next_cursor until "LTE="', async () => {
    const pages: Record<string, { data: Array<{ condition_id: string }>; next_cursor: string }> = {
      '': { data: [{ condition_id: 'a' }, { condition_id: 'b' }], next_cursor: 'Mg==' },
      'Mg==': { data: [{ condition_id: 'c' }], next_cursor: 'Mw==' },
      'Mw==': { data: [{ condition_id: 'd' }], next_cursor: 'LTE=' },
    };
    const s = await startServer((r, res) => send(res, 200, { success: true, data: pages[r.query.get('next_cursor') ?? ''] }));
    const cfg = loadConfig({ env: { MAKERD_CLOB_URL: s.url } });
    const c = createClients({ ...cfg, retry: testRetry, http: testHttp });
    try {
      const got: string[] = [];
      for await (const m of c.clob.iterateMarkets()) got.push(m.condition_id);
      expect(got).toEqual(['a', 'b', 'c', 'd']);
      expect(s.requests.map((r) => r.query.get('next_cursor'))).toEqual([null, 'Mg==', 'Mw==']);
    } finally {
      await c.close();
      await s.close();
    }
  });

  it('a cursor past 1 KB is refused, and a walk past its item bound stops (pages are capped in bytes, not count)', async () => {
    let n = 0;
    const s = await startServer((_r, res) => {
      n++;
      send(res, 200, { success: true, data: { data: [{ condition_id: `m${n}` }], next_cursor: n === 1 ? 'x'.repeat(2000) : 'LTE=' } });
    });
    const cfg = loadConfig({ env: { MAKERD_CLOB_URL: s.url } });
    const c = createClients({ ...cfg, retry: testRetry, http: testHttp });
    try {
      await expect(
        (async () => {
          for await (const m of c.clob.iterateMarkets()) void m;
        })(),
      ).rejects.toThrow(/next_cursor of 2000 characters/);
      expect(s.requests).toHaveLength(1);
    } finally {
      await c.close();
      await s.close();
    }
    // the bound on items: a server paging full pages without end
    let k = 0;
    const endless = cursorItems(async () => ({ data: Array.from({ length: 100 }, () => k++), next_cursor: `c${k}` }), undefined, 10_000, 1000);
    const got: number[] = [];
    await expect(
      (async () => {
        for await (const x of endless) got.push(x);
      })(),
    ).rejects.toThrow(/pagination stopped after 11 pages: more than 1000 items/);
    expect(got).toHaveLength(1000);
  });
});

describe('GammaClient (every endpoint)', () => {
  it('listMarkets decodes JSON-string fields and sends filters', async () => {
    const ms = await gamma.listMarkets({ active: true, closed: false, tag: 'crypto', order: 'volume', limit: 5, offset: 10 });
    expect(ms[0].clobTokenIds).toHaveLength(2);
    expect(ms[0].outcomes).toEqual(['Up', 'Down']);
    expect(ms[0].outcomePrices).toEqual(['0.505', '0.495']);
    expect(ms[0].conditionId).toBe(gammaMarket.conditionId);
    expect(ms[0]).toHaveProperty('slug'); // unknown fields pass through
    const q = lastReq().query;
    expect([q.get('active'), q.get('closed'), q.get('tag'), q.get('order'), q.get('limit'), q.get('offset')]).toEqual(['true', 'false', 'crypto', 'volume', '5', '10']);
  });
  it('the other 11 endpoints', async () => {
    expect((await gamma.getMarket('0xabc')).outcomes).toEqual(['Up', 'Down']);
    expect(await gamma.marketsData()).toEqual({ markets: [] });
    expect((await gamma.listEvents({ limit: 1 })).length).toBe(1);
    expect(await gamma.getEvent('some-slug')).toHaveProperty('id');
    expect(await gamma.listComments()).toEqual([{ id: 'c1', body: 'hi' }]);
    expect(await gamma.postComment({ body: 'x', parentEntityId: '1' })).toEqual({ id: 'c2' });
    expect(JSON.parse(lastReq().body)).toEqual({ body: 'x', parentEntityId: '1' });
    expect(await gamma.getProfile('0xabc')).toEqual({ name: 'x' });
    expect((await gamma.listTags()).length).toBe(5);
    expect(await gamma.listSports()).toEqual([{ sport: 'nba' }]);
    expect(await gamma.listSeries({ limit: 3 })).toEqual([{ id: 's1' }]);
    expect(await gamma.health()).toBe('OK');
  });
  it('a market with a malformed clobTokenIds string is a ResponseShapeError', async () => {
    const s = await startServer((_r, res) => send(res, 200, [{ ...gammaMarket, clobTokenIds: '[not json' }]));
    const g = new GammaClient(new Transport({ api: 'gamma', baseUrl: s.url, http: testHttp, retry: testRetry, limiter: new Limiter({ clock: new WallClock({ keepAlive: true }) }) }));
    try {
      await expect(g.listMarkets()).rejects.toBeInstanceOf(ResponseShapeError);
    } finally {
      await g.transport.close();
      await s.close();
    }
  });
  it('offset pagination stops on a short page', async () => {
    const s = await startServer((r, res) => {
      const off = Number(r.query.get('offset'));
      const k = off < 4 ? 2 : 1;
      send(
        res,
        200,
        Array.from({ length: k }, (_, i) => ({ ...gammaMarket, id: String(off + i) })),
      );
    });
    const g = new GammaClient(new Transport({ api: 'gamma', baseUrl: s.url, http: testHttp, retry: testRetry, limiter: new Limiter({ clock: new WallClock({ keepAlive: true }) }) }));
    try {
      const ids: string[] = [];
      for await (const m of g.iterateMarkets({ active: true }, 2)) ids.push(m.id);
      expect(ids).toEqual(['0', '1', '2', '3', '4']);
      expect(s.requests.map((r) => r.query.get('offset'))).toEqual(['0', '2', '4']);
    } finally {
      await g.transport.close();
      await s.close();
    }
  });
  it('offset pagination fails at once on a server that ignores the offset (the same full page again, its live figures moved), not after 10,000 pages', async () => {
    let n = 0;
    const s = await startServer((_r, res) => {
      n++;
      send(res, 200, [
        { ...gammaMarket, id: '1', volume24hr: n },
        { ...gammaMarket, id: '2', volume24hr: n },
      ]);
    });
    const g = new GammaClient(new Transport({ api: 'gamma', baseUrl: s.url, http: testHttp, retry: testRetry, limiter: new Limiter({ clock: new WallClock({ keepAlive: true }) }) }));
    try {
      const ids: string[] = [];
      await expect(
        (async () => {
          for await (const m of g.iterateMarkets({ active: true }, 2)) ids.push(m.id);
        })(),
      ).rejects.toThrow(/repeats the one before it: the server ignores the offset/);
      expect(ids).toEqual(['1', '2']);
      expect(s.requests).toHaveLength(2);
    } finally {
      await g.transport.close();
      await s.close();
    }
  });
});

describe('DataClient and ContentClient (every endpoint)', () => {
  it('data: 10 endpoints', async () => {
    expect(await data.listEvents({ limit: 2 })).toEqual([{ id: 1 }]);
    expect(await data.listMarkets()).toEqual([{ id: 2 }]);
    expect(await data.priceHistory({ market: TOKEN, fidelity: 60 })).toEqual({ history: [{ t: 1, p: 0.5 }] });
    expect(lastReq().query.get('market')).toBe(TOKEN);
    expect(await data.userStats('0xabc')).toEqual({ volume: 1 });
    expect((await data.userTrades('0xabc', { limit: 10 })).length).toBe(3);
    expect((await data.userPositions('0xabc')).length).toBe(4);
    expect(await data.userPnl('0xabc')).toEqual({ pnl: 1.5 });
    expect(await data.builderStats('key1')).toEqual({ builder: 'b' });
    expect(await data.builderVolume('key1')).toEqual([{ volume: 3 }]);
    expect(await data.health()).toEqual({ status: 'ok' });
  });
  it('offset iterators stop on a short page', async () => {
    const before = srv.requests.length;
    const trades: unknown[] = [];
    for await (const t of data.iterateUserTrades('0xabc', 100)) trades.push(t);
    const positions: unknown[] = [];
    for await (const p of data.iterateUserPositions('0xabc', 10)) positions.push(p);
    const articles: unknown[] = [];
    for await (const a of content.iterateArticles(10)) articles.push(a);
    expect([trades.length, positions.length, articles.length]).toEqual([3, 4, 1]);
    expect(srv.requests.length - before).toBe(3);
    expect(srv.requests[srv.requests.length - 1].query.get('limit')).toBe('10');
  });
  it('content: 2 endpoints', async () => {
    expect(await content.listArticles({ limit: 5 })).toEqual([{ id: 'a1' }]);
    expect(lastReq().query.get('limit')).toBe('5');
    expect(await content.getArticle('a1')).toEqual({ id: 'a1', title: 't' });
  });
  it('a wrong shape is a ResponseShapeError naming the field', async () => {
    await expect(data.userStats('0xnope')).rejects.toThrow(/404|no route/);
    const s = await startServer((_r, res) => send(res, 200, { minimum_tick_size: '0.01' }));
    const c = new ClobClient(new Transport({ api: 'clob', baseUrl: s.url, http: testHttp, retry: testRetry, limiter: new Limiter({ clock: new WallClock({ keepAlive: true }) }) }));
    try {
      await expect(c.getTickSize('1')).rejects.toThrow(/minimum_tick_size/);
    } finally {
      await c.transport.close();
      await s.close();
    }
  });
});
