// The facade the engine uses for live and paper data: given config and token ids it owns the
// market connection (and the user connection when credentials and condition ids are given), the
// shared decoders and the book mirror, and emits typed events, book updates and state changes.
// Resync after a mismatch, gap or tick-size change: resubscribe the token (config book.resync =
// 'resubscribe') or fetch GET /book through the caller's fetchBook ('rest').
import type { Config } from '../config.js';
import type { Logger } from '../core/log.js';
import type { DenseBook } from '../book/book.js';
import { BookMirror, type OutOfSyncReason, type TokenMeta } from '../book/mirror.js';
import { channelOptions, FeedConnection, type ConnectionState, type UserAuth } from './connection.js';
import { createMarketDecodeStats, decodeMarketFrame } from './decode-market.js';
import { createUserDecodeStats, decodeUserFrame } from './decode-user.js';
import type { BookEvent, MarketEvent, UserEvent } from './events.js';
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
  /** GET /book for resync 'rest'; resolves to the snapshot as a BookEvent (null: fall back to resubscribe). */
  fetchBook?: (assetId: string) => Promise<BookEvent | null>;
  /** Book age clock (engine clock). */
  now?: () => number;
  random?: () => number;
  log?: Logger;
}

export type Channel = 'market' | 'user';

const GROUP_IDLE_MS = 250;

export class MarketFeed {
  readonly mirror: BookMirror;
  readonly market: FeedConnection;
  readonly user: FeedConnection | undefined;
  readonly marketStats: DecodeStats;
  readonly userStats: DecodeStats;
  private readonly marketListeners: Array<(e: MarketEvent) => void> = [];
  private readonly userListeners: Array<(e: UserEvent) => void> = [];
  private readonly stateListeners: Array<(c: Channel, s: ConnectionState) => void> = [];
  private readonly mbuf: MarketEvent[] = [];
  private readonly ubuf: UserEvent[] = [];
  private idleTimer: NodeJS.Timeout | null = null;
  private lastMarketEventAt = 0;
  private readonly throttle = new Map<string, { last: number; delayMs: number; timer: NodeJS.Timeout | null }>();
  /** Resyncs requested, by reason (for /metrics). */
  readonly resyncs = new Map<OutOfSyncReason, number>();

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
    this.mirror = new BookMirror({ verifyEvery: cfg.book.verifyEvery, now: o.now, log: o.log, onResync: (id, reason) => this.resync(id, reason) });
    for (const [id, m] of Object.entries(o.meta ?? {})) this.mirror.setMeta(id, m);
    this.market = new FeedConnection(channelOptions(cfg.urls.ws, { kind: 'market' }, timing, { log: o.log, random: o.random }));
    this.market.onFrame((f) => {
      const out = this.mbuf;
      out.length = 0;
      // PONGs do not count as activity (they would keep a group open forever)
      if (decodeMarketFrame(f.text, out, this.marketStats) > 0) this.lastMarketEventAt = Date.now();
      for (let i = 0; i < out.length; i++) {
        this.mirror.apply(out[i]);
        for (const fn of this.marketListeners) fn(out[i]);
      }
    });
    this.market.onState((s) => {
      // deltas missed while down: every book waits for the snapshot the resubscribe brings
      if (s === 'down' || s === 'stale') this.mirror.markAllOutOfSync('reconnect', false);
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

  onMarketEvent(fn: (e: MarketEvent) => void): void {
    this.marketListeners.push(fn);
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
    // a group's hash is checked when the next timestamp arrives; on a quiet market that could be
    // long, so a group idle for GROUP_IDLE_MS is closed and checked (same-timestamp messages
    // arrive back to back, far inside that window)
    this.idleTimer = setInterval(() => {
      if (this.mirror.hasOpenGroup() && Date.now() - this.lastMarketEventAt >= GROUP_IDLE_MS) this.mirror.flush();
    }, GROUP_IDLE_MS);
    this.idleTimer.unref?.();
  }
  stop(): void {
    if (this.idleTimer) clearInterval(this.idleTimer);
    this.idleTimer = null;
    for (const t of this.throttle.values()) if (t.timer) clearTimeout(t.timer);
    this.throttle.clear();
    this.market.stop();
    this.user?.stop();
  }
  addTokens(ids: readonly string[]): void {
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
    if (this.user) for (const [k, v] of Object.entries(this.user.counters)) out[`user_ws_${k}`] = v;
    for (const [k, v] of this.resyncs) out[`book_resync_${k}`] = v;
    return out;
  }

  /**
   * Resyncs are throttled per token: the first goes out at once, repeats back off (1 s doubling to
   * 60 s, reset after 5 quiet minutes), so a persistent mismatch (say, wrong min_order_size metadata)
   * cannot turn into a resubscribe storm.
   */
  private resync(assetId: string, reason: OutOfSyncReason): void {
    this.resyncs.set(reason, (this.resyncs.get(reason) ?? 0) + 1);
    const now = Date.now();
    let t = this.throttle.get(assetId);
    if (!t || now - t.last > 300_000) t = { last: 0, delayMs: 0, timer: null };
    this.throttle.set(assetId, t);
    if (t.timer) return; // one pending resync per token is enough
    const wait = Math.max(0, t.last + t.delayMs - now);
    t.delayMs = Math.min(60_000, t.delayMs === 0 ? 1000 : t.delayMs * 2);
    if (wait === 0) {
      t.last = now;
      this.doResync(assetId);
      return;
    }
    t.timer = setTimeout(() => {
      t.timer = null;
      t.last = Date.now();
      this.doResync(assetId);
    }, wait);
    t.timer.unref?.();
  }

  private doResync(assetId: string): void {
    const fetchBook = this.o.fetchBook;
    if (this.o.config.book.resync === 'rest' && fetchBook) {
      fetchBook(assetId).then(
        (ev) => {
          if (ev) this.mirror.apply(ev);
          else this.market.resubscribe([assetId]);
        },
        (e: unknown) => {
          this.o.log?.warn({ assetId, err: e }, 'GET /book resync failed; resubscribing');
          this.market.resubscribe([assetId]);
        },
      );
      return;
    }
    this.market.resubscribe([assetId]);
  }
}
