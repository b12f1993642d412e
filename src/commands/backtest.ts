// makerd backtest: replays recordings through the engine against the simulated venue on virtual
// time; prints a summary, writes DIR/result.json and DIR/report.html. With --grid, sweeps the
// strategy params in worker processes and writes a ranked DIR/grid.csv and DIR/index.html.
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, type Config } from '../config.js';
import { UsageError, type CommandIO, type CommandModule, numberFlag, seedFlag, TIMER_S } from './command.js';
import { runBacktest, StrategyCreateError, type BacktestResult, type ShiftedFile, type StrategyErrors } from '../backtest/runner.js';
import type { ReadError } from '../backtest/record-source.js';
import { clearOutput, foreignOutput, rateLimitLine, writeReport, writeResultJson } from '../backtest/output.js';
import { inputFileProblem, outputDirProblem, systemErrorLine } from './paths.js';
import { parseGridSpec, gridTableRows, GridSpecError, type GridRow } from '../backtest/grid.js';
import { runSweep } from '../backtest/sweep.js';
import { progressBar } from '../backtest/progress.js';
import { limitHeapGrowth } from '../backtest/heap-growth.js';
import { loadStrategy } from '../strategy/loader.js';
import { summaryTable, textTable } from '../report/table.js';
import { duplicateKey } from '../core/json-problem.js';

const help = `usage: makerd backtest --data F[,F2...] [options]

Replays recordings (made by makerd record, or by makerd emulator --synthetic SEED --write F)
through the same engine, strategy, reconciler, risk gate and scheduler as live, against the
simulated venue on virtual time. Files are replayed in the order given.

options:
  --data F[,F2...]      recordings (.jsonl or .jsonl.gz)
  --strategy S          built-in strategy name or path to a module (default: config strategy.name)
  --params JSON         strategy params, merged over the config's
  --config F            config file merged over config/default.json
  --seed N              seed of the strategy's random stream (sim.seed)
  --out DIR             output folder (default out/backtest)
  --feed-latency MS     market data, and our order and trade events, reach the strategy MS after the venue (sim.feedLatencyMs)
  --order-latency MS    order placement latency (sim.orderLatencyMs)
  --cancel-latency MS   cancel latency (sim.cancelLatencyMs)
  --settle MS           a fill is settled (CONFIRMED) MS after it matched; until then its shares are
                        held but not sellable, as on the venue (sim.settleMs, default 0)
  --cash USD            our collateral at the start: a BUY beyond what it leaves is refused, as on the
                        venue, and the risk gate keeps BUYs within it (sim.cashUsd; default 0: unlimited)
  --maker-fee BPS       maker fee rate (sim.makerFeeBps)
  --taker-fee BPS       taker fee rate (sim.takerFeeBps)
  --no-queue            our orders join at the front of their level (no queue model)
  --grid SPEC           sweep params, e.g. 'bands.0.distance=0.01,0.02;skewPerShare=0,0.0005' (every
                        combination; a name is a path into the strategy's params, a list element by
                        its index; makerd strategies lists each strategy's paths; every combination
                        is checked against the strategy's schema before anything runs)
  --workers N           grid worker processes (default min(cores, combinations))
  --progress            progress bar on stderr even when it is not a terminal
  --one-thread          read and decode on the backtest's own thread (slower; about 50-75 MB less
                        memory than with the reader thread; the same result)
  --allow-strategy-errors  exit 0 even when the strategy threw (the first error and the count are still shown)

Exit status: 0 ok; 1 the strategy threw (unless --allow-strategy-errors), a recording could not be
read to its end (a corrupt or truncated .gz: the rest of that file is skipped; named on stderr,
feed.readErrors in result.json), the recordings hold no market event, a grid combination failed,
or the run failed; 2 bad usage, a missing --data file, an --out that cannot be written or holds a
result.json, report.html, index.html, grid.csv or grid/ that makerd did not write (a run replaces
its earlier output there, nothing else), or an invalid config. A run the risk gate halted exits 0
and says HALTED (summary, stderr, report; a grid's halted column).

examples:
  makerd backtest --data data/sample-synthetic.jsonl.gz --out out/backtest
  makerd backtest --data data/sample-synthetic.jsonl.gz --out out/grid --grid 'bands.0.distance=0.01,0.02,0.04;minSpread=0.01,0.04' --workers 2
  makerd backtest --data data/sample-synthetic.jsonl.gz --out out/grid-as --strategy avellaneda --grid 'gamma=0.05,0.1;size=5,10' --workers 2
`;

function parseParams(s: string | undefined): Record<string, unknown> | undefined {
  if (s === undefined) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(s);
  } catch (e) {
    throw new UsageError(`--params is not valid JSON: ${(e as Error).message}`);
  }
  const dup = duplicateKey(s);
  if (dup) throw new UsageError(`--params names ${dup.path} twice: only the last would count`);
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new UsageError('--params must be a JSON object');
  return v as Record<string, unknown>;
}

/**
 * Files replayed later than they were recorded, to follow the one before them: deliberate for a
 * recording replayed twice, a scrambled market for a rotated one listed by a shell glob (rec.1,
 * rec.10, rec.2), whose result would look plausible. Said on stderr, file by file.
 */
function shiftedLines(io: CommandIO, data: readonly string[], shifted: readonly ShiftedFile[]): void {
  for (const s of shifted.slice(0, 5)) {
    const name = (i: number): string => `${data[i]} (file ${i + 1})`;
    io.err(
      s.shiftMs > 0
        ? `makerd backtest: WARNING: ${name(s.file)} starts before ${name(s.file - 1)} ended: replayed ${(s.shiftMs / 1000).toFixed(1)} s later, to follow it`
        : `makerd backtest: WARNING: ${name(s.file)} starts more than 30 days after ${name(s.file - 1)} ended: replayed ${(-s.shiftMs / 1000).toFixed(1)} s earlier, to follow it`,
    );
  }
  if (shifted.length > 5) io.err(`makerd backtest: WARNING: ${shifted.length - 5} more files shifted so (feed.shiftedFiles in result.json)`);
  if (shifted.some((s) => s.shiftMs > 0))
    io.err('files replay in the order given: a rotated recording in its order is rec.jsonl.gz, rec.1.jsonl.gz, rec.2.jsonl.gz, ... (a shell glob puts rec.10 before rec.2)');
}

export const command: CommandModule = {
  summary: 'replay recordings through the engine against the simulated venue; report PnL and charts',
  help,
  async main(argv, io) {
    const { values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        data: { type: 'string' },
        strategy: { type: 'string' },
        params: { type: 'string' },
        config: { type: 'string' },
        seed: { type: 'string' },
        out: { type: 'string' },
        'feed-latency': { type: 'string' },
        'order-latency': { type: 'string' },
        'cancel-latency': { type: 'string' },
        settle: { type: 'string' },
        cash: { type: 'string' },
        'maker-fee': { type: 'string' },
        'taker-fee': { type: 'string' },
        'no-queue': { type: 'boolean' },
        grid: { type: 'string' },
        workers: { type: 'string' },
        progress: { type: 'boolean' },
        'one-thread': { type: 'boolean' },
        'allow-strategy-errors': { type: 'boolean' },
      },
    });
    if (!values.data) throw new UsageError('--data is required');
    const data = values.data
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    // "," passes the presence check but names nothing: refused before the previous results are cleared
    if (data.length === 0) throw new UsageError(`--data names no file, got '${values.data}' (F[,F2...]: recordings, comma-separated)`);
    for (const f of data) {
      const bad = inputFileProblem(f);
      if (bad) return fail(io, `--data: ${bad}: ${f}`, 2);
    }
    // sim.seed's range: the seeded generator keeps 32 bits (a larger seed replays a smaller one's run)
    const seed = seedFlag(values.seed, '--seed');
    const workers = numberFlag(values.workers, '--workers', { min: 0 });
    if (workers !== undefined && (!Number.isInteger(workers) || workers < 1)) throw new UsageError('--workers must be a positive integer');

    const base = loadConfig({ file: values.config, env: io.env });
    const name = values.strategy ?? base.strategy.name;
    // a different strategy starts from its own defaults, not the config's params for another one
    const baseParams = name === base.strategy.name ? base.strategy.params : {};
    const sim: Partial<Config['sim']> = {};
    const set = (k: keyof Config['sim'], v: number | boolean | undefined): void => {
      if (v !== undefined) (sim as Record<string, unknown>)[k] = v;
    };
    set('seed', seed);
    // times that become timers: at most what one holds, as the config's sim keys allow
    const timerMs = { min: 0, max: TIMER_S * 1000 };
    set('feedLatencyMs', numberFlag(values['feed-latency'], '--feed-latency', timerMs));
    set('orderLatencyMs', numberFlag(values['order-latency'], '--order-latency', timerMs));
    set('cancelLatencyMs', numberFlag(values['cancel-latency'], '--cancel-latency', timerMs));
    set('settleMs', numberFlag(values.settle, '--settle', timerMs));
    set('cashUsd', numberFlag(values.cash, '--cash', { min: 0 }));
    set('makerFeeBps', numberFlag(values['maker-fee'], '--maker-fee', { min: 0 }));
    set('takerFeeBps', numberFlag(values['taker-fee'], '--taker-fee', { min: 0 }));
    if (values['no-queue']) sim.queueModel = false;
    const config: Config = {
      ...base,
      strategy: { name, params: { ...baseParams, ...(parseParams(values.params) ?? {}) } },
      sim: { ...base.sim, ...sim },
    };
    const outDir = values.out ?? 'out/backtest';
    const outBad = outputDirProblem(outDir);
    if (outBad) return fail(io, `--out ${outDir}: ${outBad}`, 2);
    const foreign = foreignOutput(outDir);
    if (foreign) return fail(io, `--out ${outDir}: ${foreign}`, 2);
    const allowStrategyErrors = values['allow-strategy-errors'] === true;
    // this process is the backtest's (or the grid's) alone: a lower peak RSS for no time
    limitHeapGrowth();

    if (values.grid !== undefined) {
      let axes;
      try {
        axes = parseGridSpec(values.grid);
      } catch (e) {
        // a bad spec, path or value: one line, exit 2, before anything runs or is written
        if (e instanceof GridSpecError) return gridSpecFailed(io, e);
        throw e;
      }
      const t0 = performance.now();
      const showProgress = values.progress || process.stderr.isTTY;
      let res;
      try {
        res = await runSweep({
          data,
          config,
          axes,
          outDir,
          workers,
          allowStrategyErrors,
          onDone: showProgress ? (d, n) => process.stderr.write(`\rgrid: ${d}/${n} done`) : undefined,
        });
      } catch (e) {
        if (e instanceof GridSpecError) return gridSpecFailed(io, e);
        throw e;
      }
      if (showProgress) process.stderr.write('\n');
      shiftedLines(io, data, res.shifted);
      io.out(textTable(gridTableRows(axes, res.ranked)));
      io.out(`\n${res.ranked.length} combinations on ${res.workers} workers in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      io.out(`wrote ${res.indexPath} and ${res.csvPath} (each combination's result.json and report.html under ${outDir}/grid/<n>/)`);
      for (const row of res.ranked) if (row.halted) io.err(`makerd backtest: grid #${row.index}: the risk gate halted quoting (${row.halted}); its figures cover the run up to the halt`);
      const code = gridErrors(io, outDir, res.ranked, allowStrategyErrors);
      // every combination replays the same files: a file cut short cut every one of them short
      const readErrors = gridReadErrors(outDir, res.ranked);
      readErrorLines(io, readErrors);
      return readErrors.length > 0 ? 1 : code;
    }

    const showProgress = values.progress || process.stderr.isTTY;
    let out;
    let resultPath;
    let reportPath;
    try {
      // the strategy and its params checked before the last run's results are cleared: a misspelt name keeps them
      await loadStrategy(config.strategy.name, config.strategy.params);
      await clearOutput(outDir);
      out = await runBacktest({
        data,
        config,
        progress: showProgress ? (total) => progressBar(process.stderr, total) : undefined,
        ...(values['one-thread'] ? { readerThread: false } : {}),
      });
      if (out.result.feed.events === 0) {
        const f = out.result.feed;
        readErrorLines(io, f.readErrors);
        return fail(io, `no market events in ${data.join(', ')} (${f.frames} frames, ${f.rejected} rejected); nothing to backtest`, 1);
      }
      resultPath = await writeResultJson(outDir, out.result);
      reportPath = await writeReport(outDir, out);
    } catch (e) {
      if (e instanceof StrategyCreateError) {
        io.err(`makerd backtest: the strategy's create() threw:\n${strategyStack(e.thrown)}`);
        return 1;
      }
      const line = systemErrorLine(e);
      if (line) return fail(io, line, 1);
      throw e;
    }
    const r = out.result;
    const se = out.strategyErrors;
    if (se.count > 0) {
      const what = allowStrategyErrors ? 'tolerated (--allow-strategy-errors)' : 'exit 1 (--allow-strategy-errors accepts such a run)';
      io.err(`makerd backtest: the strategy threw ${se.count} time${se.count === 1 ? '' : 's'}; the first:\n${strategyStack(se.first)}\n${what}`);
    }
    shiftedLines(io, data, out.shifted);
    io.out(summaryTable({ startMs: r.period.startMs, endMs: r.period.endMs, total: r.total, tokens: r.tokens }));
    io.out(rateLimitLine(r));
    if (r.inputs.sim.cashUsd > 0) io.out(collateralLine(r));
    io.out(errorsLine(r, se));
    if (r.engine.halted) {
      io.out(`HALTED: ${r.engine.halted} (engine.halted in result.json): quoting stopped there; the rest of the recording traded nothing`);
      io.err(`makerd backtest: the risk gate halted quoting (${r.engine.halted}); the figures cover the run up to the halt`);
    }
    const readErrors = r.feed.readErrors ?? [];
    if (readErrors.length > 0) {
      readErrorLines(io, readErrors);
      // in the summary too, so a result read from stdout alone is not taken for the whole recording
      io.out(`read errors: ${readErrors.length} (feed.readErrors in result.json); WARNING: not read to its end, the rest left out of these figures: ${readErrors.map((e) => e.file).join(', ')}`);
    }
    io.out(
      `\n${r.feed.events} events (${r.feed.frames} frames, ${r.feed.rejected} rejected) from ${r.period.start} to ${r.period.end}; ` +
        `${(out.timing.wallMs / 1000).toFixed(2)} s wall, ${Math.round(out.timing.eventsPerSec)} events/s`,
    );
    io.out(`wrote ${resultPath} and ${reportPath}`);
    return (se.count > 0 && !allowStrategyErrors) || readErrors.length > 0 ? 1 : 0;
  },
};

/** One line on stderr, then the exit code. */
function fail(io: CommandIO, line: string, code: number): number {
  io.err(`makerd backtest: ${line}`);
  return code;
}

/** One line on stderr per recording that could not be read to its end. */
function readErrorLines(io: CommandIO, errors: readonly ReadError[] | undefined): void {
  for (const e of errors ?? []) io.err(`makerd backtest: ${e.file}: read stopped early (${e.message}); the rest of that file was not replayed`);
}

/** The read errors of a sweep, from its combinations' result.json (each file once). */
function gridReadErrors(outDir: string, ranked: GridRow[]): ReadError[] {
  const seen = new Map<string, ReadError>();
  for (const r of ranked) {
    let errors: ReadError[] | undefined;
    try {
      errors = (JSON.parse(readFileSync(join(outDir, 'grid', String(r.index), 'result.json'), 'utf8')) as BacktestResult).feed.readErrors;
    } catch {
      errors = undefined; // a combination that failed before writing its result
    }
    for (const e of errors ?? []) if (!seen.has(e.file)) seen.set(e.file, e);
  }
  return [...seen.values()];
}

/** With a simulated wallet (--cash): what it held back and what the venue still refused. */
function collateralLine(r: BacktestResult): string {
  const held = r.engine.riskBlocks.buy_exceeds_collateral ?? 0;
  return `collateral: $${r.inputs.sim.cashUsd} (sim.cashUsd); BUYs held back by the risk gate: ${held}; refused by the venue for balance: ${r.venue.rejectedForBalance}`;
}

/** 'strategy errors: N' and the engine's other errors when there were any (they never change the exit code). */
function errorsLine(r: BacktestResult, se: StrategyErrors): string {
  const other = r.engine.errors - se.count;
  return `strategy errors: ${se.count}` + (other > 0 ? `; other engine errors: ${other} (engine.errors in result.json)` : '');
}

/** The error's stack down to the strategy's caller: makerd's own frames below it say nothing new. */
function strategyStack(e: Error | undefined): string {
  if (!e) return '?';
  const lines = (e.stack ?? `${e.name}: ${e.message}`).split('\n');
  const cut = lines.findIndex((l) => /[\\/]backtest[\\/]runner\.[jt]s/.test(l));
  return (cut > 0 ? lines.slice(0, cut) : lines).join('\n');
}

/** A --grid that does not fit the strategy: one line naming the parameter and the value, exit 2. */
function gridSpecFailed(io: CommandIO, e: GridSpecError): number {
  io.err(`makerd backtest: ${e.message}`);
  return 2;
}

/**
 * After a grid sweep's table: the failed combinations (their error is in the table and grid.csv)
 * make the exit 1; with --allow-strategy-errors, each combination whose strategy threw gets a line.
 */
function gridErrors(io: CommandIO, outDir: string, ranked: GridRow[], allowStrategyErrors: boolean): number {
  // named as its report's title and folder name it (grid #n, grid/<n>), not by rank
  const label = (r: GridRow): string =>
    `grid #${r.index} (${Object.entries(r.combo)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(', ')})`;
  if (allowStrategyErrors) {
    ranked.forEach((r) => {
      if (!r.total) return;
      let se: { count: number; first: string } | undefined;
      try {
        se = (JSON.parse(readFileSync(join(outDir, 'grid', String(r.index), 'result.json'), 'utf8')) as BacktestResult).engine.strategyErrors;
      } catch {
        se = undefined;
      }
      if (se) io.err(`${label(r)}: the strategy threw ${se.count} time${se.count === 1 ? '' : 's'} (first: ${se.first.replace(/^\w*Error: /, '')}); tolerated`);
    });
  }
  const failed = ranked.filter((r) => !r.total).length;
  if (failed === 0) return 0;
  io.err(`makerd backtest: ${failed} of ${ranked.length} combinations failed (the error column of the table and grid.csv)`);
  return 1;
}
