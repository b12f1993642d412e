// The backtest driver: streams recordings (src/feed/replay.ts) through the market pipeline of
// every mode (feed/market-pipeline.ts) into the same engine, strategy, reconciler, risk gate and
// scheduler as live, against the SimulatedVenue, on a VirtualClock. Per frame: advance virtual
// time to its receive time (firing due timers: latencies, debounces, limiter), then the pipeline
// shows the events to the venue (the exchange's true view) and, sim.feedLatencyMs later (our view
// lags), to the mirror and the engine; a recorded reconnect (a new epoch) puts every book out of
// sync as it does live. Memory is constant in the recording length.
import type { Config } from '../config.js';
import type { Logger } from '../core/log.js';
import { silentLogger } from '../core/log.js';
import type { CryptoPriceEvent, MarketEvent } from '../core/events.js';
import { DecodeStats } from '../feed/decode-stats.js';
import { decodePriceFrame } from '../feed/price-stream.js';
import { createMarketDecodeStats } from '../feed/decode-market.js';
import { MarketPipeline } from '../feed/market-pipeline.js';
import { BookMirror } from '../book/mirror.js';
import type { DenseBook } from '../book/book.js';
import { VirtualClock } from '../core/clock.js';
import { SeededRng } from '../core/rng.js';
import { Engine } from '../engine/engine.js';
import { notQuotes } from '../engine/quote-checks.js';
import type { Fill } from '../engine/fills.js';
import { loadStrategy, type LoadedStrategy } from '../strategy/loader.js';
import { Limiter } from '../api/limiter.js';
import { simMarketOf, simulatedVenueFromConfig } from '../venue/simulated-venue.js';
import { StatsCollector, type ChartData } from '../report/stats.js';
import { MarketDiscovery } from './markets.js';
import { hashedFieldsOf, parseMetaFrame } from './market-meta-line.js';
import type { FeeRule } from '../core/fees.js';
import { StatsJournal } from './journal.js';
import { RateUse } from './rate-use.js';
import { contentSize, type ProgressSink } from './progress.js';
import { KIND_META, KIND_OTHER, KIND_PRICE, inlineRecords, readerThreadBuilt, threadedRecords, type ReadError, type ReaderThreadOptions } from './record-source.js';
import { buildResult, type BacktestResult } from './result.js';

export type { BacktestResult } from './result.js';

export interface BacktestOptions {
  /** Recordings, replayed in this order as one stream (a file that starts before the previous one ended, or over 30 days after, is shifted to follow it). */
  data: string[];
  /** Resolved config: strategy, reconciler, risk, scheduler, limits, book and sim sections are used. */
  config: Config;
  /** Point budget per chart series. */
  maxPoints?: number;
  /** Makes the progress display once the input size is known (command line: a bar on stderr). */
  progress?: (totalBytes: number) => ProgressSink;
  log?: Logger;
  /** Every fill of ours as the engine records it (parity checks, custom analysis). */
  onFill?: (f: Fill) => void;
  /**
   * Fee rules from market metadata, by condition id (recordings carry none): such a market's fills
   * are charged by its rule (core/fees.ts), the others by sim.makerFeeBps / sim.takerFeeBps.
   */
  feeRules?: ReadonlyMap<string, FeeRule>;
  /**
   * Read and decode the recordings in a thread of their own while this one runs the engine (the
   * same result, on two cores). Default: on when running the compiled build, off from TypeScript
   * source (the thread's module needs a loader then: readerThreadOptions.execArgv).
   */
  readerThread?: boolean;
  readerThreadOptions?: ReaderThreadOptions;
}

export interface BacktestOutput {
  result: BacktestResult;
  charts: ChartData;
  /** Wall time and rate: stdout only, never in result.json. */
  timing: { wallMs: number; records: number; events: number; eventsPerSec: number };
  /** What the strategy threw (result.json has the count and the first message when any). */
  strategyErrors: StrategyErrors;
  /** Files that started before the one before them ended (or over 30 days after), moved in time to follow it (result.json: feed.shiftedFiles, the count). */
  shifted: ShiftedFile[];
}

/** A file of the run moved in time (`shiftMs`: later when positive, earlier when negative) to follow the one before it (index `file` in the data list). */
export interface ShiftedFile {
  file: number;
  shiftMs: number;
}

/** The strategy's own throws (quote, onTrade, onFill), which the engine catches and counts among its errors. */
export interface StrategyErrors {
  count: number;
  /** The first one, with its stack. */
  first?: Error;
}

/** Thrown out of a backtest when the strategy's create() throws (no market can run without it). */
export class StrategyCreateError extends Error {
  constructor(readonly thrown: Error) {
    super(`the strategy's create() threw: ${thrown.message}`);
    this.name = 'StrategyCreateError';
  }
}

/**
 * The loaded strategy with every instance watched: a throw from quote, onTrade or onFill is
 * counted (the first kept) and thrown on, so the engine handles it exactly as before.
 */
function watchStrategy(s: LoadedStrategy, errors: StrategyErrors): LoadedStrategy {
  const seen = (e: unknown): void => {
    errors.count++;
    if (errors.first === undefined) errors.first = e instanceof Error ? e : new Error(String(e));
  };
  const create = s.module.create.bind(s.module);
  return {
    params: s.params,
    module: {
      ...s.module,
      create(params, market) {
        let inner;
        try {
          inner = create(params, market);
        } catch (e) {
          throw new StrategyCreateError(e instanceof Error ? e : new Error(String(e)));
        }
        // the instance itself is the prototype: its other members (reads, state) are untouched.
        // The hooks are defined on the wrapper, not assigned: an assignment over a frozen
        // instance's (read-only) member throws in strict mode, where live takes the instance as is
        const w = Object.create(inner) as typeof inner;
        const own = <K extends 'quote' | 'onTrade' | 'onFill' | 'onFillReversed'>(k: K, f: (typeof inner)[K]): void =>
          void Object.defineProperty(w, k, { value: f, writable: true, configurable: true, enumerable: true });
        own('quote', (ctx, book) => {
          let qs;
          try {
            qs = inner.quote(ctx, book);
          } catch (e) {
            seen(e);
            throw e;
          }
          // what the engine refuses as no quotes (an async quote) fails the run as a throw does
          const notArray = notQuotes(qs);
          if (notArray) seen(notArray);
          return qs;
        });
        // the optional hooks, counted the same way
        const watched =
          <A extends unknown[]>(f: (...a: A) => void) =>
          (...a: A): void => {
            try {
              f.apply(inner, a);
            } catch (e) {
              seen(e);
              throw e;
            }
          };
        if (inner.onTrade) own('onTrade', watched(inner.onTrade));
        if (inner.onFill) own('onFill', watched(inner.onFill));
        if (inner.onFillReversed) own('onFillReversed', watched(inner.onFillReversed));
        return w;
      },
    },
  };
}

const VENUE_HISTORY = 5_000;

/**
 * Lets promise continuations (scheduler, engine) run before virtual time moves on. A nextTick
 * callback runs only once the microtask queue is empty (chained continuations included), so this
 * drains as fully as setImmediate without a turn of the event loop (~8 µs each, tens of
 * thousands per run). Nothing in a backtest waits on I/O or real timers.
 */
const settle = (): Promise<void> => new Promise((r) => process.nextTick(r));

export async function runBacktest(o: BacktestOptions): Promise<BacktestOutput> {
  const wall0 = performance.now();
  const cfg = o.config;
  const log = o.log ?? silentLogger;
  const feedLatency = cfg.sim.feedLatencyMs;
  const strategyErrors: StrategyErrors = { count: 0 };
  const strategy = watchStrategy(await loadStrategy(cfg.strategy.name, cfg.strategy.params), strategyErrors);
  const clock = new VirtualClock(0);
  const stats = new StatsCollector({ maxPoints: o.maxPoints });
  const journal = new StatsJournal(stats, clock, o.onFill);
  const mirror = new BookMirror({ verifyEvery: cfg.book.verifyEvery, groupIdleMs: cfg.book.groupIdleMs, now: () => clock.now(), log });
  const limiter = new Limiter({ clock, scale: cfg.limits.scale, windowScale: cfg.limits.windowScale, signerTier: cfg.sim.signerTier === 'none' ? undefined : cfg.sim.signerTier });
  const sim = cfg.sim;
  // A backtest never asks the venue about old orders (no restart reconciliation), so it keeps a
  // short history: memory stays flat over millions of orders.
  const venue = simulatedVenueFromConfig(sim, clock, [], log, VENUE_HISTORY);
  const engine = new Engine({
    // a create() that throws fails the run, naming it (StrategyCreateError), not a silent market
    onCreateError: 'throw',
    clock,
    rng: new SeededRng(cfg.sim.seed),
    log,
    venue,
    limiter,
    recordLimiterUse: true,
    books: mirror,
    strategy,
    config: cfg,
    markets: [],
    journal,
  });
  const discovery = new MarketDiscovery(o.feeRules);
  const markets: BacktestResult['markets'] = [];
  const rateUse = new RateUse(limiter);
  const decodeStats = createMarketDecodeStats(log);
  const pipeline = new MarketPipeline({ mirror, stats: decodeStats, lagMs: feedLatency, clock });
  let started = false;
  let records = 0;
  let otherChannels = 0;
  let shiftedFiles = 0;
  let nextRateSample = 0;
  // Set when engine work may have left promise continuations queued (a user event, a requote, a
  // new market); they run (settle) before the next frame, and never during the reader's await, so
  // I/O timing cannot change a result. Timers settle in advance().
  let unsettled = false;
  venue.onUserEvent(() => {
    unsettled = true;
  });

  /** The engine's side of each event (after the mirror applied it): strategy, then our marks. */
  const toEngine = {
    handleMarketEvent(e: MarketEvent): void {
      // market events reach the scheduler (promises) only through a requote
      const requotes = engine.counters.requotes;
      engine.handleMarketEvent(e);
      if (engine.counters.requotes !== requotes) unsettled = true;
      const t = clock.now();
      if (e.type === 'book') markToken(e.assetId, t);
      else if (e.type === 'price_change') {
        let last = '';
        for (const c of e.changes) if (c.assetId !== last) markToken((last = c.assetId), t);
      } else if (e.type === 'market_resolved') {
        // valued at what they pay from here, whatever a book still shows (as the engine does)
        for (const a of e.assetIds) {
          const v = engine.settledMark(a);
          if (v === undefined) continue;
          settled.add(a);
          stats.mark(a, t, v, v);
        }
      }
    },
  };
  pipeline.connect({ venue, engine: toEngine });
  // A mark with the token's last marked top again changes nothing in the statistics (the same mid;
  // their clock catches up on the next call that can change a figure), so it is skipped.
  const marked = new Map<string, { book: DenseBook; bid: number; ask: number }>();
  // the last two tokens answer almost every lookup (a binary market's entries alternate)
  let mark0: { book: DenseBook; bid: number; ask: number } | undefined;
  let mark1: { book: DenseBook; bid: number; ask: number } | undefined;
  const settled = new Set<string>();
  const markToken = (assetId: string, t: number): void => {
    if (settled.size > 0 && settled.has(assetId)) return;
    let m = mark0;
    if (m === undefined || m.book.assetId !== assetId) {
      m = mark1;
      if (m === undefined || m.book.assetId !== assetId) {
        m = marked.get(assetId);
        if (m === undefined) {
          const book = mirror.book(assetId);
          if (book === undefined) return;
          m = { book, bid: NaN, ask: NaN };
          marked.set(assetId, m);
        }
      }
      mark1 = mark0;
      mark0 = m;
    }
    const b = m.book;
    if (!b.inSync()) return;
    const bid = b.bestBid();
    const ask = b.bestAsk();
    if (bid === m.bid && ask === m.ask) return;
    m.bid = bid;
    m.ask = ask;
    stats.mark(assetId, t, bid, ask);
  };

  /** Moves virtual time to `to`: timers and lagged feed events in time order (timers first on a tie). */
  const advance = async (to: number): Promise<void> => {
    for (;;) {
      const tt = clock.nextTimerAt();
      const ft = pipeline.nextDueAt();
      if (tt > to && ft > to) break;
      if (tt <= ft) {
        clock.advanceTo(tt);
        await settle();
      } else {
        clock.advanceTo(ft);
        pipeline.deliverNext();
      }
    }
    clock.advanceTo(to);
    if (to >= nextRateSample) {
      rateUse.sample();
      nextRateSample = to - (to % 1000) + 1000;
    }
  };

  let progress: ProgressSink | undefined;
  if (o.progress) {
    let totalBytes = 0;
    for (const p of o.data) totalBytes += await contentSize(p);
    progress = o.progress(totalBytes);
  }
  let bytesRead = 0;

  const priceBuf: CryptoPriceEvent[] = [];
  const priceStats = new DecodeStats('price', log);
  // the recordings read and their market frames decoded, here or in a reader thread (record-source.ts)
  const useThread = o.readerThread ?? readerThreadBuilt();
  const bytes = progress !== undefined;
  // files not read to their end (result.json's feed.readErrors; the command exits 1 on them)
  const readErrors: ReadError[] = [];
  const onReadError = (e: ReadError): void => {
    readErrors.push(e);
  };
  const chunks = useThread ? threadedRecords(o.data, decodeStats, { ...o.readerThreadOptions, bytes, onReadError }) : inlineRecords(o.data, decodeStats, { bytes, onReadError });
  let file = -1;
  const shifted: ShiftedFile[] = [];
  let offset = 0;
  /** The current file's shift in time (it started before the last one ended): its exchange stamps move with it; a jump inside a file moves receive times only. */
  let fileShift = 0;
  /** The receive times' step back inside the current file, while the events after it are yet to say whether their stamps stepped back too. */
  let stampStep = 0;
  /** The latest exchange stamp of a market event so far (after shifts). */
  let lastStamp = 0;
  let first = true;
  /** Lines with a time no recorder wrote (badRecordTime), and jumps inside a file closed up (MAX_GAP_MS, MAX_STEP_BACK_MS). */
  let badTimes = 0;
  let timeJumps = 0;
  for await (const chunk of chunks) {
    for (let rec = chunk.next(); rec !== undefined; rec = chunk.next()) {
      if (unsettled) {
        unsettled = false;
        await settle();
      }
      if (rec.file !== file) {
        file = rec.file;
        offset = 0;
        fileShift = 0;
        stampStep = 0;
        first = true;
      }
      records++;
      if (progress) {
        bytesRead += rec.bytes;
        if ((records & 1023) === 0) progress.update(bytesRead, decodeStats.events);
      }
      const isPrice = rec.kind === KIND_PRICE;
      if (rec.kind === KIND_OTHER) {
        otherChannels++;
        continue;
      }
      if (rec.kind === KIND_META) {
        // the market as the recorder knew it: priced token, end, fee rule (before its first frame)
        const m = parseMetaFrame(rec.f);
        if (typeof m === 'string') decodeStats.reject(`market_meta: ${m}`, rec.f);
        else {
          discovery.declare(m);
          // the hashed fields the WS frames omit (min_order_size, neg_risk), as live takes them from the market
          mirror.setMeta(m.tokenId, hashedFieldsOf(m));
          mirror.setMeta(m.complementId, hashedFieldsOf(m));
        }
        continue;
      }
      const bad = badRecordTime(rec.t);
      if (bad) {
        // replayed at the time before it (the frame is kept: a book misses none of its changes);
        // before any start there is no time to give it
        badTimes++;
        if (badTimes === 1) log.warn({ file: o.data[file], t: rec.t }, 'backtest: a recording line with a time no recorder wrote; replayed at the time before it (counted: feed.badTimes)');
        if (!started) continue;
      } else if (first) {
        // a raw capture's line with no time of its own before the first that has one (a PONG): t 0.
        // It places nothing in time: neither the clock's start (which would then tick its way to
        // the next frame, decades later) nor the file's shift; before any start it is skipped
        if (rec.t <= 0) {
          if (!started) continue;
        } else {
          first = false;
          // a file that starts before the last one ended, or more than MAX_GAP_MS after it, follows
          // on from it: a gap that long would be ticked through a second at a time (years: for ever)
          if (started && (rec.t < clock.now() || rec.t - clock.now() > MAX_GAP_MS)) {
            offset = clock.now() + 1 - rec.t;
            fileShift = offset;
            shiftedFiles++;
            shifted.push({ file, shiftMs: offset });
          }
        }
      } else if (started && rec.t > 0) {
        // a jump inside a file of more than MAX_GAP_MS ahead, or MAX_STEP_BACK_MS back (a flipped
        // digit, captures joined by cat out of order): what comes after it follows on from the line
        // before (and back from a bad one). A smaller step back (a clock set back) replays at once
        const at = rec.t + offset;
        const now = clock.now();
        if (at - now > MAX_GAP_MS || now - at > MAX_STEP_BACK_MS) {
          // back from a flipped digit the venue's stamps were right all along; a step back of the
          // recording itself (captures joined out of order) took them back too: the next events say which
          if (now - at > MAX_STEP_BACK_MS) stampStep = now + 1 - rec.t - offset;
          offset = now + 1 - rec.t;
          timeJumps++;
          if (timeJumps === 1)
            log.warn(
              { file: o.data[file], t: rec.t },
              'backtest: a jump inside a recording (over 30 days ahead, or over a minute back); what follows it follows on from the line before (counted: feed.timeJumps)',
            );
        }
      }
      const t = bad ? clock.now() : rec.t + offset;
      if (!started) {
        started = true;
        clock.advanceTo(t);
        nextRateSample = t;
        // the collateral the BUYs may promise (sim.cashUsd), known before the first quote
        await engine.collateral.read();
        engine.start();
        unsettled = true;
      }
      const to = t > clock.now() ? t : clock.now();
      // fast path: nothing due before this frame (most frames), no promise needed
      if (clock.nextTimerAt() > to && pipeline.nextDueAt() > to && to < nextRateSample) clock.advanceTo(to);
      else await advance(to);
      if (isPrice) {
        // the price stream, on the same clock: strategies read it as ctx.referencePrice
        priceBuf.length = 0;
        decodePriceFrame(rec.f, priceBuf, priceStats);
        // a shifted file's source stamps move with its receive times: older than the last file's,
        // every price would be dropped as stale and the reference would freeze
        for (const e of priceBuf) {
          if (offset !== 0) e.timestampMs += offset;
          // our view of the price stream lags as the books' does (sim.feedLatencyMs, from the clock as
          // a market frame's: a line stepped back is replayed now): sooner, the reference would lead
          // the book by the lag more than when recorded
          if (feedLatency > 0) {
            const late = { ...e };
            clock.schedule(clock.now() + feedLatency, () => engine.handleReferencePrice(late));
          } else engine.handleReferencePrice(e);
        }
        if (priceBuf.length) unsettled = true;
        continue;
      }
      const events = rec.events;
      // a shifted file's exchange stamps move with it, as its price stamps do (a jump of its receive
      // times alone inside a file does not move them: the venue's stamps were right): the
      // simulated venue orders prints and our orders' arrival by them (a print stamped before an
      // order joined cannot fill it), and the first file's later stamps would outrank every one here
      if (stampStep !== 0 && events.length > 0) {
        // the first events after a step back: stamps a minute or more behind the latest seen went back with the receive times
        for (let i = 0; i < events.length; i++) {
          const ts = events[i].timestampMs;
          if (ts > 0 && ts + fileShift < lastStamp - MAX_STEP_BACK_MS) {
            fileShift += stampStep;
            break;
          }
        }
        stampStep = 0;
      }
      for (let i = 0; i < events.length; i++) {
        const e = events[i];
        if (e.timestampMs <= 0) continue;
        if (fileShift !== 0) e.timestampMs += fileShift;
        if (e.timestampMs > lastStamp) lastStamp = e.timestampMs;
      }
      // a rejected price_change: its tokens' books missed an update (out of sync, as live)
      if (!rec.rejected.empty()) pipeline.rejectedElsewhere(rec.rejected, events.length > 0);
      if (events.length === 0) continue;
      for (let i = 0; i < events.length; i++) {
        const found = discovery.see(events[i]);
        if (!found) continue;
        const m = found.meta;
        venue.addMarket(simMarketOf(m));
        mirror.setMeta(m.tokenId, { market: m.conditionId });
        mirror.setMeta(m.complementId, { market: m.conditionId });
        journal.addMarket(m);
        stats.market(m.tokenId, m.complementId, clock.now());
        engine.addMarket(m);
        unsettled = true;
        markets.push(
          m.feeRule
            ? { conditionId: m.conditionId, tokenId: m.tokenId, complementId: m.complementId, feeRule: m.feeRule }
            : { conditionId: m.conditionId, tokenId: m.tokenId, complementId: m.complementId },
        );
        // the first token's snapshot (and its events after it) came before its market was known: the venue needs them too
        for (const b of found.backlog) if (!events.includes(b)) venue.onMarketEvent(b);
      }
      pipeline.dispatch(rec.e, events);
    }
    // always before the reader's await, whatever was missed above
    unsettled = false;
    await settle();
  }
  // let the last events reach the engine; what is still in flight at the end stays unsettled
  if (pipeline.lastDueAt() < Infinity) await advance(pipeline.lastDueAt());
  await settle();
  progress?.done();

  const end = clock.now();
  const s = stats.finish(end);
  await venue.close();
  const result = buildResult({
    data: o.data,
    config: cfg,
    params: strategy.params,
    feed: { records, otherChannels, shiftedFiles, readErrors, badTimes, timeJumps, decode: decodeStats, prices: priceStats },
    markets,
    stats: s,
    engine,
    rateUse,
    venue: venue.stats(),
    strategyErrors,
  });
  const wallMs = performance.now() - wall0;
  return {
    result,
    charts: stats.charts(),
    timing: { wallMs, records, events: decodeStats.events, eventsPerSec: wallMs > 0 ? (decodeStats.events * 1000) / wallMs : 0 },
    strategyErrors,
    shifted,
  };
}

/** 2000-01-01 and 2100-01-01 (ms): a recording line's time outside them is no receive time. */
const MIN_RECORD_T = 946_684_800_000;
const MAX_RECORD_T = 4_102_444_800_000;
/** A gap in the recording longer than this is closed up (a file, or a jump inside one, follows on from the line before): it would be ticked through a second at a time. */
const MAX_GAP_MS = 30 * 86_400_000;
/** A step back inside a file longer than this is no clock set back but lines out of order (captures joined by cat): they follow on. */
const MAX_STEP_BACK_MS = 60_000;

/** Whether a line's time is one no recorder wrote: not finite, or outside 2000..2100. 0 is a raw capture's untimed line. */
function badRecordTime(t: number): boolean {
  return t !== 0 && !(t >= MIN_RECORD_T && t < MAX_RECORD_T);
}
