// Runs a grid sweep: every combination of the grid over the base strategy params, each as its
// own backtest in a worker process, then ranks them. Every combination is validated against the
// strategy's schema first (grid.ts): a bad path or value throws GridSpecError before any worker
// starts or any file is written (or removed). Each combination's result.json and report.html land
// in DIR/grid/<n>/ (n = position in grid order; emptied as the sweep starts), the ranking in
// DIR/grid.csv and DIR/index.html (every combination ranked, linked to its report, with the
// objective charted across the grid).
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import type { Config } from '../config.js';
import type { TotalResult } from '../report/stats.js';
import { renderGridIndex } from '../report/grid-index.js';
import { loadStrategyModule } from '../strategy/loader.js';
import { expandGrid, gridCsv, rankRows, typedGrid, type GridAxis, type GridRow } from './grid.js';
import { runInWorkers } from './pool.js';
import { clearOutput, writeWhole, type ReportOptions } from './output.js';
import type { ShiftedFile } from './runner.js';

export interface GridJob {
  data: string[];
  config: Config;
  outDir?: string;
  /** A combination whose strategy threw still counts as a result (else it is an error row). */
  allowStrategyErrors?: boolean;
  /** The report's title and link back to the index. */
  report?: ReportOptions;
}

export interface GridJobResult {
  total: TotalResult;
  wallMs: number;
  events: number;
  /** Files replayed shifted to follow the one before them (the same for every combination: they replay the same files). */
  shifted: ShiftedFile[];
  /** Why the risk gate halted quoting, when it did (result.json engine.halted). */
  halted: string | null;
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
  indexPath: string;
  workers: number;
  /** Files replayed shifted to follow the one before them (from the first combination that ran). */
  shifted: ShiftedFile[];
}

/** 'a=1, b=x' */
export function comboLabel(combo: Record<string, unknown>): string {
  return Object.entries(combo)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(', ');
}

export async function runSweep(o: SweepOptions): Promise<SweepResult> {
  const { module } = await loadStrategyModule(o.config.strategy.name);
  // each value as its run takes it ('007' stays text where the schema wants text): what the csv and index name
  const { params, axes } = typedGrid(o.axes, module, o.config.strategy.params);
  const combos = expandGrid(axes);
  const jobs: GridJob[] = combos.map((_combo, i) => ({
    data: o.data,
    config: { ...o.config, strategy: { name: o.config.strategy.name, params: params[i] } },
    outDir: join(o.outDir, 'grid', String(i)),
    allowStrategyErrors: o.allowStrategyErrors,
    report: {
      title: `makerd backtest: ${o.config.strategy.name}, grid #${i} (${comboLabel(combos[i])})`,
      back: { href: '../../index.html', label: `← every combination of the grid (index.html)` },
    },
  }));
  // A failed run writes no files and the index links whatever report.html it finds: empty the
  // folders this sweep fills (after validation) so a rerun into the same --out never links a
  // combination that failed this time to the previous sweep's report.
  // The earlier sweep's ranking and every folder of it go too: an interrupted rerun must not leave
  // its index and csv naming the earlier grid while linking this one's reports.
  await clearOutput(o.outDir);
  const workers = Math.max(1, Math.min(o.workers ?? availableParallelism(), combos.length));
  let done = 0;
  const outcomes = await runInWorkers<GridJob, GridJobResult>(jobs, {
    workers,
    execArgv: o.execArgv,
    onDone: () => o.onDone?.(++done, jobs.length),
  });
  const rows: GridRow[] = outcomes.map((r, i) =>
    r.ok ? { index: i, combo: combos[i], total: r.value.total, ...(r.value.halted ? { halted: r.value.halted } : {}) } : { index: i, combo: combos[i], error: r.error },
  );
  const ranked = rankRows(rows);
  await mkdir(o.outDir, { recursive: true });
  const csvPath = join(o.outDir, 'grid.csv');
  await writeWhole(csvPath, gridCsv(axes, ranked));
  const indexPath = join(o.outDir, 'index.html');
  const html = renderGridIndex({
    title: `makerd grid sweep: ${o.config.strategy.name}`,
    inputs: [
      ['data', o.data.join(', ')],
      ['strategy', o.config.strategy.name],
      ['base params', JSON.stringify(o.config.strategy.params)],
      ['grid', axes.map((a) => `${a.name}=${a.values.map(String).join(',')}`).join('; ')],
      ['combinations', `${combos.length} (${ranked.filter((r) => !r.total).length} failed)`],
    ],
    axes,
    ranked,
    // a combination whose run failed before its files were written has no report
    href: (i) => (existsSync(join(o.outDir, 'grid', String(i), 'report.html')) ? `grid/${i}/report.html` : undefined),
  });
  await writeWhole(indexPath, html);
  const firstRun = outcomes.find((r) => r.ok);
  return { ranked, csvPath, indexPath, workers, shifted: firstRun?.ok ? firstRun.value.shifted : [] };
}
