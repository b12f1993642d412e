// A recording line whose time no recorder wrote (not a finite number, outside 2000..2100, a jump of
// years inside one file: a flipped digit, a hand edit) neither crashes nor hangs the backtest
// (before, Infinity threw in the clock and a year-2277 time stepped through billions of
// housekeeping ticks): its frame is replayed at the time before it, and the lines are counted in
// result.json (feed.badTimes). Found by a read-only review.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/backtest/runner.js';
import { resultJson } from '../../src/backtest/output.js';
import { fileURLToPath } from 'node:url';
import { handConfig, sellerRecording, tempDir } from './helpers.js';

const execArgv = ['--import', fileURLToPath(new URL('./register-ts.mjs', import.meta.url))];

const YEAR_MS = 365 * 86_400_000;

describe('recording lines with times no recorder wrote', () => {
  it('are replayed at the time before them and counted: the result is the one of the same lines at that time', async () => {
    const dir = tempDir('record-times');
    const path = sellerRecording(dir, { queue: '5', tradeSize: '10', everyMs: 1000, durationMs: 30_000 });
    const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
    const times = lines.map((l) => Number(/^\{"t":(\d+)/.exec(l)?.[1]));
    const retimed = (k: number, t: string): string => lines[k].replace(/^\{"t":\d+/, `{"t":${t}`);
    const bad = [...lines];
    const control = [...lines];
    // 1e400: JSON's Infinity (the line read through JSON.parse); a flipped first digit (year 2277);
    // five years on inside the file (still in range, then the file goes on as before)
    const edits: Array<[number, string]> = [
      [8, '1e400'],
      [12, String(times[12] + 8e12)],
      [16, String(times[16] + 5 * YEAR_MS)],
    ];
    for (const [k, t] of edits) {
      bad[k] = retimed(k, t);
      control[k] = retimed(k, String(times[k - 1]));
    }
    const badPath = join(dir, 'bad.jsonl');
    const controlPath = join(dir, 'control.jsonl');
    writeFileSync(badPath, bad.join('\n') + '\n');
    writeFileSync(controlPath, control.join('\n') + '\n');
    const cfg = handConfig({ orderLatencyMs: 0, cancelLatencyMs: 0 });
    for (const readerThread of [false, true]) {
      const readerThreadOptions = { execArgv };
      const got = (await runBacktest({ data: [badPath], config: cfg, readerThread, readerThreadOptions })).result;
      const want = (await runBacktest({ data: [controlPath], config: cfg, readerThread, readerThreadOptions })).result;
      expect(got.feed.badTimes).toBe(3);
      expect(want.feed.badTimes).toBeUndefined();
      expect(got.feed.records).toBe(lines.length);
      const strip = (r: typeof got): unknown => {
        const j = JSON.parse(resultJson(r)) as { inputs: { data: unknown }; feed: { badTimes?: number } };
        j.inputs.data = [];
        delete j.feed.badTimes;
        return j;
      };
      expect(strip(got)).toEqual(strip(want));
      expect(got.engine.fills).toBeGreaterThan(0);
    }
  }, 60_000);
});
