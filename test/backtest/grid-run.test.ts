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
import { stressSyntheticParams } from '../../src/emulator/agents.js';

// the forked workers run the TypeScript sources through this loader (vitest does it in-process)
const execArgv = ['--import', fileURLToPath(new URL('./register-ts.mjs', import.meta.url))];

let dir = '';
let rec = '';
beforeAll(async () => {
  dir = tempDir('grid');
  rec = join(dir, 'g.jsonl.gz');
  await writeSyntheticRecording({ file: rec, seed: 5, durationS: 30, params: stressSyntheticParams });
}, 30_000);

describe('grid sweep in worker processes', () => {
  it('runs every combination in parallel workers, ranks them, writes grid.csv; a worker result is the in-process one; a bad combination is an error row', async () => {
    const axes = parseGridSpec('skewPerShare=0,0.001;minSpread=0.01,0.04,-5');
    const cfg = config({ sim: { orderLatencyMs: 30, cancelLatencyMs: 30 } });
    const out = join(dir, 'out');
    const res = await runSweep({ data: [rec], config: cfg, axes, outDir: out, workers: 2, execArgv });
    expect(res.workers).toBe(2);
    expect(res.ranked).toHaveLength(6);
    const ok = res.ranked.filter((r) => r.total);
    const bad = res.ranked.filter((r) => r.error);
    // minSpread=-5 fails the strategy's param check, in its own worker job, without stopping the others
    expect(bad.map((r) => r.combo.minSpread)).toEqual([-5, -5]);
    for (const r of bad) expect(r.error).toMatch(/minSpread/);
    expect(ok).toHaveLength(4);
    expect(res.ranked.slice(4)).toEqual(bad);
    // ranked: PnL descending, ties by drawdown ascending
    for (let i = 1; i < ok.length; i++) {
      const a = ok[i - 1].total!;
      const b = ok[i].total!;
      expect(a.pnl.total > b.pnl.total || (a.pnl.total === b.pnl.total && a.maxDrawdown <= b.maxDrawdown)).toBe(true);
    }
    const csv = readFileSync(res.csvPath, 'utf8').trimEnd().split('\n');
    expect(csv).toHaveLength(7);
    expect(csv[0].startsWith('rank,skewPerShare,minSpread,total_pnl')).toBe(true);
    // a combination run in a worker is byte-identical to the same run in this process
    const idx = 4; // skewPerShare=0.001, minSpread=0.04
    const combo = res.ranked.find((r) => r.index === idx)!.combo;
    expect(combo).toEqual({ skewPerShare: 0.001, minSpread: 0.04 });
    const direct = await runBacktest({ data: [rec], config: { ...cfg, strategy: { name: 'bands', params: mergeParams({}, combo) } } });
    expect(readFileSync(join(out, 'grid', String(idx), 'result.json'), 'utf8')).toBe(resultJson(direct.result));
  }, 60_000);
});
