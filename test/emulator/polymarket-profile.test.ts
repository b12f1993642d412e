// The polymarket profile driven by the OFFICIAL client (@polymarket/clob-client-v2, viem wallet
// client, chain 137): L1 create/derive, L2 reads, signed post-only and crossing orders, cancels,
// trades, balance, heartbeats, the user channel; and the heartbeat dead-man switch.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { AssetType, OrderType, Side, type OpenOrder, type Trade } from '@polymarket/clob-client-v2';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { bestPrices, officialClient } from './polymarket-helpers.js';
import { openSocket, waitFor } from './helpers.js';

const round2 = (x: number): number => Math.round(x * 100) / 100;

describe('polymarket profile with the official client', () => {
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await startEmulator({ profile: 'polymarket', seed: 11 });
  });
  afterAll(async () => {
    await emu.close();
  });

  it('lists seeded test accounts: an EOA, a proxy with its funder and a deposit wallet, each with credentials', () => {
    expect(emu.profile).toBe('polymarket');
    expect(emu.accounts).toHaveLength(3);
    expect(emu.accounts[2]).toMatchObject({ signatureType: 3, funder: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/) });
    const [eoa, proxy] = emu.accounts;
    expect(eoa).toMatchObject({ signatureType: 0, address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/), apiKey: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(eoa.funder).toBeUndefined();
    expect(proxy).toMatchObject({ signatureType: 2, funder: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/) });
  });

  it('creates or derives the same API credentials with L1 (per address and nonce)', async () => {
    const acct = emu.accounts[0];
    const l1 = officialClient(emu, acct, null);
    const creds = await l1.createOrDeriveApiKey();
    expect(creds).toEqual({ key: acct.apiKey, secret: acct.secret, passphrase: acct.passphrase });
    expect(await l1.deriveApiKey()).toEqual(creds);
    const other = await l1.createApiKey(5);
    expect(other.key).not.toBe(creds.key);
    expect(await l1.deriveApiKey(5)).toEqual(other);
    const l2 = officialClient(emu, acct, other);
    const keys = (await l2.getApiKeys()) as unknown as { apiKeys: string[] };
    expect(keys.apiKeys).toEqual(expect.arrayContaining([creds.key, other.key]));
    await l2.deleteApiKey();
    await expect(l2.getOpenOrders()).rejects.toMatchObject({ status: 401, message: 'Unauthorized/Invalid api key' });
  });

  it('places, reads and cancels signed orders; a crossing order trades', async () => {
    const acct = emu.accounts[0];
    const c = officialClient(emu, acct);
    const [yes] = emu.markets[0].tokens;
    expect(await c.getOk()).toBe('OK');
    expect(Math.abs((await c.getServerTime()) - Date.now() / 1000)).toBeLessThan(5);
    const info = await c.getClobMarketInfo(emu.markets[0].conditionId);
    expect(info).toMatchObject({ mts: 0.01, nr: false, mos: 5, fd: { r: 0, e: 0 } });
    expect(await c.getOpenOrders()).toEqual([]);
    const { bid, ask } = await bestPrices(emu, yes);
    const price = Math.max(0.01, round2(bid - 0.05));

    const placed = await c.createAndPostOrder({ tokenID: yes, price, size: 10, side: Side.BUY }, undefined, OrderType.GTC, true);
    expect(placed).toMatchObject({ success: true, errorMsg: '', status: 'live', orderID: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    const open: OpenOrder[] = await c.getOpenOrders({ market: emu.markets[0].conditionId });
    expect(open.map((o) => o.id)).toEqual([placed.orderID]);
    const one = await c.getOrder(placed.orderID);
    expect(one).toMatchObject({ id: placed.orderID, side: 'BUY', price: String(price), original_size: '10', status: 'LIVE', maker_address: acct.address, owner: acct.apiKey });
    expect(await c.cancelOrder({ orderID: placed.orderID })).toEqual({ canceled: [placed.orderID], not_canceled: {} });
    expect(await c.getOpenOrders()).toEqual([]);

    const a = await c.createAndPostOrder({ tokenID: yes, price, size: 5, side: Side.BUY }, { tickSize: '0.01' }, OrderType.GTC, true);
    const b = await c.createAndPostOrder({ tokenID: yes, price: Math.max(0.01, round2(price - 0.01)), size: 6, side: Side.BUY }, { tickSize: '0.01' }, OrderType.GTC, true);
    const d = await c.createAndPostOrder({ tokenID: yes, price: Math.min(0.99, round2(ask + 0.05)), size: 7, side: Side.SELL }, { tickSize: '0.01' }, OrderType.GTC, true);
    expect((await c.getOpenOrders()).length).toBe(3);
    expect(await c.cancelOrders([a.orderID])).toEqual({ canceled: [a.orderID], not_canceled: {} });
    const all = await c.cancelAll();
    expect([...all.canceled].sort()).toEqual([b.orderID, d.orderID].sort());
    // a batch through postOrders, cancelled by market
    const orders = await Promise.all([5, 6].map((size) => c.createOrder({ tokenID: yes, price, size, side: Side.BUY }, { tickSize: '0.01' })));
    const batch = await c.postOrders(
      orders.map((order) => ({ order, orderType: OrderType.GTC })),
      true,
    );
    expect(batch.map((x: { success: boolean }) => x.success)).toEqual([true, true]);
    const byMarket = await c.cancelMarketOrders({ market: emu.markets[0].conditionId, asset_id: yes });
    expect(byMarket.canceled).toHaveLength(2);

    // a BUY at the best ask takes liquidity from the synthetic makers
    const took = await c.createAndPostOrder({ tokenID: yes, price: ask, size: 5, side: Side.BUY }, { tickSize: '0.01' }, OrderType.GTC);
    expect(took.success).toBe(true);
    expect(took.transactionsHashes?.length).toBeGreaterThan(0);
    const trades: Trade[] = await c.getTrades();
    expect(trades.length).toBeGreaterThan(0);
    expect(trades[0]).toMatchObject({ taker_order_id: took.orderID, asset_id: yes, side: 'BUY', trader_side: 'TAKER', maker_address: acct.address });
    const bal = await c.getBalanceAllowance({ asset_type: AssetType.COLLATERAL });
    expect(Number(bal.balance)).toBeLessThan(10_000 * 1e6);
    expect(Object.keys(bal.allowances).length).toBeGreaterThan(0);
    // the bought shares count in the balance once their trade is confirmed (sell-balance.test.ts: not at the match)
    const shares = async () => Number((await c.getBalanceAllowance({ asset_type: AssetType.CONDITIONAL, token_id: yes })).balance);
    const end = Date.now() + 5000;
    while ((await shares()) === 10_000 * 1e6 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    expect(await shares()).toBeGreaterThan(10_000 * 1e6);
  });

  it('a market order (FOK, amount in pUSD) fills against the book', async () => {
    const c = officialClient(emu, emu.accounts[1]);
    const [yes] = emu.markets[0].tokens;
    const r = await c.createAndPostMarketOrder({ tokenID: yes, amount: 3, side: Side.BUY }, undefined, OrderType.FOK);
    expect(r).toMatchObject({ success: true, status: 'matched' });
    const trades = await c.getTrades({ asset_id: yes });
    expect(trades.map((t) => t.taker_order_id)).toContain(r.orderID);
  });

  it('a proxy account (signature type 2) trades for its funder', async () => {
    const acct = emu.accounts[1];
    const c = officialClient(emu, acct);
    const [, no] = emu.markets[0].tokens;
    const { bid } = await bestPrices(emu, no);
    const placed = await c.createAndPostOrder({ tokenID: no, price: Math.max(0.01, round2(bid - 0.03)), size: 5, side: Side.BUY }, undefined, OrderType.GTC, true);
    expect(placed.success).toBe(true);
    expect(await c.getOrder(placed.orderID)).toMatchObject({ maker_address: acct.funder });
    await c.cancelAll();
  });

  it('heartbeats chain their ids; a wrong id gets 400 with the right one', async () => {
    const c = officialClient(emu, emu.accounts[1]);
    const first = await c.postHeartbeat();
    expect(first.heartbeat_id).toEqual(expect.any(String));
    const second = await c.postHeartbeat(first.heartbeat_id);
    expect(second.heartbeat_id).not.toBe(first.heartbeat_id);
    await expect(c.postHeartbeat(first.heartbeat_id)).rejects.toMatchObject({ status: 400, data: { heartbeat_id: second.heartbeat_id } });
    expect((await c.postHeartbeat(second.heartbeat_id)).heartbeat_id).toEqual(expect.any(String));
  });

  it('the user channel takes the whole credential and carries that account’s frames', async () => {
    const acct = emu.accounts[0];
    const bad = await openSocket(`${emu.urls.ws}/ws/user`);
    bad.send(JSON.stringify({ type: 'user', markets: [], auth: { apiKey: acct.apiKey, secret: 'wrong', passphrase: acct.passphrase } }));
    await waitFor(() => bad.closed(), 3000, 'the refused socket to close');
    expect(bad.frames.join('')).toContain('unauthorized');
    const ws = await openSocket(`${emu.urls.ws}/ws/user`);
    try {
      ws.send(JSON.stringify({ type: 'user', markets: [], auth: { apiKey: acct.apiKey, secret: acct.secret, passphrase: acct.passphrase } }));
      await new Promise((r) => setTimeout(r, 100));
      const c = officialClient(emu, acct);
      const [yes] = emu.markets[0].tokens;
      const { bid } = await bestPrices(emu, yes);
      const placed = await c.createAndPostOrder({ tokenID: yes, price: Math.max(0.01, round2(bid - 0.04)), size: 5, side: Side.BUY }, undefined, OrderType.GTC, true);
      await c.cancelOrder({ orderID: placed.orderID });
      const kinds = await waitFor(() => {
        const ks = ws.frames
          .map((f) => JSON.parse(f) as { id?: string; type?: string })
          .filter((f) => f.id === placed.orderID)
          .map((f) => f.type);
        return ks.includes('CANCELLATION') ? ks : undefined;
      }, 3000);
      expect(kinds).toEqual(['PLACEMENT', 'CANCELLATION']);
    } finally {
      ws.close();
    }
  });
});

describe('polymarket profile: the heartbeat dead-man switch', () => {
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await startEmulator({ profile: 'polymarket', seed: 12, heartbeatTimeoutMs: 1000 });
  });
  afterAll(async () => {
    await emu.close();
  });

  it('cancels every open order of a key whose heartbeats stop', async () => {
    const acct = emu.accounts[0];
    const c = officialClient(emu, acct);
    const [yes] = emu.markets[0].tokens;
    const ws = await openSocket(`${emu.urls.ws}/ws/user`);
    ws.send(JSON.stringify({ type: 'user', markets: [], auth: { apiKey: acct.apiKey, secret: acct.secret, passphrase: acct.passphrase } }));
    const { bid } = await bestPrices(emu, yes);
    const placed = await c.createAndPostOrder({ tokenID: yes, price: Math.max(0.01, round2(bid - 0.05)), size: 5, side: Side.BUY }, undefined, OrderType.GTC, true);
    // without a heartbeat ever sent, nothing expires
    await new Promise((r) => setTimeout(r, 1200));
    expect((await c.getOpenOrders()).map((o) => o.id)).toEqual([placed.orderID]);
    let id = (await c.postHeartbeat()).heartbeat_id;
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 300));
      id = (await c.postHeartbeat(id)).heartbeat_id;
    }
    expect((await c.getOpenOrders()).length).toBe(1);
    const t0 = Date.now();
    for (;;) {
      if ((await c.getOpenOrders()).length === 0) break;
      if (Date.now() - t0 > 3000) throw new Error('open orders not cancelled 3 s after the last heartbeat');
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(Date.now() - t0).toBeGreaterThanOrEqual(600);
    expect(await c.getOrder(placed.orderID)).toMatchObject({ status: 'CANCELED' });
    // the user channel saw the cancellation as a normal cancel shows it
    await waitFor(() => ws.frames.some((f) => f.includes(placed.orderID) && f.includes('"CANCELLATION"')), 3000, 'a CANCELLATION frame');
    ws.close();
    // the expired id is refused with the fresh one, which then works
    const err = (await c.postHeartbeat(id).catch((e: unknown) => e)) as { status: number; data: { heartbeat_id: string } };
    expect(err.status).toBe(400);
    expect((await c.postHeartbeat(err.data.heartbeat_id)).heartbeat_id).toEqual(expect.any(String));
  });
});
