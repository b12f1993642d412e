// The market query against a real loopback metadata API (node:http on 127.0.0.1; found in review):
// - it asks for the highest first (ascending=false: public clients send it, the venue's default is
//   not documented), and stops once the sorted field falls below its floor: it read every open
//   market when fewer than `limit` passed the floors (hundreds of pages, the start-up bound spent);
// - a market that is closed, or whose end date has passed (the venue leaves many accepting orders
//   while resolution is pending), is not taken.
import { afterEach, describe, expect, it } from 'vitest';
import { createClients } from '../../src/api/index.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/core/log.js';
import { marketsFromQuery } from '../../src/session/markets.js';
import { send, startServer, testHttp, type TestServer } from '../api/http-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const market = (i: number, over: Record<string, unknown> = {}) => ({
  id: String(1_000_000 + i),
  question: `market ${i}?`,
  conditionId: `0xc${i}`,
  clobTokenIds: JSON.stringify([`${i}1`, `${i}2`]),
  volumeNum: 1_000_000 - i,
  liquidityNum: 1000,
  orderPriceMinTickSize: 0.01,
  orderMinSize: 5,
  negRisk: false,
  active: true,
  closed: false,
  acceptingOrders: true,
  enableOrderBook: true,
  ...over,
});

/** A metadata API over `all` (already in volume order, highest first), offset pages as asked. */
async function gammaOver(all: Array<Record<string, unknown>>) {
  server = await startServer((req, res) => {
    if (req.method !== 'GET' || req.path !== '/markets') return send(res, 404, { error: 'not found' });
    const offset = Number(req.query.get('offset') ?? 0);
    const limit = Number(req.query.get('limit') ?? 100);
    send(res, 200, all.slice(offset, offset + limit));
  });
  const cfg = loadConfig({ env: { MAKERD_GAMMA_URL: server.url } });
  return { clients: createClients({ ...cfg, http: testHttp }, 'k'), cfg };
}

describe('the market query', () => {
  it('asks for the highest first and stops once the sorted field is below its floor, not at the end of the list', async () => {
    // 3,000 open markets, only the first two above the volume floor
    const all = Array.from({ length: 3000 }, (_, i) => market(i, { volumeNum: i < 2 ? 5_000_000 - i : 1000 - i / 10 }));
    const { clients, cfg } = await gammaOver(all);
    try {
      const got = await marketsFromQuery(clients.gamma, clients.clob, { ...cfg.marketQuery, enabled: true, order: 'volume', minVolume: 1_000_000, limit: 3 }, silentLogger);
      expect(got.map((m) => m.conditionId)).toEqual(['0xc0', '0xc1']);
      const asked = server!.requests.filter((r) => r.path === '/markets');
      expect(asked.length).toBeLessThanOrEqual(2);
      expect(asked[0].query.get('ascending')).toBe('false');
      expect(asked[0].query.get('order')).toBe('volume');
    } finally {
      await clients.close();
    }
  });

  it('a market whose sorted field is missing is skipped, not taken for the end of the list', async () => {
    const all = [market(0, { volumeNum: undefined }), market(1), market(2)];
    const { clients, cfg } = await gammaOver(all);
    try {
      const got = await marketsFromQuery(clients.gamma, clients.clob, { ...cfg.marketQuery, enabled: true, order: 'volume', minVolume: 1000, limit: 5 }, silentLogger);
      expect(got.map((m) => m.conditionId)).toEqual(['0xc1', '0xc2']);
    } finally {
      await clients.close();
    }
  });

  it('leaves out a market that is closed or past its end date', async () => {
    const past = new Date(Date.now() - 3_600_000).toISOString();
    const future = new Date(Date.now() + 86_400_000).toISOString();
    const all = [market(0, { closed: true }), market(1, { endDate: past }), market(2, { endDate: future }), market(3)];
    const { clients, cfg } = await gammaOver(all);
    try {
      const got = await marketsFromQuery(clients.gamma, clients.clob, { ...cfg.marketQuery, enabled: true, order: 'volume', minVolume: 0, limit: 10 }, silentLogger);
      expect(got.map((m) => m.conditionId)).toEqual(['0xc2', '0xc3']);
    } finally {
      await clients.close();
    }
  });
});
