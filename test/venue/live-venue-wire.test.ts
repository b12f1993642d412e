// The live venue over a real loopback CLOB server (node:http on 127.0.0.1, the project's own REST
// client): order statuses in the API reference's spelling (an ORDER_STATUS_ prefix), and cancel
// answers whose lists a Go server writes as null.
import { afterEach, describe, expect, it } from 'vitest';
import { createClients } from '../../src/api/index.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/core/log.js';
import { LiveVenue } from '../../src/venue/live-venue.js';
import { send, startServer, testHttp, type Handler, type TestServer } from '../api/http-server.js';

const YES = '111';
let server: TestServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function venueWith(handler: Handler) {
  server = await startServer(handler);
  const cfg = loadConfig({ env: { MAKERD_CLOB_URL: server.url } });
  const clients = createClients({ ...cfg, http: testHttp }, 'k');
  return { clients, venue: new LiveVenue({ clob: clients.clob, subscribeUser: () => {}, tickOf: () => 100, log: silentLogger }) };
}

const order = (id: string, status: string) => ({
  id,
  status,
  market: '0xm',
  asset_id: YES,
  side: 'BUY',
  original_size: '10',
  size_matched: '0',
  price: '0.5',
  order_type: 'GTC',
  created_at: 1725842520,
});

describe('LiveVenue: REST order statuses with an ORDER_STATUS_ prefix (the API reference spelling)', () => {
  // ended, not null: a MATCHED answer's size_matched is shares bought or sold whose trade may not have come yet
  it('a look-up of an order the venue reports ORDER_STATUS_CANCELED (or MATCHED, EXPIRED, ...) finds it ended, with its matched size; ORDER_STATUS_LIVE is open', async () => {
    let status = '';
    const { clients, venue } = await venueWith((req, res) => {
      if (req.method === 'GET' && req.path === '/order') send(res, 200, order(req.query.get('id') ?? '', status));
      else send(res, 404, { error: 'not found' });
    });
    try {
      for (const s of ['ORDER_STATUS_CANCELED', 'ORDER_STATUS_CANCELED_MARKET_RESOLVED', 'ORDER_STATUS_MATCHED', 'ORDER_STATUS_EXPIRED', 'ORDER_STATUS_INVALID', 'order_status_canceled']) {
        status = s;
        expect(await venue.lookUpOrder('0xa'), s).toMatchObject({ orderId: '0xa', ended: true, sizeMatched: 0 });
      }
      // the unprefixed spellings as before
      status = 'CANCELED';
      expect(await venue.lookUpOrder('0xa')).toMatchObject({ ended: true });
      for (const s of ['ORDER_STATUS_LIVE', 'LIVE', 'ORDER_STATUS_DELAYED']) {
        status = s;
        const got = await venue.lookUpOrder('0xa');
        expect(got, s).toMatchObject({ orderId: '0xa', status: s.replace(/^ORDER_STATUS_/, '') });
        expect(got?.ended, s).toBeUndefined();
      }
    } finally {
      await clients.close();
    }
  });

  it('the open-order list reads the prefixed status as the plain one', async () => {
    const { clients, venue } = await venueWith((req, res) => {
      if (req.method === 'GET' && req.path === '/orders') send(res, 200, { data: [order('0xa', 'ORDER_STATUS_LIVE')], next_cursor: 'LTE=', limit: 100, count: 1 });
      else send(res, 404, { error: 'not found' });
    });
    try {
      const got = await venue.openOrders();
      expect(got).toHaveLength(1);
      expect(got[0]).toMatchObject({ orderId: '0xa', status: 'LIVE', price: 5000 });
    } finally {
      await clients.close();
    }
  });
});

describe("LiveVenue: a cancel answer whose lists are null (a Go server's nil slice or map)", () => {
  it('{"canceled":null,"not_canceled":{}} and a null not_canceled read as empty lists on every cancel, never a shape error', async () => {
    let answer: unknown = {};
    const { clients, venue } = await venueWith((req, res) => {
      if (req.method === 'DELETE') send(res, 200, answer);
      else send(res, 404, { error: 'not found' });
    });
    try {
      answer = { canceled: null, not_canceled: {} };
      expect(await venue.cancelAll()).toEqual({ canceled: [], notCanceled: {} });
      expect(await venue.cancelOrders(['0xa', '0xb'])).toEqual({ canceled: [], notCanceled: {} });
      expect(await venue.cancelOrder('0xa')).toEqual({ canceled: [], notCanceled: {} });
      expect(await venue.cancelMarket('0xm')).toEqual({ canceled: [], notCanceled: {} });
      answer = { canceled: null, not_canceled: null };
      expect(await venue.cancelAll()).toEqual({ canceled: [], notCanceled: {} });
      answer = { canceled: ['0xa'], not_canceled: null };
      expect(await venue.cancelOrders(['0xa'])).toEqual({ canceled: ['0xa'], notCanceled: {} });
      answer = { canceled: null, not_canceled: { '0xb': 'order already matched' } };
      expect(await venue.cancelOrders(['0xb'])).toEqual({ canceled: [], notCanceled: { '0xb': 'order already matched' } });
    } finally {
      await clients.close();
    }
  });
});

describe('LiveVenue: a look-up answer that is no order', () => {
  it('null, an empty body or a 404 is "not there"; an HTML page, a drifted shape or another order\'s answer throws (the order is kept, not settled as gone)', async () => {
    let answer: (res: Parameters<Parameters<typeof startServer>[0]>[1], id: string) => void = () => undefined;
    const { clients, venue } = await venueWith((req, res) => {
      if (req.method === 'GET' && req.path === '/order') answer(res, req.query.get('id') ?? '');
      else send(res, 404, { error: 'not found' });
    });
    try {
      answer = (res) => send(res, 200, null);
      expect(await venue.lookUpOrder('0xa')).toBeNull();
      answer = (res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('');
      };
      expect(await venue.lookUpOrder('0xa')).toBeNull();
      answer = (res) => send(res, 404, { error: 'order not found' });
      expect(await venue.lookUpOrder('0xa')).toBeNull();
      answer = (res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>down for maintenance</html>');
      };
      await expect(venue.lookUpOrder('0xa')).rejects.toThrow(/unexpected response shape/);
      answer = (res, id) => send(res, 200, { ...order(id, 'LIVE'), side: 'buy' });
      await expect(venue.lookUpOrder('0xa')).rejects.toThrow(/unexpected response shape/);
      answer = (res) => send(res, 200, order('0xother', 'CANCELED'));
      await expect(venue.lookUpOrder('0xa')).rejects.toThrow(/asked for order 0xa, the answer is order 0xother/);
    } finally {
      await clients.close();
    }
  });
});

describe('LiveVenue: a refusal inside a place answer', () => {
  it("its text is cut to 500 characters (it becomes the order's stored refusal and a WARN line)", async () => {
    const { clients, venue } = await venueWith((req, res) => {
      if (req.method === 'POST' && req.path === '/orders') send(res, 200, [{ success: false, errorMsg: 'x'.repeat(20_000), orderID: '', status: '' }]);
      else send(res, 404, { error: 'not found' });
    });
    try {
      const [r] = await venue.placeOrders([{ clientId: 'c1', tokenId: YES, side: 'BUY', price: 4000, size: 500, orderType: 'GTC', postOnly: true }]);
      expect(r.ok).toBe(false);
      expect(r.message?.length).toBe(500);
    } finally {
      await clients.close();
    }
  });
});
