import { describe, it, expect, beforeAll } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runSweep } from '../../src/backtest/sweep.js';
import { runBacktest } from '../../src/backtest/runner.js';
import { resultJson } from '../../src/backtest/output.js';
import { parseGridSpec, GridSpecError } from '../../src/backtest/grid.js';
import { writeSyntheticRecording } from '../../src/emulator/recording-writer.js';
import { config, tempDir } from './helpers.js';
import { stressSyntheticParams } from '../../src/emulator/agents.js';

// the forked workers run the TypeScript sources through this loader (vitest does it in-process)
const execArgv = ['--import', fileURLToPath(new URL('./register-ts.mjs', import.meta.url))];
/** Only the first market created in its process quotes (module-level state). */
const MODULE_STATE = fileURLToPath(new URL('../fixtures/strategies/module-state.mjs', import.meta.url));
/** create() throws when params.x equals params.failOn. */
const CREATE_THROWS = fileURLToPath(new URL('../fixtures/strategies/create-throws.mjs', import.meta.url));

let dir = '';
let rec = '';
beforeAll(async () => {
  dir = tempDir('grid');
  rec = join(dir, 'g.jsonl.gz');
  await writeSyntheticRecording({ file: rec, seed: 5, durationS: 30, params: stressSyntheticParams });
}, 30_000);

describe('grid sweep in worker processes', () => {
  it('checks every combination against the strategy schema before any worker starts: a bad value fails the sweep, nothing written', async () => {
    const out = join(dir, 'bad');
    await expect(runSweep({ data: [rec], config: config(), axes: parseGridSpec('skewPerShare=0,0.001;minSpread=0.01,-5'), outDir: out, workers: 2, execArgv })).rejects.toThrow(
      /^--grid: minSpread=-5: /,
    );
    await expect(runSweep({ data: [rec], config: config(), axes: parseGridSpec('skewPerShare=0,0.001;minSpread=0.01,-5'), outDir: out, workers: 2, execArgv })).rejects.toBeInstanceOf(GridSpecError);
    expect(existsSync(out)).toBe(false);
  });

  it("each combination runs in a process of its own: a strategy's module-level state does not carry into the next (one worker, three combinations)", async () => {
    const cfg = config({ strategy: { name: MODULE_STATE, params: {} } });
    const res = await runSweep({ data: [rec], config: cfg, axes: parseGridSpec('x=0,1,2'), outDir: join(dir, 'module-state'), workers: 1, execArgv });
    const fills = [...res.ranked].sort((a, b) => a.index - b.index).map((r) => r.total?.fills);
    // the same run three times (x is not read): as a backtest of its own
    const alone = await runBacktest({ data: [rec], config: cfg });
    expect(alone.result.total.fills).toBeGreaterThan(0);
    expect(fills).toEqual([alone.result.total.fills, alone.result.total.fills, alone.result.total.fills]);
  }, 60_000);

  it('a rerun into the same folder links no stale report: a combination that fails this time has no report left', async () => {
    const out = join(dir, 'rerun');
    const axes = parseGridSpec('x=0,1,2');
    const run = (failOn: number) => runSweep({ data: [rec], config: config({ strategy: { name: CREATE_THROWS, params: { failOn } } }), axes, outDir: out, workers: 2, execArgv });
    const first = await run(-1);
    expect(first.ranked.every((r) => r.total)).toBe(true);
    expect(existsSync(join(out, 'grid', '1', 'report.html'))).toBe(true);
    expect(readFileSync(first.indexPath, 'utf8')).toContain('href="grid/1/report.html"');
    // now x=1 fails in create(), before its backtest writes anything
    const second = await run(1);
    expect(second.ranked.find((r) => r.index === 1)?.error).toMatch(/create\(\) refuses x=1/);
    const index = readFileSync(second.indexPath, 'utf8');
    expect(index).not.toContain('href="grid/1/report.html"');
    expect(existsSync(join(out, 'grid', '1', 'report.html'))).toBe(false);
    expect(existsSync(join(out, 'grid', '1', 'result.json'))).toBe(false);
    // the combinations that ran again are linked to their new reports
    for (const i of [0, 2]) {
      expect(index).toContain(`href="grid/${i}/report.html"`);
      expect(existsSync(join(out, 'grid', String(i), 'report.html'))).toBe(true);
    }
  }, 60_000);

  it('a text parameter is named as written in the csv and the index (007 is not 7), as its run got it', async () => {
    const out = join(dir, 'text');
    const cfg = config({ strategy: { name: CREATE_THROWS, params: { failOn: -1 } } });
    const res = await runSweep({ data: [rec], config: cfg, axes: parseGridSpec('label=007,7'), outDir: out, workers: 1, execArgv });
    expect(res.ranked.map((r) => r.combo.label).sort()).toEqual(['007', '7']);
    const [head, ...lines] = readFileSync(join(out, 'grid.csv'), 'utf8').trimEnd().split('\n');
    const col = head.split(',').indexOf('label');
    const cells = lines.map((l) => l.split(',')[col]);
    expect(cells.sort()).toEqual(['007', '7']);
    expect(readFileSync(res.indexPath, 'utf8')).toContain('label=007');
  }, 60_000);

  it("a rerun with a smaller grid leaves none of the earlier sweep's folders, index or csv behind", async () => {
    const out = join(dir, 'shrink');
    const cfg = config({ strategy: { name: CREATE_THROWS, params: { failOn: -1 } } });
    await runSweep({ data: [rec], config: cfg, axes: parseGridSpec('x=0,1,2'), outDir: out, workers: 2, execArgv });
    expect(existsSync(join(out, 'grid', '2', 'report.html'))).toBe(true);
    const second = await runSweep({ data: [rec], config: cfg, axes: parseGridSpec('x=5'), outDir: out, workers: 1, execArgv });
    expect(second.ranked).toHaveLength(1);
    for (const i of ['1', '2']) expect(existsSync(join(out, 'grid', i))).toBe(false);
    expect(readFileSync(join(out, 'grid.csv'), 'utf8').trimEnd().split('\n')).toHaveLength(2);
  }, 60_000);

  it('runs every combination in parallel workers, ranks them, writes grid.csv; a worker result is the in-process one; an array element is swept by path', async () => {
    const axes = parseGridSpec('skewPerShare=0,0.001;bands.0.distance=0.01,0.02,0.04');
    const cfg = config({ sim: { orderLatencyMs: 30, cancelLatencyMs: 30 } });
    const out = join(dir, 'out');
    const res = await runSweep({ data: [rec], config: cfg, axes, outDir: out, workers: 2, execArgv });
    expect(res.workers).toBe(2);
    expect(res.ranked).toHaveLength(6);
    const ok = res.ranked.filter((r) => r.total);
    expect(ok).toHaveLength(6);
    // the swept distance reached the strategy: the wider bands are not all the same run
    expect(new Set(ok.map((r) => JSON.stringify(r.total))).size).toBeGreaterThan(1);
    // ranked: PnL descending, ties by drawdown ascending
    for (let i = 1; i < ok.length; i++) {
      const a = ok[i - 1].total!;
      const b = ok[i].total!;
      expect(a.pnl.total > b.pnl.total || (a.pnl.total === b.pnl.total && a.maxDrawdown <= b.maxDrawdown)).toBe(true);
    }
    const csv = readFileSync(res.csvPath, 'utf8').trimEnd().split('\n');
    expect(csv).toHaveLength(7);
    // the index page ranks every combination and links each one's report
    expect(res.indexPath).toBe(join(out, 'index.html'));
    const index = readFileSync(res.indexPath, 'utf8');
    for (let i = 0; i < 6; i++) {
      expect(index).toContain(`href="grid/${i}/report.html"`);
      expect(readFileSync(join(out, 'grid', String(i), 'report.html'), 'utf8')).toContain('href="../../index.html"');
    }
    const ranks = [...index.matchAll(/<tr><td>(\d+)<\/td>/g)].map((m) => Number(m[1]));
    expect(ranks).toEqual([1, 2, 3, 4, 5, 6]);
    expect(csv[0].startsWith('rank,grid,skewPerShare,bands.0.distance,total_pnl')).toBe(true);
    // a combination run in a worker is byte-identical to the same run in this process
    const idx = 5; // skewPerShare=0.001, bands.0.distance=0.04
    const combo = res.ranked.find((r) => r.index === idx)!.combo;
    expect(combo).toEqual({ skewPerShare: 0.001, 'bands.0.distance': 0.04 });
    const direct = await runBacktest({ data: [rec], config: { ...cfg, strategy: { name: 'bands', params: { skewPerShare: 0.001, bands: [{ distance: 0.04, size: 10 }] } } } });
    expect(readFileSync(join(out, 'grid', String(idx), 'result.json'), 'utf8')).toBe(resultJson(direct.result));
  }, 60_000);
});
