// The event codec of the backtest's reader thread (feed/event-codec.ts): every event decoded from
// real captures (nautilus_trader's ws messages, polytope's market_39, polytrader's market feed,
// polymercado's book) and from a synthetic recording, encoded, moved through v8 serialization as
// postMessage moves it, and decoded in batches, equals the original field for field, optional keys
// (present, absent, present but undefined) included.
import { readdirSync, readFileSync } from 'node:fs';
import { deserialize, serialize } from 'node:v8';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMarketDecodeStats, decodeMarketFrame } from '../../src/feed/decode-market.js';
import type { EncodedEvents } from '../../src/feed/event-codec.js';
import { EventDecoder } from '../../src/feed/event-decoder.js';
import { EventEncoder } from '../../src/feed/event-encoder.js';
import type { MarketEvent } from '../../src/core/events.js';
import { readRecording } from '../../src/feed/replay.js';
import { writeSyntheticRecording } from '../../src/emulator/recording-writer.js';
import { stressSyntheticParams } from '../../src/emulator/agents.js';

const fx = new URL('../fixtures/polymarket/', import.meta.url);

function realFrames(): string[] {
  const out: string[] = [];
  const ws = new URL('nautilus_trader/python_resources/ws_messages/', fx);
  for (const f of readdirSync(ws)) out.push(readFileSync(new URL(f, ws), 'utf8'));
  const rust = new URL('nautilus_trader/rust_test_data/', fx);
  for (const f of readdirSync(rust)) if (f.startsWith('ws_market')) out.push(readFileSync(new URL(f, rust), 'utf8'));
  for (const file of ['polytope/market_39.jsonl', 'polytrader/market_ws_messages.jsonl']) {
    for (const line of readFileSync(new URL(file, fx), 'utf8').split('\n')) if (line.trim()) out.push(line);
  }
  out.push(readFileSync(new URL('polymercado/clob_ws_book.json', fx), 'utf8'));
  return out;
}

function decodeAll(frames: string[]): MarketEvent[] {
  const stats = createMarketDecodeStats();
  const out: MarketEvent[] = [];
  for (const f of frames) decodeMarketFrame(f, out, stats);
  return out;
}

/** Encodes in batches of `per` events, each through v8 (de)serialization, and decodes them in order. */
function roundTrip(events: MarketEvent[], per: number): MarketEvent[] {
  const enc = new EventEncoder();
  const dec = new EventDecoder();
  const back: MarketEvent[] = [];
  for (let i = 0; i < events.length; i += per) {
    for (const e of events.slice(i, i + per)) enc.event(e);
    dec.load(deserialize(serialize(enc.take())) as EncodedEvents);
    while (dec.more()) back.push(dec.event());
  }
  return back;
}

describe('event codec', () => {
  it('gives back every event of the real captures as decoded', () => {
    const events = decodeAll(realFrames());
    const types = new Set(events.map((e) => e.type));
    for (const t of ['book', 'price_change', 'last_trade_price', 'tick_size_change', 'best_bid_ask', 'new_market', 'market_resolved']) expect(types, t).toContain(t);
    expect(roundTrip(events, 7)).toStrictEqual(events);
  });

  it('gives back a synthetic recording, names sent once and reused across batches', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'makerd-codec-'));
    try {
      const file = join(dir, 'syn.jsonl');
      await writeSyntheticRecording({ file, seed: 3, durationS: 60, params: stressSyntheticParams });
      const frames: string[] = [];
      for await (const r of readRecording(file)) frames.push(r.f);
      const events = decodeAll(frames);
      expect(events.length).toBeGreaterThan(300);
      const enc = new EventEncoder();
      for (const e of events.slice(0, 100)) enc.event(e);
      const first = enc.take();
      for (const e of events.slice(100, 200)) enc.event(e);
      const second = enc.take();
      // the asset ids and the market cross in the first batch only
      const ids = new Set(events.flatMap((e) => (e.type === 'price_change' ? e.changes.map((c) => c.assetId) : 'assetId' in e ? [e.assetId] : [])));
      for (const id of ids) expect(first.fresh).toContain(id);
      for (const id of ids) expect(second.fresh).not.toContain(id);
      expect(roundTrip(events, 64)).toStrictEqual(events);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('gives back odd texts: a second text for a price, prices outside the grid, more names than it keeps', () => {
    const lv = (price: number, priceStr: string): { price: number; size: number; priceStr: string; sizeStr: string } => ({ price, size: 100, priceStr, sizeStr: '1' });
    const events: MarketEvent[] = [
      {
        type: 'book',
        market: 'm',
        assetId: 'a',
        timestampMs: 1,
        timestampStr: '1',
        hash: 'h',
        bids: [lv(4300, '0.43'), lv(4300, '0.430'), lv(4300, '0.43')],
        asks: [lv(20_000, '2'), lv(4300.5, '0.43005'), lv(-1, 'x')],
      },
    ];
    // past the names it keeps (200,000), a string crosses as itself each time
    for (let i = 0; i < 200_010; i++) events.push({ type: 'best_bid_ask', market: `m${i}`, assetId: 'a', bestBid: 1, bestAsk: 2, spread: 1, timestampMs: i });
    events.push({ type: 'best_bid_ask', market: 'm200005', assetId: 'a', bestBid: 1, bestAsk: 2, spread: 1, timestampMs: 0 });
    expect(roundTrip(events, 50_000)).toStrictEqual(events);
  });

  it('keeps optional keys as they were: absent, undefined or set', () => {
    const events: MarketEvent[] = [
      { type: 'book', market: 'm', assetId: 'a', timestampMs: 1, timestampStr: '1', hash: '', bids: [], asks: [] },
      {
        type: 'book',
        market: 'm',
        assetId: 'a',
        timestampMs: 1,
        timestampStr: '1',
        hash: 'h',
        bids: [{ price: 4300, size: 1e6, priceStr: '0.43', sizeStr: '1' }],
        asks: [],
        tickSize: 100,
        tickSizeStr: '0.01',
        minOrderSizeStr: '5',
        negRisk: false,
        lastTradePriceStr: '0.5',
      },
      { type: 'book', market: 'm', assetId: 'a', timestampMs: 1, timestampStr: '1', hash: 'h', bids: [], asks: [], tickSize: undefined, negRisk: undefined, lastTradePriceStr: undefined },
      {
        type: 'price_change',
        market: 'm',
        timestampMs: 2.5,
        timestampStr: '2500',
        format: 'changes',
        changes: [{ assetId: 'a', side: 'SELL', price: 1, size: 0, priceStr: '0.0001', sizeStr: '0', hash: undefined, bestBid: undefined, bestAsk: 0 }],
      },
      { type: 'last_trade_price', market: 'm', assetId: 'a', price: 5000, size: 2, side: 'BUY', feeRateBps: 0, timestampMs: 3 },
      { type: 'last_trade_price', market: 'm', assetId: 'a', price: 5000, size: 2, side: 'SELL', feeRateBps: 7, timestampMs: 3, transactionHash: '0x1', priceStr: '0.5' },
      { type: 'market_resolved', market: 'm', question: 'q', slug: '', assetIds: ['a', 'b'], outcomes: ['Yes', 'No'], timestampMs: 4, winningAssetId: 'a', winningOutcome: undefined },
    ];
    expect(roundTrip(events, 2)).toStrictEqual(events);
  });
});
