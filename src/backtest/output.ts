// Writing a backtest's files: result.json (deterministic bytes: fixed key order, no wall times)
// and the HTML report (deterministic too: the same run gives the same bytes).
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { renderReport } from '../report/html.js';
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

/** Removes an earlier run's result.json and report.html from `dir`: a run that fails must not leave them to be read as its own. */
export async function clearResults(dir: string): Promise<void> {
  await Promise.all([rm(join(dir, 'result.json'), { force: true }), rm(join(dir, 'report.html'), { force: true })]);
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
