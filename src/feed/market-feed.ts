// The live and paper data source: given config and token ids it owns the market connections (and
// the user channel when credentials and condition ids are given), the book mirror and the market
// pipeline its frames go through (market-pipeline.ts: the one path of every mode), and emits user
// events, book updates and state changes.
// The market channel is split over as many connections as feed.maxAssetsPerConnection needs (each
// with its own watchdog and reconnect; added assets fill the last one first, an emptied one is
// closed); a market's tokens go on one connection together (a current-format price_change covers
// the whole market and is sent on every connection carrying either token: split, its entries were
// applied twice and two sockets interleaved them into false gaps), and a connection's frames keep
// only the entries of the assets it carries (a pair still split: a bound of 1, a token added later
// to a full connection). Every connection's frames go through the one pipeline, tagged with the
// connection's id so that a reconnect puts only its own assets' books out of sync. The market state
// reported is the worst of the connections' (live only when every one is live), reported again at
// every connection's change (the daemon quotes the markets of the live ones: feedLive).
// The user channel, its connection and the make-before-break swap when markets are added:
// user-channel.ts (its state reported here as the 'user' channel's).
// Resync after a mismatch, gap or tick-size change: resync.ts (resubscribe or GET /book through the
// caller's fetchBook, whichever book.resync names first, the other after book.resyncTimeoutMs).
import { STAMPED_AHEAD_MS } from '../book/view.js';
import type { Config } from '../config.js';
import type { Logger } from '../core/log.js';
import type { Clock } from '../core/clock.js';
import type { DenseBook } from '../book/book.js';
import { BookMirror, type MirrorOptions, type OutOfSyncReason, type TokenMeta } from '../book/mirror.js';
import { Resyncer } from './resync.js';
import { FeedConnection, type ConnectionState, type RawFrame } from './connection.js';
import { channelOptions, type UserAuth } from './channels.js';
import { createMarketDecodeStats, decodeMarketFrame } from './decode-market.js';
import { MarketPipeline } from './market-pipeline.js';
import { createUserDecodeStats } from './decode-user.js';
import { UserChannel } from './user-channel.js';
import type { BookEvent, MarketEvent, UserEvent } from '../core/events.js';
import type { DecodeStats } from './decode-stats.js';

export interface MarketFeedOptions {
  /** feed.maxAssetsPerConnection absent: the default (200). */
  config: Pick<Config, 'urls' | 'book'> & { feed: Omit<Config['feed'], 'maxAssetsPerConnection'> & { maxAssetsPerConnection?: number } };
  /** Token (asset) ids for the market channel. */
  tokens: readonly string[];
  /** Condition ids and credentials for the user channel; no user connection without both. */
  conditionIds?: readonly string[];
  /** How long a user-channel swap's new connection has to take over (UserChannelOptions.takeoverMs; tests). */
  userTakeoverMs?: number;
  auth?: UserAuth;
  /** Hash fields the WS book omits (min_order_size, neg_risk, ...), per token. */
  meta?: Readonly<Record<string, TokenMeta>>;
  /** GET /book for resync 'rest'; resolves to the snapshot as a BookEvent (see bookEventFromRest; null: resubscribe). */
  fetchBook?: (assetId: string) => Promise<BookEvent | null>;
  /** Book age clock (engine clock). */
  now?: () => number;
  /**
   * A book in sync that no event has updated for this long, on a live connection, is asked for
   * again (a subscribe of that token: the venue answers with a snapshot, hash-checked as any), so
   * a quiet market does not go stale (the risk gate's staleBookMs) while the feed is fine. The
   * daemon passes half of staleBookMs; absent: off.
   */
  refreshQuietMs?: number;
  /**
   * Paper mode's sim.feedLatencyMs: the mirror and the engine see each frame this long after the
   * venue sink (the simulated venue), on `clock`, as a backtest does. Absent or 0: at once.
   */
  lag?: { ms: number; clock: Clock };
  random?: () => number;
  log?: Logger;
}

export type Channel = 'market' | 'user';

/** Assets per market connection when the config does not say. */
export const DEFAULT_MAX_ASSETS_PER_CONNECTION = 200;

/** Worst first: the market state reported is the worst of the connections'. */
const STATE_RANK: Record<ConnectionState, number> = { live: 0, connecting: 1, stale: 2, down: 3 };

interface MarketConn {
  /** Never reused: the pipeline's source id for this connection's frames. */
  id: number;
  conn: FeedConnection;
  assets: Set<string>;
}

/** The mirror, telling the feed the market of each token as its metadata comes (whoever sets it): a market's tokens are placed together. */
class FeedMirror extends BookMirror {
  constructor(
    opts: MirrorOptions,
    private readonly onMarket: (assetId: string, market: string) => void,
  ) {
    super(opts);
  }
  override setMeta(assetId: string, meta: TokenMeta): void {
    super.setMeta(assetId, meta);
    if (meta.market !== undefined && meta.market !== '') this.onMarket(assetId, meta.market);
  }
}

/** How often open timestamp groups are checked for idleness (book.groupIdleMs closes them). */
const GROUP_TIMER_MS = 25;
/** How often quiet books are looked for (refreshQuietMs), and how many are asked for per connection at most each time. */
const QUIET_CHECK_MS = 1000;
const QUIET_MAX_PER_CHECK = 100;

/** A REST GET /book body as the market decoder's snapshot event (the one decoder for every book). */
export function bookEventFromRest(wire: object, stats: DecodeStats = createMarketDecodeStats()): BookEvent | null {
  const out: MarketEvent[] = [];
  decodeMarketFrame(JSON.stringify({ ...wire, event_type: 'book' }), out, stats);
  const ev = out[0];
  return ev !== undefined && ev.type === 'book' ? ev : null;
}

export class MarketFeed {
  readonly mirror: BookMirror;
  /** The market connections, in opening order. */
  private readonly conns: MarketConn[] = [];
  /** The counters of market connections closed (their markets all gone): the totals never go down. */
  private readonly closedCounters: Record<string, number> = {};
  private readonly connOf = new Map<string, MarketConn>();
  private nextConnId = 0;
  private readonly bound: number;
  private readonly timing: Parameters<typeof channelOptions>[2];
  /** The connections' states when last reported (any change is reported). */
  private marketReported = '';
  /** Each token's market (condition id), from its metadata, and each market's tokens: a market's tokens are placed together. */
  private readonly marketOf = new Map<string, string>();
  private readonly tokensOf = new Map<string, Set<string>>();
  private started = false;
  /** The user channel, when credentials and condition ids were given. */
  private readonly userChannel: UserChannel | undefined;
  /** The user channel's markets at start (its first connect subscribes them). */
  private userInitial: readonly string[] = [];
  readonly marketStats: DecodeStats;
  readonly userStats: DecodeStats;
  /** The market frames' path to the venue and the engine: connect() them. */
  readonly pipeline: MarketPipeline;
  private readonly stateListeners: Array<(c: Channel, s: ConnectionState) => void> = [];
  private idleTimer: NodeJS.Timeout | null = null;
  private quietTimer: NodeJS.Timeout | null = null;
  /** When each quiet book was last asked for (its snapshot may take a moment). */
  private readonly quietAsked = new Map<string, number>();
  /** When refreshQuiet first saw a token of a live connection without a book in sync (asked for again after quietMs). */
  private readonly unsyncedSince = new Map<string, number>();
  /** Quiet books asked for again (refreshQuietMs). */
  quietRefreshes = 0;
  private stopping = false;
  readonly resync: Resyncer;
  /** Out-of-sync episodes by reason, every token (reconnects included). */
  readonly outOfSync = new Map<OutOfSyncReason, number>();

  constructor(private readonly o: MarketFeedOptions) {
    const cfg = o.config;
    this.timing = {
      pingIntervalMs: cfg.feed.pingIntervalMs,
      pongTimeoutMs: cfg.feed.pongTimeoutMs,
      quietMs: cfg.feed.quietMs,
      probeTimeoutMs: cfg.feed.probeTimeoutMs,
      reconnectBaseMs: cfg.feed.reconnectBaseMs,
      reconnectMaxMs: cfg.feed.reconnectMaxMs,
    };
    this.bound = cfg.feed.maxAssetsPerConnection ?? DEFAULT_MAX_ASSETS_PER_CONNECTION;
    this.marketStats = createMarketDecodeStats(o.log);
    this.userStats = createUserDecodeStats(o.log);
    this.mirror = new FeedMirror(
      {
        verifyEvery: cfg.book.verifyEvery,
        groupIdleMs: cfg.book.groupIdleMs,
        now: o.now,
        log: o.log,
        onResync: (id, reason) => this.resync.request(id, reason),
        // a venue's frames: only provable books, only the tokens we asked for
        requireHash: cfg.book.verifyEvery > 0,
        knownTokensOnly: true,
      },
      (id, market) => this.noteMarket(id, market),
    );
    for (const id of o.tokens) this.mirror.setMeta(id, o.meta?.[id] ?? {});
    for (const [id, m] of Object.entries(o.meta ?? {})) this.mirror.setMeta(id, m);
    this.resync = new Resyncer({
      mirror: this.mirror,
      method: cfg.book.resync,
      timeoutMs: cfg.book.resyncTimeoutMs,
      resubscribe: (id) => this.connOf.get(id)?.conn.resubscribe([id]),
      fetchBook: o.fetchBook,
      streaming: (id) => this.connOf.get(id)?.conn.state === 'live',
      healed: (book) => this.pipeline.healed(book),
      log: o.log,
    });
    this.mirror.onOutOfSync((_id, reason) => this.outOfSync.set(reason, (this.outOfSync.get(reason) ?? 0) + 1));
    this.mirror.onUpdate((b) => this.resync.updated(b.assetId, b.inSync()));
    this.pipeline = new MarketPipeline({
      mirror: this.mirror,
      stats: this.marketStats,
      observe: (e) => this.resync.observe(e),
      assetsOf: (source) => this.conns.find((c) => c.id === source)?.assets ?? [],
      ...(o.lag && o.lag.ms > 0 ? { lagMs: o.lag.ms, clock: o.lag.clock, lagTimers: true, log: o.log } : {}),
    });
    this.place(o.tokens);
    if (o.auth && o.conditionIds && o.conditionIds.length > 0) {
      this.userChannel = new UserChannel({ wsUrl: cfg.urls.ws, auth: o.auth, timing: this.timing, stats: this.userStats, log: o.log, random: o.random, takeoverMs: o.userTakeoverMs });
      this.userChannel.onState((s) => {
        for (const fn of this.stateListeners) fn('user', s);
      });
      this.userInitial = o.conditionIds;
    }
  }

  private noteMarket(id: string, market: string | undefined): void {
    const was = this.marketOf.get(id);
    if (was === market) return;
    if (was !== undefined) {
      const ids = this.tokensOf.get(was);
      ids?.delete(id);
      if (ids?.size === 0) this.tokensOf.delete(was);
      this.marketOf.delete(id);
    }
    if (market === undefined) return;
    this.marketOf.set(id, market);
    const ids = this.tokensOf.get(market);
    if (ids) ids.add(id);
    else this.tokensOf.set(market, new Set([id]));
  }

  /** The user channel's connection (the current one: a swap replaces it). */
  get user(): FeedConnection | undefined {
    return this.userChannel?.connection;
  }
  /**
   * Told of a user-channel message that could not be read (a field refused, JSON cut short), with
   * its reason; not of an event type we do not know, nor of a frame that is no JSON object at all (a
   * venue's plain-text notice): never an order or a trade of ours. A trade of ours it may have been
   * is then known only to the venue.
   */
  onUserUnreadable(fn: (reason: string) => void): void {
    this.userStats.onReject = (reason, sample) => {
      if (reason.startsWith('bad_field:') || reason === 'decode_error' || (reason === 'malformed_json' && /^\s*[[{]/.test(sample))) fn(reason);
    };
  }

  onUserEvent(fn: (e: UserEvent) => void): void {
    this.userChannel?.onEvent(fn);
  }
  /** A token's book changed (called after the mirror applied the event). */
  onBook(fn: (book: DenseBook) => void): void {
    this.mirror.onUpdate(fn);
  }
  onState(fn: (channel: Channel, s: ConnectionState) => void): void {
    this.stateListeners.push(fn);
  }
  onOutOfSync(fn: (assetId: string, reason: OutOfSyncReason) => void): void {
    this.mirror.onOutOfSync(fn);
  }

  /**
   * Puts ids on connections a market at a time (its tokens together): the connection of a token of
   * the same market already placed when it has room, else the last one, then any with room for the
   * whole market, then a new one. Only a market larger than the bound is split. Returns the
   * connections that got ids.
   */
  private place(ids: readonly string[]): Map<MarketConn, string[]> {
    const got = new Map<MarketConn, string[]>();
    const put = (c: MarketConn, id: string) => {
      c.assets.add(id);
      this.connOf.set(id, c);
      const list = got.get(c);
      if (list) list.push(id);
      else got.set(c, [id]);
    };
    for (const unit of this.units(ids)) {
      const fits = (c: MarketConn | undefined): c is MarketConn => c !== undefined && c.assets.size + unit.length <= this.bound;
      const market = this.marketOf.get(unit[0]);
      let sibling: MarketConn | undefined;
      for (const id of market === undefined ? [] : (this.tokensOf.get(market) ?? [])) {
        const c = this.connOf.get(id);
        if (fits(c)) sibling = c;
      }
      const last = this.conns[this.conns.length - 1];
      let c = sibling ?? (fits(last) ? last : this.conns.find(fits));
      if (!c && unit.length > this.bound) {
        // a bound below a market's size: split (each connection keeps the entries of its own assets)
        for (const id of unit) {
          const l = this.conns[this.conns.length - 1];
          put(l && l.assets.size < this.bound ? l : (this.conns.find((x) => x.assets.size < this.bound) ?? this.openConn()), id);
        }
        continue;
      }
      c ??= this.openConn();
      for (const id of unit) put(c, id);
    }
    return got;
  }

  /** The ids not placed yet, grouped by market in first-seen order (a token whose market is not known alone). */
  private units(ids: readonly string[]): string[][] {
    const out: string[][] = [];
    const byMarket = new Map<string, string[]>();
    for (const id of ids) {
      if (this.connOf.has(id)) continue;
      const m = this.marketOf.get(id);
      if (m === undefined) {
        if (!out.some((u) => u.length === 1 && u[0] === id)) out.push([id]);
        continue;
      }
      const u = byMarket.get(m);
      if (!u) {
        const fresh = [id];
        byMarket.set(m, fresh);
        out.push(fresh);
      } else if (!u.includes(id)) u.push(id);
    }
    return out;
  }

  /**
   * A frame of connection `c`: decoded once, then what is another connection's dropped (the entries
   * and events of assets another connection carries: that one delivers them), into the pipeline.
   * Assets no connection carries pass on: the mirror counts and drops them (book_dropped_unknown_token).
   */
  private marketFrame(c: MarketConn, f: RawFrame): void {
    const events = this.pipeline.decode(f.text);
    if (events.length === 0) return;
    // one connection (most daemons): no other carries anything, so no entry is looked up per frame
    if (this.conns.length === 1) return this.pipeline.dispatch(f.epoch, events, c.id);
    let n = 0;
    for (let i = 0; i < events.length; i++) {
      const e = events[i];
      if (e.type === 'price_change') {
        const ch = e.changes;
        let k = 0;
        for (let j = 0; j < ch.length; j++) if (!this.otherCarries(c, ch[j].assetId)) ch[k++] = ch[j];
        if (k === 0) continue;
        ch.length = k;
      } else if ('assetId' in e && this.otherCarries(c, e.assetId)) continue;
      events[n++] = e;
    }
    events.length = n;
    // dispatched even when nothing is left: a rejected message of the frame is marked there
    this.pipeline.dispatch(f.epoch, events, c.id);
  }

  private otherCarries(c: MarketConn, assetId: string): boolean {
    const owner = this.connOf.get(assetId);
    return owner !== undefined && owner !== c;
  }

  private openConn(): MarketConn {
    const id = this.nextConnId++;
    const conn = new FeedConnection(channelOptions(this.o.config.urls.ws, { kind: 'market' }, this.timing, { log: this.o.log, random: this.o.random, name: `market#${id}` }));
    const c: MarketConn = { id, conn, assets: new Set() };
    conn.onFrame((f) => this.marketFrame(c, f));
    conn.onState((s) => {
      // deltas missed while down: this connection's books wait for the snapshots the resubscribe brings
      if ((s === 'down' || s === 'stale') && !this.stopping && this.conns.includes(c)) {
        this.o.log?.warn({ conn: id, state: s, tokens: c.assets.size }, 'market connection lost: its books out of sync until their fresh snapshots');
        this.pipeline.lost(c.assets, c.id);
      }
      this.reportState();
    });
    this.conns.push(c);
    return c;
  }

  /**
   * Emits the worst of the market connections' states whenever a connection's state (or the set of
   * connections) changed, not only when the worst did: one connection back while another still
   * opens leaves the worst as it was, yet its markets may quote again (the daemon's feedLive).
   */
  private reportState(): void {
    let s: ConnectionState = 'live';
    for (const c of this.conns) if (STATE_RANK[c.conn.state] > STATE_RANK[s]) s = c.conn.state;
    if (this.conns.length === 0) s = this.started && !this.stopping ? 'live' : 'down';
    const all = `${s}|${this.conns.map((c) => c.conn.state).join(',')}`;
    if (all === this.marketReported) return;
    this.marketReported = all;
    for (const fn of this.stateListeners) fn('market', s);
  }

  /** Each market connection's state, in opening order. */
  marketStates(): ConnectionState[] {
    return this.conns.map((c) => c.conn.state);
  }
  /** Each counter of the market connections summed, those closed included (a counter never goes down). */
  marketCounterTotals(): Record<string, number> {
    const out: Record<string, number> = { ...this.closedCounters };
    for (const c of this.conns) for (const [k, v] of Object.entries(c.conn.counters)) out[k] = (out[k] ?? 0) + v;
    return out;
  }

  /** The market connections (tests, status): their ids, states and assets. */
  marketConnections(): ReadonlyArray<{ id: number; conn: FeedConnection; assets: ReadonlySet<string> }> {
    return this.conns;
  }

  start(): void {
    this.started = true;
    for (const c of this.conns) c.conn.start([...c.assets]);
    this.reportState();
    this.userChannel?.start(this.userInitial);
    // a group is checked when its token's next timestamp arrives; on a quiet market that could be
    // long, so a group idle for book.groupIdleMs is closed and checked (same-timestamp messages
    // arrive back to back, far inside that window)
    this.idleTimer = setInterval(() => {
      if (this.mirror.hasOpenGroup()) this.mirror.closeIdleGroups();
    }, GROUP_TIMER_MS);
    this.idleTimer.unref?.();
    const quiet = this.o.refreshQuietMs;
    if (quiet !== undefined && quiet > 0) {
      this.quietTimer = setInterval(() => this.refreshQuiet(quiet), Math.min(QUIET_CHECK_MS, quiet));
      this.quietTimer.unref?.();
    }
  }
  /**
   * Asks a live connection again for its books that no event updated for `quietMs` (see
   * refreshQuietMs), and for those still without a book in sync after `quietMs` live: a snapshot
   * the venue left out of its answer to a (re)subscribe is otherwise never asked for again.
   */
  private refreshQuiet(quietMs: number): void {
    const now = this.o.now?.() ?? Date.now();
    for (const c of this.conns) {
      if (c.conn.state !== 'live') {
        for (const id of c.assets) this.unsyncedSince.delete(id);
        continue;
      }
      const ask: string[] = [];
      for (const id of c.assets) {
        const b = this.mirror.book(id);
        if (!b || !b.inSync()) {
          // counted from the first check that sees it live and out of sync, then once a period (a
          // clock stepped back: from now)
          const since = this.unsyncedSince.get(id);
          if (since === undefined || since > now) this.unsyncedSince.set(id, now);
          if (since === undefined || since > now || now - since < quietMs) continue;
          this.unsyncedSince.set(id, now);
        } else {
          this.unsyncedSince.delete(id);
          // a book stamped ahead of now (the clock stepped back) is of unknown age: asked for again
          const age = now - b.updatedAt();
          if (age < quietMs && age >= -STAMPED_AHEAD_MS) continue;
        }
        const asked = this.quietAsked.get(id);
        if (asked !== undefined && asked <= now && now - asked < quietMs) continue;
        this.quietAsked.set(id, now);
        ask.push(id);
        if (ask.length >= QUIET_MAX_PER_CHECK) break;
      }
      if (ask.length === 0) continue;
      this.quietRefreshes += ask.length;
      c.conn.resubscribe(ask);
    }
  }
  stop(): void {
    this.stopping = true;
    if (this.idleTimer) clearInterval(this.idleTimer);
    this.idleTimer = null;
    if (this.quietTimer) clearInterval(this.quietTimer);
    this.quietTimer = null;
    this.resync.stop();
    this.pipeline.stop();
    for (const c of this.conns) c.conn.stop();
    this.userChannel?.stop();
  }
  /** Subscribes ids: on the connections with room (no reconnect), new connections for the rest. */
  addTokens(ids: readonly string[]): void {
    for (const id of ids) this.mirror.setMeta(id, {});
    for (const [c, list] of this.place(ids)) {
      if (!this.started || this.stopping) continue;
      if (c.conn.state === 'down' && c.conn.wantedIds().length === 0) c.conn.start(list);
      else c.conn.subscribe(list);
    }
    this.reportState();
  }
  /** Adds condition ids to the user channel: an operation, and a swap to a connection subscribed with the whole list (UserChannel.addMarkets). */
  addUserMarkets(conditionIds: readonly string[]): void {
    this.userChannel?.addMarkets(conditionIds);
  }
  /** Takes condition ids off the user channel's subscription (sent on the open connection; a reconnect subscribes only the rest). */
  removeUserMarkets(conditionIds: readonly string[]): void {
    this.userChannel?.removeMarkets(conditionIds);
  }
  /** The condition ids the user channel subscribes (on its next connect too). */
  userMarkets(): readonly string[] {
    return this.userChannel?.markets() ?? [];
  }
  /**
   * Unsubscribes ids on their connections (no reconnect); a connection left without assets is
   * closed. Their books, sync state and any resync are forgotten: a daemon that rotates markets
   * for weeks keeps only the books it trades.
   */
  removeTokens(ids: readonly string[]): void {
    const by = new Map<MarketConn, string[]>();
    for (const id of ids) {
      this.mirror.forget(id);
      this.resync.forget(id);
      this.noteMarket(id, undefined);
      const c = this.connOf.get(id);
      if (!c) continue;
      this.connOf.delete(id);
      this.quietAsked.delete(id);
      this.unsyncedSince.delete(id);
      c.assets.delete(id);
      const list = by.get(c);
      if (list) list.push(id);
      else by.set(c, [id]);
    }
    for (const [c, list] of by) {
      if (c.assets.size > 0) {
        c.conn.unsubscribe(list);
        continue;
      }
      this.conns.splice(this.conns.indexOf(c), 1);
      for (const [k, v] of Object.entries(c.conn.counters)) this.closedCounters[k] = (this.closedCounters[k] ?? 0) + v;
      c.conn.stop();
    }
    this.reportState();
  }
  book(assetId: string): DenseBook | undefined {
    return this.mirror.book(assetId);
  }

  /** Flat counters for /metrics. */
  counters(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [k, v] of Object.entries(this.marketStats.counters())) out[`market_decode_${k}`] = v;
    for (const [k, v] of Object.entries(this.userStats.counters())) out[`user_decode_${k}`] = v;
    for (const [k, v] of Object.entries(this.marketCounterTotals())) out[`market_ws_${k}`] = v;
    out.market_ws_connections = this.conns.length;
    out.book_quiet_refreshes = this.quietRefreshes;
    out.book_dropped_unknown_token = this.mirror.droppedUnknown;
    out.book_rejected_snapshots = this.mirror.rejectedSnapshots;
    if (this.userChannel) for (const [k, v] of Object.entries(this.userChannel.counters())) out[`user_ws_${k}`] = v;
    return out;
  }
}
