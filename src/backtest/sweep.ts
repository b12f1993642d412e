// Runs a grid sweep: every combination of the grid over the base strategy params, each as its
// own backtest in a worker process, then ranks them. Every combination is validated against the
// strategy's schema first (grid.ts): a bad path or value throws GridSpecError before any worker
// starts or any file is written. Each combination's result.json lands in
// DIR/grid/<n>/ (n = position in grid order), the ranking in DIR/grid.csv.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { mkdir, writeFile } from 'node:fs/promises';
import type { Config } from '../config.js';
import type { TotalResult } from '../report/stats.js';
import { loadStrategyModule } from '../strategy/loader.js';
import { expandGrid, gridCsv, rankRows, validateGrid, type GridAxis, type GridRow } from './grid.js';
import { runInWorkers } from './pool.js';

export interface GridJob {
  data: string[];
  config: Config;
  outDir?: string;
  /** A combination whose strategy threw still counts as a result (else it is an error row). */
  allowStrategyErrors?: boolean;
}

export interface GridJobResult {
  total: TotalResult;
  wallMs: number;
  events: number;
}

export interface SweepOptions {
  data: string[];
  config: Config;
  axes: GridAxis[];
  outDir: string;
  /** Default min(cores, combinations). */
  workers?: number;
  /** Node flags for the worker processes (tests pass a TypeScript loader). */
  execArgv?: string[];
  onDone?: (done: number, total: number) => void;
  /** See GridJob.allowStrategyErrors. */
  allowStrategyErrors?: boolean;
}

export interface SweepResult {
  ranked: GridRow[];
  csvPath: string;
  workers: number;
}

export async function runSweep(o: SweepOptions): Promise<SweepResult> {
  const combos = expandGrid(o.axes);
  const { module } = await loadStrategyModule(o.config.strategy.name);
  const params = validateGrid(o.axes, module, o.config.strategy.params);
  const jobs: GridJob[] = combos.map((_combo, i) => ({
    data: o.data,
    config: { ...o.config, strategy: { name: o.config.strategy.name, params: params[i] } },
    outDir: join(o.outDir, 'grid', String(i)),
    allowStrategyErrors: o.allowStrategyErrors,
  }));
  const workers = Math.max(1, Math.min(o.workers ?? availableParallelism(), combos.length));
  let done = 0;
  const outcomes = await runInWorkers<GridJob, GridJobResult>(jobs, {
    workers,
    execArgv: o.execArgv,
    onDone: () => o.onDone?.(++done, jobs.length),
  });
  const rows: GridRow[] = outcomes.map((r, i) => (r.ok ? { index: i, combo: combos[i], total: r.value.total } : { index: i, combo: combos[i], error: r.error }));
  const ranked = rankRows(rows);
  await mkdir(o.outDir, { recursive: true });
  const csvPath = join(o.outDir, 'grid.csv');
  await writeFile(csvPath, gridCsv(o.axes, ranked));
  return { ranked, csvPath, workers };
}
