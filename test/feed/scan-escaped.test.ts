// A frame scanned still escaped in its recorder line (scanEscapedMarketFrame, read through
// RecordBatch.nextEscaped as the backtest does) against the way every line went before: JSON.parse
// of the line, then decodeMarketFrame of its frame. Real and synthetic frames in recorder lines,
// and thousands of seeded edits of those lines (escapes of every kind, raw quotes and control
// characters, broken wrappers, other channels, odd numbers) give the same records, events and
// counts; whenever the escaped scan takes a body, it is a valid JSON string body whose frame scans alike.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMarketDecodeStats, decodeMarketFrame, scanEscapedFrame, setMarketScan, takeScanned } from '../../src/feed/decode-market.js';
import { scanEscapedMarketFrame, scanMarketFrame } from '../../src/feed/scan-market.js';
import type { MarketEvent } from '../../src/core/events.js';
import { escapedFrame, isEscaped, readRecording, readRecordingBatches } from '../../src/feed/replay.js';
import { writeSyntheticRecording } from '../../src/emulator/recording-writer.js';
import { SeededRng } from '../../src/core/rng.js';
import { stressSyntheticParams } from '../../src/emulator/agents.js';

const fx = new URL('../fixtures/polymarket/', import.meta.url);
const wsDir = new URL('nautilus_trader/python_resources/ws_messages/', fx);

let tmp = '';
let frames: string[] = [];

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'makerd-scan-esc-'));
  const out: string[] = [];
  const file = join(tmp, 'syn.jsonl');
  await writeSyntheticRecording({ file, seed: 5, durationS: 120, params: stressSyntheticParams });
  for await (const r of readRecording(file)) out.push(r.f);
  for (const f of readdirSync(wsDir)) {
    const text = readFileSync(new URL(f, wsDir), 'utf8');
    out.push(text, JSON.stringify(JSON.parse(text)));
  }
  for (const line of readFileSync(new URL('polytope/market_39.jsonl', fx), 'utf8').split('\n')) if (line) out.push(line);
  out.push(readFileSync(new URL('polymercado/clob_ws_book.json', fx), 'utf8'));
  frames = out;
}, 30_000);

afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const lineOf = (f: string, t: number, k = 'market'): string => JSON.stringify({ t, e: 1, k, f });

interface Rec {
  t: number;
  e: number;
  k: string;
  events: MarketEvent[];
}

/** Every record of a file the way it went before: next(), then decodeMarketFrame of its frame. */
async function before(path: string): Promise<{ recs: Rec[]; stats: Record<string, number> }> {
  const stats = createMarketDecodeStats();
  const recs: Rec[] = [];
  for await (const b of readRecordingBatches(path)) {
    for (let r = b.next(); r !== undefined; r = b.next()) {
      const events: MarketEvent[] = [];
      if (r.k === 'market') decodeMarketFrame(r.f, events, stats);
      recs.push({ t: r.t, e: r.e, k: r.k, events });
    }
  }
  return { recs, stats: stats.counters() };
}

/** The same file as the backtest reads it: nextEscaped, the scanned event or decodeMarketFrame. */
async function now(path: string): Promise<{ recs: Rec[]; stats: Record<string, number>; escaped: number }> {
  const stats = createMarketDecodeStats();
  const recs: Rec[] = [];
  let scanned: MarketEvent | undefined;
  let escaped = 0;
  const take = (line: string, from: number, to: number): boolean => (scanned = scanEscapedFrame(line, from, to)) !== undefined;
  for await (const b of readRecordingBatches(path)) {
    for (let r = b.nextEscaped(take); r !== undefined; r = b.nextEscaped(take)) {
      const events: MarketEvent[] = [];
      if (isEscaped(r)) {
        escaped++;
        expect(JSON.parse(r.line).f).toBe(escapedFrame(r));
        takeScanned(scanned as MarketEvent, events, stats);
      } else if (r.k === 'market') decodeMarketFrame(r.f, events, stats);
      recs.push({ t: r.t, e: r.e, k: r.k, events });
    }
  }
  return { recs, stats: stats.counters(), escaped };
}

const LINE_CHUNKS = ['\\', '\\\\', '\\"', '"', '\\n', '\\u0022', '\\u005c', '\\/', '\\t', '\n', '\r', '\t', ' ', '\u0001', '\u007f', 'é', '\ud800', '{', '}', ',', ':', '\\\\"'];

/** One seeded edit of a recorder line: escapes of every kind, raw characters, the wrapper's own fields. */
function mutateLine(line: string, rng: SeededRng): string {
  const at = rng.int(0, Math.max(0, line.length - 1));
  switch (rng.int(0, 9)) {
    case 0:
      return line.slice(0, at) + line.slice(at + 1);
    case 1:
      return line.slice(0, at) + LINE_CHUNKS[rng.int(0, LINE_CHUNKS.length - 1)] + line.slice(at);
    case 2:
      return line.slice(0, at) + LINE_CHUNKS[rng.int(0, LINE_CHUNKS.length - 1)] + line.slice(at + 1);
    case 3: {
      // a value's escaped quotes, or one character of a value, written as a \u escape
      const qs = [...line.matchAll(/\\"/g)];
      if (qs.length === 0) return line;
      const m = qs[rng.int(0, qs.length - 1)];
      const rep =
        rng.next() < 0.5
          ? '\\u0022'
          : '\\u00' +
            line
              .charCodeAt(m.index + 2)
              .toString(16)
              .padStart(2, '0');
      return rng.next() < 0.5 ? line.slice(0, m.index) + rep + line.slice(m.index + 2) : line.slice(0, m.index + 2) + rep + line.slice(m.index + 3);
    }
    case 4: {
      const ts = ['0', '01', '-1', '1.5', '1e3', '9007199254740993', '123456789012345', '1234567890123456', '"5"', 'null'];
      return line.replace(/^\{"t":\d+/, `{"t":${ts[rng.int(0, ts.length - 1)]}`);
    }
    case 5: {
      const es = ['0', '07', '2', '-1', '1.0', 'true'];
      return line.replace(/,"e":\d+/, `,"e":${es[rng.int(0, es.length - 1)]}`);
    }
    case 6: {
      const ks = ['user', 'price', 'Market', 'market ', 'mark\\u0065t'];
      return line.replace('"k":"market"', `"k":"${ks[rng.int(0, ks.length - 1)]}"`);
    }
    case 7: {
      const ends = ['"}\r', '" }', '"} ', '"', '"}}', '"' + '}'.repeat(2), '",' + '"x":1}'];
      return line.slice(0, -2) + ends[rng.int(0, ends.length - 1)];
    }
    case 8:
      return rng.next() < 0.5 ? line.replace('{"t":', '{"e":0,"t":') : line.replace(',"f":', ',"x":1,"f":');
    default:
      return line.slice(0, at);
  }
}

describe('escaped scan of recorder lines = JSON.parse of the line, then the frame', () => {
  it('every real and synthetic frame in a recorder line: same records, events and counts; the market frames mostly escaped', async () => {
    const lines = frames.map((f, i) => lineOf(f, 1_700_000_000_000 + i));
    lines.push(lineOf(frames[0], 5, 'user'), 'PONG', '', lines[1] + '\r');
    const path = join(tmp, 'plain.jsonl');
    writeFileSync(path, lines.join('\n') + '\n');
    const a = await before(path);
    const b = await now(path);
    expect(b.recs).toStrictEqual(a.recs);
    expect(b.stats).toStrictEqual(a.stats);
    const scannable = frames.filter((f) => scanMarketFrame(f) !== undefined).length;
    expect(scannable).toBeGreaterThan(2000);
    expect(b.escaped).toBe(scannable + 1); // and the line with \r
  });

  it('thousands of seeded edits of the lines: same records, events and counts', async () => {
    const rng = new SeededRng(20261125);
    const base = frames.filter((_, i) => i % 5 === 0);
    const lines: string[] = [];
    for (let i = 0; i < 15_000; i++) {
      let line = lineOf(base[rng.int(0, base.length - 1)], 1_700_000_000_000 + i * 10);
      const edits = rng.int(0, 2);
      for (let k = 0; k < edits; k++) line = mutateLine(line, rng);
      lines.push(line);
    }
    const path = join(tmp, 'mutated.jsonl');
    writeFileSync(path, lines.join('\n') + '\n');
    const a = await before(path);
    const b = await now(path);
    expect(b.recs.length).toBe(a.recs.length);
    for (let i = 0; i < a.recs.length; i++) expect(b.recs[i], `record ${i}`).toStrictEqual(a.recs[i]);
    expect(b.stats).toStrictEqual(a.stats);
    expect(b.escaped).toBeGreaterThan(4000);
    expect(b.escaped).toBeLessThan(a.recs.length - 3000);
  }, 60_000);

  it('whenever a body is taken it is a valid JSON string body, and its frame scans to the same event', () => {
    const rng = new SeededRng(7);
    let taken = 0;
    for (let i = 0; i < 20_000; i++) {
      let line = lineOf(frames[rng.int(0, frames.length - 1)], 1_700_000_000_000);
      for (let k = rng.int(0, 3); k > 0; k--) line = mutateLine(line, rng);
      const from = line.indexOf(',"f":"') + 6;
      const to = line.length - 2;
      if (from < 6) continue;
      const ev = scanEscapedMarketFrame(line, from, to);
      if (ev === undefined) continue;
      taken++;
      const f = JSON.parse('"' + line.slice(from, to) + '"') as string; // a valid JSON string body
      expect(ev).toStrictEqual(scanMarketFrame(f));
    }
    expect(taken).toBeGreaterThan(5000);
  });

  it('with the scanner off every line goes the JSON.parse way', async () => {
    const path = join(tmp, 'off.jsonl');
    writeFileSync(
      path,
      frames
        .slice(0, 50)
        .map((f, i) => lineOf(f, i))
        .join('\n'),
    );
    setMarketScan(false);
    try {
      const b = await now(path);
      expect(b.escaped).toBe(0);
      expect(b.recs).toStrictEqual((await before(path)).recs);
    } finally {
      setMarketScan(true);
    }
  });
});
