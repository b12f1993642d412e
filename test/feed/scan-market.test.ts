// The market decoder's scanner fast path against its JSON.parse path: every frame of the real
// fixtures, of a synthetic recording (tick size changes included) and thousands of seeded
// mutations of them decode to strictly equal events and equal stats with the scanner on and off;
// each reason to decline is checked alone; the scanner takes the common frames.
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMarketDecodeStats, decodeMarketFrame, setMarketScan } from '../../src/feed/decode-market.js';
import { scanMarketFrame } from '../../src/feed/scan-market.js';
import type { MarketEvent } from '../../src/core/events.js';
import { readRecording } from '../../src/feed/replay.js';
import { writeSyntheticRecording } from '../../src/emulator/recording-writer.js';
import { SeededRng } from '../../src/core/rng.js';
import { stressSyntheticParams } from '../../src/emulator/agents.js';

const fx = new URL('../fixtures/polymarket/', import.meta.url);
const wsDir = new URL('nautilus_trader/python_resources/ws_messages/', fx);

function decodeBoth(frame: string): { on: MarketEvent[]; off: MarketEvent[]; onStats: Record<string, number>; offStats: Record<string, number>; n: [number, number] } {
  const on: MarketEvent[] = [];
  const off: MarketEvent[] = [];
  const s1 = createMarketDecodeStats();
  const s2 = createMarketDecodeStats();
  let n1: number;
  let n2: number;
  try {
    setMarketScan(true);
    n1 = decodeMarketFrame(frame, on, s1);
    setMarketScan(false);
    n2 = decodeMarketFrame(frame, off, s2);
  } finally {
    setMarketScan(true);
  }
  return { on, off, onStats: s1.counters(), offStats: s2.counters(), n: [n1, n2] };
}

/** Asserts both paths agree on a frame; returns whether the scanner took it. */
function same(frame: string): boolean {
  const r = decodeBoth(frame);
  try {
    expect(r.on).toStrictEqual(r.off);
    expect(r.onStats).toStrictEqual(r.offStats);
    expect(r.n[0]).toBe(r.n[1]);
  } catch (e) {
    throw new Error(`paths differ on frame ${JSON.stringify(frame.slice(0, 400))}: ${String(e)}`);
  }
  return scanMarketFrame(frame) !== undefined;
}

let tmp = '';
let synthetic: string[] = [];

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'makerd-scan-'));
  const frames: string[] = [];
  // default market, and one near the edge so the tick changes (tick_size_change + fresh books)
  const runs = [
    { file: join(tmp, 'a.jsonl'), seed: 3, durationS: 200, params: stressSyntheticParams },
    { file: join(tmp, 'b.jsonl'), seed: 3, durationS: 120, params: { ...stressSyntheticParams, startPrice: 9300, fairMax: 9900, volPerSqrtSec: 60 } },
  ];
  for (const o of runs) {
    await writeSyntheticRecording(o);
    for await (const r of readRecording(o.file)) frames.push(r.f);
  }
  synthetic = frames;
}, 30_000);

afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

function realFrames(): string[] {
  const out: string[] = [];
  for (const f of readdirSync(wsDir)) {
    const text = readFileSync(new URL(f, wsDir), 'utf8');
    out.push(text, JSON.stringify(JSON.parse(text))); // as stored (pretty) and compact
  }
  for (const line of readFileSync(new URL('polytope/market_39.jsonl', fx), 'utf8').split('\n')) out.push(line);
  out.push(readFileSync(new URL('polymercado/clob_ws_book.json', fx), 'utf8'));
  return out;
}

const CHUNKS = ['\\', '\\"', '\\u0030', '\\n', ' ', '\n', '\t', '"', ',', ':', '{', '}', '[', ']', 'null', '0', '-', 'e', '.', '1', 'true', '\u0001', '\ud800', 'é'];
const VALUES = [
  'null',
  '1',
  '0.5',
  '-1',
  'true',
  '{}',
  '[]',
  '""',
  '"x"',
  '"0.5"',
  '"1.5"',
  '"-0.5"',
  '"1e3"',
  '" 0.5"',
  '"buy"',
  '"SELL"',
  '"0.12345"',
  '"12.345"',
  '"0x1"',
  '"1"',
  '"99999999999999999"',
  '"1700000000"',
  '"1700000000000000"',
];
const KEYS = [
  'market',
  'asset_id',
  'price',
  'size',
  'side',
  'hash',
  'best_bid',
  'best_ask',
  'timestamp',
  'event_type',
  'price_changes',
  'fee_rate_bps',
  'transaction_hash',
  'extra',
  'changes',
  '__proto__',
];

/** One seeded edit of a frame: structure, escapes, whitespace, types, keys, truncation. */
function mutate(f: string, rng: SeededRng): string {
  const at = rng.int(0, Math.max(0, f.length - 1));
  switch (rng.int(0, 11)) {
    case 0:
      return f.slice(0, at) + f.slice(at + 1); // delete
    case 1:
      return f.slice(0, at) + f[at] + f.slice(at); // duplicate
    case 2:
      return f.slice(0, at) + (f[at + 1] ?? '') + f[at] + f.slice(at + 2); // swap
    case 3:
      return f.slice(0, at) + CHUNKS[rng.int(0, CHUNKS.length - 1)] + f.slice(at); // insert
    case 4:
      return f.slice(0, at); // truncate
    case 5: {
      // replace one string value with another type or value
      const vals = [...f.matchAll(/:("[^"]*"|\[)/g)];
      if (vals.length === 0) return f + ' ';
      const m = vals[rng.int(0, vals.length - 1)];
      if (m[1] === '[') return f.slice(0, m.index + 1) + VALUES[rng.int(0, VALUES.length - 1)] + ',"z":[' + f.slice(m.index + 2);
      return f.slice(0, m.index + 1) + VALUES[rng.int(0, VALUES.length - 1)] + f.slice(m.index + 1 + m[1].length);
    }
    case 6: {
      // a value's quotes dropped (a number where a string belongs), or a value escaped
      const vals = [...f.matchAll(/:"([^"]*)"/g)];
      if (vals.length === 0) return f;
      const m = vals[rng.int(0, vals.length - 1)];
      const inner = rng.next() < 0.5 ? m[1] : m[1].replace(/[0-9a-zA-Z]/, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
      const v = rng.next() < 0.5 ? inner : `"${inner}"`;
      return f.slice(0, m.index + 1) + v + f.slice(m.index + 1 + m[1].length + 2);
    }
    case 7: {
      // rename a key, or add a key (maybe a duplicate) after an opening brace
      const keys = [...f.matchAll(/"([a-z_]+)":/g)];
      const k = KEYS[rng.int(0, KEYS.length - 1)];
      if (keys.length > 0 && rng.next() < 0.5) {
        const m = keys[rng.int(0, keys.length - 1)];
        return f.slice(0, m.index) + `"${k}":` + f.slice(m.index + m[0].length);
      }
      const opens = [...f.matchAll(/\{/g)];
      if (opens.length === 0) return f;
      const m = opens[rng.int(0, opens.length - 1)];
      return f.slice(0, m.index + 1) + `"${k}":${VALUES[rng.int(0, VALUES.length - 1)]},` + f.slice(m.index + 1);
    }
    case 8: {
      // a whole object's key/value pairs in another order, or an event_type swapped
      const types = ['price_change', 'last_trade_price', 'book', 'tick_size_change', 'best_bid_ask', 'PRICE_CHANGE', ''];
      return f.replace(/"event_type":"[a-z_]*"/, `"event_type":"${types[rng.int(0, types.length - 1)]}"`);
    }
    case 9:
      return rng.next() < 0.5 ? `[${f}]` : ` ${f}`;
    case 10:
      return f.replace(/"(BUY|SELL)"/, rng.next() < 0.5 ? '"buy"' : '"SEL"');
    default:
      return f.replace(/"price_changes":\[\{[^}]*\}/, (m) => m.replace(/,"best_(bid|ask)":"[^"]*"/, rng.next() < 0.5 ? '' : ',"best_$1":""'));
  }
}

/** A compact object with its top-level keys (and each price_changes entry's keys) shuffled. */
function shuffleKeys(f: string, rng: SeededRng): string {
  const o = JSON.parse(f) as Record<string, unknown>;
  const sh = (x: Record<string, unknown>): Record<string, unknown> => {
    const ks = Object.keys(x);
    for (let i = ks.length - 1; i > 0; i--) {
      const j = rng.int(0, i);
      [ks[i], ks[j]] = [ks[j], ks[i]];
    }
    return Object.fromEntries(ks.map((k) => [k, x[k]]));
  };
  const out = sh(o);
  if (Array.isArray(out.price_changes)) out.price_changes = (out.price_changes as Array<Record<string, unknown>>).map(sh);
  return JSON.stringify(out);
}

describe('market scanner fast path = JSON.parse path', () => {
  it('every real fixture frame: same events and stats', () => {
    let scanned = 0;
    const frames = realFrames();
    for (const f of frames) if (same(f)) scanned++;
    expect(scanned).toBeGreaterThanOrEqual(35); // polytope's price_change frames and the compact ws_messages
  });

  it('every frame of a synthetic recording (tick size changes included): same events and stats; most take the fast path', () => {
    expect(synthetic.length).toBeGreaterThan(2000);
    expect(synthetic.some((f) => f.includes('"tick_size_change"'))).toBe(true);
    let scanned = 0;
    const on: MarketEvent[] = [];
    const off: MarketEvent[] = [];
    const s1 = createMarketDecodeStats();
    const s2 = createMarketDecodeStats();
    setMarketScan(true);
    for (const f of synthetic) {
      decodeMarketFrame(f, on, s1);
      if (scanMarketFrame(f) !== undefined) scanned++;
    }
    setMarketScan(false);
    for (const f of synthetic) decodeMarketFrame(f, off, s2);
    setMarketScan(true);
    expect(on).toStrictEqual(off);
    expect(s1.counters()).toStrictEqual(s2.counters());
    expect(s1.rejected()).toBe(0);
    expect(scanned / synthetic.length).toBeGreaterThan(0.95); // all but the snapshot arrays
  });

  it('keys in any order: same events, still on the fast path', () => {
    const rng = new SeededRng(11);
    const base = [...realFrames(), ...synthetic.slice(0, 3000)].filter((f) => scanMarketFrame(f) !== undefined);
    let scanned = 0;
    for (const f of base) if (same(shuffleKeys(f, rng))) scanned++;
    expect(scanned).toBe(base.length);
  });

  it('thousands of seeded mutations: same events and stats, whatever each path decides', () => {
    const rng = new SeededRng(20261120);
    const base = [...realFrames(), ...synthetic.filter((_, i) => i % 7 === 0)];
    let scanned = 0;
    let declined = 0;
    const N = 12_000;
    for (let i = 0; i < N; i++) {
      let f = base[rng.int(0, base.length - 1)];
      const edits = rng.int(1, 3);
      for (let k = 0; k < edits; k++) f = mutate(f, rng);
      if (same(f)) scanned++;
      else declined++;
    }
    // both outcomes are exercised: mutations the scanner still reads (e.g. an added best_bid "") and ones it leaves to JSON.parse
    expect(scanned).toBeGreaterThan(200);
    expect(declined).toBeGreaterThan(2000);
  });
});

const PC =
  '{"market":"0xabc","price_changes":[{"asset_id":"123","price":"0.5","size":"10","side":"BUY","hash":"h1","best_bid":"0.5","best_ask":"0.6"}],"timestamp":"1700000000000","event_type":"price_change"}';
const BOOK =
  '{"market":"0xabc","asset_id":"123","timestamp":"1700000000000","hash":"h","bids":[{"price":"0.4","size":"5"}],"asks":[{"price":"0.6","size":"7.5"},{"price":"0.7","size":"1"}],"tick_size":"0.01","event_type":"book","last_trade_price":"0.5"}';
const LTP = '{"asset_id":"123","event_type":"last_trade_price","fee_rate_bps":"0","market":"0xabc","price":"0.491","side":"SELL","size":"85.36","timestamp":"1724564136087"}';

describe('market scanner: what it declines', () => {
  it('takes the plain current-format price_change and last_trade_price', () => {
    expect(scanMarketFrame(PC)).toStrictEqual({
      type: 'price_change',
      market: '0xabc',
      timestampMs: 1700000000000,
      timestampStr: '1700000000000',
      changes: [{ assetId: '123', side: 'BUY', price: 5000, size: 1000, priceStr: '0.5', sizeStr: '10', hash: 'h1', bestBid: 5000, bestAsk: 6000 }],
      format: 'current',
    });
    expect(scanMarketFrame(BOOK)).toStrictEqual({
      type: 'book',
      market: '0xabc',
      assetId: '123',
      timestampMs: 1700000000000,
      timestampStr: '1700000000000',
      hash: 'h',
      bids: [{ price: 4000, size: 500, priceStr: '0.4', sizeStr: '5' }],
      asks: [
        { price: 6000, size: 750, priceStr: '0.6', sizeStr: '7.5' },
        { price: 7000, size: 100, priceStr: '0.7', sizeStr: '1' },
      ],
      tickSize: 100,
      tickSizeStr: '0.01',
      lastTradePriceStr: '0.5',
    });
    same(BOOK.replace('"tick_size"', '"neg_risk":true,"min_order_size":"5","tick_size"'));
    expect(scanMarketFrame(LTP)).toMatchObject({ type: 'last_trade_price', price: 4910, size: 8536, side: 'SELL', feeRateBps: 0, priceStr: '0.491' });
  });

  const cases: Array<[string, string]> = [
    ['a backslash escape in a value', PC.replace('"h1"', '"h\\u0031"')],
    ['an escaped quote', PC.replace('"h1"', '"h\\"1"')],
    ['an escape in a key', PC.replace('"hash"', '"h\\u0061sh"')],
    ['a control character in a string', PC.replace('"h1"', '"h\u00011"')],
    ['whitespace between tokens', PC.replace('"market":', '"market": ')],
    ['leading whitespace', ' ' + PC],
    ['trailing whitespace', PC + '\n'],
    ['an unknown top-level key', PC.replace('{"market"', '{"x":"1","market"')],
    ['an unknown entry key', PC.replace('"side":"BUY"', '"side":"BUY","fee":"1"')],
    ['a duplicate top-level key', PC.replace('{"market":"0xabc"', '{"market":"0xdef","market":"0xabc"')],
    ['a duplicate entry key', PC.replace('"price":"0.5"', '"price":"0.4","price":"0.5"')],
    ['a top-level array', `[${PC}]`],
    ['a number where a string belongs', PC.replace('"price":"0.5"', '"price":0.5')],
    ['null where a string belongs', PC.replace('"hash":"h1"', '"hash":null')],
    ['a number timestamp', PC.replace('"timestamp":"1700000000000"', '"timestamp":1700000000000')],
    ['price_changes not an array', PC.replace(/"price_changes":\[.*\]/, '"price_changes":{}')],
    ['an entry not an object', PC.replace(/"price_changes":\[.*\]/, '"price_changes":["x"]')],
    ['a missing entry field', PC.replace('"size":"10",', '')],
    ['a price off the grid', PC.replace('"price":"0.5"', '"price":"0.12345"')],
    ['a price above 1', PC.replace('"price":"0.5"', '"price":"1.5"')],
    ['a signed size', PC.replace('"size":"10"', '"size":"-10"')],
    ['an unknown side', PC.replace('"BUY"', '"buy"')],
    ['an empty timestamp', PC.replace('"1700000000000"', '""')],
    ['a missing event_type', PC.replace(',"event_type":"price_change"', '')],
    ['another event_type', PC.replace('"price_change"}', '"book"}')],
    ['the legacy flat price_change', '{"asset_id":"1","event_type":"price_change","hash":"h","market":"0xabc","price":"0.5","side":"SELL","size":"1","timestamp":"1723967931411"}'],
    ['trailing text', PC + '}'],
    ['truncation', PC.slice(0, -1)],
    ['a missing comma', PC.replace(',"timestamp"', '"timestamp"')],
    ['a fee that is not plain digits', LTP.replace('"fee_rate_bps":"0"', '"fee_rate_bps":"1e2"')],
    ['a book with the old buys/sells names', BOOK.replace('"bids"', '"buys"').replace('"asks"', '"sells"')],
    ['a book level with an extra key', BOOK.replace('{"price":"0.4","size":"5"}', '{"price":"0.4","size":"5","x":"1"}')],
    ['a book level missing its size', BOOK.replace('{"price":"0.4","size":"5"}', '{"price":"0.4"}')],
    ['a book level with a repeated key', BOOK.replace('{"price":"0.4","size":"5"}', '{"price":"0.4","price":"0.4"}')],
    ['a non-boolean neg_risk', BOOK.replace('"tick_size"', '"neg_risk":"true","tick_size"')],
    ['a malformed tick_size', BOOK.replace('"tick_size":"0.01"', '"tick_size":"0.0.1"')],
    ['a book without asks', BOOK.replace(/,"asks":\[[^\]]*\]/, '')],
    ['a price_change key on a last_trade_price', LTP.replace('"side":"SELL"', '"side":"SELL","price_changes":[]')],
  ];
  it('an id first decoded from an escape is not trusted raw: a raw control character still declines', () => {
    const escaped = PC.replace('"asset_id":"123"', '"asset_id":"12\\u00013"');
    const raw = PC.replace('"asset_id":"123"', '"asset_id":"12\u00013"');
    same(escaped); // JSON.parse path: the id holds a real control character
    expect(scanMarketFrame(raw)).toBeUndefined();
    same(raw); // both paths: malformed_json
    expect(decodeBoth(raw).offStats['reject:malformed_json']).toBe(1);
    const rawHash = PC.replace('"hash":"h1"', '"hash":"h\u00011"');
    same(PC);
    expect(scanMarketFrame(rawHash)).toBeUndefined();
  });

  for (const [what, frame] of cases) {
    it(`declines ${what}; the JSON.parse path decides`, () => {
      expect(scanMarketFrame(frame)).toBeUndefined();
      same(frame);
    });
  }
});
