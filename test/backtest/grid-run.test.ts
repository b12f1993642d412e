import { describe, it, expect, beforeAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runSweep } from '../../src/backtest/sweep.js';
import { runBacktest } from '../../src/backtest/runner.js';
import { resultJson } from '../../src/backtest/output.js';
import { parseGridSpec, mergeParams } from '../../src/backtest/grid.js';
import { writeSyntheticRecording } from '../../src/emulator/recording-writer.js';
import { config, tempDir } from './helpers.js';

// the forked workers run the TypeScript sources through this loader (vitest does it in-process)
const execArgv = ['--import', fileURLToPath(new URL('./register-ts.mjs', import.meta.url))];

let dir = '';
let rec = '';
beforeAll(async () => {
  dir = tempDir('grid');
  rec = join(dir, 'g.jsonl.gz');
  await writeSyntheticRecording({ file: rec, seed: 5, durationS: 30 });
}, 30_000);

describe('grid sweep in worker processes', () => {
  it('runs every combination in parallel workers, ranks them and writes grid.csv; each result is the in-process one', async () => {
    const axes = parseGridSpec('skewPerShare=0,0.001;minSpread=0.01,0.04');
    const cfg = config({ sim: { orderLatencyMs: 30, cancelLatencyMs: 30 } });
    const out = join(dir, 'out');
    const res = await runSweep({ data: [rec], config: cfg, axes, outDir: out, workers: 2, execArgv });
    expect(res.workers).toBe(2);
    expect(res.ranked).toHaveLength(4);
    for (const r of res.ranked) expect(r.error, JSON.stringify(r.combo)).toBeUndefined();
    // ranked: PnL descending, ties by drawdown ascending
    for (let i = 1; i < res.ranked.length; i++) {
      const a = res.ranked[i - 1].total!;
      const b = res.ranked[i].total!;
      expect(a.pnl.total > b.pnl.total || (a.pnl.total === b.pnl.total && a.maxDrawdown <= b.maxDrawdown)).toBe(true);
    }
    const csv = readFileSync(res.csvPath, 'utf8').trimEnd().split('\n');
    expect(csv).toHaveLength(5);
    expect(csv[0].startsWith('rank,skewPerShare,minSpread,total_pnl')).toBe(true);
    // a combination run in a worker is byte-identical to the same run in this process
    const idx = 3;
    const combo = res.ranked.find((r) => r.index === idx)!.combo;
    const direct = await runBacktest({ data: [rec], config: { ...cfg, strategy: { name: 'bands', params: mergeParams({}, combo) } } });
    expect(readFileSync(join(out, 'grid', String(idx), 'result.json'), 'utf8')).toBe(resultJson(direct.result));
    expect(direct.result.inputs.params).toMatchObject({ skewPerShare: 0.001, minSpread: 0.04 });
  }, 60_000);

  it('reports a failing combination as an error row, not a crash', async () => {
    const res = await runSweep({ data: [rec], config: config(), axes: parseGridSpec('minSpread=0.01,-5'), outDir: join(dir, 'bad'), workers: 1, execArgv });
    expect(res.ranked[0].total).toBeDefined();
    expect(res.ranked[1].error).toMatch(/minSpread/);
  }, 60_000);
});
