// {"bench":"tick_to_order"}: from a market frame arriving on the feed socket to the POST /orders
// request that frame caused being written to the HTTP socket: decode, book mirror (hash-verified),
// strategy, reconciler, risk gate, scheduler, limiter, live venue and undici, against the emulator
// in a process of its own (bench/emulator-child.ts, niced: see there) on loopback. "Arriving" = the
// socket read that carried the frame (frames read together are handled one after another;
// chunkBefore is the wait for the earlier ones; the engine requotes at the read's end, so a place
// it sends there is measured from the read). "Written" = undici's request:bodySent, right after headers
// and body were handed to socket.write (not the response). p50 / p99 in us; goal p99 < 1 ms at 1
// market, < 1.5 ms at 100 (each count is its own emulator run; fields end in _1 / _100;
// MAKERD_BENCH_MARKETS="1,100"). Split: chunkBefore, engine (the frame -> the venue's placeOrders
// call; for a place sent at its read's end, read (its frames) + requote), dispatch (-> undici's
// request:create) and write (-> bodySent); readFrames: frames in the causing read. connects: connections opened
// while measuring, all of them (cancels have a small pool of their own, reads another: each opens
// one when every one is busy); submitConnects: of those, the order connections' (kept warm: 0). Load per count (feed_/speed_/
// limitScale_ fields): 1 market at the stress rates x8 with real limits; more at the emulator's
// real-feed calibration (defaultSyntheticParams) in real time with limits x10 and risk caps scaled
// to the count (MAKERD_BENCH_FEED=stress, MAKERD_BENCH_SPEED, MAKERD_BENCH_LIMIT_SCALE override).
// Only places sent in the causing frame's read are samples; offTurn counts the other place calls
// while measuring (user-channel fills, a cancel's response, a free in-flight slot, the timer).
// machine_* is a floor measured first: how often a spinning thread of this process is not scheduled
// for > 0.5 ms (other processes on a shared machine); each such gap inside a sample adds to the tail,
// and machine_hit_pct_N is the share of samples such gaps are expected to hit (gaps per second x
// (gap p50 + sample p50)): above 1 % the p99 measures the machine. preempted_N counts the samples in
// which the measured thread waited > 300 us to be scheduled (its run delay in
// /proc/thread-self/schedstat: ready but not running), and p99_unpreempted_us_N is the p99 of the others.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { openSync, readSync } from 'node:fs';
import { defaultSyntheticParams, stressSyntheticParams, type SyntheticParams } from '../emulator/agents.js';
import { forkEmulator } from './emulator-child.js';
import { loadConfig } from '../config.js';
import { silentLogger } from '../core/log.js';
import { formatPrice, formatSize } from '../core/units.js';
import { createClients } from '../api/index.js';
import { BookMirror } from '../book/mirror.js';
import { FeedConnection } from '../feed/connection.js';
import { channelOptions } from '../feed/channels.js';
import { createMarketDecodeStats } from '../feed/decode-market.js';
import { MarketPipeline } from '../feed/market-pipeline.js';
import { createUserDecodeStats, decodeUserFrame } from '../feed/decode-user.js';
import type { UserEvent } from '../core/events.js';
import { LiveVenue } from '../venue/live-venue.js';
import { WallClock } from '../core/clock.js';
import { SeededRng } from '../core/rng.js';
import { Engine } from '../engine/engine.js';
import { loadStrategy } from '../strategy/loader.js';
import { marketsFromTokens } from '../session/markets.js';
import { urlsEnv } from '../emulator/server.js';

const KEY = 'bench-key';
/** Measured time per market count (MAKERD_BENCH_RUN_MS): ~100 samples per 8 s, so 20 s puts p99 above the top 2. */
const RUN_MS = Number(process.env.MAKERD_BENCH_RUN_MS) > 0 ? Number(process.env.MAKERD_BENCH_RUN_MS) : 20_000;
const WARM_MS = 2000;
const PROBE_MS = 1000;
/** Limits scale at more than 1 market (see loadFor). */
const LIMIT_SCALE_N = 10;

function pct(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Spins for ms and returns the gaps > 0.5 ms in which this thread did not run, in ms. */
function preemptionGaps(ms: number): number[] {
  const gaps: number[] = [];
  let last = performance.now();
  const end = last + ms;
  while (last < end) {
    const t = performance.now();
    if (t - last > 0.5) gaps.push(t - last);
    last = t;
  }
  return gaps.sort((a, b) => a - b);
}

/** Market counts measured, one emulator run each: MAKERD_BENCH_MARKETS="1,100" (default). */
function marketCounts(): number[] {
  const v = process.env.MAKERD_BENCH_MARKETS ?? '1,100';
  const ns = v
    .split(',')
    .map((x) => Number(x.trim()))
    .filter((n) => Number.isInteger(n) && n > 0);
  return ns.length ? ns : [1, 100];
}

export async function run(): Promise<Record<string, unknown>> {
  const gaps = preemptionGaps(PROBE_MS);
  const out: Record<string, unknown> = { bench: 'tick_to_order', goal_p99_us_1: 1000, goal_p99_us_100: 1500 };
  for (const n of marketCounts()) {
    const r = await runMarkets(n);
    for (const [k, v] of Object.entries(r)) out[`${k}_${n}`] = v;
  }
  const gapP50Us = pct(gaps, 50) * 1000;
  for (const n of marketCounts()) {
    const p50 = out[`p50_us_${n}`];
    // no gap in the probe: none expected to hit
    out[`machine_hit_pct_${n}`] = gaps.length && typeof p50 === 'number' ? Math.round(((gaps.length * 1000) / PROBE_MS) * (gapP50Us + p50) * 1e-4 * 100) / 100 : 0;
  }
  return {
    ...out,
    machine_gaps_per_s: Math.round((gaps.length * 1000) / PROBE_MS),
    machine_gap_p50_us: Math.round(pct(gaps, 50) * 1000),
    machine_gap_max_us: Math.round((gaps[gaps.length - 1] ?? NaN) * 1000),
  };
}

/** How a market count is run: feed rates, emulator speed, and the limits scale (emulator and client alike). */
interface Load {
  feed: 'stress' | 'calibrated';
  params: Partial<SyntheticParams>;
  speed: number;
  limitScale: number;
}

function loadFor(nMarkets: number): Load {
  // 1 market: the stress rates at 8x, real limits (unchanged). More markets: the emulator's
  // real-feed calibration at real time, and limits scaled (MAKERD_BENCH_LIMIT_SCALE) so the rate
  // windows do not fill: a full window sends places later on the scheduler's timer, not in the
  // turn of the frame that caused them, and those are not tick-to-order (offTurn counts them).
  if (nMarkets === 1) return { feed: 'stress', params: stressSyntheticParams, speed: 8, limitScale: 1 };
  const env = Number(process.env.MAKERD_BENCH_LIMIT_SCALE);
  const speed = Number(process.env.MAKERD_BENCH_SPEED);
  const stress = process.env.MAKERD_BENCH_FEED === 'stress';
  return {
    feed: stress ? 'stress' : 'calibrated',
    params: stress ? stressSyntheticParams : defaultSyntheticParams,
    speed: speed > 0 ? speed : 1,
    limitScale: env > 0 ? env : LIMIT_SCALE_N,
  };
}

async function runMarkets(nMarkets: number): Promise<Record<string, unknown>> {
  const load = loadFor(nMarkets);
  // the emulator in a process of its own: its work does not share the measured event loop
  const emu = await forkEmulator({ seed: 11, speed: load.speed, markets: nMarkets, keys: [KEY], params: load.params, limitScale: load.limitScale });
  const u = emu.urls;
  const config = loadConfig({
    env: {
      ...urlsEnv(u),
      MAKERD_LIMIT_SCALE: String(load.limitScale),
    },
    // Global risk caps scaled to the market count (the defaults, 40 open orders, hold most
    // markets' places until another order leaves: those would be off-turn, not tick-to-order).
    overrides: { reconciler: { debounceMs: 0 }, risk: { maxOpenOrders: 8 * nMarkets, maxTotalNotional: 1e9 } },
  });
  const clock = new WallClock();
  const clients = createClients(config, KEY, silentLogger);
  const markets = await marketsFromTokens(clients.clob, emu.tokens, silentLogger);
  const tokens = markets.flatMap((m) => [m.tokenId, m.complementId]);
  const timing = { ...config.feed };
  const mirror = new BookMirror({ verifyEvery: 1, now: () => clock.now() });
  for (const m of markets)
    for (const t of [m.tokenId, m.complementId]) mirror.setMeta(t, { market: m.conditionId, minOrderSize: formatSize(m.minSize), tickSize: formatPrice(m.tick), negRisk: m.negRisk });
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
  // as the daemon (live): the order connections open now and stay open
  clients.clob.transport.keepSubmitWarm();
  const venue = new LiveVenue({ clob: clients.clob, subscribeUser: (fn) => userListeners.push(fn), tickOf: (t) => mirror.book(t)?.tick || 100, log: silentLogger });
  // Which frame caused each POST /orders: the frame being handled when placeOrders was called.
  // A record per call, matched to its undici request at request:create (calls dispatch in order).
  interface Rec {
    read: number;
    frame: number;
    call: number;
    dispatch: number;
    /** The end of the causing read's frames (the read's callback). */
    chunkEnd: number;
    /** Frames in the causing read. */
    readFrames: number;
    gathered: boolean;
    measured: boolean;
    /** This thread's run delay (ns waiting to be scheduled) at the causing read, and its growth up to the write, in us. */
    readDelay: number;
    delayUs: number;
  }
  let frameT = NaN;
  let readT = NaN;
  let gatherRead = NaN;
  let readDelay = NaN;
  let gatherDelay = NaN;
  let warmUntil = Infinity;
  let chunkOpen: Rec[] | undefined;
  let chunkFrames = 0;
  let lastChunkEnd = NaN;
  let lastReadFrames = 0;
  const undispatched: Rec[] = [];
  const byRequest = new WeakMap<object, Rec>();
  const done: Rec[] = [];
  // place calls while measuring outside any frame's turn (the scheduler's timer: a full window)
  let offTurn = 0;
  const sent: number[] = [];
  const place = venue.placeOrders.bind(venue);
  venue.placeOrders = (reqs) => {
    const now = performance.now();
    // gathered (the engine in real time): requoted and sent in microtasks after the read's
    // frames, so measured from the read's first frame, the earliest that can have caused it
    const gathered = frameT !== frameT && gatherRead === gatherRead;
    const read = gathered ? gatherRead : readT;
    const frame = gathered ? gatherRead : frameT;
    const rec: Rec = {
      read,
      frame,
      call: now,
      dispatch: NaN,
      chunkEnd: gathered ? lastChunkEnd : NaN,
      readFrames: gathered ? lastReadFrames : 0,
      gathered,
      measured: frame === frame && frame > warmUntil,
      readDelay: gathered ? gatherDelay : readDelay,
      delayUs: NaN,
    };
    if (!rec.measured && frame !== frame && now > warmUntil) offTurn++;
    undispatched.push(rec);
    chunkOpen?.push(rec);
    return place(reqs);
  };
  const isSubmit = (r: { method: string; path: string }) => r.method === 'POST' && r.path.endsWith('/orders');
  const onCreate = (msg: unknown) => {
    const req = (msg as { request: { method: string; path: string } }).request;
    if (!isSubmit(req)) return;
    const rec = undispatched.shift();
    if (!rec) return;
    rec.dispatch = performance.now();
    byRequest.set(req, rec);
  };
  const onBodySent = (msg: unknown) => {
    const req = (msg as { request: { method: string; path: string } }).request;
    const rec = isSubmit(req) ? byRequest.get(req) : undefined;
    if (!rec?.measured) return;
    sent.push(performance.now());
    rec.delayUs = (runDelayNs() - rec.readDelay) / 1000;
    done.push(rec);
  };
  // new connections opened while measuring: all (the cancels' and reads' pools too) and for orders
  let connects = 0;
  let submitConnects0 = NaN;
  const onConnect = () => void (performance.now() > warmUntil && connects++);
  subscribe('undici:request:create', onCreate);
  subscribe('undici:request:bodySent', onBodySent);
  subscribe('undici:client:beforeConnect', onConnect);
  const strategy = await loadStrategy('template', { edgeTicks: 0, size: 5 });
  const engine = new Engine({
    clock,
    rng: new SeededRng(1),
    log: silentLogger,
    venue,
    limiter: clients.limiter,
    recordLimiterUse: false,
    books: mirror,
    strategy,
    config: { ...config, risk: { ...config.risk, dailyLossLimit: 1e9 } },
    markets,
    // as the daemon: the places of one socket read's frames leave in one batch
    realTime: process.env.MAKERD_BENCH_GATHER !== '0',
  });
  // the pipeline of every mode: decode once, mirror, engine
  const pipeline = new MarketPipeline({ mirror, stats: createMarketDecodeStats() });
  pipeline.connect({ engine });
  market.onFrame((f) => {
    // frames that arrive in one socket read are handled in one callback; its end is the chunk end
    if (!chunkOpen) {
      readT = f.t;
      readDelay = runDelayNs();
      const recs: Rec[] = (chunkOpen = []);
      chunkFrames = 0;
      queueMicrotask(() => {
        const t = performance.now();
        for (const r of recs) {
          r.chunkEnd = t;
          r.readFrames = chunkFrames;
        }
        chunkOpen = undefined;
        lastChunkEnd = t;
        lastReadFrames = chunkFrames;
        // the engine's requotes run in a microtask queued after this one, during the first frame,
        // and the sends they gather in one it queues: the read stays the cause until the second
        // microtask from here, which runs after both
        gatherRead = readT;
        gatherDelay = readDelay;
        queueMicrotask(() => queueMicrotask(() => (gatherRead = NaN)));
      });
    }
    frameT = f.t;
    chunkFrames++;
    pipeline.frame(f.epoch, f.text);
    frameT = NaN;
  });
  market.onState((s) => engine.setFeedLive(s === 'live'));
  user.start([]);
  market.start(tokens);
  engine.start();
  // The first seconds (connections opening, JIT) are not measured.
  warmUntil = performance.now() + WARM_MS;
  setTimeout(() => (submitConnects0 = clients.clob.transport.submitConnects), WARM_MS);
  await new Promise((r) => setTimeout(r, RUN_MS + WARM_MS));
  const submitConnects = clients.clob.transport.submitConnects - submitConnects0;
  await engine.stop();
  market.stop();
  user.stop();
  unsubscribe('undici:request:create', onCreate);
  unsubscribe('undici:client:beforeConnect', onConnect);
  unsubscribe('undici:request:bodySent', onBodySent);
  await clients.close();
  await emu.close();
  const us = (f: (r: Rec, i: number) => number) => done.map((r, i) => f(r, i) * 1000).sort((x, y) => x - y);
  const q = (v: number[], p: number) => Math.round(pct(v, p));
  const total = us((r, i) => sent[i] - r.read);
  const beforeUs = us((r) => r.frame - r.read);
  const fromFrame = us((r, i) => sent[i] - r.frame);
  const engineUs = us((r) => r.call - r.frame);
  const dispatchUs = us((r) => r.dispatch - r.call);
  const writeUs = us((r, i) => sent[i] - r.dispatch);
  const chunkRestUs = us((r) => (!r.gathered && r.chunkEnd === r.chunkEnd ? r.chunkEnd - r.call : 0));
  const g = done.filter((r) => r.gathered);
  const gus = (f: (r: Rec) => number) => g.map((r) => f(r) * 1000).sort((x, y) => x - y);
  const readUs = gus((r) => r.chunkEnd - r.read);
  const requoteUs = gus((r) => r.call - r.chunkEnd);
  const readFrames = done.map((r) => r.readFrames).sort((x, y) => x - y);
  // a sample in which this thread waited more than PREEMPTED_US to be scheduled (its run delay: the
  // machine ran something else while it was ready), and the p99 of the others; NaN without schedstat
  const preempted = done.filter((r) => r.delayUs > PREEMPTED_US).length;
  const unpreempted = done
    .map((r, i) => ({ wall: (sent[i] - r.read) * 1000, delay: r.delayUs }))
    .filter((x) => !(x.delay > PREEMPTED_US))
    .map((x) => x.wall)
    .sort((x, y) => x - y);
  return {
    feed: load.feed,
    speed: load.speed,
    limitScale: load.limitScale,
    samples: done.length,
    offTurn,
    p50_us: q(total, 50),
    p90_us: q(total, 90),
    p99_us: q(total, 99),
    max_us: Math.round(total[total.length - 1] ?? NaN),
    // from the causing frame's own receive time (the read's earlier frames excluded)
    fromFrame_p99_us: q(fromFrame, 99),
    frames: market.counters.frames,
    batches: engine.scheduler.stats.placeBatches,
    chunkBefore_p99_us: q(beforeUs, 99),
    engine_p50_us: q(engineUs, 50),
    engine_p99_us: q(engineUs, 99),
    dispatch_p50_us: q(dispatchUs, 50),
    dispatch_p99_us: q(dispatchUs, 99),
    write_p50_us: q(writeUs, 50),
    write_p99_us: q(writeUs, 99),
    chunkRest_p99_us: q(chunkRestUs, 99),
    // samples sent at their read's end (the engine in real time): the read's frames (decode,
    // mirror), then the requotes up to the venue's placeOrders call
    atReadEnd: g.length,
    read_p50_us: q(readUs, 50),
    read_p99_us: q(readUs, 99),
    requote_p50_us: q(requoteUs, 50),
    requote_p99_us: q(requoteUs, 99),
    readFrames_p50: pct(readFrames, 50),
    readFrames_p99: pct(readFrames, 99),
    connects,
    submitConnects,
    preempted: schedstat === undefined ? null : preempted,
    p99_unpreempted_us: schedstat === undefined ? null : q(unpreempted, 99),
  };
}

/** Run delay within one sample past which it counts as preempted. */
const PREEMPTED_US = 300;

/** This (the main) thread's schedstat, opened once: run time, run delay (ns), timeslices; undefined off Linux. */
const schedstat = ((): number | undefined => {
  try {
    return openSync('/proc/thread-self/schedstat', 'r');
  } catch {
    return undefined;
  }
})();
const schedBuf = Buffer.alloc(96);

/** The main thread's run delay so far in ns (time ready to run but not running), NaN without schedstat; a pread, ~1 us. */
function runDelayNs(): number {
  if (schedstat === undefined) return NaN;
  const n = readSync(schedstat, schedBuf, 0, schedBuf.length, 0);
  const text = schedBuf.toString('latin1', 0, n);
  const a = text.indexOf(' ');
  const b = text.indexOf(' ', a + 1);
  return Number(text.slice(a + 1, b));
}
