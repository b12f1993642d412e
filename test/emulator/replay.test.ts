import { describe, it, expect, afterAll, beforeAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { writeSyntheticRecording } from '../../src/emulator/recording-writer.js';
import { BookMirror } from '../../src/book/mirror.js';
import { createMarketDecodeStats, decodeMarketFrame } from '../../src/feed/decode-market.js';
import { createUserDecodeStats, decodeUserFrame } from '../../src/feed/decode-user.js';
import type { MarketEvent, UserEvent } from '../../src/core/events.js';
import { clientsFor, openSocket, waitFor } from './helpers.js';
import { stressSyntheticParams } from '../../src/emulator/agents.js';

let dir: string;
let emu: RunningEmulator;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'makerd-replay-'));
  const file = join(dir, 'rec.jsonl.gz');
  // 600 s at speed 40: 15 s of wall time, so the replay is still running when the later tests trade, even on a loaded machine
  await writeSyntheticRecording({ file, seed: 3, durationS: 600, params: { ...stressSyntheticParams, takerRatePerSec: 4 } });
  emu = await startEmulator({ replay: file, speed: 40, tickMs: 10, confirmDelayMs: 20 });
});
afterAll(async () => {
  await emu.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('emulator replay mode', () => {
  it('publishes the recording; a mid-replay subscriber gets a snapshot whose hashes verify with every later frame', async () => {
    expect(emu.markets).toHaveLength(1);
    const [yes, no] = emu.markets[0].tokens;
    await waitFor(() => emu.markets[0].time() > emu.replay!.scan.firstT + 10_000 || undefined, 3000, 'replay under way');
    const s = await openSocket(`${emu.urls.ws}/ws/market`);
    try {
      s.send(JSON.stringify({ assets_ids: [yes, no], type: 'market' }));
      await waitFor(() => s.frames.length > 50 || undefined, 5000, 'replayed frames');
      expect(Array.isArray(JSON.parse(s.frames[0]))).toBe(true);
      const mirror = new BookMirror({ verifyEvery: 1 });
      const stats = createMarketDecodeStats();
      const evs: MarketEvent[] = [];
      for (const f of s.frames) {
        evs.length = 0;
        decodeMarketFrame(f, evs, stats);
        for (const e of evs) mirror.apply(e);
      }
      // no flush(): the frames received so far may end inside a batch (checked only once complete)
      for (const t of [yes, no]) {
        expect(mirror.stats(t)!.mismatches).toBe(0);
        expect(mirror.stats(t)!.hashesVerified).toBeGreaterThan(10);
      }
      const book = await fetch(`${emu.urls.clob}/book?token_id=${yes}`).then((r) => r.json() as Promise<{ data: { hash: string; bids: unknown[] } }>);
      expect(book.data.hash).toMatch(/^[0-9a-f]{40}$/);
      expect(book.data.bids.length).toBeGreaterThan(0);
    } finally {
      s.close();
    }
  });

  it("a user's resting bid is placed in a simulated venue and filled by recorded trades (MATCHED then CONFIRMED)", async () => {
    const c = clientsFor(emu.urls, 'replay-key');
    const m = emu.markets[0];
    const [yes] = m.tokens;
    const u = await openSocket(`${emu.urls.ws}/ws/user`);
    const events: UserEvent[] = [];
    const ustats = createUserDecodeStats();
    try {
      u.send(JSON.stringify({ auth: { apiKey: 'replay-key' }, markets: [m.conditionId], type: 'user' }));
      await new Promise((r) => setTimeout(r, 50));
      const bid = m.frames.book(yes).bestBid();
      expect(bid).toBeGreaterThan(0);
      // a large bid at the best: it queues there and fills as recorded sells trade through
      const placed = await c.clob.postOrder({ tokenId: yes, price: bid, size: 50_000, side: 'BUY', orderType: 'GTC' });
      expect(placed.success).toBe(true);
      const id = placed.orderID as string;
      const feed = () => {
        for (const f of u.frames.splice(0)) decodeUserFrame(f, events, ustats);
      };
      await waitFor(() => (feed(), events.find((e) => e.type === 'order' && e.kind === 'PLACEMENT' && e.orderId === id)), 3000, 'PLACEMENT');
      const matched = await waitFor(() => (feed(), events.find((e) => e.type === 'trade' && e.status === 'MATCHED')), 8000, 'a fill from recorded trades');
      await waitFor(() => (feed(), events.find((e) => e.type === 'trade' && e.status === 'CONFIRMED')), 3000, 'CONFIRMED');
      const trades = await c.clob.getTrades();
      expect(trades.data.map((t) => t.id)).toContain(matched.type === 'trade' ? matched.tradeId : '');
      const cancel = await c.clob.cancelAll();
      expect(cancel.canceled.length + Object.keys(cancel.not_canceled).length).toBeLessThanOrEqual(1);
      // a marketable FAK takes recorded liquidity at once: the order is known and its trade is ours
      const ask = m.frames.book(yes).bestAsk();
      const took = await c.clob.postOrder({ tokenId: yes, price: Math.min(ask + 200, 9900), size: 500, side: 'BUY', orderType: 'FAK' });
      expect(took.success).toBe(true);
      const o = await c.clob.getOrder(took.orderID as string);
      expect(o.size_matched).toBe('5');
      expect(o.status).toBe('MATCHED');
      const mine = await c.clob.getTrades();
      expect(mine.data.some((t) => (t as Record<string, unknown>).taker_order_id === took.orderID && (t as Record<string, unknown>).trader_side === 'TAKER')).toBe(true);
    } finally {
      u.close();
      await c.close();
    }
  });
});

describe('emulator replay of a real capture', () => {
  it('a subscriber joining mid-replay of real Polymarket frames gets a snapshot that the real later hashes verify against', async () => {
    const file = new URL('../fixtures/polymarket/polytope/market_39.jsonl', import.meta.url).pathname;
    const e = await startEmulator({ replay: file, speed: 10, tickMs: 10 });
    try {
      const m = e.markets[0];
      expect(m.conditionId).toBe('0x1fad72fae204143ff1c3035e99e7c0f65ea8d5cd9bd1070987bd1a3316f772be');
      // join about 5 s of market time in, after some price changes
      await waitFor(() => m.time() > e.replay!.scan.firstT + 5_000 || undefined, 3000, 'replay under way');
      const s = await openSocket(`${e.urls.ws}/ws/market`);
      try {
        s.send(JSON.stringify({ assets_ids: m.tokens, type: 'market' }));
        await waitFor(() => e.replay!.ended() || undefined, 6000, 'end of the recording');
        await new Promise((r) => setTimeout(r, 50));
        const snap = JSON.parse(s.frames[0]) as Array<{ asset_id: string }>;
        expect(snap.map((b) => b.asset_id).sort()).toEqual([...m.tokens].sort());
        const mirror = new BookMirror({ verifyEvery: 1, complementSeeding: false });
        const stats = createMarketDecodeStats();
        const evs: MarketEvent[] = [];
        for (const f of s.frames) {
          evs.length = 0;
          decodeMarketFrame(f, evs, stats);
          for (const ev of evs) mirror.apply(ev);
        }
        mirror.flush();
        for (const t of m.tokens) {
          const st = mirror.stats(t)!;
          expect(st.mismatches).toBe(0);
          expect(st.bestMismatches).toBe(0);
          // the snapshot plus real price_change groups after it
          expect(st.hashesVerified).toBeGreaterThan(10);
        }
      } finally {
        s.close();
      }
    } finally {
      await e.close();
    }
  });
});
