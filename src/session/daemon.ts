// The session folder wires a running daemon; this is its main file. The daemon: config, API
// clients, markets (markets.ts), the live feed and its market pipeline, a venue, the store, the
// engine, start-up reconciliation (startup.ts), the status server and the cron jobs, for `makerd
// run` and `makerd demo`. The mode only picks the venue: live sends orders over REST, paper fills
// them in a simulated venue on the live feed.
import cron from 'node-cron';
import type { Logger } from '../core/log.js';
import type { Config } from '../config.js';
import { formatPrice } from '../core/units.js';
import { ConfigError, MakerdError } from '../core/errors.js';
import { createClients, type Clients } from '../api/index.js';
import type { ClobProfile } from '../api/clob-profile.js';
import { exchangeOf, orderVersionProblem } from '../api/polymarket-contracts.js';
import { CLOCK_SKEW_MS } from '../api/clob-client.js';
import { Heartbeats } from './heartbeats.js';
import { MarketFeed, bookEventFromRest } from '../feed/market-feed.js';
import { CryptoPriceStream } from '../feed/price-stream.js';
import type { TokenMeta } from '../book/mirror.js';
import { LiveVenue } from '../venue/live-venue.js';
import { simMarketOf, simulatedVenueFromConfig, type SimulatedVenue } from '../venue/simulated-venue.js';
import type { Venue, VenueOrder } from '../venue/types.js';
import { StoreLock, StoreLockedError } from '../store/store-lock.js';
import { Store } from '../store/store.js';
import { StoreJournal, type JournalRecord } from '../store/journal.js';
import { OrderRetention } from '../store/order-retention.js';
import { StatusServer } from '../status/server.js';
import { LoopDelay } from '../status/loop-delay.js';
import { StatusMetrics } from '../status/metrics.js';
import type { FeedStates, StatusSource } from '../status/source.js';
import { WallClock, settleWithin } from '../core/clock.js';
import { SeededRng } from '../core/rng.js';
import { Engine } from '../engine/engine.js';
import { loadStrategy } from '../strategy/loader.js';
import { feeRulesOutside, marketsFromQuery, marketsFromTokens, readFeeRules, tokenMetaOf } from './markets.js';
import { MarketSet, type MarketSetChange } from './market-set.js';
import { AMBIGUOUS_GRACE_MS, ReconcileStoreError, holdRestoredMatched, reconcileWithVenue, recoveryStart, restoreFromStore, unsettledSince, type ReconcileListing } from './startup.js';
import { HOUR, LOOKUP_OVERLAP_MS, VenueLookUps } from './look-ups.js';
import { TradesReadNote } from './trades-read.js';
import type { MarketMeta } from '../engine/strategy.js';
import type { MarketState } from '../engine/market-state.js';
import type { TrackedOrder } from '../engine/orders.js';
import { ResolutionWatch } from './resolution-watch.js';

export interface DaemonOptions {
  config: Config;
  /** The CLOB profile with its credentials (api/profile-from-env.ts). */
  venue: ClobProfile;
  log: Logger;
  /** Token ids from --markets (override config.markets). */
  tokens?: string[];
  /** Status server port (0 = any free port); default config.status.port. */
  statusPort?: number;
  /** How often the held tokens' marks are kept in the store for a restart (default MARK_KEEP_MS). */
  markKeepMs?: number;
  /**
   * Told when only a restart can trade again (the store takes writes again after a write failure
   * halted quoting, which is for good): `makerd run` stops and exits 1, so pm2 starts a clean,
   * reconciled run rather than leave an idle process up until someone notices.
   */
  onRestartWanted?: (why: string) => void;
}

/** The held marks kept this often (and at a stop): a kill loses at most this much of their movement. */
const MARK_KEEP_MS = 60_000;

/** What a stop could not finish: orders not confirmed cancelled (venue ids, or client:ID for an unanswered place). */
export interface StopReport {
  unconfirmed: string[];
  /** Orders and fills the store could not take, even at the last attempt. */
  unwritten: readonly JournalRecord[];
}

/** The daemon was stopped (a signal, the start-up bound) before start() finished. */
export class StartAbortedError extends MakerdError {}

/** Errors of a store that may pass by themselves: a full disk, I/O, a lock another program holds (SQLite's busy timeout ran out). */
const TRANSIENT_STORE_ERROR = /^(ENOSPC|EIO|EAGAIN|EBUSY|EMFILE|ENFILE|SQLITE_(BUSY|LOCKED|FULL|IOERR|PROTOCOL))/;

/**
 * A store that cannot be opened or written at start-up: a configuration error (exit 2, which pm2
 * leaves down) when the path is wrong; a failure to retry (exit 1, restarted) when the error may
 * pass: a daemon that stayed down after the disk was freed would leave its orders unmanaged.
 */
function storeOpenError(dbPath: string, verb: 'open' | 'write', e: unknown): MakerdError {
  const code = (e as { code?: unknown } | undefined)?.code;
  const what = `cannot ${verb} ${dbPath}: ${e instanceof Error ? e.message : String(e)}`;
  if (typeof code === 'string' && TRANSIENT_STORE_ERROR.test(code)) return new MakerdError(`${what} (the store is busy or the disk full or failing: not a configuration error)`);
  return new ConfigError('store.path', `${what} (MAKERD_DB or store.path)`);
}

export class Daemon implements StatusSource {
  readonly clock = new WallClock();
  readonly startedMs = Date.now();
  clients!: Clients;
  feed!: MarketFeed;
  venue!: Venue;
  store!: Store;
  /** This process's hold on its store (store-lock.ts), released at stop. */
  private storeLock: StoreLock | undefined;
  /** Paper mode's simulated venue (the shares restored from its store are given to it). */
  private paperVenue: SimulatedVenue | undefined;
  /** Set once start-up reconciles with the venue: from then the account's orders are ours to cancel at stop. */
  private managesOrders = false;
  /**
   * Start-up's check with the venue has read its trades since the store's last activity: only then
   * does this run's end count as activity (a run stopped before it leaves no end time).
   */
  private reconciled = false;
  /** Where start-up's check reads trades from (recoveryStart): a stop before that check succeeds reads from there too. */
  private startupSinceMs: number | undefined;
  /** Asks the venue whether the markets of held shares outside the set resolved (after start-up's look-up). */
  resolutions: ResolutionWatch | undefined;
  /** Up to when the venue's trades are read, noted in the store (trades-read.ts). */
  private tradesRead: TradesReadNote | undefined;
  /** The user channel is back and the look-up of its gap has not landed yet (no quoting: feedLive). */
  private catchingUp = false;
  /** Since when (clock ms) quoting waits for the look-up of a user-channel gap; undefined when it does not (status: /health). */
  catchingUpSinceMs: number | undefined;
  /** User-channel returns so far: a look-up that lands for an earlier one does not end a later one's wait. */
  private userGaps = 0;
  prices: CryptoPriceStream | undefined;
  heartbeats: Heartbeats | undefined;
  journal!: StoreJournal;
  engine!: Engine;
  /** Reconciliations with the venue while running: periodic, and those the engine asks for. */
  private lookUps: VenueLookUps | undefined;
  /** Our clock minus the venue's at the last read (GET /time; live on the polymarket profile), ms. */
  clockSkewMs: number | undefined = undefined;
  private checksClock = false;
  /** The quoted markets as they change while running (refreshMarkets). */
  marketSet!: MarketSet;
  status!: StatusServer;
  markets: MarketMeta[] = [];
  readonly feedStates: FeedStates = { market: 'connecting', user: undefined };
  /** Event-loop lag since start or the last `/status?loop=reset` (status process.loop). */
  readonly loopDelay = new LoopDelay();
  /** /metrics and the live page's history, fed by taps on the clients, the venue, the journal and the pipeline. */
  readonly metrics: StatusMetrics = new StatusMetrics(this);
  private readonly tasks: Array<{ stop(): void | Promise<void> }> = [];
  private stopping: Promise<StopReport> | undefined;
  /** Rejects once stop() is called: start() races every wait against it. */
  private readonly aborted: Promise<never>;
  private abort!: (e: Error) => void;

  constructor(private readonly o: DaemonOptions) {
    this.aborted = new Promise<never>((_, rej) => (this.abort = rej));
    this.aborted.catch(() => undefined);
  }

  /** `p`, unless stop() comes first (then StartAbortedError; the clients' close abandons `p`'s calls). */
  private unlessStopped<T>(p: Promise<T>): Promise<T> {
    return Promise.race([p, this.aborted]);
  }

  get mode(): Config['mode'] {
    return this.o.config.mode;
  }
  get config(): Config {
    return this.o.config;
  }

  /** Resolves once quoting has started (after startup reconciliation). */
  async start(): Promise<void> {
    const { config, log } = this.o;
    const profile = this.o.venue;
    // a configuration that cannot work is refused before anything starts (the CLI exits 2)
    if (config.mode === 'live' && profile.cannotTrade) throw new ConfigError('mode', profile.cannotTrade);
    // scales are for rehearsals and shared keys: one left over from a rehearsal sends past the venue's limits
    const { scale, windowScale } = config.limits;
    if (config.mode === 'live' && (scale !== 1 || windowScale !== 1)) {
      log.warn(
        { scale, windowScale },
        'rate limits scaled (limits.scale, limits.windowScale: MAKERD_LIMIT_SCALE, MAKERD_WINDOW_SCALE): the venue enforces its own; above 1 or a window below 1 risks 429s',
      );
    }
    // sampling (N) or none (0) is for backtests: live, a book out of sync is seen late or never, and quoted on
    const { verifyEvery } = config.book;
    if (config.mode === 'live' && verifyEvery !== 1) {
      log.warn({ verifyEvery }, `book hashes checked ${verifyEvery === 0 ? 'never' : `every ${verifyEvery}th update`} (book.verifyEvery): a book out of sync would be quoted on; 1 checks every one`);
    }
    this.loopDelay.start();
    // Bad strategy params fail here, before any network call.
    const strategy = await this.unlessStopped(loadStrategy(config.strategy.name, config.strategy.params));
    this.clients = createClients(config, profile, log.child({ part: 'api' }));
    this.clients.observeHttp(this.metrics.observeHttp);
    // signed requests carry our time (polymarket: the venue refuses stale ones) and the loss day turns at our midnight
    this.checksClock = config.mode === 'live' && profile.name === 'polymarket';
    if (this.checksClock) await this.unlessStopped(this.checkClock());
    // signed for the venue's order version or refused, every one of them: not started at all then
    if (config.mode === 'live' && profile.name === 'polymarket') {
      const problem = orderVersionProblem(await this.unlessStopped(this.clients.clob.getOrderVersion()));
      if (problem) throw new MakerdError(problem);
    }
    this.markets = await this.unlessStopped(this.resolveMarkets());
    if (!this.markets.length) {
      // the query's answer can change by the next start (a hiccup, a maintenance window): exit 1, which
      // pm2 restarts, not 2, which it never does
      if (this.byQuery()) throw new MakerdError('the market query (config.marketQuery) found no market to quote: none open that passes its filters, or the metadata API between two answers');
      // tokens given, every one answered 404 (resolved, or a venue answering 404 for a while): a restart may find them
      if (this.configuredTokens().length) throw new MakerdError('none of the configured tokens has a market at the venue now (each answered 404: resolved, or no such token)');
      throw new ConfigError('markets', 'none to quote: give --markets, config.markets, or enable config.marketQuery');
    }
    const tokens = this.markets.flatMap((m) => [m.tokenId, m.complementId]);
    const meta: Record<string, TokenMeta> = {};
    for (const m of this.markets) for (const t of [m.tokenId, m.complementId]) meta[t] = tokenMetaOf(m);
    const live = config.mode === 'live';
    this.feed = new MarketFeed({
      config,
      tokens,
      conditionIds: live ? this.markets.map((m) => m.conditionId) : undefined,
      auth: live ? profile.userAuth : undefined,
      meta,
      // resync 'rest' (and the fallback of 'resubscribe'): the venue's GET /book through the one decoder
      fetchBook: async (tokenId) => bookEventFromRest((await this.clients.clob.getBook(tokenId)).wire),
      now: () => this.clock.now(),
      // a quiet market's book is asked for again before the risk gate would call it stale
      refreshQuietMs: Math.round(config.risk.staleBookMs / 2),
      // paper: our view lags the simulated venue's as a backtest's does (live: the venue is real)
      ...(live ? {} : { lag: { ms: config.sim.feedLatencyMs, clock: this.clock } }),
      log: log.child({ part: 'feed' }),
    });
    // our own fills are the likeliest hashed last_trade_price after a trade of ours
    // a user-channel message that could not be read may have been a fill of ours: the venue's lists
    // decide (one look-up every LOOKUP_GAP_MS however many), not the periodic reconciliation minutes later
    let unreadableWarnedMs = -Infinity;
    this.feed.onUserUnreadable((reason) => {
      const now = this.clock.now();
      if (now - unreadableWarnedMs >= 60_000) {
        unreadableWarnedMs = now;
        log.warn({ reason }, 'user channel: a message could not be read; looking our orders and trades up at the venue');
      }
      this.lookUps?.soon(0);
    });
    this.feed.onUserEvent((e) => {
      if (e.type === 'trade') this.feed.mirror.noteOwnTrade(e.assetId, e.price);
    });
    const tickOf = (t: string) => this.feed.book(t)?.tick || this.markets.find((m) => m.tokenId === t || m.complementId === t)?.tick || 100;
    if (live) {
      const negRiskOf = (t: string) => this.markets.find((m) => m.tokenId === t || m.complementId === t)?.negRisk ?? false;
      const exchangesInUse = () => [...new Set(this.markets.map((m) => exchangeOf(m.negRisk)))];
      this.venue = this.metrics.tapPlaces(
        new LiveVenue({ clob: this.clients.clob, subscribeUser: (fn) => this.feed.onUserEvent(fn), tickOf, negRiskOf, exchangesInUse, log: log.child({ part: 'venue' }) }),
      );
      // orders never wait for a connection to open: the submit connections open now and stay open
      this.clients.clob.transport.keepSubmitWarm();
    } else {
      // paper runs share one store: each run's simulated ids are its own (sim-<start, base 36>-o1, ...),
      // or a restart's orders and trades would take the ids of the last run's stored ones
      const idPrefix = `sim-${this.clock.now().toString(36)}-`;
      const sim = simulatedVenueFromConfig(config.sim, this.clock, this.markets.map(simMarketOf), log.child({ part: 'sim' }), undefined, idPrefix);
      this.paperVenue = sim;
      this.venue = this.metrics.tapPlaces(sim);
    }
    const dbPath = live ? config.store.path : config.store.path.replace(/(\.sqlite)?$/, '-paper.sqlite');
    // one daemon per store, taken before anything of ours reaches the venue's orders
    try {
      this.storeLock = StoreLock.acquire(dbPath);
    } catch (e) {
      if (e instanceof StoreLockedError) throw new ConfigError('store.path', `${dbPath} is ${e.message}: one daemon per store (MAKERD_DB or store.path)`);
      throw storeOpenError(dbPath, 'open', e);
    }
    let store: Store;
    try {
      store = new Store(dbPath, log.child({ part: 'store' }));
    } catch (e) {
      throw storeOpenError(dbPath, 'open', e);
    }
    // another account's orders and fills would be restored as ours (positions, the loss baseline)
    if (live && profile.account !== undefined) {
      let owner: string | undefined;
      try {
        owner = store.owner();
        if (owner === undefined) store.setOwner(profile.account);
      } catch (e) {
        store.close();
        throw storeOpenError(dbPath, 'write', e);
      }
      if (owner !== undefined && owner !== profile.account) {
        store.close();
        throw new ConfigError(
          'store.path',
          `${dbPath} holds the orders and fills of another account (${owner}), not ${profile.account}: give this account a database of its own (MAKERD_DB or store.path)`,
        );
      }
    }
    this.store = store;
    // A write that fails halts quoting at once; the records wait in memory and are retried.
    let storeHalted = false;
    this.journal = new StoreJournal(this.store, {
      log: log.child({ part: 'store' }),
      onFailure: (err) => {
        storeHalted = true;
        this.engine?.halt(`store write failed: ${err instanceof Error ? err.message : String(err)}`);
      },
      // the halt is for good (its cancel-all, the heartbeats stopped): a clean run quotes again;
      // not when another halt came first (a restart would clear it) nor while stopping anyway
      onRecovered: () => {
        if (!storeHalted) return;
        storeHalted = false;
        if (this.stopping || !this.engine?.risk.halted?.startsWith('store write failed')) return;
        const why = 'the store takes writes again after a failure halted quoting';
        log.error({ restart: this.o.onRestartWanted !== undefined }, `${why}: every record is written; only a restart quotes again${this.o.onRestartWanted ? ' (stopping, exit 1)' : ''}`);
        this.o.onRestartWanted?.(why);
      },
    });
    const retry = setInterval(() => this.journal.retry(), 2000);
    this.tasks.push({ stop: () => clearInterval(retry) });
    const keepMarks = setInterval(() => this.keepHeldMarks(), this.o.markKeepMs ?? MARK_KEEP_MS);
    this.tasks.push({ stop: () => clearInterval(keepMarks) });
    this.engine = new Engine({
      clock: this.clock,
      rng: new SeededRng(config.sim.seed),
      log: log.child({ part: 'engine' }),
      venue: this.venue,
      limiter: this.clients.limiter,
      recordLimiterUse: !live,
      books: this.feed.mirror,
      strategy,
      config,
      markets: this.markets,
      journal: this.metrics.tapJournal(this.journal),
      dayStarts: this.store,
      history: this.store,
      // a halt is for good: the venue's dead-man switch then cancels whatever our cancels cannot
      onHalt: () => {
        if (!this.heartbeats) return;
        this.heartbeats.stop();
        log.warn("halted: heartbeats stopped, so the venue's dead-man switch cancels every order of ours the cancel-all does not");
      },
      onLastMark: (tokenId, mark) => {
        try {
          this.store.keepMark(tokenId, mark);
        } catch (err) {
          log.error({ err, tokenId }, 'store: the mark of a dropped market could not be kept; after a restart its holding is valued at cost');
        }
      },
      // An order refused off the tick grid: ask the venue for the tick (the frame may be lost).
      onTickSuspect: (tokenId) => this.refreshTick(tokenId),
      // A trade that failed the fill checks: the venue's REST trade list decides (checked the same way).
      onBadTrade: () => void this.lookUps?.now(),
      // An unclear submit is settled in seconds: the venue's open orders bind it or show it never rested.
      onAmbiguous: () => this.lookUps?.soon(1000),
      // an order of the account we do not track: the look-up adopts it (our markets) or cancels it
      onUnknownOrder: () => this.lookUps?.soon(1000),
      // A book holding less than our resting orders: a fill or cancel the user channel did not report.
      onOrdersMissing: () => this.lookUps?.soon(0),
      // the venue cancels our orders ~10 s after the last accepted heartbeat: once a heartbeat and
      // its retry failed, none is placed (it would rest unguarded should we die)
      extraBlock: () => this.heartbeats?.lapsing(),
      // real time: the places of one socket read's frames leave in one batch, and the housekeeping
      // requotes a tenth of the markets every tenth of its period
      realTime: true,
    });
    const lookUps = (this.lookUps = new VenueLookUps({
      engine: this.engine,
      venue: this.venue,
      clock: this.clock,
      log,
      onRead: (since, through) => this.tradesRead?.read(since, through),
      held: true,
    }));
    this.tradesRead = new TradesReadNote({
      store: this.store,
      catchUp: (fromMs) => lookUps.catchUpFrom(fromMs),
      log,
      unwritten: () => this.journal.pending().length,
    });
    this.marketSet = new MarketSet(this.markets, { feed: this.feed, engine: this.engine, venue: this.venue, log, now: () => this.clock.now() });
    this.tasks.push({ stop: () => this.marketSet.stop() });
    this.store.startRun(config.mode, strategy.module.name, tokens);
    // the one pipeline: a simulated venue sees each event before the mirror and the engine
    this.feed.pipeline.connect({ venue: live ? undefined : (this.venue as SimulatedVenue), engine: this.metrics.tapEvents(this.engine) });
    this.feed.onState((ch, s) => {
      if (ch === 'market') this.feedStates.market = s;
      else {
        // fills while the user channel was away were never reported to us: ask the venue, and quote
        // only once it has landed: until then our positions and orders may be short of what the venue
        // did. From start-up's look-up on (managesOrders): one back after it read the trades left a
        // gap it does not cover (held until start-up's check is done, then run: VenueLookUps.open)
        if (s === 'live' && this.feedStates.user !== 'live' && this.managesOrders) {
          const gap = ++this.userGaps;
          this.catchingUp = true;
          // from start-up's end (its look-up runs then): /health names a wait, not start-up's own work
          if (this.reconciled) this.catchingUpSinceMs ??= this.clock.now();
          log.info('user channel back: looking up what the venue did while it was away before quoting again');
          void lookUps.caughtUp().then(() => {
            // a later gap waits for its own look-up; a stop ends the wait, not the block
            if (gap !== this.userGaps || this.stopping) return;
            this.catchingUp = false;
            this.catchingUpSinceMs = undefined;
            this.engine.setFeedLive(this.feedLive());
          });
        }
        this.feedStates.user = s;
      }
      this.engine.setFeedLive(this.feedLive());
    });
    // a book out of sync (its connection lost, a hash failed when its group went quiet) pulls its
    // market's quotes now, not at its next requote (up to a housekeeping period): the others quote
    // on (feedLive). Once the mirror has finished (a microtask): it may be mid-frame.
    const lost = new Set<MarketState>();
    this.feed.onOutOfSync((assetId) => {
      const st = this.engine.marketOf(assetId);
      if (!st) return;
      if (lost.size === 0)
        queueMicrotask(() => {
          for (const m of lost) this.engine.requote(m);
          lost.clear();
        });
      lost.add(st);
    });
    this.engine.setFeedLive(false);
    this.status = new StatusServer(this, log.child({ part: 'status' }));
    const statusPort = this.o.statusPort ?? config.status.port;
    const statusHost = config.status.host;
    await this.unlessStopped(
      this.status.listen(statusPort, statusHost).catch((e: unknown) => {
        const code = (e as NodeJS.ErrnoException).code;
        const why = code === 'EADDRINUSE' ? 'is already in use' : code === 'EACCES' ? 'is not allowed to this user' : `cannot be listened on (${e instanceof Error ? e.message : String(e)})`;
        throw new ConfigError('status.port', `${statusHost}:${statusPort} ${why} (MAKERD_STATUS_PORT or status.port; 0 = any free port; MAKERD_STATUS_HOST or status.host)`);
      }),
    );
    this.feed.start();
    // the crypto reference prices strategies read (ctx.referencePrice), when the config names symbols
    if (config.feed.priceSymbols.length) {
      // the market channel's data watchdog: a stream that answers PING but sends no price is probed, then reconnected
      this.prices = new CryptoPriceStream({
        url: config.urls.priceFeed,
        symbols: config.feed.priceSymbols,
        pingIntervalMs: config.feed.priceFeedPingIntervalMs,
        quietMs: config.feed.quietMs,
        probeTimeoutMs: config.feed.probeTimeoutMs,
        log: log.child({ part: 'prices' }),
      });
      this.prices.onPrice((e) => this.engine.handleReferencePrice(e));
      // on /health, /status and feed_live: a strategy reading a frozen price is otherwise unseen
      this.feedStates.prices = 'connecting';
      const pricesLog = log.child({ part: 'prices' });
      this.prices.onState((s) => {
        const was = this.feedStates.prices;
        this.feedStates.prices = s;
        if (this.stopping) return;
        if (was === 'live' && s !== 'live') pricesLog.warn({ state: s }, 'price stream not live: strategies read the last price it gave');
        else if (s === 'live' && was !== 'live') pricesLog.info('price stream live');
      });
      this.prices.start();
    }
    // The dead-man switch armed before the first order can rest.
    if (live && profile.heartbeats) {
      this.heartbeats = new Heartbeats({ clob: this.clients.clob, intervalMs: config.venue.heartbeatIntervalMs, log: log.child({ part: 'heartbeat' }) });
      await this.unlessStopped(this.heartbeats.start());
    }
    // Startup reconciliation before the first quote, over a window that covers the downtime.
    const since = (this.startupSinceMs = this.recoveryWindowStart());
    // a store that never noted it: what start-up assumes read (before its window) is noted as read,
    // so that this run's own writes (a cancel-all's) cannot move the next window past its own
    if (this.store.tradesReadThrough() === undefined) this.tradesRead.read(since, since);
    const restored = this.store.ordersToRestore(since);
    restoreFromStore(this.engine, restored, this.store.eachFill());
    // the markets of restored orders no longer quoted (the set rotated while down): their late fills pay by their fee rules
    for (const [tokenId, rule] of await this.unlessStopped(feeRulesOutside(this.clients.clob, restored, this.markets, log))) this.engine.keepFeeRule(tokenId, rule);
    this.engine.forgetFlatOutside();
    this.engine.restoreLastMarks(this.store.keptMarks());
    const outside = this.engine.heldOutside();
    if (outside.marked + outside.atCost > 0) {
      log.warn(
        outside,
        'holdings outside the quoted markets: no book of theirs comes, so they are valued at the mark kept when last seen (marked), or at cost (atCost) where none was kept; the daily-loss check does not see them move',
      );
    }
    // a paper run's shares bought by an earlier run: its new simulated venue holds them too (settled), or it refuses every SELL of them
    if (this.paperVenue) this.resumePaper(this.paperVenue);
    // from here the account's orders are this process's to manage: a stop cancels them
    this.managesOrders = true;
    await this.unlessStopped(lookUps.full(Math.min(since, this.unsettledSince())));
    holdRestoredMatched(this.engine, restored);
    // held shares of markets not quoted (a restart outside their set, a market dropped while held): the venue says when they resolve
    this.resolutions = new ResolutionWatch({ engine: this.engine, market: (id) => this.clients.clob.getMarket(id), log: log.child({ part: 'resolutions' }) });
    this.resolutions.start();
    this.tasks.push(this.resolutions);
    this.reconciled = true;
    // look-ups asked for meanwhile (a bad trade, an unknown order on the user channel) run from here on
    lookUps.open();
    if (this.catchingUp) this.catchingUpSinceMs ??= this.clock.now();
    // the collateral our BUYs may promise, known before the first quote (a failure is logged: not capped)
    await this.unlessStopped(this.engine.collateral.read());
    this.engine.start();
    this.scheduleCron();
    // orders that ended unfilled leave the store after store.orderRetentionMs (never inside the recovery window)
    const retention = new OrderRetention({
      store: this.store,
      clock: this.clock,
      retentionMs: config.store.orderRetentionMs,
      keepAtLeastMs: config.daemon.recoveryWindowMs,
      keepFrom: () => this.recoveryWindowStart(),
      log: log.child({ part: 'store' }),
    });
    retention.start();
    this.tasks.push(retention);
    log.info({ mode: config.mode, markets: this.markets.map((m) => m.conditionId), status: this.status.url }, 'quoting started');
  }

  /**
   * Reads our clock against the venue's (GET /time) into clockSkewMs; logs an error while it is off
   * by more than CLOCK_SKEW_MS, and once when it is back. A failed read is a warning. At start and
   * then on the refreshMarkets cron: a clock that drifts while running is seen within its period.
   */
  private async checkClock(): Promise<void> {
    const log = this.o.log;
    try {
      const skewMs = await this.clients.clob.clockSkewMs();
      // the venue's clock has second resolution: a second of margin over CLOCK_SKEW_MS
      const off = (ms: number): boolean => Math.abs(ms) > CLOCK_SKEW_MS + 1000;
      const wasOff = this.clockSkewMs !== undefined && off(this.clockSkewMs);
      this.clockSkewMs = skewMs;
      if (!off(skewMs)) {
        if (wasOff) log.info({ skewMs }, "our clock is back within the venue's (GET /time)");
        return;
      }
      log.error(
        { skewMs },
        `our clock is ${Math.abs(skewMs)} ms ${skewMs > 0 ? 'ahead of' : 'behind'} the venue's clock (GET /time): signed requests carry our time and the venue refuses stale ones; sync this machine's clock (chrony, systemd-timesyncd)`,
      );
    } catch (err) {
      log.warn({ err }, "could not read the venue's clock (GET /time)");
    }
  }

  /** Where a read of the trades must begin to see every fill still unsettled again (unsettledSince). */
  private unsettledSince(): number {
    return unsettledSince(this.engine.ledger.unsettledFills(), this.clock.now());
  }

  /** Where start-up looks for trades (recoveryStart). */
  private recoveryWindowStart(): number {
    return recoveryStart(this.clock.now(), this.o.config.daemon.recoveryWindowMs, this.store.recoveryAnchorMs());
  }

  /**
   * The engine's feed flag (every market quotes only while it holds): the user channel live, and
   * the market channel live. With several market connections one of them down, stale or still
   * opening (markets just added) does not pull the others' quotes: its own books are out of sync
   * (or not yet in), which pulls only its markets; all of them not live pulls everything.
   */
  feedLive(): boolean {
    const s = this.feedStates;
    if (s.user !== undefined && s.user !== 'live') return false;
    if (this.catchingUp) return false;
    if (s.market === 'live') return true;
    const conns = this.feed?.marketStates() ?? [];
    return conns.length > 1 && conns.includes('live');
  }

  /** GET /tick-size for a token whose orders the venue refused; a failure leaves it to the engine's timeout. */
  private refreshTick(tokenId: string): void {
    const log = this.o.log;
    this.clients.clob.getTickSize(tokenId).then(
      (tick) => {
        log.info({ tokenId, tick: formatPrice(tick) }, 'tick size refreshed');
        this.engine.tickRefreshed(tokenId, tick);
        // The venue's price decimals fall back to these (a copy: the engine may hold the old object).
        if (tick > 0) this.markets = this.markets.map((x) => (x.tokenId === tokenId || x.complementId === tokenId ? { ...x, tick } : x));
      },
      (err: unknown) => log.warn({ err, tokenId }, 'tick size refresh failed; quoting resumes on the old tick after the timeout'),
    );
  }

  /** The token ids the markets come from (--markets, else config.markets); none with the query. */
  private configuredTokens(): readonly string[] {
    return this.o.tokens?.length ? this.o.tokens : this.o.config.markets;
  }

  private async resolveMarkets(): Promise<MarketMeta[]> {
    const { config, log } = this.o;
    const tokens = this.configuredTokens();
    if (tokens.length) return marketsFromTokens(this.clients.clob, tokens, log, { skipMissing: true });
    if (config.marketQuery.enabled) return this.marketsByQuery();
    return [];
  }

  /**
   * A paper run restarted on its store: its new simulated venue takes over what the earlier run's
   * had. The shares bought (settled: a SELL may promise them, else every SELL of them is refused),
   * the collateral the fills moved (else sim.cashUsd came back whole at each restart), and the
   * fills a stop left MATCHED are CONFIRMED (no venue is left to settle them: they stayed unsellable
   * for good under sim.settleMs).
   */
  private resumePaper(venue: SimulatedVenue): void {
    const e = this.engine;
    for (const [tokenId, p] of e.positions.entries()) if (p.qty > 0) venue.holdShares(tokenId, p.qty);
    venue.spendCash(e.positions.cash);
    const cashUsd = this.o.config.sim.cashUsd;
    if (cashUsd > 0 && cashUsd * 1e6 + e.positions.cash < 0)
      this.o.log.warn({ cashUsd, spentUsd: -e.positions.cash / 1e6 }, 'paper: the earlier runs on this store spent more than sim.cashUsd: no collateral left, no BUY is placed');
    const now = this.clock.now();
    for (const f of e.ledger.unsettledFills()) e.atomically(() => e.ledger.venueStatus(f.tradeId, f.orderId, 'CONFIRMED', now));
  }

  /** Whether the markets come from the metadata query (no token ids given). */
  private byQuery(): boolean {
    return !this.o.tokens?.length && !this.o.config.markets.length && this.o.config.marketQuery.enabled;
  }

  /** The metadata query's markets with each one's fee rule (as marketsFromTokens reads it): the engine charges maker fills by it. */
  private async marketsByQuery(): Promise<MarketMeta[]> {
    const { config, log } = this.o;
    // a market already quoted keeps its neg_risk (asked for once; a failed ask on a refresh would drop it)
    const quoted = new Map(this.markets.map((m) => [m.conditionId, m]));
    const metas = await marketsFromQuery(this.clients.gamma, this.clients.clob, config.marketQuery, log, (id) => quoted.get(id)?.negRisk);
    // a rule already known is kept: a refresh reads only the new markets' (at 1,000 markets every
    // refresh would otherwise send 1,000 requests for rules that do not change)
    const known = new Map(this.markets.map((m) => [m.conditionId, m.feeRule]));
    const fresh: MarketMeta[] = [];
    for (const m of metas) {
      const rule = known.get(m.conditionId);
      if (rule) m.feeRule = rule;
      else fresh.push(m);
    }
    await readFeeRules(this.clients.clob, fresh, log);
    return metas;
  }

  private scheduleCron(): void {
    const { config, log } = this.o;
    const job = (name: string, expr: string, fn: () => Promise<void> | void) => {
      if (!cron.validate(expr)) throw new MakerdError(`config cron.${name}: not a cron expression: ${expr}`);
      this.tasks.push(
        cron.schedule(
          expr,
          async () => {
            try {
              await fn();
            } catch (err) {
              log.warn({ err, job: name }, 'cron job failed');
            }
          },
          { name: `makerd-${name}`, noOverlap: true },
        ),
      );
    };
    job('refreshMarkets', config.cron.refreshMarkets, async () => void (await this.refreshMarkets()));
    if (this.checksClock) job('clockCheck', config.cron.refreshMarkets, () => this.checkClock());
    job('reconcile', config.cron.reconcile, async () => {
      await this.lookUps?.full(Math.min(this.clock.now() - HOUR, this.unsettledSince()));
    });
    job('dailySummary', config.cron.dailySummary, () => {
      this.snapshot('daily');
    });
  }

  /**
   * The refreshMarkets job: with config.marketQuery (and no explicit tokens) the query's markets
   * now, added and removed while running (market-set.ts); else the same tokens' fresh terms.
   */
  async refreshMarkets(): Promise<MarketSetChange> {
    const { log } = this.o;
    let fresh: MarketMeta[];
    if (this.byQuery()) fresh = await this.marketsByQuery();
    else {
      // the configured tokens again, so a market left out by a 404 comes back; one in the set that
      // answers 404 now keeps its terms (a venue's hiccup, or resolved: its book and the resolution
      // watch tell), as before a 404 left tokens out
      fresh = await marketsFromTokens(this.clients.clob, this.configuredTokens(), log, { skipMissing: true });
      for (const m of this.markets) if (!fresh.some((f) => f.conditionId === m.conditionId)) fresh.push(m);
    }
    // an empty answer is a venue's hiccup more likely than the end of every market; but a market of
    // the query past its end date goes whatever the answer (its outcome may be known)
    if (fresh.length === 0) {
      const now = this.clock.now();
      const ended = this.byQuery() ? this.markets.filter((m) => m.endMs !== undefined && m.endMs <= now) : [];
      if (ended.length === 0) {
        log.warn({ markets: this.markets.length }, 'market refresh found no market; keeping the set');
        return { added: [], removed: [], leaving: [] };
      }
      log.warn({ markets: this.markets.length, ended: ended.map((m) => m.conditionId) }, 'market refresh found no market; keeping the set but for the markets past their end date');
      return this.setMarkets(this.markets.filter((m) => !ended.includes(m)));
    }
    return this.setMarkets(fresh);
  }

  /** Makes `fresh` the quoted set while running: added markets subscribed and quoted, removed ones cancelled and dropped. */
  setMarkets(fresh: readonly MarketMeta[]): MarketSetChange {
    // first: a market back in the set while still leaving is quoted within apply, and its orders are
    // signed by what this list says of it (neg_risk picks the exchange; absent, the main one)
    this.markets = [...fresh];
    return this.marketSet.apply(fresh);
  }

  /** Keeps the held tokens' marks in the store (a restart that no longer quotes their markets values them at these). */
  private keepHeldMarks(): void {
    if (!this.engine) return;
    try {
      this.store.keepMarks(this.engine.heldMarks(), this.engine.flatTokens());
    } catch (err) {
      this.o.log.error({ err }, 'store: the held marks could not be kept; a restart values holdings outside its markets at older marks or at cost');
    }
  }

  /** Writes a PnL snapshot to the store and the log. */
  snapshot(kind: string): void {
    const e = this.engine;
    const holdings = e.positions.markValue((t) => e.valueOf(t));
    const snap = this.store.snapshotPnl(kind, holdings, e.ledger.count());
    this.o.log.info({ ...snap, scheduler: e.scheduler.stats, riskBlocks: Object.fromEntries(e.risk.blocks) }, `PnL summary (${kind})`);
  }

  /**
   * Stop quoting, cancel everything at the venue, flush the store; within daemon.shutdownTimeoutMs
   * whatever the venue does. Safe to call twice, and at any moment of start(). Reports the orders
   * it could not confirm cancelled.
   */
  stop(reason: string): Promise<StopReport> {
    this.stopping ??= this.stopNow(reason);
    return this.stopping;
  }

  private async stopNow(reason: string): Promise<StopReport> {
    const log = this.o.log;
    log.info({ reason }, this.managesOrders ? 'stopping: cancelling all orders' : 'stopping (no order of ours managed yet: no cancel-all; orders its store left open are cancelled by id)');
    this.abort(new StartAbortedError(`stopped during start-up (${reason})`));
    this.lookUps?.stop();
    const bound = this.o.config.daemon.shutdownTimeoutMs;
    let unconfirmed = await settleWithin(this.cancelEverything(), bound);
    if (unconfirmed === undefined) {
      log.error({ boundMs: bound }, 'stopping: the venue did not finish within the shutdown bound; giving up on it');
      // before start-up restored the store, the engine tracks none of what the store left open
      unconfirmed = this.managesOrders ? this.trackedOpen() : [...new Set([...this.trackedOpen(), ...this.storedOpen()])];
    }
    // kept going through the cancels: the venue's own cancel-all stays the fallback
    this.heartbeats?.stop();
    this.feed?.stop();
    this.prices?.stop();
    let unwritten: readonly JournalRecord[] = [];
    if (this.store) {
      if (!this.journal.retry()) unwritten = this.journal.pending();
      const attempt = (what: string, fn: () => void) => {
        try {
          fn();
        } catch (err) {
          log.error({ err: String(err) }, `stopping: ${what} failed`);
        }
      };
      if (this.engine) attempt('the final PnL snapshot', () => this.snapshot('final'));
      this.keepHeldMarks();
      const unstamped = unwritten.length ? 'records unwritten' : this.reconciled ? undefined : 'stopped before its check with the venue';
      attempt('ending the run', () => this.store.endRun(reason, unstamped));
      attempt('closing the store', () => this.store.close());
    }
    // a lock that cannot be released (a disk gone bad) must not fail the stop: its records are reported below
    try {
      this.storeLock?.release();
    } catch (err) {
      log.error({ err: String(err) }, 'stopping: releasing the store lock failed');
    }
    // close() abandons any call still in flight (a venue that never answers)
    await Promise.allSettled([this.venue?.close(), this.status?.close(), this.clients?.close()]);
    this.loopDelay.stop();
    if (unconfirmed.length) log.error({ orders: unconfirmed }, 'stopped with orders the venue did not confirm cancelled');
    if (unwritten.length) log.error({ unwritten: unwritten.length }, 'stopped with records the store could not take');
    log.info({ unconfirmed: unconfirmed.length, unwritten: unwritten.length }, 'stopped');
    return { unconfirmed, unwritten };
  }

  /** Tasks off, cancel-all, then the venue's own list checked and the run's trades fetched. */
  private async cancelEverything(): Promise<string[]> {
    const log = this.o.log;
    for (const t of this.tasks) await t.stop();
    // a start that failed before reconciling (a store in use, a status port taken) sends no
    // cancel-all: it is account-wide, and the orders may be another daemon's
    if (!this.engine || !this.managesOrders) return this.cancelStoredOpen();
    await this.engine.stop();
    // a place with no clear answer may still land at the venue: the youngest is given the look-ups'
    // grace before the list is read, so the list shows it (cancelled by id) or the look-up settles it
    let youngest = -Infinity;
    for (const o of this.engine.orders.open()) if (o.orderId === undefined && o.state === 'ambiguous') youngest = Math.max(youngest, o.updatedMs);
    const graceLeft = youngest + AMBIGUOUS_GRACE_MS - this.engine.clock.now();
    if (graceLeft > 0) await new Promise((r) => setTimeout(r, Math.min(graceLeft, AMBIGUOUS_GRACE_MS)));
    let left: string[] | undefined;
    try {
      left = (await this.venue.openOrders()).map((o) => o.orderId);
    } catch (err) {
      log.warn({ err }, "stopping: the venue's open orders could not be read");
    }
    // every order the list showed, cancelled by id below or not: the look-up's finds are checked against it
    const listed = new Set(left);
    if (left?.length) {
      log.warn({ left: left.length }, 'orders still open after cancel-all; cancelling them by id');
      left = await this.cancelLeft(left, 'final cancel failed');
    }
    // A fill matched just before the cancel may still be on its way over the user channel: ask the
    // venue for the trades not yet read so the store has every fill before it closes. Since the last
    // look-up that succeeded (not the whole run: days of trades would not fit the shutdown bound),
    // or, when start-up's check never did, over its window (a crash's downtime before this run: an
    // order that rested through it is settled by the list below, and its fill must be read with it)
    const listing: ReconcileListing = { openIds: [], cancelled: [] };
    const finalListed = listing.openIds;
    const checked = this.lookUps?.checkedFromMs();
    const startup = this.startupSinceMs ?? this.startedMs - HOUR;
    // a look-up that went through before start-up's check did (an hour back at most) does not cover its window
    const finalSince = this.reconciled ? (checked ?? startup) : Math.min(checked ?? Infinity, startup);
    const finalStart = this.clock.now();
    // its listing is good when only the store failed it (ReconcileStoreError): the trades are not noted read
    const reconciled = await reconcileWithVenue(this.engine, this.venue, finalSince, log, listing).then(
      () => {
        this.tradesRead?.read(finalSince, finalStart - LOOKUP_OVERLAP_MS);
        return true;
      },
      (err: unknown) => {
        log.warn({ err }, 'final trade reconciliation failed');
        return err instanceof ReconcileStoreError;
      },
    );
    // an order that look-up's list shows resting which the list above did not (a place that landed
    // after it was read; every one when that list could not be read): cancelled by id too,
    // reported if the venue does not confirm it. The venue's list decides, not our tracker: an
    // order we still hold open may be one the cancel-all took whose end no answer told us yet
    // (Those the look-up has just cancelled itself, another program's and ours in markets no longer
    // quoted, are done: cancelled again, they would come back "not cancelled".)
    const cancelledByLookUp = new Set(listing.cancelled);
    let late: string[] = [];
    if (reconciled) late = finalListed.filter((id) => !listed.has(id) && !cancelledByLookUp.has(id));
    const cancelledLate = new Set<string>();
    if (late.length) {
      log.warn({ late: late.length }, 'stopping: orders the final look-up found resting; cancelling them by id');
      const notDone = new Set(await this.cancelLeft(late, 'final cancel of the orders the look-up found failed'));
      for (const id of late) if (!notDone.has(id)) cancelledLate.add(id);
      late = [...notDone];
    }
    // read, the list cannot name a place never answered (no venue id yet), which may rest there
    if (left) return [...left, ...late, ...this.trackedOpen(true)];
    // only the look-up's list read: what we still hold open after it is unconfirmed too (its end
    // unproven), less what was just cancelled; neither read: every order we hold open
    if (reconciled) return [...new Set([...late, ...this.trackedOpen().filter((id) => !cancelledLate.has(id) && !cancelledByLookUp.has(id))])];
    return this.trackedOpen();
  }

  /** Records the store has not taken yet (none before the store opened). */
  unwrittenRecords(): readonly JournalRecord[] {
    return (this.journal as StoreJournal | undefined)?.pending() ?? [];
  }

  /**
   * A live start stopped before it managed the account's orders: those its store's earlier runs
   * left open (a run killed with quotes resting) are ours (the store's lock is held, its owner is
   * this account), cancelled by id; those still resting after it are reported. A place never
   * answered has no id to cancel by (the venue's dead-man switch or the next start settles it).
   * Nothing when the store was not opened as ours.
   */
  private async cancelStoredOpen(): Promise<string[]> {
    if (this.venue === undefined) return [];
    const open = this.storedOpenOrders();
    const ids = open.flatMap((o) => (o.orderId === undefined ? [] : [o.orderId]));
    // a place the earlier run never saw answered may have landed: found by its terms in the venue's
    // list, as start-up binds one; unread, each is reported (client:ID), never passed over in silence
    const unanswered = open.filter((o) => o.orderId === undefined);
    const unfound: string[] = [];
    if (unanswered.length) {
      let listed: VenueOrder[] | undefined;
      try {
        listed = await this.venue.openOrders();
      } catch (err) {
        this.o.log.warn({ err }, "stopping: the venue's open orders could not be read for the places an earlier run left unanswered");
      }
      const taken = new Set(ids);
      for (const o of unanswered) {
        const v = listed?.find((x) => !taken.has(x.orderId) && x.tokenId === o.tokenId && x.side === o.side && x.price === o.price && x.originalSize === o.size);
        if (v) {
          taken.add(v.orderId);
          ids.push(v.orderId);
        } else if (!listed) unfound.push(`client:${o.clientId}`);
      }
    }
    if (ids.length === 0) return unfound;
    this.o.log.warn({ orders: ids.length }, "stopping before managing the account's orders: cancelling by id those an earlier run of this store left open");
    const left = await this.cancelLeft(ids, 'cancel of the orders an earlier run left open failed');
    if (left.length === 0) return unfound;
    // not cancelled by this answer: those the venue already ended (a dead-man switch, a fill) are
    // not resting; its list decides (unread: all are reported)
    try {
      const resting = new Set((await this.venue.openOrders()).map((o) => o.orderId));
      return [...left.filter((id) => resting.has(id)), ...unfound];
    } catch (err) {
      this.o.log.warn({ err }, "stopping: the venue's open orders could not be read");
      return [...left, ...unfound];
    }
  }

  /** The orders a live run's store holds open (an earlier run's, before start-up restores them); none when it cannot be read. */
  private storedOpenOrders(): TrackedOrder[] {
    if (this.o.config.mode !== 'live' || this.store === undefined) return [];
    try {
      return this.store.openOrders();
    } catch (err) {
      this.o.log.error({ err }, "stopping: the store's open orders could not be read");
      return [];
    }
  }

  /** The store's open orders as a stop reports them: venue ids, or client:ID for a place never answered. */
  private storedOpen(): string[] {
    return this.storedOpenOrders().map((o) => o.orderId ?? `client:${o.clientId}`);
  }

  /** Cancels these orders by id at stop; returns those the venue did not confirm cancelled (all of them when the call failed). */
  private async cancelLeft(ids: string[], failed: string): Promise<string[]> {
    try {
      const r = await this.venue.cancelOrders(ids);
      const done = new Set(r.canceled);
      return ids.filter((id) => !done.has(id));
    } catch (err) {
      this.o.log.error({ err }, failed);
      return ids;
    }
  }

  /** Orders we hold as not finished: venue ids, or client:ID where the place was never answered (only those: `unanswered`). */
  private trackedOpen(unanswered = false): string[] {
    if (!this.engine) return [];
    const open = [...this.engine.orders.open()];
    return (unanswered ? open.filter((o) => o.orderId === undefined) : open).map((o) => o.orderId ?? `client:${o.clientId}`);
  }
}
