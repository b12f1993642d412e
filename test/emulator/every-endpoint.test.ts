import { describe, it, expect, afterAll, beforeAll } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { addressOf } from '../../src/emulator/exchange.js';
import { clientsFor } from './helpers.js';
import { stressSyntheticParams } from '../../src/emulator/agents.js';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ seed: 31, confirmDelayMs: 10, params: stressSyntheticParams });
});
afterAll(async () => {
  await emu.close();
});

describe('every endpoint of spec 4.1-4.4 answers the project clients', () => {
  it('CLOB (25 endpoints)', async () => {
    const c = clientsFor(emu.urls, 'every-key');
    const m = emu.markets[0];
    const [yes] = m.tokens;
    try {
      expect((await c.clob.listMarkets()).next_cursor).toBe('LTE=');
      expect((await c.clob.getMarket(m.conditionId)).condition_id).toBe(m.conditionId);
      expect((await c.clob.samplingMarkets()).data).toHaveLength(1);
      expect((await c.clob.samplingSimplifiedMarkets()).data).toHaveLength(1);
      const book = await c.clob.getBook(yes);
      const bid = book.bids[book.bids.length - 1].price;
      const ask = book.asks[book.asks.length - 1].price;
      expect(await c.clob.getMidpoint(yes)).toBeGreaterThan(0);
      expect(await c.clob.getPrice(yes, 'BUY')).toBeGreaterThanOrEqual(ask);
      expect(await c.clob.getPrice(yes, 'SELL')).toBeLessThanOrEqual(bid);
      expect(await c.clob.getSpread(yes)).toBeGreaterThan(0);
      expect(await c.clob.getTickSize(yes)).toBe(100);
      expect(await c.clob.getNegRisk(yes)).toBe(false);
      const one = await c.clob.postOrder({ tokenId: yes, price: 200, size: 500, side: 'BUY' });
      const batch = await c.clob.postOrders([
        { tokenId: yes, price: 300, size: 500, side: 'BUY' },
        { tokenId: yes, price: 400, size: 500, side: 'BUY' },
        { tokenId: yes, price: 500, size: 500, side: 'BUY', postOnly: true },
      ]);
      expect(batch.every((r) => r.success)).toBe(true);
      expect((await c.clob.getOrder(one.orderID as string)).status).toBe('LIVE');
      expect((await c.clob.getOrders()).data).toHaveLength(4);
      expect((await c.clob.cancelOrder(one.orderID as string)).canceled).toEqual([one.orderID]);
      expect((await c.clob.cancelOrders([batch[0].orderID as string])).canceled).toEqual([batch[0].orderID]);
      expect((await c.clob.cancelMarketOrders(m.conditionId)).canceled).toHaveLength(2);
      await c.clob.postOrder({ tokenId: yes, price: 200, size: 500, side: 'BUY' });
      expect((await c.clob.cancelAll()).canceled).toHaveLength(1);
      // take liquidity so there is a trade, a position and a balance change
      const took = await c.clob.postOrder({ tokenId: yes, price: Math.min(ask + 200, 9900), size: 500, side: 'BUY', orderType: 'FAK' });
      expect(took.status).toBe('matched');
      expect((await c.clob.getTrades()).data.length).toBeGreaterThan(0);
      expect((await c.clob.getDataTrades({ market: m.conditionId })).data.length).toBeGreaterThan(0);
      const bal = await c.clob.getBalances();
      expect(Number(bal.balance)).toBeLessThan(10_000);
      expect(await c.clob.getPositions()).toEqual([expect.objectContaining({ asset_id: yes, size: '5' })]);
      const created = await c.clob.createApiKey();
      expect((await c.clob.getApiKey()).apiKeys).toContain(created.apiKey);
      expect((await c.clob.deleteApiKey()).deleted).toBe(true);
    } finally {
      await c.close();
    }
  });

  it('Gamma (12), Data (10) and Content (2)', async () => {
    const c = clientsFor(emu.urls, 'other-key');
    const m = emu.markets[0];
    const addr = addressOf('every-key');
    try {
      const gm = await c.gamma.listMarkets({ active: true, order: 'volume' });
      expect(gm[0].conditionId).toBe(m.conditionId);
      expect((await c.gamma.getMarket(m.conditionId)).clobTokenIds).toEqual(m.tokens);
      expect(await c.gamma.marketsData()).toHaveLength(1);
      expect(await c.gamma.listEvents()).toHaveLength(1);
      expect((await c.gamma.getEvent(m.slug)).slug).toBe(m.slug);
      const posted = await c.gamma.postComment({ body: 'hello', parentEntityType: 'Event', parentEntityId: '2000000' });
      expect((await c.gamma.listComments()).map((x) => (x as { id: string }).id)).toContain(posted.id);
      expect((await c.gamma.getProfile(addr)).proxyWallet).toBe(addr);
      expect(await c.gamma.listTags()).not.toHaveLength(0);
      expect(await c.gamma.listSports()).not.toHaveLength(0);
      expect(await c.gamma.listSeries()).not.toHaveLength(0);
      expect(await c.gamma.health()).toBeDefined();
      expect(await c.data.listEvents()).toHaveLength(1);
      expect(await c.data.listMarkets()).toHaveLength(1);
      expect(Array.isArray((await c.data.priceHistory({ market: m.tokens[0] })).history)).toBe(true);
      expect((await c.data.userStats(addr)).trades).toBeGreaterThan(0);
      expect((await c.data.userTrades(addr)).length).toBeGreaterThan(0);
      expect((await c.data.userPositions(addr)).length).toBe(1);
      expect(await c.data.userPnl(addr)).toMatchObject({ address: addr });
      expect((await c.data.builderStats('every-key')).trades).toBeGreaterThan(0);
      expect(await c.data.builderVolume('every-key')).toBeDefined();
      expect(await c.data.health()).toBeDefined();
      const arts = await c.content.listArticles();
      expect(arts.length).toBeGreaterThan(0);
      expect((await c.content.getArticle((arts[0] as { id: string }).id)).id).toBe((arts[0] as { id: string }).id);
    } finally {
      await c.close();
    }
  });
});
