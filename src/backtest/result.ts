// The backtest's result.json: inputs, feed counters, markets, period, the statistics per token
// and in total, and the engine's and venue's own counters. Deterministic: no wall-clock value,
// every map written with sorted keys.
import type { Config } from '../config.js';
import type { DecodeStats } from '../feed/decode-stats.js';
import type { Engine } from '../engine/engine.js';
import type { SimStats } from '../venue/simulated-venue.js';
import type { FeeRule } from '../core/fees.js';
import type { StatsResult } from '../report/stats.js';
import type { RateUse, ScopeUse } from './rate-use.js';
import type { ReadError } from './record-source.js';

export interface BacktestResult {
  kind: 'makerd-backtest';
  version: 1;
  inputs: {
    data: string[];
    strategy: string;
    params: unknown;
    sim: Config['sim'];
    reconciler: Config['reconciler'];
    risk: Config['risk'];
    scheduler: Config['scheduler'];
  };
  feed: {
    records: number;
    frames: number;
    events: number;
    rejected: number;
    rejects: Record<string, number>;
    otherChannels: number;
    shiftedFiles: number;
    priceEvents?: number;
    /** The recordings that could not be read to their end (the rest of each was skipped), in order: only when there were any (the key is absent otherwise). */
    readErrors?: ReadError[];
    /** Lines whose time no recorder wrote, replayed at the time before them (runner.ts badRecordTime): only when there were any. */
    badTimes?: number;
    /** Jumps inside a file (over 30 days ahead, or over a minute back) closed up (what followed came on from the line before): only when there were any. */
    timeJumps?: number;
  };
  /** feeRule: the market's fee rule when one was given (BacktestOptions.feeRules); absent otherwise. */
  markets: Array<{ conditionId: string; tokenId: string; complementId: string; feeRule?: FeeRule }>;
  period: { startMs: number; endMs: number; start: string; end: string };
  total: StatsResult['total'];
  tokens: StatsResult['tokens'];
  engine: {
    /** The engine's own PnL (positions marked to mid), dollars: a cross-check of total.pnl.total. */
    pnl: number;
    fills: number;
    requotes: number;
    invalidQuotes: number;
    /** Quotes left out beyond reconciler.maxOrdersPerSide, per requote. */
    quotesCut: number;
    errors: number;
    /** Of those, the strategy's own throws, and the first one's message: only when there were any (the key is absent otherwise). */
    strategyErrors?: { count: number; first: string };
    halted: string | null;
    riskBlocks: Record<string, number>;
    scheduler: Record<string, number>;
    /** Peak use of each rate-limit scope touched, sampled once per virtual second. */
    rateLimits: ScopeUse[];
    limiterPeakWaiting: number;
  };
  venue: SimStats;
}

export interface ResultParts {
  data: string[];
  config: Config;
  /** The strategy params after validation (defaults filled in). */
  params: unknown;
  feed: { records: number; otherChannels: number; shiftedFiles: number; readErrors?: readonly ReadError[]; badTimes?: number; timeJumps?: number; decode: DecodeStats; prices?: DecodeStats };
  markets: BacktestResult['markets'];
  stats: StatsResult;
  engine: Engine;
  rateUse: RateUse;
  venue: SimStats;
  strategyErrors?: { count: number; first?: Error };
}

export function buildResult(p: ResultParts): BacktestResult {
  const cfg = p.config;
  const s = p.stats;
  const er = p.engine.results();
  const d = p.feed.decode;
  const rejects: Record<string, number> = {};
  for (const k of [...d.rejects.keys()].sort()) rejects[k] = d.rejects.get(k) as number;
  return {
    kind: 'makerd-backtest',
    version: 1,
    inputs: {
      data: p.data,
      strategy: cfg.strategy.name,
      params: p.params,
      sim: cfg.sim,
      reconciler: cfg.reconciler,
      risk: cfg.risk,
      scheduler: cfg.scheduler,
    },
    feed: {
      records: p.feed.records,
      frames: d.frames,
      events: d.events,
      rejected: d.rejected(),
      rejects,
      otherChannels: p.feed.otherChannels,
      shiftedFiles: p.feed.shiftedFiles,
      // only when the recording has the price stream: the key is absent otherwise (results stay as they were)
      ...(p.feed.prices && p.feed.prices.frames > 0 ? { priceEvents: p.feed.prices.events } : {}),
      // likewise only when a file was cut short: a whole recording's result stays as it was
      ...(p.feed.readErrors && p.feed.readErrors.length > 0 ? { readErrors: p.feed.readErrors.map((e) => ({ file: e.file, message: e.message })) } : {}),
      ...(p.feed.badTimes ? { badTimes: p.feed.badTimes } : {}),
      ...(p.feed.timeJumps ? { timeJumps: p.feed.timeJumps } : {}),
    },
    markets: p.markets,
    period: { startMs: s.startMs, endMs: s.endMs, start: iso(s.startMs), end: iso(s.endMs) },
    total: s.total,
    tokens: s.tokens,
    engine: {
      pnl: Math.round(er.pnlMicros) / 1e6,
      fills: er.fills,
      requotes: p.engine.counters.requotes,
      invalidQuotes: p.engine.counters.invalidQuotes,
      quotesCut: p.engine.counters.quotesCut,
      errors: p.engine.counters.errors,
      ...(p.strategyErrors && p.strategyErrors.count > 0 ? { strategyErrors: { count: p.strategyErrors.count, first: String(p.strategyErrors.first) } } : {}),
      halted: er.halted ?? null,
      riskBlocks: sortKeys(er.riskBlocks),
      scheduler: { ...er.scheduler },
      rateLimits: p.rateUse.peaks(),
      limiterPeakWaiting: p.rateUse.peakWaiting,
    },
    venue: p.venue,
  };
}

function iso(ms: number): string {
  return Number.isFinite(ms) ? new Date(ms).toISOString() : '';
}

function sortKeys(o: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of Object.keys(o).sort()) out[k] = o[k];
  return out;
}
