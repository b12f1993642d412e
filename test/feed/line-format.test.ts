// The recorder's two line formats (src/feed/recorder.ts): version 2 embeds the frame as is,
// version 1 (every older recording) as a JSON string. The same frames in either give the same
// records, the same events and the same backtest result; a frame with escapes and non-ASCII text
// comes back byte for byte; frames that cannot stand raw in a line fall back to version 1.
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordLine, recordLineV1 } from '../../src/feed/recorder.js';
import { parseRecordLine, readRecording, readRecordingBatches } from '../../src/feed/replay.js';
import { createMarketDecodeStats, decodeMarketFrame } from '../../src/feed/decode-market.js';
import { writeSyntheticRecording } from '../../src/emulator/recording-writer.js';
import { stressSyntheticParams } from '../../src/emulator/agents.js';
import { runBacktest } from '../../src/backtest/runner.js';
import { loadConfig } from '../../src/config.js';
import { RecentIds } from '../../src/feed/wire-values.js';
import type { MarketEvent } from '../../src/core/events.js';

let tmp = '';
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'makerd-line-format-'));
});
afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** Every record of a file with its frame and decoded events, read as verify and the emulator read (next()). */
async function records(path: string): Promise<Array<{ t: number; e: number; k: string; f: string; events: MarketEvent[] }>> {
  const stats = createMarketDecodeStats();
  const out = [];
  for await (const r of readRecording(path)) {
    const events: MarketEvent[] = [];
    decodeMarketFrame(r.f, events, stats);
    out.push({ t: r.t, e: r.e, k: r.k, f: r.f, events });
  }
  return out;
}

/** The same, read as the backtest reads (nextReused: one reused record, version-2 frames sliced from their lines). */
async function backtestRecords(path: string): Promise<Array<{ t: number; e: number; k: string; f: string }>> {
  const out = [];
  for await (const b of readRecordingBatches(path)) {
    for (let r = b.nextReused(); r !== undefined; r = b.nextReused()) out.push({ t: r.t, e: r.e, k: r.k, f: r.f });
  }
  return out;
}

describe('recording line formats', () => {
  it('the same synthetic frames in version-1 and version-2 lines: same records, events and backtest result', async () => {
    const v1 = join(tmp, 'v1.jsonl.gz');
    const v2 = join(tmp, 'v2.jsonl.gz');
    await writeSyntheticRecording({ file: v1, seed: 7, durationS: 240, params: stressSyntheticParams, lineVersion: 1 });
    await writeSyntheticRecording({ file: v2, seed: 7, durationS: 240, params: stressSyntheticParams });
    // the files differ (version 2 is not escaped) ...
    const first1 = readFileSync(v1);
    expect(readFileSync(v2).equals(first1)).toBe(false);
    // ... but what is read from them does not
    const r1 = await records(v1);
    const r2 = await records(v2);
    expect(r1.length).toBeGreaterThan(1000);
    expect(r2).toEqual(r1);
    expect(await backtestRecords(v2)).toEqual(await backtestRecords(v1));
    const cfg = loadConfig({ env: {}, overrides: { strategy: { name: 'bands', params: {} }, sim: { queueModel: true }, log: { level: 'silent' } } as never });
    const a = await runBacktest({ data: [v1], config: cfg });
    const b = await runBacktest({ data: [v2], config: cfg });
    expect(a.result.total.fills).toBeGreaterThan(0);
    // the same but for the path of the file (named in data and in the echoed config)
    expect(JSON.stringify(b.result).replaceAll(v2, 'REC')).toBe(JSON.stringify(a.result).replaceAll(v1, 'REC'));
    expect(JSON.stringify(b.charts)).toBe(JSON.stringify(a.charts));
  }, 60_000);

  it('a frame with escapes and non-ASCII text survives version 2 byte for byte (plain and gzip)', async () => {
    const frames = [
      '{"event_type":"note","text":"caf\\u00e9 \\"quoted\\" back\\\\slash tab\\t","raw":"café ✓ 😀 \u2028 end","n":1.50,"e":1e3}',
      '[{"a": "spaced" ,  "b" : [1, 2 ]},{"c":"\\ud83d\\ude00"}]',
      '{"market":"0xab","price_changes":[]}',
    ];
    const lines = frames.map((f, i) => recordLine({ text: f, t: 1_767_225_600_000 + i, epoch: 3 }, 'market'));
    for (let i = 0; i < frames.length; i++) {
      // version 2: the frame stands in the line exactly as it came
      expect(lines[i]).toBe(`{"t":${1_767_225_600_000 + i},"e":3,"k":"market","f":${frames[i]}}\n`);
      expect(JSON.parse(lines[i])).toEqual({ t: 1_767_225_600_000 + i, e: 3, k: 'market', f: JSON.parse(frames[i]) });
      expect(parseRecordLine(lines[i].slice(0, -1), 0)).toEqual({ t: 1_767_225_600_000 + i, e: 3, k: 'market', f: frames[i] });
    }
    const plain = join(tmp, 'esc.jsonl');
    const gz = join(tmp, 'esc.jsonl.gz');
    writeFileSync(plain, lines.join('').replaceAll('\n', '\r\n'));
    writeFileSync(gz, gzipSync(Buffer.from(lines.join(''), 'utf8')));
    for (const p of [plain, gz]) {
      expect((await records(p)).map((r) => r.f)).toEqual(frames);
      expect((await backtestRecords(p)).map((r) => r.f)).toEqual(frames);
    }
  });

  it("a raw capture's line is timed by its frame's timestamp in ms whether the frame gives seconds, ms or microseconds", () => {
    const at = (ts: string): number => parseRecordLine(`{"event_type":"price_change","timestamp":"${ts}"}`, 0)?.t ?? NaN;
    expect(at('1779862954465')).toBe(1_779_862_954_465);
    expect(at('1779862954')).toBe(1_779_862_954_000);
    expect(at('1779862954465123')).toBe(1_779_862_954_465);
    // never back in time: an untimed line (PONG) takes the previous time
    expect(parseRecordLine('PONG', 1_779_862_954_000)?.t).toBe(1_779_862_954_000);
  });

  it('frames that cannot stand raw are written as version 1 and come back exact; other channels too', async () => {
    const odd = ['PONG', '{"a":"line\nbreak"}', '{"a":1}\r', '{"lone":"\ud800"}', ' {"lead":"space"}', '{"a":1} ', 'not json'];
    for (const f of odd) {
      const line = recordLine({ text: f, t: 5, epoch: 1 }, 'market');
      expect(line).toBe(recordLineV1({ text: f, t: 5, epoch: 1 }, 'market'));
      expect(parseRecordLine(line.slice(0, -1), 0)).toEqual({ t: 5, e: 1, k: 'market', f });
    }
    // a channel name that needs escaping stays version 1; a plain one is version 2
    expect(recordLine({ text: '{}', t: 5, epoch: 1 }, 'we"ird')).toBe(recordLineV1({ text: '{}', t: 5, epoch: 1 }, 'we"ird'));
    const prices = recordLine({ text: '{"topic":"crypto_prices","payload":{"value":1.5}}', t: 6, epoch: 2 }, 'prices');
    expect(prices).toBe('{"t":6,"e":2,"k":"prices","f":{"topic":"crypto_prices","payload":{"value":1.5}}}\n');
    expect(parseRecordLine(prices.slice(0, -1), 0)).toEqual({ t: 6, e: 2, k: 'prices', f: '{"topic":"crypto_prices","payload":{"value":1.5}}' });
    // a hand-written line with the frame as JSON in another spelling is still read (re-serialized)
    expect(parseRecordLine('{"t": 7, "e": 1, "k": "market", "f": {"a": 1}}', 0)).toEqual({ t: 7, e: 1, k: 'market', f: '{"a":1}' });
  });
});

describe('RecentIds', () => {
  it('hands back an equal id seen before with hundreds of ids live, and never a different one', () => {
    const ids = new RecentIds();
    const tokens = Array.from({ length: 200 }, (_, i) => (BigInt(i + 1) * 982_451_653_000_000_007n ** 4n).toString().padStart(77, '1'));
    for (const t of tokens) ids.remember(t);
    let hits = 0;
    for (const t of tokens) {
      const copy = (' ' + t).slice(1);
      const c = ids.find(copy);
      if (c !== undefined) {
        expect(c).toBe(t);
        hits++;
      }
    }
    // a direct-mapped table of 4096: a few of 200 may share a slot
    expect(hits).toBeGreaterThan(190);
    expect(ids.find('1'.repeat(77))).toBeUndefined();
  });
});
