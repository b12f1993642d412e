// {"bench":"tick_to_order"}: from a market frame arriving on the feed socket to the POST /orders
// request that frame caused being written to the HTTP socket, in process against the emulator on
// loopback: decode, book mirror (hash-verified), strategy, reconciler, risk gate, scheduler,
// limiter, live venue and undici. "Written" is undici's request:bodySent diagnostics event.
// p50 / p99 in microseconds; goal p99 < 1 ms. Split in two: the engine part (frame -> the venue's
// placeOrders call, synchronous) and the HTTP part (placeOrders -> bytes written). undici v7 writes
// a request on a reused idle keep-alive socket only after one event-loop turn (setImmediate,
// "idle socket validation"), so the HTTP part includes one loop turn, which in process also runs
// the emulator's own work; writesNextTurn counts those.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { startEmulator } from '../emulator/server.js';
import { loadConfig } from '../config.js';
import { silentLogger } from '../core/log.js';
import { formatPrice, formatSize } from '../core/units.js';
import { createClients } from '../api/index.js';
import { BookMirror } from '../book/mirror.js';
import { channelOptions, FeedConnection } from '../feed/connection.js';
import { createMarketDecodeStats, decodeMarketFrame } from '../feed/decode-market.js';
import { createUserDecodeStats, decodeUserFrame } from '../feed/decode-user.js';
import type { MarketEvent, UserEvent } from '../feed/events.js';
import { LiveVenue } from '../venue/live-venue.js';
import { WallClock } from '../engine/clock.js';
import { SeededRng } from '../engine/rng.js';
import { Engine } from '../engine/engine.js';
import { loadStrategy } from '../engine/loader.js';
import { marketsFromTokens } from '../engine/markets.js';

const KEY = 'bench-key';
const RUN_MS = 8000;
const WARM_MS = 2000;

function pct(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export async function run(): Promise<Record<string, unknown>> {
  const emu = await startEmulator({ seed: 11, speed: 8, markets: 2, keys: [KEY] });
  const u = emu.urls;
  const config = loadConfig({
    env: { MAKERD_CLOB_URL: u.clob, MAKERD_GAMMA_URL: u.gamma, MAKERD_DATA_URL: u.data, MAKERD_CONTENT_URL: u.content, MAKERD_WS_URL: u.ws, MAKERD_PRICE_FEED_URL: u.price_feed },
    overrides: { reconciler: { debounceMs: 0 } },
  });
  const clock = new WallClock();
  const clients = createClients(config, KEY, silentLogger);
  const markets = await marketsFromTokens(clients.clob, emu.markets.map((m) => m.facts.tokens[0]), silentLogger);
  const tokens = markets.flatMap((m) => [m.tokenId, m.complementId]);
  const timing = { ...config.feed };
  const mirror = new BookMirror({ verifyEvery: 1, now: () => clock.now() });
  for (const m of markets) for (const t of [m.tokenId, m.complementId]) mirror.setMeta(t, { market: m.conditionId, minOrderSize: formatSize(m.minSize), tickSize: formatPrice(m.tick), negRisk: m.negRisk });
  // Receive times from performance.now(): microsecond resolution.
  const market = new FeedConnection(channelOptions(u.ws, { kind: 'market' }, timing, { now: () => performance.now() }));
  const user = new FeedConnection(channelOptions(u.ws, { kind: 'user', markets: markets.map((m) => m.conditionId), auth: { apiKey: KEY } }, timing));
  const userListeners: Array<(e: UserEvent) => void> = [];
  const ubuf: UserEvent[] = [];
  const ustats = createUserDecodeStats();
  user.onFrame((f) => {
    ubuf.length = 0;
    decodeUserFrame(f.text, ubuf, ustats);
    for (const e of ubuf) for (const fn of userListeners) fn(e);
  });
  const venue = new LiveVenue({ clob: clients.clob, subscribeUser: (fn) => userListeners.push(fn), tickOf: (t) => mirror.book(t)?.tick || 100, log: silentLogger });
  // Which frame caused each POST /orders: the frame being handled when placeOrders was called.
  let frameT = NaN;
  let warmUntil = Infinity;
  const causes: number[] = [];
  const place = venue.placeOrders.bind(venue);
  venue.placeOrders = (reqs) => {
    if (frameT === frameT && frameT > warmUntil) engineUs.push((performance.now() - frameT) * 1000);
    causes.push(frameT);
    calls.push(performance.now());
    const mark = sentCount;
    setImmediate(() => (sentCount > mark ? sameTurn++ : laterTurn++));
    return place(reqs);
  };
  const samples: number[] = [];
  const engineUs: number[] = [];
  const httpUs: number[] = [];
  const calls: number[] = [];
  let sentCount = 0;
  let sameTurn = 0;
  let laterTurn = 0;
  const onBodySent = (msg: unknown) => {
    const req = (msg as { request: { method: string; path: string } }).request;
    if (req.method !== 'POST' || !req.path.endsWith('/orders')) return;
    const t = performance.now();
    sentCount++;
    const cause = causes.shift();
    const call = calls.shift() as number;
    if (cause !== undefined && cause === cause && cause > warmUntil) httpUs.push((t - call) * 1000);
    if (cause !== undefined && cause === cause && cause > warmUntil) samples.push((t - cause) * 1000);
  };
  subscribe('undici:request:bodySent', onBodySent);
  const strategy = await loadStrategy('template', { edgeTicks: 0, size: 5 });
  const engine = new Engine({
    clock, rng: new SeededRng(1), log: silentLogger, venue, limiter: clients.limiter, recordLimiterUse: false, books: mirror, applyMarketEvents: false,
    strategy, config: { ...config, risk: { ...config.risk, dailyLossLimit: 1e9 } }, markets,
  });
  const mbuf: MarketEvent[] = [];
  const mstats = createMarketDecodeStats();
  market.onFrame((f) => {
    frameT = f.t;
    mbuf.length = 0;
    decodeMarketFrame(f.text, mbuf, mstats);
    for (const e of mbuf) {
      mirror.apply(e);
      engine.handleMarketEvent(e);
    }
    frameT = NaN;
  });
  market.onState((s) => engine.setFeedLive(s === 'live'));
  user.start([]);
  market.start(tokens);
  engine.start();
  // The first seconds (connections opening, JIT) are not measured.
  warmUntil = performance.now() + WARM_MS;
  await new Promise((r) => setTimeout(r, RUN_MS + WARM_MS));
  await engine.stop();
  market.stop();
  user.stop();
  unsubscribe('undici:request:bodySent', onBodySent);
  await clients.close();
  await emu.close();
  samples.sort((a, b) => a - b);
  return {
    bench: 'tick_to_order',
    samples: samples.length,
    p50_us: Math.round(pct(samples, 50)),
    p90_us: Math.round(pct(samples, 90)),
    p99_us: Math.round(pct(samples, 99)),
    max_us: Math.round(samples[samples.length - 1] ?? NaN),
    goal_p99_us: 1000,
    frames: market.counters.frames,
    batches: engine.scheduler.stats.placeBatches,
    fills: engine.ledger.count(),
    engine_p50_us: Math.round(pct(engineUs.sort((a, b) => a - b), 50)),
    engine_p99_us: Math.round(pct(engineUs, 99)),
    http_p50_us: Math.round(pct(httpUs.sort((a, b) => a - b), 50)),
    http_p99_us: Math.round(pct(httpUs, 99)),
    writesSameTurn: sameTurn,
    writesNextTurn: laterTurn,
  };
}
