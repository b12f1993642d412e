// A recording replayed after one that ends later than it starts (the same file twice, rotated files
// named out of order, two overlapping recordings) follows on in time: its receive times are moved
// (found in review) but its events' exchange timestamps were not, so the simulated venue's latest
// feed time stayed at the first file's end and every order placed during the moved file counted as
// joining after every print in it: a passive maker got no fill from trades for the whole file.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/backtest/runner.js';
import type { Fill } from '../../src/engine/fills.js';
import { T0, handConfig, sellerRecording, tempDir } from './helpers.js';

describe('a file replayed after a later one', () => {
  it('fills from its trades as the first copy does', async () => {
    const rec = sellerRecording(tempDir('shifted'), { queue: '0', tradeSize: '20', everyMs: 1000, durationMs: 10_000 });
    const once: Fill[] = [];
    await runBacktest({ data: [rec], config: handConfig({ queueModel: false }), onFill: (f) => once.push(f) });
    expect(once.length).toBeGreaterThan(0);
    const twice: Fill[] = [];
    const r = await runBacktest({ data: [rec, rec], config: handConfig({ queueModel: false }), onFill: (f) => twice.push(f) });
    expect(r.result.feed.shiftedFiles).toBe(1);
    // the second copy starts 1 ms after the first one's last line
    const secondStart = T0 + 10_000 + 1;
    const fromSecond = twice.filter((f) => f.timeMs >= secondStart);
    expect(fromSecond.length).toBeGreaterThan(0);
  }, 60_000);

  it('inside one file: a recording joined to itself (cat a a), stepping back over a minute, fills in its second part as two files do', async () => {
    // found reviewing the fix above: a step back inside a file moved the receive times after it,
    // not their exchange stamps, so the same prints were skipped as for a moved file (a flipped digit
    // in one receive time moves no stamp: record-times.test.ts)
    const dir = tempDir('shifted-cat');
    const rec = sellerRecording(dir, { queue: '0', tradeSize: '20', everyMs: 1000, durationMs: 120_000 });
    const joined = join(dir, 'joined.jsonl');
    writeFileSync(joined, readFileSync(rec, 'utf8') + readFileSync(rec, 'utf8'));
    const files: Fill[] = [];
    await runBacktest({ data: [rec, rec], config: handConfig({ queueModel: false }), onFill: (f) => files.push(f) });
    const inOne: Fill[] = [];
    const r = await runBacktest({ data: [joined], config: handConfig({ queueModel: false }), onFill: (f) => inOne.push(f) });
    expect(r.result.feed.timeJumps).toBe(1);
    const secondStart = T0 + 120_000 + 1;
    const second = (fs: Fill[]) => fs.filter((f) => f.timeMs >= secondStart).length;
    expect(second(files)).toBeGreaterThan(0);
    expect(second(inOne)).toBe(second(files));
  }, 60_000);
});
