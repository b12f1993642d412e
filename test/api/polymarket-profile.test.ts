// Issue 12, items 1 and 4: the CLOB client in the polymarket profile, against a real node:http
// server. Every request carries L2 headers equal to what Polymarket's own client computes for the
// same method, endpoint and body (createL2Headers); the paths and bodies are the real venue's
// (/markets/{id}, /data/orders, /data/order/{id}, /data/trades, DELETE /orders with a plain array,
// POST /orders with signed V2 orders whose signatures recover to the wallet for the exchange the
// official client's contract config names); a {"error"} refusal is a typed refusal; heartbeats chain.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createL2Headers, getContractConfig } from '@polymarket/clob-client-v2';
import { createWalletClient, http, recoverTypedDataAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { polygon } from 'viem/chains';
import { ClobClient } from '../../src/api/clob-client.js';
import { Limiter } from '../../src/api/limiter.js';
import { polymarketProfile } from '../../src/api/polymarket-profile.js';
import { Transport } from '../../src/api/transport.js';
import { WallClock } from '../../src/core/clock.js';
import { refusalOf } from '../../src/venue/rejections.js';
import { send, startServer, testHttp, testRetry, type Received, type TestServer } from './http-server.js';

const PK = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80' as const;
const account = privateKeyToAccount(PK);
const wallet = createWalletClient({ account, chain: polygon, transport: http('http://127.0.0.1:9') });
const creds = { key: '2f6b1c3a-0000-4000-8000-000000000001', secret: 'dGhpcyBpcyBhIHRlc3Qgc2VjcmV0IGZvciBobWFjIQ==', passphrase: 'pass-phrase' };
const TOKEN = '71321045679252212594626385532706912750332728571942532289631379312455583992563';

let srv: TestServer;
let clob: ClobClient;
beforeAll(async () => {
  srv = await startServer((_r, res) => send(res, 200, {}));
  const profile = polymarketProfile({ privateKey: PK, apiKey: creds.key, apiSecret: creds.secret, apiPassphrase: creds.passphrase, signatureType: 0 });
  const limiter = new Limiter({ clock: new WallClock({ keepAlive: true }) });
  clob = new ClobClient(new Transport({ api: 'clob', baseUrl: srv.url + '/clob', http: testHttp, retry: testRetry, limiter, auth: profile.authHeaders }), profile);
});
afterAll(async () => {
  await srv.close();
});

/** The official client's L2 headers for what the server received (its timestamp, the endpoint without prefix or query). */
async function expectOfficialL2(r: Received): Promise<void> {
  const requestPath = r.path.replace(/^\/clob/, '');
  const theirs = await createL2Headers(wallet as never, creds, { method: r.method, requestPath, body: r.body === '' ? undefined : r.body }, Number(r.headers.poly_timestamp));
  for (const [k, v] of Object.entries(theirs)) expect(r.headers[k.toLowerCase()], `${r.method} ${requestPath} ${k}`).toBe(v);
}

const page = (data: unknown[]) => ({ data, next_cursor: 'LTE=', limit: 100, count: data.length });
const openOrder = { id: '0x01', status: 'LIVE', market: '0xm', asset_id: TOKEN, side: 'BUY', original_size: '10', size_matched: '0', price: '0.45' };

describe('the polymarket profile of the CLOB client', () => {
  it('reads and cancels on the real paths and bodies, each request L2-signed as the official client signs it', async () => {
    const replies: Record<string, unknown> = {
      'GET /clob/markets/0xcond': { condition_id: '0xcond', tokens: [{ token_id: TOKEN, outcome: 'Yes' }], minimum_tick_size: 0.01, minimum_order_size: 5, neg_risk: true },
      'GET /clob/data/orders': page([openOrder]),
      'GET /clob/data/order/0x01': openOrder,
      'GET /clob/data/trades': page([]),
      'DELETE /clob/orders': { canceled: ['0x01'], not_canceled: { '0x02': 'already canceled or matched' } },
      'DELETE /clob/order': { canceled: ['0x01'], not_canceled: {} },
      'DELETE /clob/cancel-all': { canceled: [], not_canceled: {} },
    };
    srv.setHandler((r, res) => send(res, 200, replies[`${r.method} ${r.path}`] ?? { error: 'no route' }));
    const from = srv.requests.length;
    expect((await clob.getMarket('0xcond')).neg_risk).toBe(true);
    const open = [];
    for await (const o of clob.iterateOrders({ market: '0xm' })) open.push(o.id);
    expect(open).toEqual(['0x01']);
    expect((await clob.getOrder('0x01')).id).toBe('0x01');
    for await (const t of clob.iterateTrades({ after: 1 })) expect(t).toBeUndefined();
    expect((await clob.cancelOrders(['0x01', '0x02'])).not_canceled).toEqual({ '0x02': 'already canceled or matched' });
    await clob.cancelOrder('0x01');
    await clob.cancelAll();
    const got = srv.requests.slice(from);
    expect(got.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /clob/markets/0xcond',
      'GET /clob/data/orders',
      'GET /clob/data/order/0x01',
      'GET /clob/data/trades',
      'DELETE /clob/orders',
      'DELETE /clob/order',
      'DELETE /clob/cancel-all',
    ]);
    expect(got[1].query.get('market')).toBe('0xm');
    expect(JSON.parse(got[4].body)).toEqual(['0x01', '0x02']);
    expect(JSON.parse(got[5].body)).toEqual({ orderID: '0x01' });
    for (const r of got) await expectOfficialL2(r);
    // no Bearer key in this profile
    expect(got.every((r) => r.headers.authorization === undefined)).toBe(true);
    // an id that would move the path elsewhere stays inside its path segment (still signed as sent)
    const n = srv.requests.length;
    await clob.findOrder('x/../../markets/0xcond?y=1').catch(() => undefined);
    const odd = srv.requests[n];
    expect(odd.path).toBe('/clob/data/order/x%2F..%2F..%2Fmarkets%2F0xcond%3Fy%3D1');
    await expectOfficialL2(odd);
    // a dot segment (which a URL normalises away, %2E too) is refused, nothing sent
    const before = srv.requests.length;
    for (const id of ['..', '.']) await expect(clob.findOrder(id)).rejects.toThrow(/is not an id/);
    expect(srv.requests.length).toBe(before);
  });

  it('posts signed V2 orders owned by the API key, for the exchange of each market, and reads {"error"} refusals as typed refusals', async () => {
    srv.setHandler((r, res) => {
      const body = JSON.parse(r.body) as unknown[];
      send(
        res,
        200,
        body.map((_x, i) => ({ success: true, errorMsg: '', orderID: `0xo${i}`, status: 'live', transactionsHashes: [] })),
      );
    });
    const from = srv.requests.length;
    const res = await clob.postOrders([
      { tokenId: TOKEN, price: 4500, size: 1000, side: 'BUY', orderType: 'GTC', postOnly: true, negRisk: false },
      { tokenId: TOKEN, price: 5525, size: 750, side: 'SELL', orderType: 'GTC', postOnly: true, negRisk: true },
    ]);
    expect(res.map((r) => r.orderID)).toEqual(['0xo0', '0xo1']);
    const r = srv.requests[from];
    expect(r.path).toBe('/clob/orders');
    await expectOfficialL2(r);
    const posted = JSON.parse(r.body) as Array<{ order: Record<string, string | number>; owner: string; orderType: string; postOnly: boolean; deferExec: boolean }>;
    const contracts = getContractConfig(137);
    const amounts = [
      { makerAmount: '4500000', takerAmount: '10000000', exchange: contracts.exchangeV2 },
      { makerAmount: '7500000', takerAmount: '4143750', exchange: contracts.negRiskExchangeV2 },
    ];
    for (const [i, p] of posted.entries()) {
      expect(p.owner).toBe(creds.key);
      expect(p.orderType).toBe('GTC');
      expect(p.postOnly).toBe(true);
      expect(p.deferExec).toBe(false);
      const o = p.order;
      expect(typeof o.salt).toBe('number');
      expect([o.maker, o.signer, o.tokenId, o.makerAmount, o.takerAmount]).toEqual([account.address, account.address, TOKEN, amounts[i].makerAmount, amounts[i].takerAmount]);
      const signer = await recoverTypedDataAddress({
        domain: { name: 'Polymarket CTF Exchange', version: '2', chainId: 137, verifyingContract: amounts[i].exchange as `0x${string}` },
        types: {
          Order: [
            { name: 'salt', type: 'uint256' },
            { name: 'maker', type: 'address' },
            { name: 'signer', type: 'address' },
            { name: 'tokenId', type: 'uint256' },
            { name: 'makerAmount', type: 'uint256' },
            { name: 'takerAmount', type: 'uint256' },
            { name: 'side', type: 'uint8' },
            { name: 'signatureType', type: 'uint8' },
            { name: 'timestamp', type: 'uint256' },
            { name: 'metadata', type: 'bytes32' },
            { name: 'builder', type: 'bytes32' },
          ],
        },
        primaryType: 'Order',
        message: {
          salt: BigInt(o.salt),
          maker: o.maker as `0x${string}`,
          signer: o.signer as `0x${string}`,
          tokenId: BigInt(o.tokenId),
          makerAmount: BigInt(o.makerAmount),
          takerAmount: BigInt(o.takerAmount),
          side: o.side === 'BUY' ? 0 : 1,
          signatureType: Number(o.signatureType),
          timestamp: BigInt(o.timestamp),
          metadata: o.metadata as `0x${string}`,
          builder: o.builder as `0x${string}`,
        },
        signature: o.signature as `0x${string}`,
      });
      expect(signer).toBe(account.address);
    }

    // a single order refused with the real venue's plain error body
    srv.setHandler((_r, res) => send(res, 400, { error: 'INVALID_ORDER_MIN_TICK_SIZE: price breaks the minimum tick size rule' }));
    const err = await clob.postOrder({ tokenId: TOKEN, price: 4550, size: 1000, side: 'BUY' }).catch((e: unknown) => e);
    expect(refusalOf(err)).toEqual({ code: 'INVALID_ORDER_MIN_TICK_SIZE', message: 'INVALID_ORDER_MIN_TICK_SIZE: price breaks the minimum tick size rule' });
  });

  it("names its account by the maker address, never a secret: the funder when set, else the key's address", () => {
    const own = polymarketProfile({ privateKey: PK, apiKey: creds.key, apiSecret: creds.secret, apiPassphrase: creds.passphrase, signatureType: 0 });
    expect(own.account).toBe(`address:${account.address.toLowerCase()}`);
    const FUNDER = '0x00000000000000000000000000000000000000Ab';
    const proxy = polymarketProfile({ privateKey: PK, apiKey: creds.key, apiSecret: creds.secret, apiPassphrase: creds.passphrase, signatureType: 1, funder: FUNDER });
    expect(proxy.account).toBe(`address:${FUNDER.toLowerCase()}`);
    for (const s of [PK, creds.key, creds.secret, creds.passphrase]) expect(proxy.account).not.toContain(s.toLowerCase());
  });

  it('chains heartbeats, and a refused id carries the id to continue with', async () => {
    srv.setHandler((r, res) => {
      const id = (JSON.parse(r.body) as { heartbeat_id: string }).heartbeat_id;
      if (id === 'stale') return send(res, 400, { heartbeat_id: 'hb-2', error: 'Invalid Heartbeat ID' });
      send(res, 200, { heartbeat_id: id === '' ? 'hb-1' : `${id}+` });
    });
    const from = srv.requests.length;
    expect(await clob.postHeartbeat('')).toBe('hb-1');
    expect(await clob.postHeartbeat('hb-1')).toBe('hb-1+');
    const err = (await clob.postHeartbeat('stale').catch((e: unknown) => e)) as { status: number; body: unknown };
    expect(err.status).toBe(400);
    expect(err.body).toEqual({ heartbeat_id: 'hb-2', error: 'Invalid Heartbeat ID' });
    for (const r of srv.requests.slice(from)) {
      expect(r.path).toBe('/clob/v1/heartbeats');
      await expectOfficialL2(r);
    }
  });
});
