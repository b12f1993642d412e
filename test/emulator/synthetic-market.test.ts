import { describe, it, expect } from 'vitest';
import { SyntheticMarket, type MarketFrame } from '../../src/emulator/synthetic-market.js';
import { BookMirror } from '../../src/book/mirror.js';
import { createMarketDecodeStats, decodeMarketFrame } from '../../src/feed/decode-market.js';
import type { MarketEvent } from '../../src/core/events.js';
import { stressSyntheticParams } from '../../src/emulator/agents.js';

const T0 = Date.UTC(2026, 0, 1);

function run(seed: number, seconds: number): { market: SyntheticMarket; frames: MarketFrame[]; snapshot: string } {
  const market = new SyntheticMarket({ seed, startMs: T0, params: stressSyntheticParams });
  const frames: MarketFrame[] = [];
  market.onFrame((f) => frames.push(f));
  const snapshot = JSON.stringify(market.snapshot());
  market.advanceTo(T0 + seconds * 1000);
  return { market, frames, snapshot };
}

describe('synthetic market', () => {
  it('is deterministic for a seed and differs between seeds', () => {
    const a = run(7, 60);
    const b = run(7, 60);
    const c = run(8, 60);
    expect(a.frames.length).toBeGreaterThan(100);
    expect(b.snapshot).toBe(a.snapshot);
    expect(b.frames.map((f) => f.text)).toEqual(a.frames.map((f) => f.text));
    expect(c.frames.map((f) => f.text).slice(0, 50)).not.toEqual(a.frames.map((f) => f.text).slice(0, 50));
  });

  it('speaks the wire format: array snapshot, current price_change with per-entry hash and best bid/ask, trades', () => {
    const { market, frames, snapshot } = run(3, 120);
    const snap = JSON.parse(snapshot) as Array<Record<string, unknown>>;
    expect(Array.isArray(snap)).toBe(true);
    expect(snap.map((b) => b.asset_id)).toEqual(market.tokens);
    for (const b of snap) {
      expect(b.event_type).toBe('book');
      expect(b.tick_size).toBe('0.01');
      expect(b.hash).toMatch(/^[0-9a-f]{40}$/);
      const bids = b.bids as Array<{ price: string; size: string }>;
      for (const l of bids) expect(l.price).toMatch(/^0\.\d\d?$/); // shortest form, as the venue prints ('0.5', '0.54')
      // bids ascending, best last
      const ps = bids.map((l) => Number(l.price));
      expect([...ps].sort((x, y) => x - y)).toEqual(ps);
    }
    const types = new Set(frames.map((f) => f.type));
    expect(types).toEqual(new Set(['price_change', 'last_trade_price', 'book']));
    const pc = JSON.parse(frames.find((f) => f.type === 'price_change')!.text) as Record<string, unknown>;
    expect(Object.keys(pc)).toEqual(['market', 'price_changes', 'timestamp', 'event_type']);
    const e = (pc.price_changes as Array<Record<string, string>>)[0];
    expect(Object.keys(e)).toEqual(['asset_id', 'price', 'size', 'side', 'hash', 'best_bid', 'best_ask']);
    // timestamps never go back; a batch's messages share one (so its hash is the state after all of them)
    const ts = frames.filter((f) => f.type !== 'last_trade_price').map((f) => f.ts);
    for (let i = 1; i < ts.length; i++) expect(ts[i]).toBeGreaterThanOrEqual(ts[i - 1]);
    const pcs = frames.filter((f) => f.type === 'price_change').map((f) => f.ts);
    expect(new Set(pcs).size).toBeLessThan(pcs.length);
    expect(market.stats.trades).toBeGreaterThan(10);
  });

  it('every hash verifies in the project book mirror (10 minutes of market time)', () => {
    const market = new SyntheticMarket({ seed: 11, startMs: T0, params: stressSyntheticParams });
    const mirror = new BookMirror({ verifyEvery: 1, now: () => market.time() });
    const stats = createMarketDecodeStats();
    const evs: MarketEvent[] = [];
    const feed = (text: string): void => {
      evs.length = 0;
      decodeMarketFrame(text, evs, stats);
      for (const ev of evs) mirror.apply(ev);
    };
    market.onFrame((f) => feed(f.text));
    feed(JSON.stringify(market.snapshot()));
    market.advanceTo(T0 + 600_000);
    mirror.flush();
    for (const t of market.tokens) {
      const s = mirror.stats(t)!;
      expect(s.mismatches).toBe(0);
      expect(s.bestMismatches).toBe(0);
      expect(s.gaps).toBe(0);
      expect(s.hashesVerified).toBeGreaterThan(1000);
      // the mirror's book equals the engine's
      expect(mirror.book(t)!.bestBid()).toBe(market.engine.bestBid(t));
    }
  });

  it('looks like a market: two-sided book near the fair value, tight spread, steady trading', () => {
    const market = new SyntheticMarket({ seed: 17, startMs: T0, params: stressSyntheticParams });
    const [yes] = market.tokens;
    let samples = 0;
    let twoSided = 0;
    let dev = 0;
    let spread = 0;
    for (let s = 1; s <= 1800; s++) {
      market.advanceTo(T0 + s * 1000);
      const b = market.frames.book(yes);
      samples++;
      if (b.bestBid() < 0 || b.bestAsk() < 0) continue;
      twoSided++;
      dev += Math.abs((b.bestBid() + b.bestAsk()) / 2 - market.fairValue());
      spread += b.bestAsk() - b.bestBid();
    }
    expect(twoSided / samples).toBeGreaterThan(0.99);
    expect(dev / twoSided).toBeLessThan(300); // mean |mid - fair| under 3 ticks
    const meanSpread = spread / twoSided;
    expect(meanSpread).toBeGreaterThanOrEqual(100);
    expect(meanSpread).toBeLessThan(600);
    // about takerRatePerSec arrivals a second, most of them trading
    expect(market.stats.trades).toBeGreaterThan(1800);
  });

  it("a user's resting order queues and is filled by synthetic takers", () => {
    const market = new SyntheticMarket({ seed: 5, startMs: T0, params: stressSyntheticParams });
    const [yes] = market.tokens;
    const fills: number[] = [];
    market.onFills((fs) => {
      for (const f of fs) if (f.makerOwner === 'user-key') fills.push(f.size);
    });
    let filled = 0;
    for (let i = 0; i < 20 && filled < 500; i++) {
      const bid = market.engine.bestBid(yes);
      const out = market.place({ orderId: `u${i}`, owner: 'user-key', tokenId: yes, side: 'BUY', price: bid, size: 500, orderType: 'GTC', postOnly: true });
      expect(out.ok).toBe(true);
      market.advanceTo(market.time() + 30_000);
      market.cancel(`u${i}`);
      filled = fills.reduce((s, x) => s + x, 0);
    }
    expect(filled).toBeGreaterThan(0);
  });
});
