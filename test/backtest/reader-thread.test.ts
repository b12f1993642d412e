// The backtest's reader thread (backtest/record-source.ts, reader-thread.ts, started here through
// the TypeScript loader) against reading on the backtest's own thread: the same result.json and
// charts over a gzipped synthetic recording, recording-line versions 1 and 2 mixed, malformed
// lines and frames (rejects counted once, through the thread), other channels, the price stream,
// a real capture, two files back to back (the second shifted) and a gzip file cut short; a missing
// file fails alike.
import { describe, expect, it, beforeAll } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBacktest, StrategyCreateError, type BacktestOptions } from '../../src/backtest/runner.js';
import { resultJson } from '../../src/backtest/output.js';
import { recordLine, writeSyntheticRecording } from '../../src/emulator/recording-writer.js';
import { stressSyntheticParams } from '../../src/emulator/agents.js';
import { config, tempDir } from './helpers.js';
import { metaFrame } from '../../src/backtest/market-meta-line.js';
import { recordLine as recorderLine } from '../../src/feed/recorder.js';
import { readerThreadsRunning } from '../../src/backtest/record-source.js';
import { createLogger } from '../../src/core/log.js';

const execArgv = ['--import', fileURLToPath(new URL('./register-ts.mjs', import.meta.url))];
let dir = '';
let gz = '';
let mixed = '';

async function both(o: Omit<BacktestOptions, 'readerThread'>): Promise<{ inline: string; thread: string; threadOut: Awaited<ReturnType<typeof runBacktest>> }> {
  const a = await runBacktest({ ...o, readerThread: false });
  const b = await runBacktest({ ...o, readerThread: true, readerThreadOptions: { execArgv } });
  expect(JSON.stringify(b.charts)).toBe(JSON.stringify(a.charts));
  return { inline: resultJson(a.result), thread: resultJson(b.result), threadOut: b };
}

beforeAll(async () => {
  dir = tempDir('reader-thread');
  gz = join(dir, 'syn.jsonl.gz');
  await writeSyntheticRecording({ file: gz, seed: 21, durationS: 60, params: stressSyntheticParams });
  const plain = join(dir, 'syn.jsonl');
  await writeSyntheticRecording({ file: plain, seed: 22, durationS: 20, params: stressSyntheticParams });
  const good = readFileSync(plain, 'utf8')
    .split('\n')
    .filter((l) => l);
  // version-1 lines (the frame a JSON string) among version-2 ones, bad lines, other channels, prices
  const v1 = good.slice(40, 80).map((l) => {
    const r = JSON.parse(l) as { t: number; f: unknown };
    return recordLine(r.t, JSON.stringify(r.f), 1);
  });
  const t = (JSON.parse(good[30]) as { t: number }).t;
  const price = JSON.stringify({ topic: 'crypto_prices', type: 'update', timestamp: t, payload: { symbol: 'btcusdt', timestamp: t, value: 61035.86 } });
  mixed = join(dir, 'mixed.jsonl');
  const lines = [
    ...good.slice(0, 30),
    JSON.stringify({ t, e: 1, k: 'prices', f: price }),
    'not json at all', // a bad line: skipped by the reader, not a decode reject
    '{"t":1767225600100,"e":1,"k":"market","f":"{\\"event_type\\":\\"book\\""}',
    '{"t":1767225600100,"e":1,"k":"market","f":{"event_type":"price_change","market":"0x1"}}',
    '{"t":1767225600100,"e":1,"k":"user","f":"{}"}',
    ...good.slice(30, 40),
    ...v1,
    ...good.slice(80),
  ];
  writeFileSync(mixed, lines.join('\n') + '\n');
}, 60_000);

describe('backtest reader thread', () => {
  it('gives the same result as reading on the backtest thread: gzip, both line versions, rejects, prices, other channels', async () => {
    const cfg = config({ sim: { orderLatencyMs: 40, cancelLatencyMs: 30, feedLatencyMs: 20 } });
    const g = await both({ data: [gz], config: cfg });
    expect(g.thread).toBe(g.inline);
    expect(g.threadOut.result.total.fills).toBeGreaterThan(0);
    const m = await both({ data: [mixed], config: cfg });
    expect(m.thread).toBe(m.inline);
    const r = m.threadOut.result;
    expect(r.feed.rejected).toBe(2 + 1);
    expect(r.feed.otherChannels).toBe(1);
    expect(r.feed.priceEvents).toBe(1);
    expect(r.total.orders).toBeGreaterThan(0);
  }, 60_000);

  it('gives the same result over a real capture, two files back to back and a gzip file cut short', async () => {
    const real = fileURLToPath(new URL('../fixtures/polymarket/polytope/market_39.jsonl', import.meta.url));
    const a = await both({ data: [real], config: config() });
    expect(a.thread).toBe(a.inline);
    expect(a.threadOut.result.markets).toHaveLength(1);
    const b = await both({ data: [gz, gz], config: config() });
    expect(b.thread).toBe(b.inline);
    expect(b.threadOut.result.feed.shiftedFiles).toBe(1);
    // a gzip file cut short (a recorder killed mid-write): every complete line, in both modes
    const cut = join(dir, 'cut.jsonl.gz');
    const whole = readFileSync(gz);
    writeFileSync(cut, whole.subarray(0, Math.floor(whole.length * 0.6)));
    const c = await both({ data: [cut], config: config() });
    expect(c.thread).toBe(c.inline);
    expect(c.threadOut.result.feed.records).toBeGreaterThan(100);
    expect(c.threadOut.result.feed.records).toBeLessThan(b.threadOut.result.feed.records / 2);
  }, 60_000);

  it('counts a plain file cut inside its last line (a killed recorder) as one reject, in both readers, the next file read on', async () => {
    const plain = join(dir, 'syn.jsonl');
    const text = readFileSync(plain, 'utf8');
    const good = text.split('\n').filter((l) => l);
    const cut = join(dir, 'cut-line.jsonl');
    writeFileSync(cut, good.slice(0, 300).join('\n') + '\n' + good[300].slice(0, Math.floor(good[300].length / 2)));
    const whole = await both({ data: [plain], config: config() });
    for (const data of [[cut], [cut, plain]]) {
      const r = await both({ data, config: config() });
      expect(r.thread).toBe(r.inline);
      const feed = r.threadOut.result.feed as { records: number; rejected: number; rejects: Record<string, number> };
      expect(feed.rejects).toEqual({ cut_last_line: 1 });
      expect(feed.rejected).toBe(1);
      expect(feed.records).toBe(data.length === 1 ? 300 : 300 + whole.threadOut.result.feed.records);
    }
  }, 60_000);

  it('puts a token out of sync when its price_change is rejected (its book missed an update), as live does, in both readers', async () => {
    const plain = join(dir, 'syn.jsonl');
    const good = readFileSync(plain, 'utf8')
      .split('\n')
      .filter((l) => l);
    // a price_change of the first snapshotted token, its price unreadable: JSON.parse takes it, the decoder rejects it
    const first = good.map((l) => JSON.parse(l) as { t: number; f: { event_type?: string; asset_id?: string; market?: string } }).find((r) => r.f.event_type === 'book');
    if (!first?.f.asset_id) throw new Error('no snapshot in the recording');
    const at = (JSON.parse(good[200]) as { t: number }).t;
    const bad = {
      t: at,
      e: 1,
      k: 'market',
      f: { event_type: 'price_change', market: first.f.market, timestamp: String(at), price_changes: [{ asset_id: first.f.asset_id, price: 'abc', size: '10', side: 'BUY', hash: '' }] },
    };
    const file = join(dir, 'rejected.jsonl');
    writeFileSync(file, [...good.slice(0, 200), JSON.stringify(bad), ...good.slice(200, 400)].join('\n') + '\n');
    for (const readerThread of [false, true]) {
      const lines: Array<{ msg: string; assetId?: string; reason?: string }> = [];
      const log = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(JSON.parse(s) as (typeof lines)[number]) } });
      const out = await runBacktest({ data: [file], config: config(), log, readerThread, readerThreadOptions: { execArgv } });
      expect(out.result.feed.rejected, `readerThread ${readerThread}`).toBe(1);
      const marked = lines.filter((l) => l.msg === 'book out of sync: rejected_message');
      expect(
        marked.map((l) => l.assetId),
        `readerThread ${readerThread}`,
      ).toEqual([first.f.asset_id]);
    }
  }, 60_000);

  it("carries a recording's market metadata lines: the declared token priced in both readers", async () => {
    const lines = readFileSync(gz.replace(/\.gz$/, ''), 'utf8').split('\n').filter(Boolean);
    const firstBook = lines.map((l) => (JSON.parse(l) as { f: unknown }).f).find((f) => Array.isArray(f)) as Array<{ market: string; asset_id: string }>;
    const [a, b] = firstBook;
    const meta = metaFrame({ conditionId: a.market, tokenId: b.asset_id, complementId: a.asset_id, tick: 100, minSize: 500, negRisk: false, endMs: 1_900_000_000_000 });
    const withMeta = join(dir, 'with-meta.jsonl');
    writeFileSync(withMeta, recorderLine({ text: meta, t: 1, epoch: 0 }, 'meta') + lines.join('\n') + '\n');
    const r = await both({ data: [withMeta], config: config() });
    expect(r.thread).toBe(r.inline);
    expect(r.threadOut.result.markets[0]).toMatchObject({ tokenId: b.asset_id, complementId: a.asset_id });
  }, 60_000);

  it('stops the thread when the backtest stops early (a strategy whose create() throws)', async () => {
    const mod = join(dir, 'create-throws.mjs');
    writeFileSync(mod, "import { z } from 'zod';\nexport default { name: 'create-throws', params: z.object({}), create() { throw new Error('no market for me'); } };\n");
    const err = await runBacktest({ data: [gz], config: config({ strategy: { name: mod, params: {} } }), readerThread: true, readerThreadOptions: { execArgv } }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(StrategyCreateError);
    expect(readerThreadsRunning()).toBe(0);
  });

  it('fails on a missing file as reading here does', async () => {
    const missing = join(dir, 'nope.jsonl');
    const here = await runBacktest({ data: [missing], config: config(), readerThread: false }).catch((e: Error) => e);
    const there = await runBacktest({ data: [missing], config: config(), readerThread: true, readerThreadOptions: { execArgv } }).catch((e: Error) => e);
    expect(readerThreadsRunning()).toBe(0);
    expect(here).toBeInstanceOf(Error);
    expect(there).toBeInstanceOf(Error);
    expect((there as Error).message).toBe((here as Error).message);
    expect((there as Error & { code?: string }).code).toBe('ENOENT');
  });

  it('fails with the error of a reader thread that dies, instead of waiting for it', async () => {
    // a module that throws as the thread starts, before it reads anything
    const boom = join(dir, 'boom.mjs');
    writeFileSync(boom, "throw new Error('reader thread died');\n");
    const err = await runBacktest({ data: [gz], config: config(), readerThread: true, readerThreadOptions: { execArgv: [...execArgv, '--import', boom] } }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/reader thread died/);
    expect(readerThreadsRunning()).toBe(0);
  });
});
