import { describe, it, expect, afterAll, beforeAll } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { FeedConnection, type RawFrame } from '../../src/feed/connection.js';
import { channelOptions } from '../../src/feed/channels.js';
import { createUserDecodeStats, decodeUserFrame } from '../../src/feed/decode-user.js';
import type { UserEvent } from '../../src/core/events.js';
import { clientsFor, configFor, waitFor } from './helpers.js';
import { stressSyntheticParams } from '../../src/emulator/agents.js';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ seed: 21, confirmDelayMs: 50, tickMs: 10, params: stressSyntheticParams });
});
afterAll(async () => {
  await emu.close();
});

describe('emulator order round trip with the project clients and user feed', () => {
  it('postOrder -> PLACEMENT -> a crossing order of a second key fills it -> MATCHED then CONFIRMED -> GET /trades', async () => {
    const cfg = configFor(emu.urls);
    const a = clientsFor(emu.urls, 'key-a');
    const b = clientsFor(emu.urls, 'key-b');
    const market = emu.markets[0];
    const [yes] = market.tokens;
    const events: UserEvent[] = [];
    const rawTimestamps: string[] = [];
    const stats = createUserDecodeStats();
    const conn = new FeedConnection(channelOptions(emu.urls.ws, { kind: 'user', markets: [market.conditionId], auth: { apiKey: 'key-a' } }, { ...cfg.feed }));
    conn.onFrame((f: RawFrame) => {
      if (f.text === 'PONG') return;
      decodeUserFrame(f.text, events, stats);
      for (const m of f.text.matchAll(/"timestamp":"([^"]*)"/g)) rawTimestamps.push(m[1]);
    });
    conn.start();
    try {
      await waitFor(() => conn.state === 'live' || undefined, 3000, 'user channel live').catch(() => undefined);
      await new Promise((r) => setTimeout(r, 100));
      const book = await a.clob.getBook(yes);
      const bid = book.bids[book.bids.length - 1].price;
      const placed = await a.clob.postOrder({ tokenId: yes, price: bid, size: 500, side: 'BUY', orderType: 'GTC' });
      expect(placed.success).toBe(true);
      const orderId = placed.orderID as string;
      const placement = await waitFor(() => events.find((e) => e.type === 'order' && e.kind === 'PLACEMENT' && e.orderId === orderId), 3000, 'PLACEMENT');
      expect(placement.type === 'order' && placement.price).toBe(bid);
      // a second key sells everything resting at that price: our order is in that queue
      const level = market.frames.book(yes).sizeAt('BUY', bid);
      expect(level).toBeGreaterThanOrEqual(500);
      emu.exchange.split('key-b', market.conditionId, level); // shares to sell (the venue checks SELL balances)
      const sold = await b.clob.postOrder({ tokenId: yes, price: bid, size: level, side: 'SELL', orderType: 'FAK' });
      expect(sold.success).toBe(true);
      const matched = await waitFor(() => events.find((e) => e.type === 'trade' && e.status === 'MATCHED'), 3000, 'trade MATCHED');
      const confirmed = await waitFor(() => events.find((e) => e.type === 'trade' && e.status === 'CONFIRMED'), 3000, 'trade CONFIRMED');
      expect(matched.type === 'trade' && confirmed.type === 'trade' && confirmed.tradeId === matched.tradeId).toBe(true);
      expect(events.indexOf(matched)).toBeLessThan(events.indexOf(confirmed));
      // user frames carry integer-millisecond timestamps, as the venue's
      expect(rawTimestamps.length).toBeGreaterThan(1);
      for (const t of rawTimestamps) expect(t).toMatch(/^\d{13}$/);
      if (matched.type === 'trade') {
        expect(matched.traderSide).toBe('MAKER');
        expect(matched.makerOrders.some((m) => m.orderId === orderId && m.matchedAmount === 500)).toBe(true);
      }
      const trades = await a.clob.getTrades({ market: market.conditionId });
      expect(trades.data.map((t) => t.id)).toContain(matched.type === 'trade' ? matched.tradeId : '');
      const order = await a.clob.getOrder(orderId);
      expect(order.status).toBe('MATCHED');
      expect(order.size_matched).toBe('5');
      // key-b sees its own taker trade, not key-a's
      const bTrades = await b.clob.getTrades();
      expect(bTrades.data.every((t) => (t as Record<string, unknown>).trader_side === 'TAKER')).toBe(true);
      expect([...stats.rejects.entries()]).toEqual([]);
    } finally {
      conn.stop();
      await a.close();
      await b.close();
    }
  });
});
