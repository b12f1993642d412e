// Many token ids resolve from the CLOB's market list (pages of many markets) instead of a GET /book
// and a GET /markets/{id} each (100 per 10 s apiece: 1,000 tokens took 100 s, past the start-up
// bound): against the emulator on loopback (the terms are the ones the one-by-one path finds), and
// against node:http serving a real captured GET /markets page (nautilus_trader markets.json), one
// that fails, and one whose cursor goes round in a circle.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { describe, expect, it } from 'vitest';
import { createClients } from '../../src/api/index.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/core/log.js';
import { startEmulator, urlsEnv } from '../../src/emulator/server.js';
import { marketsFromTokens } from '../../src/session/markets.js';
import { ClobClient } from '../../src/api/clob-client.js';
import { Limiter } from '../../src/api/limiter.js';
import { Transport } from '../../src/api/transport.js';
import { WallClock } from '../../src/core/clock.js';
import { createLogger } from '../../src/core/log.js';
import { fixture, send, startServer, testHttp, testRetry, type Handler } from '../api/http-server.js';

interface WireMarket {
  condition_id: string;
  tokens: Array<{ token_id: string }>;
  minimum_tick_size: number;
  minimum_order_size: number;
}
const page = fixture('nautilus_trader/python_resources/http_responses/markets.json') as { data: WireMarket[]; next_cursor: string };

/** A CLOB on node:http answering with `h`; the requests it saw; warnings logged. */
async function realClob(h: Handler) {
  const srv = await startServer(h);
  const clob = new ClobClient(
    new Transport({ api: 'clob', baseUrl: srv.url, http: testHttp, retry: { ...testRetry, attempts: 1 }, limiter: new Limiter({ clock: new WallClock({ keepAlive: true }) }) }),
  );
  const lines: string[] = [];
  const log = createLogger({ level: 'warn', destination: { write: (x: string) => void lines.push(x) } });
  return { srv, clob, lines, log };
}

describe('marketsFromTokens with many tokens', () => {
  it('takes them from the market list (a few requests, no GET /book), with the terms found one by one', async () => {
    const emu = await startEmulator({ seed: 9, markets: 40, keys: ['k'] });
    const clients = createClients(loadConfig({ env: urlsEnv(emu.urls) }), 'k', silentLogger);
    const paths: string[] = [];
    const onCreate = (m: unknown) => paths.push((m as { request: { method: string; path: string } }).request.path.split('?')[0]);
    subscribe('undici:request:create', onCreate);
    try {
      // the first token of each market, and one market named by its second token
      const tokens = emu.markets.map((m, i) => m.facts.tokens[i === 7 ? 1 : 0]);
      const many = await marketsFromTokens(clients.clob, tokens, silentLogger);
      expect(many).toHaveLength(40);
      expect(many.map((m) => m.conditionId)).toEqual(emu.markets.map((m) => m.facts.conditionId));
      expect(paths.filter((p) => p.endsWith('/book'))).toEqual([]);
      expect(paths.length).toBeLessThan(10);
      // the one-by-one path (few tokens) finds the same terms
      paths.length = 0;
      const one = await marketsFromTokens(clients.clob, tokens.slice(0, 3), silentLogger);
      expect(paths.filter((p) => p.endsWith('/book'))).toHaveLength(3);
      expect(one).toEqual(many.slice(0, 3));
    } finally {
      unsubscribe('undici:request:create', onCreate);
      await clients.close();
      await emu.close();
    }
  });
});

describe('marketsFromTokens with many tokens, against a real GET /markets page', () => {
  const markets = page.data.slice(0, 25);
  const tokens = markets.map((m) => m.tokens[0].token_id);
  const one = (q: { path: string; query: URLSearchParams }, res: Parameters<Handler>[1]) => {
    // the one-by-one path: GET /book names the market, GET /market its terms
    if (q.path === '/book') {
      const m = page.data.find((x) => x.tokens.some((t) => t.token_id === q.query.get('token_id')));
      return send(res, 200, { market: m?.condition_id, asset_id: q.query.get('token_id'), timestamp: '1', hash: '', bids: [], asks: [] });
    }
    // the spec profile's GET /market?condition_id= (the polymarket profile's /markets/{id})
    const id = q.path === '/market' ? q.query.get('condition_id') : q.path.replace(/^\/markets\//, '');
    const m = page.data.find((x) => x.condition_id === id);
    return m ? send(res, 200, m) : send(res, 404, { error: 'not found' });
  };

  it('reads the captured page: the terms of each market, two requests, no GET /book', async () => {
    const { srv, clob, log } = await realClob((q, res) => {
      if (q.path !== '/markets') return send(res, 500, { error: 'only the list' });
      // the captured first page, then the end of the list
      return q.query.get('next_cursor') === page.next_cursor ? send(res, 200, { data: [], next_cursor: 'LTE=', limit: 100, count: 0 }) : send(res, 200, page);
    });
    try {
      const got = await marketsFromTokens(clob, tokens, log);
      expect(got.map((m) => m.conditionId)).toEqual(markets.map((m) => m.condition_id));
      // 0.001 tick -> 10 units, 5 shares -> 500 units, the second token the complement
      expect(got[0]).toMatchObject({
        tokenId: markets[0].tokens[0].token_id,
        complementId: markets[0].tokens[1].token_id,
        tick: Math.round(markets[0].minimum_tick_size * 10_000),
        minSize: markets[0].minimum_order_size * 100,
      });
      expect(srv.requests.map((r) => r.path)).toEqual(['/markets']);
    } finally {
      await srv.close();
    }
  });

  it('a list that fails costs a warning: every token is looked up alone, with the same terms', async () => {
    const { srv, clob, lines, log } = await realClob((q, res) => (q.path === '/markets' ? send(res, 500, { error: 'down' }) : one(q, res)));
    try {
      const got = await marketsFromTokens(clob, tokens, log);
      expect(got.map((m) => m.conditionId)).toEqual(markets.map((m) => m.condition_id));
      expect(got[0].tick).toBe(Math.round(markets[0].minimum_tick_size * 10_000));
      expect(srv.requests.filter((r) => r.path === '/book')).toHaveLength(25);
      expect(lines.filter((l) => l.includes('market list unreadable'))).toHaveLength(1);
    } finally {
      await srv.close();
    }
  });

  it('a cursor that goes round in a circle ends the list; the tokens it lacks are looked up alone', async () => {
    // page A (without the last 5 markets) -> B -> A again
    const { srv, clob, log } = await realClob((q, res) => {
      if (q.path !== '/markets') return one(q, res);
      const c = q.query.get('next_cursor');
      return send(res, 200, { data: c === 'B' ? [] : page.data.slice(0, 20), next_cursor: c === 'B' ? 'A' : 'B', limit: 100, count: 20 });
    });
    try {
      const got = await marketsFromTokens(clob, tokens, log);
      expect(got.map((m) => m.conditionId)).toEqual(markets.map((m) => m.condition_id));
      expect(srv.requests.filter((r) => r.path === '/markets').length).toBeLessThanOrEqual(3);
      expect(srv.requests.filter((r) => r.path === '/book')).toHaveLength(5);
    } finally {
      await srv.close();
    }
  });
});
