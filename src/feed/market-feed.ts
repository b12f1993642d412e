// The live and paper data source: given config and token ids it owns the market connection (and
// the user connection when credentials and condition ids are given), the book mirror and the
// market pipeline its frames go through (market-pipeline.ts: the one path of every mode), the
// user decoder, and emits user events, book updates and state changes.
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
  config: Pick<Config, 'urls' | 'feed' | 'book'>;
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
  random?: () => number;
  log?: Logger;
}

export type Channel = 'market' | 'user';

/** How often open timestamp groups are checked for idleness (book.groupIdleMs closes them). */
const GROUP_TIMER_MS = 25;

/** A REST GET /book body as the market decoder's snapshot event (the one decoder for every book). */
export function bookEventFromRest(wire: object, stats: DecodeStats = createMarketDecodeStats()): BookEvent | null {
  const out: MarketEvent[] = [];
  decodeMarketFrame(JSON.stringify({ ...wire, event_type: 'book' }), out, stats);
  const ev = out[0];
  return ev !== undefined && ev.type === 'book' ? ev : null;
}

export class MarketFeed {
  readonly mirror: BookMirror;
  readonly market: FeedConnection;
  readonly user: FeedConnection | undefined;
  readonly marketStats: DecodeStats;
  readonly userStats: DecodeStats;
  /** The market frames' path to the venue and the engine: connect() them. */
  readonly pipeline: MarketPipeline;
  private readonly userListeners: Array<(e: UserEvent) => void> = [];
  private readonly stateListeners: Array<(c: Channel, s: ConnectionState) => void> = [];
  private readonly ubuf: UserEvent[] = [];
  private idleTimer: NodeJS.Timeout | null = null;
  private stopping = false;
  readonly resync: Resyncer;
  /** Out-of-sync episodes by reason, every token (reconnects included). */
  readonly outOfSync = new Map<OutOfSyncReason, number>();

  constructor(private readonly o: MarketFeedOptions) {
    const cfg = o.config;
    const timing = {
      pingIntervalMs: cfg.feed.pingIntervalMs,
      pongTimeoutMs: cfg.feed.pongTimeoutMs,
      quietMs: cfg.feed.quietMs,
      probeTimeoutMs: cfg.feed.probeTimeoutMs,
      reconnectBaseMs: cfg.feed.reconnectBaseMs,
      reconnectMaxMs: cfg.feed.reconnectMaxMs,
    };
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
    this.market = new FeedConnection(channelOptions(cfg.urls.ws, { kind: 'market' }, timing, { log: o.log, random: o.random }));
    this.resync = new Resyncer({
      mirror: this.mirror,
      method: cfg.book.resync,
      timeoutMs: cfg.book.resyncTimeoutMs,
      resubscribe: (id) => this.market.resubscribe([id]),
      fetchBook: o.fetchBook,
      log: o.log,
    });
    this.mirror.onOutOfSync((_id, reason) => this.outOfSync.set(reason, (this.outOfSync.get(reason) ?? 0) + 1));
    this.mirror.onUpdate((b) => this.resync.updated(b.assetId, b.inSync()));
    this.pipeline = new MarketPipeline({ mirror: this.mirror, stats: this.marketStats, observe: (e) => this.resync.observe(e) });
    this.market.onFrame((f) => void this.pipeline.frame(f.epoch, f.text));
    this.market.onState((s) => {
      // deltas missed while down: every book waits for the snapshot the resubscribe brings
      if ((s === 'down' || s === 'stale') && !this.stopping) {
        this.o.log?.warn({ state: s, tokens: this.o.tokens.length }, 'market feed lost: every book out of sync until its fresh snapshot');
        this.mirror.markAllOutOfSync('reconnect', false);
      }
      for (const fn of this.stateListeners) fn('market', s);
    });
    if (o.auth && o.conditionIds && o.conditionIds.length > 0) {
      this.user = new FeedConnection(channelOptions(cfg.urls.ws, { kind: 'user', markets: o.conditionIds, auth: o.auth }, timing, { log: o.log, random: o.random }));
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

  start(): void {
    this.market.start(this.o.tokens);
    this.user?.start();
    // a group is checked when its token's next timestamp arrives; on a quiet market that could be
    // long, so a group idle for book.groupIdleMs is closed and checked (same-timestamp messages
    // arrive back to back, far inside that window)
    this.idleTimer = setInterval(() => {
      if (this.mirror.hasOpenGroup()) this.mirror.closeIdleGroups();
    }, GROUP_TIMER_MS);
    this.idleTimer.unref?.();
  }
  stop(): void {
    this.stopping = true;
    if (this.idleTimer) clearInterval(this.idleTimer);
    this.idleTimer = null;
    this.resync.stop();
    this.market.stop();
    this.user?.stop();
  }
  addTokens(ids: readonly string[]): void {
    for (const id of ids) this.mirror.setMeta(id, {});
    this.market.subscribe(ids);
  }
  removeTokens(ids: readonly string[]): void {
    this.market.unsubscribe(ids);
  }
  book(assetId: string): DenseBook | undefined {
    return this.mirror.book(assetId);
  }

  /** Flat counters for /metrics. */
  counters(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [k, v] of Object.entries(this.marketStats.counters())) out[`market_decode_${k}`] = v;
    for (const [k, v] of Object.entries(this.userStats.counters())) out[`user_decode_${k}`] = v;
    for (const [k, v] of Object.entries(this.market.counters)) out[`market_ws_${k}`] = v;
    out.book_dropped_unknown_token = this.mirror.droppedUnknown;
    out.book_rejected_snapshots = this.mirror.rejectedSnapshots;
    if (this.user) for (const [k, v] of Object.entries(this.user.counters)) out[`user_ws_${k}`] = v;
    return out;
  }
}
