// Writing a backtest's files: result.json (deterministic bytes: fixed key order, no wall times)
// and the HTML report (deterministic too: the same run gives the same bytes).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GENERATOR_META, renderReport } from '../report/html.js';
import type { BacktestOutput, BacktestResult, StrategyErrors } from './runner.js';

export function resultJson(r: BacktestResult): string {
  return JSON.stringify(r, null, 2) + '\n';
}

/** Writes `text` to `path` whole or not at all (a run killed mid-write leaves the old file or none, never half of one). */
export async function writeWhole(path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, path);
}

export async function writeResultJson(dir: string, r: BacktestResult): Promise<string> {
  await mkdir(dir, { recursive: true });
  const p = join(dir, 'result.json');
  await writeWhole(p, resultJson(r));
  return p;
}

/** What a backtest writes in its --out, a single run's and a grid's: a run replaces them all. */
const OUTPUT_NAMES = ['result.json', 'report.html', 'index.html', 'grid.csv', 'grid'] as const;
const COMBINATION_FILES = new Set(['result.json', 'report.html', 'result.json.tmp', 'report.html.tmp']);
// (pages of earlier versions have no generator meta: their title names makerd)

/**
 * Why `dir` holds a file or folder by one of those names that makerd did not write (a rerun would
 * delete it: a user's site folder, its index.html); undefined when every one there is an earlier
 * run's. Checked before anything runs.
 */
export function foreignOutput(dir: string): string | undefined {
  const notOurs = (p: string): string => `${p} is not written by makerd backtest (a run replaces its earlier output here): choose another --out, or move it`;
  for (const name of OUTPUT_NAMES) {
    const p = join(dir, name);
    if (!existsSync(p)) continue;
    try {
      if (name === 'grid') {
        if (!statSync(p).isDirectory()) return notOurs(p);
        for (const n of readdirSync(p)) {
          const sub = join(p, n);
          if (!/^\d+$/.test(n) || !statSync(sub).isDirectory() || readdirSync(sub).some((f) => !COMBINATION_FILES.has(f))) return notOurs(sub);
        }
        continue;
      }
      const head = readFileSync(p, 'utf8').slice(0, 4096);
      const ours =
        name === 'result.json'
          ? (JSON.parse(readFileSync(p, 'utf8')) as { kind?: unknown }).kind === 'makerd-backtest'
          : name === 'grid.csv'
            ? head.startsWith('rank,') && /^[^\n]*,total_pnl,/.test(head)
            : head.includes(GENERATOR_META) || /<title>makerd (backtest|grid sweep): /.test(head);
      if (!ours) return notOurs(p);
    } catch {
      return notOurs(p);
    }
  }
  return undefined;
}

/** Removes an earlier run's output from `dir` (foreignOutput said it is all makerd's): a run that fails must not leave it to be read as its own. */
export async function clearOutput(dir: string): Promise<void> {
  await Promise.all(OUTPUT_NAMES.map((n) => rm(join(dir, n), { recursive: true, force: true })));
}

export interface ReportOptions {
  /** Replaces the default title ('makerd backtest: <strategy>'). */
  title?: string;
  /** A link shown above the title (a grid combination's way back to the index). */
  back?: { href: string; label: string };
}

export async function writeReport(dir: string, out: BacktestOutput, opts: ReportOptions = {}): Promise<string> {
  await mkdir(dir, { recursive: true });
  const r = out.result;
  const inputs: Array<[string, string]> = [
    ['data', r.inputs.data.join(', ')],
    ['strategy', r.inputs.strategy],
    ['params', JSON.stringify(r.inputs.params)],
    ['period', `${r.period.start} .. ${r.period.end}`],
    ['latency (feed / order / cancel ms)', `${r.inputs.sim.feedLatencyMs} / ${r.inputs.sim.orderLatencyMs} / ${r.inputs.sim.cancelLatencyMs}`],
    ['fees (maker / taker bps)', `${r.inputs.sim.makerFeeBps} / ${r.inputs.sim.takerFeeBps}`],
    ['queue model', r.inputs.sim.queueModel ? 'on' : 'off'],
    ['settlement (ms from a fill to CONFIRMED)', String(r.inputs.sim.settleMs)],
    ['seed', String(r.inputs.sim.seed)],
    ['events (frames)', `${r.feed.events} (${r.feed.frames}, ${r.feed.rejected} rejected)`],
    ...outcomeWarnings(out).map(([k, v]): [string, string] => [k, v]),
  ];
  const html = renderReport({
    title: opts.title ?? `makerd backtest: ${r.inputs.strategy}`,
    back: opts.back,
    inputs,
    stats: { startMs: r.period.startMs, endMs: r.period.endMs, total: r.total, tokens: r.tokens },
    charts: out.charts,
    rateLimits: r.engine.rateLimits,
  });
  const p = join(dir, 'report.html');
  await writeWhole(p, html);
  return p;
}

/**
 * What makes a run's figures other than a whole recording traded: a risk halt (quoting stopped for
 * the rest of it), files not read to their end, a strategy that threw. Each a [label, text] row for
 * the report's inputs and a line of the summary; none for a clean run.
 */
export function outcomeWarnings(out: Pick<BacktestOutput, 'result' | 'strategyErrors'>): Array<[string, string]> {
  const r = out.result;
  const w: Array<[string, string]> = [];
  if (r.engine.halted) w.push(['HALTED', `${r.engine.halted}: the risk gate stopped quoting there, and the rest of the recording traded nothing`]);
  const read = r.feed.readErrors ?? [];
  if (read.length > 0) w.push(['NOT READ TO ITS END', `${read.map((e) => e.file).join(', ')}: the rest of each left out of these figures`]);
  if (out.strategyErrors.count > 0) w.push(['STRATEGY ERRORS', `the strategy threw ${out.strategyErrors.count} time${out.strategyErrors.count === 1 ? '' : 's'}`]);
  return w;
}

/** The busiest rate-limit scope, for the terminal summary. */
export function rateLimitLine(r: BacktestResult): string {
  const top = [...r.engine.rateLimits].sort((a, b) => b.peakShare - a.peakShare)[0];
  if (!top) return 'rate limits: no requests';
  return (
    `rate limits: busiest scope ${top.scope} peaked at ${top.peakUsed}/${top.limit} per ${top.windowMs / 1000}s (${(top.peakShare * 100).toFixed(1)}%)` +
    `; limiter queue peak ${r.engine.limiterPeakWaiting}`
  );
}

/** 'the strategy threw N times (first: <message>)': a grid row's error, one line. */
export function strategyErrorsLine(se: StrategyErrors): string {
  const first = se.first ? se.first.message.split('\n')[0] : '?';
  return `the strategy threw ${se.count} time${se.count === 1 ? '' : 's'} (first: ${first})`;
}
