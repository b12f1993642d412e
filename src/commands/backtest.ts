// makerd backtest: replays recordings through the engine against the simulated venue on virtual
// time; prints a summary, writes DIR/result.json and DIR/report.html. With --grid, sweeps the
// strategy params in worker processes and writes a ranked DIR/grid.csv.
import { parseArgs } from 'node:util';
import { existsSync } from 'node:fs';
import { loadConfig, type Config } from '../config.js';
import { UsageError, type CommandModule, numberFlag } from './command.js';
import { runBacktest } from '../backtest/runner.js';
import { rateLimitLine, writeReport, writeResultJson } from '../backtest/output.js';
import { parseGridSpec, gridTableRows, GridSpecError } from '../backtest/grid.js';
import { runSweep } from '../backtest/sweep.js';
import { progressBar } from '../backtest/progress.js';
import { summaryTable, textTable } from '../report/table.js';

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
  --feed-latency MS     market data reaches the strategy MS after the venue (sim.feedLatencyMs)
  --order-latency MS    order placement latency (sim.orderLatencyMs)
  --cancel-latency MS   cancel latency (sim.cancelLatencyMs)
  --maker-fee BPS       maker fee rate (sim.makerFeeBps)
  --taker-fee BPS       taker fee rate (sim.takerFeeBps)
  --no-queue            our orders join at the front of their level (no queue model)
  --grid SPEC           sweep params, e.g. 'gamma=0.05,0.1,0.2;spread=2,4' (every combination)
  --workers N           grid worker processes (default min(cores, combinations))
  --progress            progress bar on stderr even when it is not a terminal
`;

function parseParams(s: string | undefined): Record<string, unknown> | undefined {
  if (s === undefined) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(s);
  } catch (e) {
    throw new UsageError(`--params is not valid JSON: ${(e as Error).message}`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new UsageError('--params must be a JSON object');
  return v as Record<string, unknown>;
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
        'maker-fee': { type: 'string' },
        'taker-fee': { type: 'string' },
        'no-queue': { type: 'boolean' },
        grid: { type: 'string' },
        workers: { type: 'string' },
        progress: { type: 'boolean' },
      },
    });
    if (!values.data) throw new UsageError('--data is required');
    const data = values.data
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    for (const f of data) if (!existsSync(f)) throw new UsageError(`--data: no such file: ${f}`);
    const seed = numberFlag(values.seed, '--seed', { min: 0 });
    if (seed !== undefined && !Number.isInteger(seed)) throw new UsageError('--seed must be an integer');
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
    set('feedLatencyMs', numberFlag(values['feed-latency'], '--feed-latency', { min: 0 }));
    set('orderLatencyMs', numberFlag(values['order-latency'], '--order-latency', { min: 0 }));
    set('cancelLatencyMs', numberFlag(values['cancel-latency'], '--cancel-latency', { min: 0 }));
    set('makerFeeBps', numberFlag(values['maker-fee'], '--maker-fee', { min: 0 }));
    set('takerFeeBps', numberFlag(values['taker-fee'], '--taker-fee', { min: 0 }));
    if (values['no-queue']) sim.queueModel = false;
    const config: Config = {
      ...base,
      strategy: { name, params: { ...baseParams, ...(parseParams(values.params) ?? {}) } },
      sim: { ...base.sim, ...sim },
    };
    const outDir = values.out ?? 'out/backtest';

    if (values.grid !== undefined) {
      let axes;
      try {
        axes = parseGridSpec(values.grid);
      } catch (e) {
        if (e instanceof GridSpecError) throw new UsageError(e.message);
        throw e;
      }
      const t0 = performance.now();
      const showProgress = values.progress || process.stderr.isTTY;
      const res = await runSweep({
        data,
        config,
        axes,
        outDir,
        workers,
        onDone: showProgress ? (d, n) => process.stderr.write(`\rgrid: ${d}/${n} done`) : undefined,
      });
      if (showProgress) process.stderr.write('\n');
      io.out(textTable(gridTableRows(axes, res.ranked)));
      io.out(`\n${res.ranked.length} combinations on ${res.workers} workers in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      io.out(`wrote ${res.csvPath} (per-combination result.json under ${outDir}/grid/<n>/)`);
      return res.ranked.some((r) => r.total) ? 0 : 1;
    }

    const showProgress = values.progress || process.stderr.isTTY;
    const out = await runBacktest({ data, config, progress: showProgress ? (total) => progressBar(process.stderr, total) : undefined });
    const resultPath = await writeResultJson(outDir, out.result);
    const reportPath = await writeReport(outDir, out);
    const r = out.result;
    if (r.feed.events === 0) io.err(`makerd backtest: warning: no market events in ${data.join(', ')} (${r.feed.rejected} frames rejected)`);
    io.out(summaryTable({ startMs: r.period.startMs, endMs: r.period.endMs, total: r.total, tokens: r.tokens }));
    io.out(rateLimitLine(r));
    io.out(
      `\n${r.feed.events} events (${r.feed.frames} frames, ${r.feed.rejected} rejected) from ${r.period.start} to ${r.period.end}; ` +
        `${(out.timing.wallMs / 1000).toFixed(2)} s wall, ${Math.round(out.timing.eventsPerSec)} events/s`,
    );
    io.out(`wrote ${resultPath} and ${reportPath}`);
    return 0;
  },
};
