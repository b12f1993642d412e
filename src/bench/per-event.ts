// {"bench":"per_event"}: CPU per market event as the number of markets grows (issue 14, item 2).
// One engine per size (1, 100, 1,000 markets), each market with its books, a position in its YES
// token (the loss check marks it) and its resting quotes (bands, answered at once by an in-process
// venue). The same stream of events then moves market 0's YES book by a tick each way, so every
// event requotes market 0 (cancel and replace) while the other markets sit there: what an event
// costs should not depend on them. Events go through the market pipeline (mirror, engine) with the
// promise continuations drained after each (the scheduler's sends and answers), as a backtest
// does. The housekeeping timer (a pass over every market once a second) is pushed past the run:
// it is per second, not per event. CPU time (process.cpuUsage) per event, the median of ROUNDS
// rounds of EVENTS after a warm-up, the sizes' rounds taken in turn; goal: max / min <= 1.3.
import { VirtualClock } from '../core/clock.js';
import { Limiter } from '../api/limiter.js';
import { BookMirror } from '../book/mirror.js';
import { MarketPipeline } from '../feed/market-pipeline.js';
import { createMarketDecodeStats } from '../feed/decode-market.js';
import { Engine } from '../engine/engine.js';
import type { MarketMeta } from '../engine/strategy.js';
import { loadStrategy } from '../strategy/loader.js';
import { loadConfig } from '../config.js';
import { silentLogger } from '../core/log.js';
import { SeededRng } from '../core/rng.js';
import { formatPrice, formatSize } from '../core/units.js';
import type { BookEvent, MarketEvent, PriceChangeEvent, WireLevel } from '../core/events.js';
import { InstantVenue } from './instant-venue.js';

const SIZES = [1, 100, 1000];
const WARM = Number(process.env.BENCH_PER_EVENT_WARM ?? 3000);
const EVENTS = Number(process.env.BENCH_PER_EVENT_EVENTS ?? 3000);
const ROUNDS = Number(process.env.BENCH_PER_EVENT_ROUNDS ?? 7);

const lv = (price: number, size: number): WireLevel => ({ price, size, priceStr: formatPrice(price), sizeStr: formatSize(size) });

function snapshot(m: MarketMeta, assetId: string, bid: number, ask: number, t: number): BookEvent {
  return {
    type: 'book',
    market: m.conditionId,
    assetId,
    timestampMs: t,
    timestampStr: String(t),
    hash: '',
    bids: [lv(bid - 100, 50_000), lv(bid, 50_000)],
    asks: [lv(ask + 100, 50_000), lv(ask, 50_000)],
    tickSize: 100,
    tickSizeStr: '0.01',
  };
}

/** Drains promise continuations (as the backtest runner's settle). */
const settle = (): Promise<void> => new Promise((r) => process.nextTick(r));

interface Setup {
  engine: Engine;
  pipeline: MarketPipeline;
  clock: VirtualClock;
  m0: MarketMeta;
}

async function setup(n: number): Promise<Setup> {
  const config = loadConfig({
    env: {},
    overrides: {
      strategy: { name: 'bands', params: {} },
      reconciler: { debounceMs: 0 },
      limits: { scale: 10 },
      risk: { maxOpenOrders: 1e7, maxTotalNotional: 1e9, dailyLossLimit: 1e9 },
      log: { level: 'silent' },
    },
  });
  const clock = new VirtualClock(0);
  const mirror = new BookMirror({ verifyEvery: 0, now: () => clock.now() });
  const markets: MarketMeta[] = [];
  for (let i = 0; i < n; i++) {
    const c = `0xm${i}`;
    markets.push({ conditionId: c, tokenId: `${1_000_000 + 2 * i}`, complementId: `${1_000_001 + 2 * i}`, tick: 100, minSize: 500, negRisk: false });
  }
  for (const m of markets)
    for (const t of [m.tokenId, m.complementId]) mirror.setMeta(t, { market: m.conditionId, minOrderSize: formatSize(m.minSize), tickSize: formatPrice(m.tick), negRisk: m.negRisk });
  const strategy = await loadStrategy('bands', {});
  const engine = new Engine({
    clock,
    rng: new SeededRng(1),
    log: silentLogger,
    venue: new InstantVenue(),
    limiter: new Limiter({ clock, scale: 10 }),
    recordLimiterUse: true,
    books: mirror,
    strategy,
    config,
    markets,
    timerMs: 1e12,
  });
  const pipeline = new MarketPipeline({ mirror, stats: createMarketDecodeStats() });
  pipeline.connect({ engine });
  // a position in every market's YES token: the loss check marks each one it revalues
  for (const m of markets) engine.positions.apply(m.tokenId, 'BUY', 5000, 5000, 0);
  const books: MarketEvent[] = [];
  for (const m of markets) books.push(snapshot(m, m.tokenId, 4800, 5100, 0), snapshot(m, m.complementId, 4900, 5200, 0));
  pipeline.dispatch(1, books);
  engine.start();
  for (let i = 0; i < 10; i++) await settle();
  return { engine, pipeline, clock, m0: markets[0] };
}

/**
 * Moves market 0's YES bid up a tick and back (and the NO ask with it, as the venue's frames do),
 * one event every 10 ms: every event requotes market 0.
 */
async function events(s: Setup, count: number, seq: { n: number }): Promise<void> {
  const m = s.m0;
  const yes = { assetId: m.tokenId, side: 'BUY' as const, price: 4900, size: 0, priceStr: '0.49', sizeStr: '0' };
  const no = { assetId: m.complementId, side: 'SELL' as const, price: 5100, size: 0, priceStr: '0.51', sizeStr: '0' };
  const ev: PriceChangeEvent = { type: 'price_change', market: m.conditionId, timestampMs: 0, timestampStr: '0', changes: [yes, no], format: 'current' };
  for (let i = 0; i < count; i++) {
    const k = seq.n++;
    const t = (k + 1) * 10;
    s.clock.advanceTo(t);
    yes.size = no.size = k % 2 === 0 ? 50_000 : 0;
    yes.sizeStr = no.sizeStr = formatSize(yes.size);
    ev.timestampMs = t;
    ev.timestampStr = String(t);
    s.pipeline.dispatch(1, [ev]);
    await settle();
  }
}

function cpuUs(u: NodeJS.CpuUsage): number {
  return u.user + u.system;
}

export async function run(): Promise<Record<string, unknown>> {
  // every size set up and warmed first, then the rounds taken in turn (1, 100, 1,000, 1, ...): JIT
  // state and a shared machine's load weigh on every size alike
  const runs: Array<{ n: number; s: Setup; seq: { n: number }; rounds: number[]; req0: number }> = [];
  for (const n of SIZES) {
    const s = await setup(n);
    const seq = { n: 0 };
    await events(s, WARM, seq);
    runs.push({ n, s, seq, rounds: [], req0: 0 });
  }
  for (const r of runs) await events(r.s, WARM, r.seq);
  for (const r of runs) r.req0 = r.s.engine.counters.requotes;
  for (let i = 0; i < ROUNDS; i++) {
    for (const r of runs) {
      const c0 = process.cpuUsage();
      await events(r.s, EVENTS, r.seq);
      r.rounds.push(cpuUs(process.cpuUsage(c0)) / EVENTS);
    }
  }
  const usPerEvent: Record<string, number> = {};
  const detail: Record<string, unknown> = {};
  for (const r of runs) {
    const rounds = r.rounds.sort((a, b) => a - b);
    usPerEvent[String(r.n)] = Math.round(rounds[Math.floor(rounds.length / 2)] * 100) / 100;
    const e = r.s.engine;
    detail[String(r.n)] = {
      rounds_us: rounds.map((x) => Math.round(x * 100) / 100),
      openOrders: e.orders.openCount(),
      positions: [...e.positions.entries()].length,
      requotesPerEvent: Math.round(((e.counters.requotes - r.req0) / (EVENTS * ROUNDS)) * 100) / 100,
      placeBatches: e.scheduler.stats.placeBatches,
      halted: e.risk.halted ?? null,
    };
    await e.stop();
  }
  const v = Object.values(usPerEvent);
  const ratio = Math.max(...v) / Math.min(...v);
  return {
    bench: 'per_event',
    us_per_event: usPerEvent,
    ratio_max_min: Math.round(ratio * 1000) / 1000,
    goal_ratio: 1.3,
    events_per_round: EVENTS,
    rounds: ROUNDS,
    detail,
  };
}
