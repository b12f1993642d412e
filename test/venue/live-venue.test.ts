// The live venue over a real loopback CLOB server: REST trades expand into one VenueTrade per
// order they name, with the maker's side right even when the venue omits it.
import { afterEach, describe, expect, it } from 'vitest';
import { createClients } from '../../src/api/index.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/core/log.js';
import { LiveVenue } from '../../src/venue/live-venue.js';
import { send, startServer, testHttp, type TestServer } from '../api/http-server.js';

const YES = '111';
const NO = '222';
let server: TestServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('LiveVenue.trades', () => {
  it('infers a missing maker side from the token: same token -> opposite side, complement -> same side', async () => {
    const trade = {
      id: 't1',
      taker_order_id: 'taker',
      market: '0xm',
      asset_id: YES,
      side: 'BUY',
      size: '15',
      price: '0.52',
      status: 'CONFIRMED',
      match_time: '1725958681',
      maker_orders: [
        { order_id: 'same-token', asset_id: YES, price: '0.52', matched_amount: '10' },
        { order_id: 'complement', asset_id: NO, price: '0.48', matched_amount: '5' },
      ],
    };
    server = await startServer((req, res) => {
      if (req.path === '/trades') send(res, 200, { data: [trade], next_cursor: 'LTE=', limit: 100, count: 1 });
      else send(res, 404, { error: 'not found' });
    });
    const cfg = loadConfig({ env: { MAKERD_CLOB_URL: server.url } });
    const clients = createClients({ ...cfg, http: testHttp }, 'k');
    const venue = new LiveVenue({ clob: clients.clob, subscribeUser: () => {}, tickOf: () => 100, log: silentLogger });
    try {
      const got = await venue.trades(0);
      const by = Object.fromEntries(got.map((t) => [t.orderId, t]));
      expect(by.taker).toMatchObject({ side: 'BUY', tokenId: YES, price: 5200, size: 1500, liquidity: 'TAKER', timeMs: 1725958681000 });
      expect(by['same-token']).toMatchObject({ side: 'SELL', tokenId: YES, price: 5200, size: 1000, liquidity: 'MAKER' });
      expect(by.complement).toMatchObject({ side: 'BUY', tokenId: NO, price: 4800, size: 500, liquidity: 'MAKER' });
    } finally {
      await clients.close();
    }
  });
});
