// The live venue over a real loopback CLOB server: REST trades expand into one VenueTrade per
// order they name, with the maker's side right even when the venue omits it.
import { afterEach, describe, expect, it } from 'vitest';
import { createClients } from '../../src/api/index.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/core/log.js';
import { LiveVenue } from '../../src/venue/live-venue.js';
import { AmbiguousSubmitError, DeadlineError } from '../../src/core/errors.js';
import { fixture, send, startServer, testHttp, type TestServer } from '../api/http-server.js';
import { polymarketProfile } from '../../src/api/polymarket-profile.js';
import { polymarketCredentialsFromEnv } from '../../src/api/polymarket-credentials.js';
import { EXCHANGE_V2 } from '../../src/api/polymarket-contracts.js';
import { startEmulator } from '../../src/emulator/server.js';
import { makerdVenueFor } from '../emulator/polymarket-helpers.js';

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

describe('LiveVenue.trades: a trade we made as a maker', () => {
  it("does not list the taker's order (someone else's: start-up reconciliation would warn of an order it does not know)", async () => {
    const mk = (id: string, traderSide: string | undefined) => ({
      id,
      taker_order_id: `taker-${id}`,
      market: '0xm',
      asset_id: YES,
      side: 'BUY',
      size: '10',
      price: '0.52',
      status: 'MATCHED',
      match_time: '1725958681',
      ...(traderSide ? { trader_side: traderSide } : {}),
      maker_orders: [{ order_id: `ours-${id}`, asset_id: YES, price: '0.52', matched_amount: '10', side: 'SELL' }],
    });
    server = await startServer((req, res) => {
      if (req.path === '/trades') send(res, 200, { data: [mk('a', 'MAKER'), mk('b', 'TAKER'), mk('c', undefined)], next_cursor: 'LTE=', limit: 100, count: 3 });
      else send(res, 404, { error: 'not found' });
    });
    const cfg = loadConfig({ env: { MAKERD_CLOB_URL: server.url } });
    const clients = createClients({ ...cfg, http: testHttp }, 'k');
    const venue = new LiveVenue({ clob: clients.clob, subscribeUser: () => {}, tickOf: () => 100, log: silentLogger });
    try {
      const ids = (await venue.trades(0)).map((t) => t.orderId).sort();
      // a trade we took, or one without trader_side, still lists its taker order
      expect(ids).toEqual(['ours-a', 'ours-b', 'ours-c', 'taker-b', 'taker-c']);
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

  // Answers are matched to orders by position only when there is one per order: a venue that
  // dropped one answer would otherwise give each later order the next one's id (a cancel of one
  // cancelling another, fills checked against the wrong terms).
  it('a batch answered for fewer orders than it held: no order gets a result (the engine takes them all as unclear and looks them up), never a refusal', async () => {
    const { clients, venue } = await venueWith((_q, res) =>
      send(res, 200, [
        { success: true, errorMsg: '', orderID: '0xa', status: 'live' },
        { success: true, errorMsg: '', orderID: '0xb', status: 'live' },
      ]),
    );
    try {
      const got = await venue.placeOrders([order, { ...order, clientId: 'c2' }, { ...order, clientId: 'c3' }]);
      expect(got).toEqual([]);
    } finally {
      await clients.close();
    }
  });

  it('a 2xx place answer of another shape is an unclear outcome (the venue may have taken the orders), never a refusal; a null list of trade ids is a good answer', async () => {
    const answers: Array<[string, unknown]> = [
      ['text/html', '<html>gateway</html>'],
      ['application/json', [{ success: 'true', orderID: '0xa', status: 'live' }]],
      ['application/json', { success: true, orderID: '0xa' }],
    ];
    let next: [string, unknown] = answers[0];
    const { clients, venue } = await venueWith((_q, res) => send(res, 200, next[1], { 'content-type': next[0] }));
    try {
      for (const a of answers) {
        next = a;
        await expect(venue.placeOrders([order]), JSON.stringify(a[1])).rejects.toBeInstanceOf(AmbiguousSubmitError);
      }
      // a Go server's nil slice: `null`, not a list (the official client's type: tradeIDs?: string[])
      next = ['application/json', [{ success: true, errorMsg: '', orderID: '0xa', status: 'matched', tradeIDs: null, makingAmount: '2.5', takingAmount: '5' }]];
      expect(await venue.placeOrders([order])).toEqual([{ clientId: 'c1', ok: true, orderId: '0xa', status: 'matched' }]);
      next = ['application/json', { success: true, errorMsg: '', orderID: '0xb', status: 'live', tradeIDs: null }];
      expect(await venue.placeOrder(order)).toEqual({ clientId: 'c1', ok: true, orderId: '0xb', status: 'live' });
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

describe('LiveVenue on the polymarket profile (issue 12, item 4): the venue refusals are typed codes', () => {
  it("against the emulator's polymarket profile: off the tick, under the minimum and a crossing post-only order each get their code; a good order rests and is cancelled", async () => {
    const emu = await startEmulator({ profile: 'polymarket', seed: 4 });
    const a = emu.accounts[1]; // a proxy wallet: maker = funder, signer = the key's address
    const { clients, venue, market: m, tick } = makerdVenueFor(emu, a);
    const token = m.facts.tokens[0];
    try {
      const book = await clients.clob.getBook(token);
      const bid = book.bids[book.bids.length - 1].price;
      const ask = book.asks[book.asks.length - 1].price;
      const base = { tokenId: token, orderType: 'GTC' as const, postOnly: true };
      const res = await venue.placeOrders([
        { ...base, clientId: 'off-tick', side: 'BUY', price: bid - tick - Math.max(1, tick / 10), size: m.facts.minSize },
        { ...base, clientId: 'small', side: 'BUY', price: bid - tick, size: m.facts.minSize - 100 },
        { ...base, clientId: 'crossing', side: 'BUY', price: ask, size: m.facts.minSize },
        { ...base, clientId: 'good', side: 'BUY', price: bid - 2 * tick, size: m.facts.minSize },
      ]);
      const by = Object.fromEntries(res.map((r) => [r.clientId, r]));
      expect(by['off-tick'].error).toBe('INVALID_ORDER_MIN_TICK_SIZE');
      expect(by.small.error).toBe('INVALID_ORDER_MIN_SIZE');
      expect(by.crossing.error).toBe('INVALID_POST_ONLY_ORDER');
      expect(by.good.ok).toBe(true);
      const open = await venue.openOrders();
      expect(open.map((o) => o.orderId)).toEqual([by.good.orderId]);
      expect(open[0]).toMatchObject({ tokenId: token, side: 'BUY', price: bid - 2 * tick, originalSize: m.facts.minSize });
      expect((await venue.cancelOrders([by.good.orderId as string])).canceled).toEqual([by.good.orderId]);
      expect(await venue.openOrders()).toEqual([]);
    } finally {
      await clients.close();
      await emu.close();
    }
  });
});

describe('LiveVenue: a GTD order carries its expiry to the venue', () => {
  // the simulated venue honours OrderRequest.expirationSec; the live path sent "expiration":"0" (the
  // venue refuses a GTD order so, or would rest it for good), so paper and live disagreed
  it('on the polymarket profile (signed body) and on the spec profile: the order rests with its expiry; listed by the venue', async () => {
    for (const profile of ['polymarket', 'spec'] as const) {
      const emu = await startEmulator({ profile, seed: 4 });
      const a = emu.accounts[1];
      const made =
        profile === 'polymarket'
          ? makerdVenueFor(emu, a)
          : (() => {
              const clients = createClients({ ...loadConfig({ env: { MAKERD_CLOB_URL: emu.urls.clob } }), http: testHttp }, 'key-gtd');
              const tick = emu.markets[0].facts.tick;
              return { clients, venue: new LiveVenue({ clob: clients.clob, subscribeUser: () => {}, tickOf: () => tick, log: silentLogger }), market: emu.markets[0], tick };
            })();
      const { clients, venue, market: m, tick } = made;
      const token = m.facts.tokens[0];
      try {
        const book = await clients.clob.getBook(token);
        const bid = book.bids[book.bids.length - 1].price;
        const expirationSec = Math.floor(Date.now() / 1000) + 3600;
        const [r] = await venue.placeOrders([{ clientId: 'gtd', tokenId: token, side: 'BUY', price: bid - 2 * tick, size: m.facts.minSize, orderType: 'GTD', postOnly: true, expirationSec }]);
        expect(r, profile).toMatchObject({ ok: true });
        const listed = await clients.clob.findOrder(r.orderId as string);
        expect(listed && String((listed as { expiration?: unknown }).expiration), profile).toBe(String(expirationSec));
      } finally {
        await clients.close();
        await emu.close();
      }
    }
  });
});

describe('LiveVenue.collateral (polymarket profile)', () => {
  it("reads GET /balance-allowance (COLLATERAL, the account's signature type) in the shape NautilusTrader's fixture shows: micro-dollars", async () => {
    const answer = fixture('nautilus_trader/rust_test_data/http_balance_allowance_collateral.json');
    server = await startServer((req, res) => {
      if (req.path === '/balance-allowance') send(res, 200, answer);
      else send(res, 404, { error: 'not found' });
    });
    const env = {
      MAKERD_CLOB_URL: server.url,
      MAKERD_PRIVATE_KEY: `0x${'11'.repeat(32)}`,
      MAKERD_API_KEY: 'k',
      MAKERD_API_SECRET: Buffer.from('s').toString('base64'),
      MAKERD_API_PASSPHRASE: 'p',
      MAKERD_SIGNATURE_TYPE: '1',
      MAKERD_FUNDER: `0x${'22'.repeat(20)}`,
    };
    const cfg = loadConfig({ env });
    const clients = createClients({ ...cfg, http: testHttp }, polymarketProfile(polymarketCredentialsFromEnv(env)));
    try {
      const venue = new LiveVenue({ clob: clients.clob, subscribeUser: () => {}, tickOf: () => 100, log: silentLogger });
      expect(await venue.collateral?.()).toBe(1_000_000_000);
      const q = server.requests[0].query;
      expect([q.get('asset_type'), q.get('signature_type'), q.get('token_id')]).toEqual(['COLLATERAL', '1', null]);
      // the fixture's lone `allowance` ($999,999,999) is above the balance; a lone one below it caps the read
      const capped = new LiveVenue({ clob: clients.clob, subscribeUser: () => {}, tickOf: () => 100, exchangesInUse: () => [EXCHANGE_V2], log: silentLogger });
      expect(await capped.collateral?.()).toBe(1_000_000_000);
      server.setHandler((_req, res) => send(res, 200, { balance: '1000000000', allowance: '25000000' }));
      expect(await capped.collateral?.()).toBe(25_000_000);
      expect(await venue.collateral?.()).toBe(1_000_000_000);
      // an exchange's allowance that is not a whole number of micro-dollars: the whole answer is
      // malformed (a failed read: the cap keeps its last figure), never a figure of 0 or NaN
      for (const bad of ['-1', '1e400', 12, null]) {
        server.setHandler((_req, res) => send(res, 200, { balance: '1000000000', allowances: { [EXCHANGE_V2]: bad } }));
        await expect(capped.collateral?.()).rejects.toThrow();
      }
      // a lone `allowance` that is not digits names no allowance: the balance is the figure
      server.setHandler((_req, res) => send(res, 200, { balance: '1000000000', allowance: 'unlimited' }));
      expect(await capped.collateral?.()).toBe(1_000_000_000);
      // a balance that is not a whole number of micro-dollars is a malformed answer, not a figure
      server.setHandler((_req, res) => send(res, 200, { balance: '-5', allowances: {} }));
      await expect(venue.collateral?.()).rejects.toThrow(/balance/);
    } finally {
      await clients.close();
    }
  });

  it('a balance endpoint that never answers ends at the read deadline (start-up awaits this read: it is bounded)', async () => {
    server = await startServer((req, res) => {
      if (req.path !== '/balance-allowance') send(res, 404, { error: 'not found' });
      // else: no answer at all
    });
    const env = { MAKERD_CLOB_URL: server.url, MAKERD_PRIVATE_KEY: `0x${'11'.repeat(32)}`, MAKERD_API_KEY: 'k', MAKERD_API_SECRET: Buffer.from('s').toString('base64'), MAKERD_API_PASSPHRASE: 'p' };
    const cfg = loadConfig({ env });
    // the socket timeouts beyond the deadline: the deadline alone ends the read (as in a daemon whose headers timeout is longer)
    const clients = createClients({ ...cfg, http: { ...testHttp, headersTimeoutMs: 5000, bodyTimeoutMs: 5000, readDeadlineMs: 800 } }, polymarketProfile(polymarketCredentialsFromEnv(env)));
    try {
      const venue = new LiveVenue({ clob: clients.clob, subscribeUser: () => {}, tickOf: () => 100, log: silentLogger });
      const t0 = Date.now();
      await expect(venue.collateral?.()).rejects.toBeInstanceOf(DeadlineError);
      expect(Date.now() - t0).toBeLessThan(3000);
    } finally {
      await clients.close();
    }
  }, 10_000);

  it('is absent in the spec profile (GET /balances has no specified body)', async () => {
    const cfg = loadConfig({ env: { MAKERD_CLOB_URL: 'http://127.0.0.1:9' } });
    const clients = createClients({ ...cfg, http: testHttp }, 'k');
    try {
      expect(new LiveVenue({ clob: clients.clob, subscribeUser: () => {}, tickOf: () => 100, log: silentLogger }).collateral).toBeUndefined();
    } finally {
      await clients.close();
    }
  });
});
