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
        // the venue's float 1 - p for a complement maker, as in polytrader's real capture
        { order_id: 'float-price', asset_id: NO, price: '0.4300000444600143', matched_amount: '8.771927' },
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
      expect(by['float-price']).toMatchObject({ tokenId: NO, price: 4300, size: 877, liquidity: 'MAKER' });
    } finally {
      await clients.close();
    }
  });
});

describe('LiveVenue: typed refusals (issue 11, item 5)', () => {
  const order = { clientId: 'c1', tokenId: YES, side: 'BUY' as const, price: 5000, size: 500, orderType: 'GTC' as const, postOnly: true };
  async function venueWith(handler: Parameters<typeof startServer>[0]) {
    server = await startServer(handler);
    const cfg = loadConfig({ env: { MAKERD_CLOB_URL: server.url } });
    const clients = createClients({ ...cfg, http: testHttp }, 'k');
    return { clients, venue: new LiveVenue({ clob: clients.clob, subscribeUser: () => {}, tickOf: () => 100, log: silentLogger }) };
  }

  it('a single order refused with a 400 is a result with its code, not an error whose text the engine searches', async () => {
    const { clients, venue } = await venueWith((_q, res) => send(res, 400, { error: 'INVALID_ORDER_MIN_TICK_SIZE: order price breaks minimum tick size rules' }));
    try {
      expect(await venue.placeOrder(order)).toEqual({
        clientId: 'c1',
        ok: false,
        error: 'INVALID_ORDER_MIN_TICK_SIZE',
        message: 'INVALID_ORDER_MIN_TICK_SIZE: order price breaks minimum tick size rules',
      });
    } finally {
      await clients.close();
    }
  });

  it('a batch answer names each refusal by code; an unknown text is UNKNOWN; the longer code wins', async () => {
    const { clients, venue } = await venueWith((_q, res) =>
      send(res, 200, [
        { success: false, errorMsg: 'INVALID_POST_ONLY_ORDER_TYPE', orderID: '', status: 'unmatched' },
        { success: false, errorMsg: 'invalid post-only order: INVALID_POST_ONLY_ORDER', orderID: '', status: 'unmatched' },
        { success: false, errorMsg: 'something else', orderID: '', status: 'unmatched' },
      ]),
    );
    try {
      const got = await venue.placeOrders([order, { ...order, clientId: 'c2' }, { ...order, clientId: 'c3' }]);
      expect(got.map((r) => r.error)).toEqual(['INVALID_POST_ONLY_ORDER_TYPE', 'INVALID_POST_ONLY_ORDER', 'UNKNOWN']);
    } finally {
      await clients.close();
    }
  });

  it('a 500 on a place stays an error (the outcome is unclear), never a refusal', async () => {
    const { clients, venue } = await venueWith((_q, res) => send(res, 500, { error: 'INVALID_ORDER_MIN_SIZE' }));
    try {
      await expect(venue.placeOrder(order)).rejects.toThrow(/outcome unknown/);
    } finally {
      await clients.close();
    }
  });
});
