// The synthetic market's feed against the real captures (test/fixtures/polymarket/polytope,
// glmbotpoly): the default has their shape and rate, every variant switch of wire-formats.md 5.4
// does what it says and still verifies in the mirror, and the group-corruption fault corrupts
// exactly one hash inside a multi-message batch.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BookMirror } from '../../src/book/mirror.js';
import { bookHash } from '../../src/book/hash.js';
import { complementPrice } from '../../src/core/units.js';
import { realFeedShape, type FeedShape } from '../../src/emulator/book-frames.js';
import { SyntheticMarket, type FeedControls } from '../../src/emulator/synthetic-market.js';
import { createMarketDecodeStats, decodeMarketFrame } from '../../src/feed/decode-market.js';
import type { MarketEvent, PriceChangeEvent } from '../../src/core/events.js';

const T0 = Date.UTC(2026, 0, 1);

interface Run {
  market: SyntheticMarket;
  texts: Array<{ ts: number; type: string; text: string }>;
  pcs: PriceChangeEvent[];
  mirror: BookMirror;
  snapshot: string;
}

function run(shape: Partial<FeedShape & { corruptGroupHashNext: number }>, seconds: number, activity = 1, seed = 4): Run {
  const feed: FeedControls = { ...realFeedShape, corruptGroupHashNext: 0, ...shape };
  const market = new SyntheticMarket({ seed, startMs: T0, feed, params: { activity } });
  const mirror = new BookMirror({ now: () => 0 });
  for (const t of market.tokens) mirror.setMeta(t, { market: market.conditionId, minOrderSize: '5', negRisk: false });
  const stats = createMarketDecodeStats();
  const out: MarketEvent[] = [];
  const apply = (text: string): void => {
    out.length = 0;
    decodeMarketFrame(text, out, stats);
    for (const e of out) mirror.apply(e);
  };
  const snapshot = JSON.stringify(market.snapshot());
  apply(snapshot);
  const texts: Run['texts'] = [];
  const pcs: PriceChangeEvent[] = [];
  market.onFrame((f) => {
    texts.push({ ts: f.ts, type: f.type, text: f.text });
    apply(f.text);
    for (const e of out) if (e.type === 'price_change') pcs.push(e);
  });
  market.advanceTo(T0 + seconds * 1000);
  mirror.flush();
  expect(stats.rejected()).toBe(0);
  return { market, texts, pcs, mirror, snapshot };
}

const mismatches = (r: Run) => r.market.tokens.reduce((n, t) => n + r.mirror.stats(t)!.mismatches + r.mirror.stats(t)!.bestMismatches, 0);

/** price_change messages per second, entries per message, share of messages in multi-message batches. */
function figures(pcs: Array<{ ts: number; entries: number }>, seconds: number) {
  const perTs = new Map<number, number>();
  for (const p of pcs) perTs.set(p.ts, (perTs.get(p.ts) ?? 0) + 1);
  const inBatches = pcs.filter((p) => perTs.get(p.ts)! > 1).length;
  return { perSec: pcs.length / seconds, entries: pcs.reduce((n, p) => n + p.entries, 0) / pcs.length, batchedShare: inBatches / pcs.length };
}

describe('the default synthetic feed has the shape and rate of the real captures', () => {
  const real = readFileSync(new URL('../fixtures/polymarket/polytope/market_39.jsonl', import.meta.url), 'utf8')
    .split('\n')
    .filter((l) => l.includes('"price_change"'))
    .map((l) => JSON.parse(l) as { timestamp: string; price_changes: unknown[] });
  const realSeconds = (Number(real.at(-1)!.timestamp) - Number(real[0].timestamp)) / 1000;
  const realFig = figures(
    real.map((m) => ({ ts: Number(m.timestamp), entries: m.price_changes.length })),
    realSeconds,
  );
  const r = run({}, 600);
  const emuFig = figures(
    r.pcs.map((p) => ({ ts: p.timestampMs, entries: p.changes.length })),
    600,
  );

  it('every hash and top verifies in the mirror', () => {
    expect(mismatches(r)).toBe(0);
    expect(r.pcs.length).toBeGreaterThan(300);
  });

  it('message rate, entries per message and batching within the real capture range', () => {
    expect(realFig.entries).toBe(2);
    expect(emuFig.entries).toBe(2);
    expect(emuFig.perSec).toBeGreaterThan(realFig.perSec / 2);
    expect(emuFig.perSec).toBeLessThan(realFig.perSec * 2);
    // polytope: a few multi-message batches; the emulator's maker refreshes batch more often
    expect(realFig.batchedShare).toBeGreaterThan(0);
    expect(emuFig.batchedShare).toBeGreaterThan(realFig.batchedShare);
    const trades = r.market.stats.trades / 600;
    expect(trades).toBeLessThan(0.2); // polytope: none in 27 s
    expect(trades).toBeGreaterThan(0);
  });

  it('one level per message: the token and its complement mirror (1 - p, other side, same size)', () => {
    for (const p of r.pcs) {
      const [a, b] = p.changes;
      expect(b.assetId).not.toBe(a.assetId);
      expect(b.price).toBe(complementPrice(a.price));
      expect(b.side).not.toBe(a.side);
      expect(b.sizeStr).toBe(a.sizeStr);
    }
  });

  it("same-timestamp messages carry one token's hash after the batch; tops after their own message", () => {
    const byTs = new Map<string, Set<string>>();
    for (const p of r.pcs)
      for (const c of p.changes) (byTs.get(`${p.timestampMs}|${c.assetId}`) ?? byTs.set(`${p.timestampMs}|${c.assetId}`, new Set()).get(`${p.timestampMs}|${c.assetId}`)!).add(c.hash!);
    expect([...byTs.values()].every((s) => s.size === 1)).toBe(true);
  });

  it('shortest prices, 3-decimal hashed last_trade_price, later books without last_trade_price', () => {
    for (const p of r.pcs) for (const c of p.changes) expect(c.priceStr).toMatch(/^0\.\d*[1-9]$/);
    const snap = JSON.parse(r.snapshot) as Array<{ last_trade_price: string }>;
    for (const b of snap) expect(b.last_trade_price).toMatch(/^0\.\d{3}$/);
    const later = r.texts.filter((f) => f.type === 'book');
    expect(later.length).toBeGreaterThan(0);
    for (const f of later) expect(f.text).not.toContain('last_trade_price');
    const events = r.texts.filter((f) => f.type === 'last_trade_price').map((f) => (JSON.parse(f.text) as { price: string }).price);
    for (const p of events) expect(p).toMatch(/^0\.\d*[1-9]$/);
  });
});

describe('feed variant switches (wire-formats.md 5.4)', () => {
  it('topsAfterBatch: every entry of a batch carries the top after the batch; still in sync', () => {
    const r = run({ topsAfterBatch: true }, 300);
    expect(mismatches(r)).toBe(0);
    const last = new Map<string, string>();
    for (const p of r.pcs) for (const c of p.changes) last.set(`${p.timestampMs}|${c.assetId}`, `${c.bestBid}/${c.bestAsk}`);
    for (const p of r.pcs) for (const c of p.changes) expect(`${c.bestBid}/${c.bestAsk}`).toBe(last.get(`${p.timestampMs}|${c.assetId}`));
    // and it differs from the default somewhere (a batch that moved the top)
    const d = run({}, 300);
    expect(JSON.stringify(d.pcs.map((p) => p.changes.map((c) => c.bestBid)))).not.toBe(JSON.stringify(r.pcs.map((p) => p.changes.map((c) => c.bestBid))));
  });

  it('hashPerMessage: hashes inside a batch differ (each the book after its message); still in sync', () => {
    const r = run({ hashPerMessage: true }, 300);
    expect(mismatches(r)).toBe(0);
    const byTs = new Map<string, Set<string>>();
    for (const p of r.pcs)
      for (const c of p.changes) (byTs.get(`${p.timestampMs}|${c.assetId}`) ?? byTs.set(`${p.timestampMs}|${c.assetId}`, new Set()).get(`${p.timestampMs}|${c.assetId}`)!).add(c.hash!);
    expect([...byTs.values()].some((s) => s.size > 1)).toBe(true);
  });

  it('oneMessagePerBatch: one message per timestamp with every change; still in sync', () => {
    const r = run({ oneMessagePerBatch: true }, 300);
    expect(mismatches(r)).toBe(0);
    const ts = r.pcs.map((p) => p.timestampMs);
    expect(new Set(ts).size).toBe(ts.length);
    expect(r.pcs.some((p) => p.changes.length > 2)).toBe(true);
  });

  it('ltpLeads: the batch with a trade hashes its price before the last_trade_price event; off: after', () => {
    for (const leads of [true, false]) {
      const r = run({ ltpLeads: leads }, 120, 28);
      expect(mismatches(r)).toBe(0);
      const snap = JSON.parse(r.snapshot) as Array<{ asset_id: string; last_trade_price: string }>;
      // the first trade: its batch's price_change messages share its timestamp and come before the event
      const evIdx = r.texts.findIndex((f) => f.type === 'last_trade_price');
      const ev = JSON.parse(r.texts[evIdx].text) as { asset_id: string; price: string; timestamp: string };
      const batch = r.texts.slice(0, evIdx).filter((f) => f.type === 'price_change' && f.ts === Number(ev.timestamp));
      expect(batch.length).toBeGreaterThan(0);
      // replay the levels up to the end of that batch, then hash with the old and the new price
      const levels = new Map<string, { bids: Map<string, string>; asks: Map<string, string> }>();
      for (const b of JSON.parse(r.snapshot) as Array<{ asset_id: string; bids: Array<{ price: string; size: string }>; asks: Array<{ price: string; size: string }> }>) {
        levels.set(b.asset_id, { bids: new Map(b.bids.map((l) => [l.price, l.size])), asks: new Map(b.asks.map((l) => [l.price, l.size])) });
      }
      let carried = '';
      for (const f of r.texts.slice(0, evIdx)) {
        if (f.type !== 'price_change') continue;
        const m = JSON.parse(f.text) as { price_changes: Array<{ asset_id: string; price: string; size: string; side: string; hash: string }> };
        for (const c of m.price_changes) {
          const side = c.side === 'BUY' ? levels.get(c.asset_id)!.bids : levels.get(c.asset_id)!.asks;
          if (c.size === '0') side.delete(c.price);
          else side.set(c.price, c.size);
          if (c.asset_id === ev.asset_id) carried = c.hash;
        }
      }
      const lv = levels.get(ev.asset_id)!;
      const hashWith = (ltp: string) =>
        bookHash({
          market: r.market.conditionId,
          assetId: ev.asset_id,
          timestamp: ev.timestamp,
          bids: [...lv.bids].sort((x, y) => +x[0] - +y[0]),
          asks: [...lv.asks].sort((x, y) => +y[0] - +x[0]),
          minOrderSize: '5',
          tickSize: '0.01',
          negRisk: false,
          lastTradePrice: ltp,
        });
      const before = snap.find((b) => b.asset_id === ev.asset_id)!.last_trade_price;
      const announced = Number(ev.price).toFixed(3);
      expect(announced).not.toBe(before);
      expect(carried).toBe(hashWith(leads ? announced : before));
    }
  });

  it("complementLtp: a trade moves the complement's hashed price to 1 - p; off: only its own token's", () => {
    const both = run({}, 120, 28);
    const own = run({ complementLtp: false }, 120, 28);
    expect(mismatches(own)).toBe(0);
    const sum = (m: SyntheticMarket) => Number(m.lastTradePrice(m.tokens[0])) + Number(m.lastTradePrice(m.tokens[1]));
    expect(sum(both.market)).toBeCloseTo(1, 6);
    expect(sum(own.market)).not.toBeCloseTo(1, 6);
  });

  it('corruptGroupHashNext: exactly one hash inside a multi-message batch differs from the clean run', () => {
    const clean = run({}, 120, 1, 9);
    const bad = run({ corruptGroupHashNext: 1 }, 120, 1, 9);
    expect(bad.texts.length).toBe(clean.texts.length);
    const diff = bad.texts.map((f, i) => [f, clean.texts[i]] as const).filter(([x, y]) => x.text !== y.text);
    expect(diff).toHaveLength(1);
    const [x, y] = diff[0];
    const hx = x.text.match(/[0-9a-f]{40}/g)!;
    const hy = y.text.match(/[0-9a-f]{40}/g)!;
    expect(hx.filter((h, i) => h !== hy[i])).toHaveLength(1);
    expect(clean.texts.filter((f) => f.type === 'price_change' && f.ts === x.ts).length).toBeGreaterThan(1);
    // and the mirror catches it
    expect(mismatches(bad)).toBe(1);
    expect(mismatches(clean)).toBe(0);
  });
});
