// A recording line whose time no recorder wrote (not a finite number, outside 2000..2100, a jump of
// years inside one file: a flipped digit, a hand edit) neither crashes nor hangs the backtest
// (before, Infinity threw in the clock and a year-2277 time stepped through billions of
// housekeeping ticks): its frame is replayed at the time before it, and the lines are counted in
// result.json (feed.badTimes). Found by a read-only review.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/backtest/runner.js';
import type { BacktestResult } from '../../src/backtest/result.js';
import { resultJson } from '../../src/backtest/output.js';
import { fileURLToPath } from 'node:url';
import { handConfig, sellerRecording, tempDir } from './helpers.js';

const execArgv = ['--import', fileURLToPath(new URL('./register-ts.mjs', import.meta.url))];

const YEAR_MS = 365 * 86_400_000;

describe('recording lines with times no recorder wrote', () => {
  const cfg = handConfig({ orderLatencyMs: 0, cancelLatencyMs: 0 });
  const readerThreadOptions = { execArgv };
  /** result.json without the input paths and the given feed counters (the runs compared read different files). */
  const strip = (r: BacktestResult, ...keys: string[]): unknown => {
    const j = JSON.parse(resultJson(r)) as { inputs: { data: unknown }; feed: Record<string, unknown> };
    j.inputs.data = [];
    for (const k of keys) delete j.feed[k];
    return j;
  };
  const write = (dir: string, name: string, lines: string[]): string => {
    const f = join(dir, name);
    writeFileSync(f, lines.join('\n') + '\n');
    return f;
  };
  const timeOf = (l: string): number => Number(/^\{"t":(\d+)/.exec(l)?.[1]);
  const retimed = (l: string, t: string | number): string => l.replace(/^\{"t":\d+/, `{"t":${t}`);

  it('are replayed at the time before them and counted; a jump of years inside a file is closed up: the result is the one of the same lines at those times', async () => {
    const dir = tempDir('record-times');
    const path = sellerRecording(dir, { queue: '5', tradeSize: '10', everyMs: 1000, durationMs: 30_000 });
    const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
    const times = lines.map(timeOf);
    const bad = [...lines];
    const control = [...lines];
    // 1e400: JSON's Infinity (the line read through JSON.parse); a flipped first digit (year 2277)
    bad[8] = retimed(lines[8], '1e400');
    control[8] = retimed(lines[8], times[7]);
    bad[12] = retimed(lines[12], times[12] + 8e12);
    control[12] = retimed(lines[12], times[11]);
    // five years on for one line (still in range), then the file goes on as before: each jump is
    // closed up, the line 1 ms after the one before it, and what follows 1 ms after that
    bad[16] = retimed(lines[16], times[16] + 5 * YEAR_MS);
    control[16] = retimed(lines[16], times[15] + 1);
    for (let k = 17; k < lines.length; k++) control[k] = retimed(lines[k], times[k] - times[17] + times[15] + 2);
    const badPath = write(dir, 'bad.jsonl', bad);
    const controlPath = write(dir, 'control.jsonl', control);
    for (const readerThread of [false, true]) {
      const got = (await runBacktest({ data: [badPath], config: cfg, readerThread, readerThreadOptions })).result;
      const want = (await runBacktest({ data: [controlPath], config: cfg, readerThread, readerThreadOptions })).result;
      expect([got.feed.badTimes, got.feed.timeJumps]).toEqual([2, 2]);
      expect([want.feed.badTimes, want.feed.timeJumps]).toEqual([undefined, undefined]);
      expect(got.feed.records).toBe(lines.length);
      expect(strip(got, 'badTimes', 'timeJumps')).toEqual(strip(want));
      expect(got.engine.fills).toBeGreaterThan(0);
    }
  }, 60_000);

  it('a bad time before the first good one is skipped (no time to start from), not the start of the run', async () => {
    // review: the start took the clock's 0, and the next line ticked through 56 years
    const dir = tempDir('record-times-first');
    const path = sellerRecording(dir, { queue: '5', tradeSize: '10', everyMs: 1000, durationMs: 10_000 });
    const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
    const badPath = write(dir, 'bad-first.jsonl', [retimed(lines[1], '1e400'), ...lines]);
    const got = (await runBacktest({ data: [badPath], config: cfg, readerThread: false })).result;
    const want = (await runBacktest({ data: [path], config: cfg, readerThread: false })).result;
    expect(got.feed.badTimes).toBe(1);
    expect(got.period.startMs).toBe(want.period.startMs);
    // (the skipped line was read and decoded: records, frames and events count it)
    expect(strip(got, 'badTimes', 'records', 'frames', 'events')).toEqual(strip(want, 'records', 'frames', 'events'));
  }, 60_000);

  it('inside a file, a step back of more than a minute (captures joined by cat in the wrong order) follows on from the line before; a small one replays at once', async () => {
    // review: day 1 cat after day 2, up to 30 days earlier, replayed all of day 1 at one instant
    const dir = tempDir('record-times-back');
    const path = sellerRecording(dir, { queue: '5', tradeSize: '10', everyMs: 1000, durationMs: 20_000 });
    const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
    const times = lines.map(timeOf);
    const DAY = 86_400_000;
    // lines 0..10 as recorded, then 11.. a day earlier (a capture of the day before, cat after it)
    const joined = lines.map((l, k) => (k > 10 ? retimed(l, times[k] - DAY) : l));
    const control = lines.map((l, k) => (k > 10 ? retimed(l, times[k] - times[11] + times[10] + 1) : l));
    const got = (await runBacktest({ data: [write(dir, 'joined.jsonl', joined)], config: cfg, readerThread: false })).result;
    const want = (await runBacktest({ data: [write(dir, 'control.jsonl', control)], config: cfg, readerThread: false })).result;
    expect(got.feed.timeJumps).toBe(1);
    expect(strip(got, 'timeJumps')).toEqual(strip(want));
    // a step back of 30 s (a clock set back) is replayed at the time reached, as before: no jump
    const small = lines.map((l, k) => (k === 11 ? retimed(l, times[11] - 30_000) : l));
    expect((await runBacktest({ data: [write(dir, 'small.jsonl', small)], config: cfg, readerThread: false })).result.feed.timeJumps).toBeUndefined();
  }, 60_000);

  it('a file that starts years after the one before follows on from it, named as a shifted file', async () => {
    const dir = tempDir('record-times-files');
    const path = sellerRecording(dir, { queue: '5', tradeSize: '10', everyMs: 1000, durationMs: 10_000 });
    const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
    const later = write(
      dir,
      'later.jsonl',
      lines.map((l) => retimed(l, timeOf(l) + 5 * YEAR_MS)),
    );
    const out = await runBacktest({ data: [path, later], config: cfg, readerThread: false });
    expect(out.result.feed.shiftedFiles).toBe(1);
    expect(out.shifted[0].shiftMs).toBeLessThan(-4 * YEAR_MS);
    expect(out.result.period.endMs - out.result.period.startMs).toBeLessThan(60_000);
  }, 60_000);
});
