// The live venue over a real loopback CLOB server (node:http on 127.0.0.1, the project's own REST
// client): order statuses in the API reference's spelling (an ORDER_STATUS_ prefix), and cancel
// answers whose lists a Go server writes as null.
import { afterEach, describe, expect, it } from 'vitest';
import { createClients } from '../../src/api/index.js';
import { loadConfig } from '../../src/config.js';
import { createLogger, silentLogger, type Logger } from '../../src/core/log.js';
import { LiveVenue } from '../../src/venue/live-venue.js';
import { AmbiguousSubmitError } from '../../src/core/errors.js';
import { send, startServer, testHttp, type Handler, type TestServer } from '../api/http-server.js';

const YES = '111';
let server: TestServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function venueWith(handler: Handler, log: Logger = silentLogger) {
  server = await startServer(handler);
  const cfg = loadConfig({ env: { MAKERD_CLOB_URL: server.url } });
  const clients = createClients({ ...cfg, http: testHttp }, 'k');
  return { clients, venue: new LiveVenue({ clob: clients.clob, subscribeUser: () => {}, tickOf: () => 100, log }) };
}

/** A logger whose lines (level, msg) are kept. */
function keptLog(): { log: Logger; lines: Array<{ level: number; msg: string } & Record<string, unknown>> } {
  const lines: Array<{ level: number; msg: string } & Record<string, unknown>> = [];
  return { lines, log: createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(JSON.parse(s) as (typeof lines)[number]) } }) };
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

// found in review of the live order path
describe('LiveVenue: answers that refuse, list or report what they should not', () => {
  const req = (clientId: string) => ({ clientId, tokenId: YES, side: 'BUY' as const, price: 5000, size: 1000, orderType: 'GTC' as const, postOnly: true });

  it('a place refused in the envelope with HTTP 200 ({"success":false,"error":{code}}) is a refusal with its code, as a 400 is', async () => {
    let answer: unknown = { success: false, error: { code: 'INVALID_ORDER_NOT_ENOUGH_BALANCE', message: 'not enough balance / allowance' } };
    const { clients, venue } = await venueWith((req, res) => {
      if (req.method === 'POST') send(res, 200, answer);
      else send(res, 404, { error: 'not found' });
    });
    try {
      expect(await venue.placeOrders([req('a'), req('b')])).toEqual([
        { clientId: 'a', ok: false, error: 'INVALID_ORDER_NOT_ENOUGH_BALANCE', message: 'not enough balance / allowance' },
        { clientId: 'b', ok: false, error: 'INVALID_ORDER_NOT_ENOUGH_BALANCE', message: 'not enough balance / allowance' },
      ]);
      expect(await venue.placeOrder(req('c'))).toMatchObject({ clientId: 'c', ok: false, error: 'INVALID_ORDER_NOT_ENOUGH_BALANCE' });
      // one that names no refusal ("timeout") is unclear, as a 5xx is: the order may have been taken
      answer = { success: false, error: { code: 'INTERNAL', message: 'timeout' } };
      await expect(venue.placeOrders([req('d')])).rejects.toBeInstanceOf(AmbiguousSubmitError);
      await expect(venue.placeOrder(req('e'))).rejects.toBeInstanceOf(AmbiguousSubmitError);
    } finally {
      await clients.close();
    }
  });

  it('the open-order list leaves out an order the venue lists as ended (CANCELED, MATCHED): it would be taken for working again', async () => {
    const { clients, venue } = await venueWith((req, res) => {
      if (req.method === 'GET' && req.path === '/orders')
        send(res, 200, {
          data: [order('0xa', 'LIVE'), order('0xb', 'CANCELED'), order('0xc', 'ORDER_STATUS_MATCHED'), order('0xd', 'CANCELED_MARKET_RESOLVED')],
          next_cursor: 'LTE=',
          limit: 100,
          count: 4,
        });
      else send(res, 404, { error: 'not found' });
    });
    try {
      expect((await venue.openOrders()).map((o) => o.orderId)).toEqual(['0xa']);
    } finally {
      await clients.close();
    }
  });

  it('a batch answer of another length than the request is said at WARN (every order of it is unclear)', async () => {
    const { log, lines } = keptLog();
    const { clients, venue } = await venueWith((req, res) => {
      if (req.method === 'POST') send(res, 200, [{ success: true, orderID: '0x1', status: 'live', errorMsg: '' }]);
      else send(res, 404, { error: 'not found' });
    }, log);
    try {
      expect(await venue.placeOrders([req('a'), req('b')])).toEqual([]);
      expect(lines.filter((l) => l.level === 40).map((l) => l.msg)).toEqual([expect.stringMatching(/1 answers for 2 orders/)]);
    } finally {
      await clients.close();
    }
  });

  it('a trade entry of ours that cannot be read (a size of -5 or 1e400, a price that is no number) is said at WARN with its trade, not dropped in silence', async () => {
    const { log, lines } = keptLog();
    const trade = (id: string, matched: string, price = '0.5') => ({
      id,
      taker_order_id: '0xother',
      trader_side: 'MAKER',
      market: '0xm',
      asset_id: YES,
      side: 'SELL',
      size: '10',
      price: '0.5',
      status: 'CONFIRMED',
      match_time: '1725842520',
      maker_orders: [{ order_id: '0xours', owner: 'k', matched_amount: matched, price, asset_id: YES, side: 'BUY' }],
    });
    const { clients, venue } = await venueWith((req, res) => {
      if (req.method === 'GET' && req.path === '/trades')
        send(res, 200, { data: [trade('T1', '-5'), trade('T2', '1e400'), trade('T3', '5', 'abc'), trade('T4', '5')], next_cursor: 'LTE=', limit: 100, count: 4 });
      else send(res, 404, { error: 'not found' });
    }, log);
    try {
      expect((await venue.trades(0)).map((t) => t.tradeId)).toEqual(['T4']);
      const warned = lines.filter((l) => l.level === 40);
      expect(warned).toHaveLength(1);
      expect(warned[0]).toMatchObject({ msg: expect.stringMatching(/cannot be read/), trades: ['T1', 'T2', 'T3'] });
    } finally {
      await clients.close();
    }
  });
});
