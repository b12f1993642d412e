// The live and paper data source: given config and token ids it owns the market connections (and
// the user connection when credentials and condition ids are given), the book mirror and the
// market pipeline its frames go through (market-pipeline.ts: the one path of every mode), the
// user decoder, and emits user events, book updates and state changes.
// The market channel is split over as many connections as feed.maxAssetsPerConnection needs (each
// with its own watchdog and reconnect; added assets fill the last one first, an emptied one is
// closed); every connection's frames go through the one pipeline, tagged with the connection's id
// so that a reconnect puts only its own assets' books out of sync. The market state reported is the
// worst of the connections' (live only when every one is live).
// Resync after a mismatch, gap or tick-size change: resync.ts (resubscribe or GET /book through the
// caller's fetchBook, whichever book.resync names first, the other after book.resyncTimeoutMs).
import type { Config } from '../config.js';
import type { Logger } from '../core/log.js';
import type { DenseBook } from '../book/book.js';
import { BookMirror, type OutOfSyncReason, type TokenMeta } from '../book/mirror.js';
import { Resyncer } from './resync.js';
import { FeedConnection, type ConnectionState } from './connection.js';
import { channelOptions, type UserAuth } from './channels.js';
import { createMarketDecodeStats, decodeMarketFrame } from './decode-market.js';
import { MarketPipeline } from './market-pipeline.js';
import { createUserDecodeStats, decodeUserFrame } from './decode-user.js';
import type { BookEvent, MarketEvent, UserEvent } from '../core/events.js';
import type { DecodeStats } from './decode-stats.js';

export interface MarketFeedOptions {
  /** feed.maxAssetsPerConnection absent: the default (200). */
  config: Pick<Config, 'urls' | 'book'> & { feed: Omit<Config['feed'], 'maxAssetsPerConnection'> & { maxAssetsPerConnection?: number } };
  /** Token (asset) ids for the market channel. */
  tokens: readonly string[];
  /** Condition ids and credentials for the user channel; no user connection without both. */
  conditionIds?: readonly string[];
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
  private readonly connOf = new Map<string, MarketConn>();
  private nextConnId = 0;
  private readonly bound: number;
  private readonly timing: Parameters<typeof channelOptions>[2];
  private marketState: ConnectionState = 'down';
  private started = false;
  readonly user: FeedConnection | undefined;
  /** The user channel's markets at start (its first connect subscribes them). */
  private userInitial: readonly string[] = [];
  readonly marketStats: DecodeStats;
  readonly userStats: DecodeStats;
  /** The market frames' path to the venue and the engine: connect() them. */
  readonly pipeline: MarketPipeline;
  private readonly userListeners: Array<(e: UserEvent) => void> = [];
  private readonly stateListeners: Array<(c: Channel, s: ConnectionState) => void> = [];
  private readonly ubuf: UserEvent[] = [];
  private idleTimer: NodeJS.Timeout | null = null;
  private quietTimer: NodeJS.Timeout | null = null;
  /** When each quiet book was last asked for (its snapshot may take a moment). */
  private readonly quietAsked = new Map<string, number>();
  /** Quiet books asked for again (refreshQuietMs). */
  quietRefreshes = 0;
  private stopping = false;
  readonly resync: Resyncer;
  /** Out-of-sync episodes by reason, every token (reconnects included). */
  readonly outOfSync = new Map<OutOfSyncReason, number>();

  constructor(private readonly o: MarketFeedOptions) {
    const cfg = o.config;
    const timing = (this.timing = {
      pingIntervalMs: cfg.feed.pingIntervalMs,
      pongTimeoutMs: cfg.feed.pongTimeoutMs,
      quietMs: cfg.feed.quietMs,
      probeTimeoutMs: cfg.feed.probeTimeoutMs,
      reconnectBaseMs: cfg.feed.reconnectBaseMs,
      reconnectMaxMs: cfg.feed.reconnectMaxMs,
    });
    this.bound = cfg.feed.maxAssetsPerConnection ?? DEFAULT_MAX_ASSETS_PER_CONNECTION;
    this.marketStats = createMarketDecodeStats(o.log);
    this.userStats = createUserDecodeStats(o.log);
    this.mirror = new BookMirror({
      verifyEvery: cfg.book.verifyEvery,
      groupIdleMs: cfg.book.groupIdleMs,
      now: o.now,
      log: o.log,
      onResync: (id, reason) => this.resync.request(id, reason),
      // a venue's frames: only provable books, only the tokens we asked for
      requireHash: cfg.book.verifyEvery > 0,
      knownTokensOnly: true,
    });
    for (const id of o.tokens) this.mirror.setMeta(id, o.meta?.[id] ?? {});
    for (const [id, m] of Object.entries(o.meta ?? {})) this.mirror.setMeta(id, m);
    this.resync = new Resyncer({
      mirror: this.mirror,
      method: cfg.book.resync,
      timeoutMs: cfg.book.resyncTimeoutMs,
      resubscribe: (id) => this.connOf.get(id)?.conn.resubscribe([id]),
      fetchBook: o.fetchBook,
      streaming: (id) => this.connOf.get(id)?.conn.state === 'live',
      log: o.log,
    });
    this.mirror.onOutOfSync((_id, reason) => this.outOfSync.set(reason, (this.outOfSync.get(reason) ?? 0) + 1));
    this.mirror.onUpdate((b) => this.resync.updated(b.assetId, b.inSync()));
    this.pipeline = new MarketPipeline({
      mirror: this.mirror,
      stats: this.marketStats,
      observe: (e) => this.resync.observe(e),
      assetsOf: (source) => this.conns.find((c) => c.id === source)?.assets ?? [],
    });
    this.place(o.tokens);
    if (o.auth && o.conditionIds && o.conditionIds.length > 0) {
      // the markets are the connection's wanted set (not fixed in the subscription), so they can be pruned
      this.user = new FeedConnection(channelOptions(cfg.urls.ws, { kind: 'user', markets: [], auth: o.auth }, timing, { log: o.log, random: o.random }));
      this.userInitial = o.conditionIds;
      this.user.onFrame((f) => {
        const out = this.ubuf;
        out.length = 0;
        decodeUserFrame(f.text, out, this.userStats);
        for (let i = 0; i < out.length; i++) for (const fn of this.userListeners) fn(out[i]);
      });
      this.user.onState((s) => {
        for (const fn of this.stateListeners) fn('user', s);
      });
    }
  }

  onUserEvent(fn: (e: UserEvent) => void): void {
    this.userListeners.push(fn);
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

  /** Puts ids on connections: the last one first, then any with room, then new ones. Returns the connections that got ids. */
  private place(ids: readonly string[]): Map<MarketConn, string[]> {
    const got = new Map<MarketConn, string[]>();
    for (const id of ids) {
      if (this.connOf.has(id)) continue;
      const last = this.conns[this.conns.length - 1];
      let c = last && last.assets.size < this.bound ? last : this.conns.find((x) => x.assets.size < this.bound);
      c ??= this.openConn();
      c.assets.add(id);
      this.connOf.set(id, c);
      const list = got.get(c);
      if (list) list.push(id);
      else got.set(c, [id]);
    }
    return got;
  }

  private openConn(): MarketConn {
    const id = this.nextConnId++;
    const conn = new FeedConnection(channelOptions(this.o.config.urls.ws, { kind: 'market' }, this.timing, { log: this.o.log, random: this.o.random, name: `market#${id}` }));
    const c: MarketConn = { id, conn, assets: new Set() };
    conn.onFrame((f) => void this.pipeline.frame(f.epoch, f.text, id));
    conn.onState((s) => {
      // deltas missed while down: this connection's books wait for the snapshots the resubscribe brings
      if ((s === 'down' || s === 'stale') && !this.stopping && this.conns.includes(c)) {
        this.o.log?.warn({ conn: id, state: s, tokens: c.assets.size }, 'market connection lost: its books out of sync until their fresh snapshots');
        this.mirror.markOutOfSync(c.assets, 'reconnect', false);
      }
      this.reportState();
    });
    this.conns.push(c);
    return c;
  }

  /** Emits the worst of the market connections' states when it changes. */
  private reportState(): void {
    let s: ConnectionState = 'live';
    for (const c of this.conns) if (STATE_RANK[c.conn.state] > STATE_RANK[s]) s = c.conn.state;
    if (this.conns.length === 0) s = this.started && !this.stopping ? 'live' : 'down';
    if (s === this.marketState) return;
    this.marketState = s;
    for (const fn of this.stateListeners) fn('market', s);
  }

  /** Each market connection's state, in opening order. */
  marketStates(): ConnectionState[] {
    return this.conns.map((c) => c.conn.state);
  }
  /** The market connections (tests, status): their ids, states and assets. */
  marketConnections(): ReadonlyArray<{ id: number; conn: FeedConnection; assets: ReadonlySet<string> }> {
    return this.conns;
  }

  start(): void {
    this.started = true;
    for (const c of this.conns) c.conn.start([...c.assets]);
    this.reportState();
    this.user?.start(this.userInitial);
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
  /** Asks a live connection again for its books that no event updated for `quietMs` (see refreshQuietMs). */
  private refreshQuiet(quietMs: number): void {
    const now = this.o.now?.() ?? Date.now();
    for (const c of this.conns) {
      if (c.conn.state !== 'live') continue;
      const ask: string[] = [];
      for (const id of c.assets) {
        const b = this.mirror.book(id);
        if (!b || !b.inSync() || now - b.updatedAt() < quietMs) continue;
        if (now - (this.quietAsked.get(id) ?? -Infinity) < quietMs) continue;
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
    for (const c of this.conns) c.conn.stop();
    this.user?.stop();
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
  /** Adds condition ids to the user channel's subscription (sent on the open connection, kept for reconnects). */
  addUserMarkets(conditionIds: readonly string[]): void {
    this.user?.subscribe(conditionIds);
  }
  /** Takes condition ids off the user channel's subscription (sent on the open connection; a reconnect subscribes only the rest). */
  removeUserMarkets(conditionIds: readonly string[]): void {
    this.user?.unsubscribe(conditionIds);
  }
  /** The condition ids the user channel subscribes (on its next connect too). */
  userMarkets(): readonly string[] {
    return this.user?.wantedIds() ?? [];
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
      const c = this.connOf.get(id);
      if (!c) continue;
      this.connOf.delete(id);
      this.quietAsked.delete(id);
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
    for (const c of this.conns) for (const [k, v] of Object.entries(c.conn.counters)) out[`market_ws_${k}`] = (out[`market_ws_${k}`] ?? 0) + v;
    out.market_ws_connections = this.conns.length;
    out.book_quiet_refreshes = this.quietRefreshes;
    out.book_dropped_unknown_token = this.mirror.droppedUnknown;
    out.book_rejected_snapshots = this.mirror.rejectedSnapshots;
    if (this.user) for (const [k, v] of Object.entries(this.user.counters)) out[`user_ws_${k}`] = v;
    return out;
  }
}
