// A recording that cannot be read to its end (a .gz with bytes flipped in the middle: gunzip stops
// there) is never dropped without a word: the backtest counts it in result.json (feed.readErrors,
// file and message), read here or in its reader thread alike; the compiled CLI names the file and
// exits 1, with --grid too; `verify` exits 1 though what it read verified; the emulator's replay
// counts it. Real files in a temp dir; every wait is bounded.
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { constants, crc32, deflateRawSync, gunzipSync } from 'node:zlib';
import { runBacktest, type BacktestResult } from '../../src/backtest/runner.js';
import { resultJson } from '../../src/backtest/output.js';
import { writeSyntheticRecording } from '../../src/emulator/recording-writer.js';
import { stressSyntheticParams } from '../../src/emulator/agents.js';
import { ReplayFeed, scanRecording } from '../../src/emulator/replay-market.js';
import { readerThreadsRunning } from '../../src/backtest/record-source.js';
import { cli } from '../../src/cli.js';
import { assertBuilt, runCli } from '../e2e/harness.js';
import { config, tempDir } from './helpers.js';

const execArgv = ['--import', fileURLToPath(new URL('./register-ts.mjs', import.meta.url))];
let dir = '';
/** Another recording, whole: the file replayed after the broken one. */
let good = '';
/** A recording, its gzip broken in the middle. */
let bad = '';
/** The same recording as `bad`, the same layout, not broken (verify's control). */
let whole = '';

/**
 * `plain` gzipped as two deflate streams joined at a full flush, the first 16 bytes of the second
 * flipped to 0xff (a reserved block type) when `broken`: gunzip yields the first part intact, then
 * fails right there (nothing garbled decoded before it). The first part is `plain`'s lines up to
 * one where the frame timestamp changes (a verify group is never cut), padded with empty lines
 * (readers skip them) to past the reader's 1 MiB chunk: replay.ts's gunzip loses the part of a
 * chunk decoded before an error, padding only here, so every line of the first part arrives.
 */
function gzipBrokenInTheMiddle(plain: Buffer, broken: boolean): Buffer {
  const CHUNK = 1 << 20;
  const stamp = (from: number): string | undefined => /"timestamp":"?(\d+)/.exec(plain.toString('utf8', from, plain.indexOf(0x0a, from)))?.[1];
  let cut = plain.lastIndexOf(0x0a, CHUNK - 1) + 1;
  for (;;) {
    const prev = plain.lastIndexOf(0x0a, cut - 2) + 1;
    if (stamp(prev) !== stamp(cut)) break;
    cut = prev;
  }
  const head = Buffer.concat([plain.subarray(0, cut), Buffer.alloc(CHUNK + 4096 - cut, 0x0a)]);
  const text = Buffer.concat([head, plain.subarray(cut)]);
  const a = deflateRawSync(head, { finishFlush: constants.Z_FULL_FLUSH });
  const b = deflateRawSync(plain.subarray(cut));
  if (broken) b.fill(0xff, 0, 16);
  const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc32(text), 0);
  trailer.writeUInt32LE(text.length >>> 0, 4);
  return Buffer.concat([header, a, b, trailer]);
}

beforeAll(async () => {
  dir = tempDir('read-errors');
  good = join(dir, 'good.jsonl.gz');
  await writeSyntheticRecording({ file: good, seed: 31, durationS: 30, params: stressSyntheticParams });
  // ~2.9 MB: more than the reader's 1 MiB chunk before the break
  const plainPath = join(dir, 'rec.jsonl');
  await writeSyntheticRecording({ file: plainPath, seed: 41, durationS: 120, params: stressSyntheticParams });
  const plain = readFileSync(plainPath);
  whole = join(dir, 'whole.jsonl.gz');
  writeFileSync(whole, gzipBrokenInTheMiddle(plain, false));
  expect(gunzipSync(readFileSync(whole)).toString('utf8').replace(/\n+/g, '\n')).toBe(plain.toString('utf8'));
  bad = join(dir, 'bad.jsonl.gz');
  writeFileSync(bad, gzipBrokenInTheMiddle(plain, true));
  // the fixture is what it claims: gunzip stops inside it
  expect(() => gunzipSync(readFileSync(bad))).toThrow(/invalid block type/);
}, 60_000);

describe('backtest over a recording that cannot be read to its end', () => {
  it('runBacktest over [bad.gz, good.gz] counts the read error (file and message) in result.json, read inline and in the reader thread alike', async () => {
    const cfg = config();
    const inline = await runBacktest({ data: [bad, good], config: cfg, readerThread: false });
    const thread = await runBacktest({ data: [bad, good], config: cfg, readerThread: true, readerThreadOptions: { execArgv } });
    expect(readerThreadsRunning()).toBe(0);
    for (const out of [inline, thread]) {
      const errs = out.result.feed.readErrors;
      expect(errs).toHaveLength(1);
      expect(errs?.[0].file).toBe(bad);
      expect(errs?.[0].message).toMatch(/\S/);
    }
    expect(resultJson(thread.result)).toBe(resultJson(inline.result));
    // the next file was still read: more records than the good file alone, which has no read error (and no key)
    const alone = await runBacktest({ data: [good], config: cfg, readerThread: false });
    expect('readErrors' in alone.result.feed).toBe(false);
    expect(inline.result.feed.records).toBeGreaterThan(alone.result.feed.records);
  }, 60_000);
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `node dist/cli.js ...args`, killed and failed past `boundMs`. */
function makerd(args: string[], boundMs = 60_000): Promise<Run> {
  return runCli(args, { env: process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}, cwd: dir, boundMs });
}

describe('makerd backtest (compiled CLI) over a recording that cannot be read to its end', () => {
  beforeAll(assertBuilt);

  it('exits 1 naming the file, with the reader thread and with --one-thread; result.json has feed.readErrors', async () => {
    for (const extra of [[], ['--one-thread']]) {
      const out = join(tempDir('read-errors-cli'), 'out');
      const r = await makerd(['backtest', '--data', `${bad},${good}`, '--out', out, ...extra]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(bad);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      // the summary says so too
      expect(r.stdout).toMatch(/^read errors: 1\b/m);
      const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as BacktestResult;
      expect(result.feed.readErrors?.map((e) => e.file)).toEqual([bad]);
    }
    // the good file alone: exit 0, no such line
    const ok = await makerd(['backtest', '--data', good, '--out', join(tempDir('read-errors-cli'), 'out')]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).not.toMatch(/^read errors:/m);
  }, 120_000);

  it('a grid sweep over it exits 1 naming the file', async () => {
    const out = join(tempDir('read-errors-grid'), 'out');
    const r = await makerd(['backtest', '--data', `${bad},${good}`, '--out', out, '--grid', 'minSpread=0.01,0.02', '--workers', '1']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(bad);
  }, 120_000);

  it('a grid sweep over a file with no market events exits 1 saying so, as a single run does', async () => {
    const notData = fileURLToPath(new URL('../../README.md', import.meta.url));
    const r = await makerd(['backtest', '--data', notData, '--out', join(tempDir('no-events-grid'), 'out'), '--grid', 'minSpread=0.01,0.02', '--workers', '1']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout + r.stderr).toMatch(/no market events/);
  }, 120_000);
});

async function run(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await cli(args, { out: (l) => out.push(l), err: (l) => err.push(l), env: {} });
  return { code, out, err };
}

describe('makerd verify on a recording that cannot be read to its end', () => {
  it('the whole recording verifies: exit 0 (the control)', async () => {
    const r = await run(['verify', whole]);
    expect(r.err).toEqual([]);
    expect(r.code).toBe(0);
  });

  it('exits 1 when the read stopped early, though what it read verified (table and --json)', async () => {
    const r = await run(['verify', bad]);
    // not an OK: what it read verified, the rest was never read
    expect(r.out.at(-1)).toMatch(/^INCOMPLETE: every hash verified up to where the read stopped/);
    expect(r.err.join('\n')).toContain(`makerd verify: ${bad}: read stopped early`);
    expect(r.code).toBe(1);
    const j = await run(['verify', bad, '--json']);
    const o = JSON.parse(j.out[0]) as { frames: number; readError?: string; ok: boolean };
    expect(o.frames).toBeGreaterThan(100);
    expect(o.readError).toBeTruthy();
    expect(o.ok).toBe(false);
    expect(j.code).toBe(1);
  });
});

describe('emulator replay over a recording that cannot be read to its end', () => {
  it('counts the read error (readErrors)', async () => {
    const scan = await scanRecording(bad);
    const feed = new ReplayFeed(bad, scan);
    try {
      // drain the replay to its end (the reader waits while its buffer is full), bounded
      const end = Date.now() + 20_000;
      while (!feed.ended() && Date.now() < end) {
        feed.advanceTo(scan.lastT);
        await new Promise((r) => setTimeout(r, 5));
      }
      expect(feed.ended()).toBe(true);
      expect(feed.readErrors).toBe(1);
    } finally {
      feed.close();
    }
  });
});
