// The book mirror: applies decoded market events to one DenseBook per token and proves it is in
// sync. A snapshot replaces the book; deltas before it are ignored; tick_size_change drops it.
// The venue hash (wire-formats.md section 5) is checked on every snapshot and once per timestamp
// group of price_change messages (the group shares the hash of the state after all of it), so a
// group is verified when it closes: a different timestamp, a snapshot, or flush(). verifyEvery N
// samples: every Nth group and snapshot per token (a backtest may; live checks all). A mismatch or
// gap marks the token out of sync, tells listeners and asks the owner to resync.
//
// Complement seeding: the market channel sends a snapshot per subscribed token, but a capture may
// hold only one of a binary market's two books. When a market has exactly two tokens and a delta
// arrives for a token that never had a snapshot while its sibling is in sync, the token is seeded
// with the mirror of the sibling's book (price 1-p, bids<->asks, same size strings), counted in
// `seeded`. The hash checks that follow prove or refute the seed.
import type { Logger } from '../core/log.js';
import { PRICE_SCALE } from '../core/units.js';
import type { BookEvent, MarketEvent, PriceChangeEvent } from '../feed/events.js';
import { DenseBook } from './book.js';
import { mirrorBookInto } from './complement.js';
import { bookHashPayloadFromText, sha1Hex } from './hash.js';

/** Hash fields the WS frames omit, from market metadata (REST /book, CLOB /markets). */
export interface TokenMeta {
  market?: string;
  minOrderSize?: string;
  tickSize?: string;
  negRisk?: boolean;
  lastTradePrice?: string;
}

export type OutOfSyncReason = 'hash_mismatch' | 'best_mismatch' | 'gap' | 'tick_size_change' | 'reconnect';

export interface TokenStats {
  snapshots: number;
  deltas: number;
  /** Deltas dropped: no in-sync book yet (before the first snapshot, after a drop), or older than the snapshot. */
  ignoredDeltas: number;
  hashesVerified: number;
  /** price_change entries whose carried hash was proven (a group's entries share one hash). */
  entriesVerified: number;
  mismatches: number;
  bestChecks: number;
  bestMismatches: number;
  gaps: number;
  outOfSync: number;
  /** Times the book was seeded from its sibling's mirror (complement seeding). */
  seeded: number;
}

export interface MirrorOptions {
  /** 1 = verify every snapshot and timestamp group, N = every Nth group and snapshot per token (a token's first snapshot always), 0 = never. */
  verifyEvery?: number;
  /** Time source for book age (engine clock); default Date.now. */
  now?: () => number;
  /** Called once per out-of-sync episode: resubscribe or GET /book, then feed the snapshot back. */
  onResync?: (assetId: string, reason: OutOfSyncReason) => void;
  /** See the file comment; default true. */
  complementSeeding?: boolean;
  /** min_order_size hashed when neither metadata nor a snapshot gives one (every 2026 capture: "5"). */
  defaultMinOrderSize?: string;
  /** neg_risk hashed when neither metadata nor a snapshot gives one; default false. */
  defaultNegRisk?: boolean;
  log?: Logger;
}

export interface MismatchInfo {
  timestamp: string;
  expected: string;
  computed: string;
}

class TokenState {
  readonly book: DenseBook;
  market = '';
  minOrderSize: string;
  tickSize = '';
  negRisk = false;
  lastTradePrice = '';
  /** True while the book is a verified (or seeded) image of the venue's. */
  live = false;
  everSnapshot = false;
  lastTsMs = 0;
  snapshotTsMs = 0;
  groups = 0;
  inGroup = false;
  pendingHash: string | undefined = undefined;
  pendingTs = '';
  pendingEntries = 0;
  notified = 0;
  lastMismatch: MismatchInfo | undefined = undefined;
  /** Wire price of the latest trade, a candidate last_trade_price when a hash does not match. */
  tradedPrice: string | undefined = undefined;
  readonly stats: TokenStats = { snapshots: 0, deltas: 0, ignoredDeltas: 0, hashesVerified: 0, entriesVerified: 0, mismatches: 0, bestChecks: 0, bestMismatches: 0, gaps: 0, outOfSync: 0, seeded: 0 };
  constructor(assetId: string, minOrderSize: string) {
    this.book = new DenseBook(assetId);
    this.minOrderSize = minOrderSize;
  }
}

export type OutOfSyncListener = (assetId: string, reason: OutOfSyncReason) => void;
export type BookUpdateListener = (book: DenseBook) => void;

export class BookMirror {
  private readonly tokens = new Map<string, TokenState>();
  private readonly marketTokens = new Map<string, string[]>();
  private readonly touched: TokenState[] = [];
  private groupTs: string | null = null;
  private recent0: TokenState | undefined = undefined;
  private recent1: TokenState | undefined = undefined;
  private seq = 0;
  private readonly verifyEvery: number;
  private readonly now: () => number;
  private readonly seeding: boolean;
  private readonly defaultMos: string;
  private readonly oosListeners: OutOfSyncListener[] = [];
  private readonly updateListeners: BookUpdateListener[] = [];

  constructor(private readonly opts: MirrorOptions = {}) {
    this.verifyEvery = opts.verifyEvery ?? 1;
    this.now = opts.now ?? Date.now;
    this.seeding = opts.complementSeeding ?? true;
    this.defaultMos = opts.defaultMinOrderSize ?? '5';
  }

  onOutOfSync(fn: OutOfSyncListener): void {
    this.oosListeners.push(fn);
  }
  /** Called once per applied event per token whose book changed (no allocation per call). */
  onUpdate(fn: BookUpdateListener): void {
    this.updateListeners.push(fn);
  }

  setMeta(assetId: string, meta: TokenMeta): void {
    const st = this.state(assetId);
    if (meta.market !== undefined) this.joinMarket(st, meta.market);
    if (meta.minOrderSize !== undefined) st.minOrderSize = meta.minOrderSize;
    if (meta.tickSize !== undefined) st.tickSize = meta.tickSize;
    if (meta.negRisk !== undefined) st.negRisk = meta.negRisk;
    if (meta.lastTradePrice !== undefined) st.lastTradePrice = meta.lastTradePrice;
  }

  book(assetId: string): DenseBook | undefined {
    return this.tokens.get(assetId)?.book;
  }
  stats(assetId: string): TokenStats | undefined {
    return this.tokens.get(assetId)?.stats;
  }
  lastMismatch(assetId: string): MismatchInfo | undefined {
    return this.tokens.get(assetId)?.lastMismatch;
  }
  assetIds(): string[] {
    return [...this.tokens.keys()];
  }

  /** Applies one decoded market event. Events other than book/price_change/tick_size_change are ignored. */
  apply(ev: MarketEvent): void {
    switch (ev.type) {
      case 'price_change':
        this.applyPriceChange(ev);
        return;
      case 'book':
        this.closeGroup();
        this.applySnapshot(ev);
        return;
      case 'tick_size_change': {
        this.closeGroup();
        const st = this.state(ev.assetId);
        st.tickSize = ev.newTickSizeStr;
        st.book.tick = ev.newTickSize;
        this.outOfSync(st, 'tick_size_change', true);
        return;
      }
      case 'last_trade_price': {
        // a trade may move the hashed last_trade_price; tried only when a hash fails to match
        const st = this.tokens.get(ev.assetId);
        if (st && ev.priceStr !== undefined) st.tradedPrice = ev.priceStr;
        return;
      }
      default:
        return;
    }
  }

  /** Verifies the open timestamp group now (end of a replay, or when the owner knows it is complete). */
  flush(): void {
    this.closeGroup();
  }

  /** Whether price_change messages are waiting for their group to close (see flush). */
  hasOpenGroup(): boolean {
    return this.touched.length > 0;
  }

  /** Marks every token out of sync (e.g. the connection dropped); `resync` asks the owner for each. */
  markAllOutOfSync(reason: OutOfSyncReason, resync = false): void {
    this.closeGroup();
    for (const st of this.tokens.values()) if (st.live) this.outOfSync(st, reason, resync);
  }

  private state(assetId: string): TokenState {
    let st = this.tokens.get(assetId);
    if (!st) {
      st = new TokenState(assetId, this.defaultMos);
      st.negRisk = this.opts.defaultNegRisk ?? false;
      this.tokens.set(assetId, st);
    }
    return st;
  }

  private joinMarket(st: TokenState, market: string): void {
    if (st.market === market) return;
    st.market = market;
    const list = this.marketTokens.get(market);
    if (!list) this.marketTokens.set(market, [st.book.assetId]);
    else if (!list.includes(st.book.assetId)) list.push(st.book.assetId);
  }

  private applySnapshot(ev: BookEvent): void {
    const st = this.state(ev.assetId);
    this.joinMarket(st, ev.market);
    if (ev.tickSizeStr !== undefined) st.tickSize = ev.tickSizeStr;
    if (ev.minOrderSizeStr !== undefined) st.minOrderSize = ev.minOrderSizeStr;
    if (ev.negRisk !== undefined) st.negRisk = ev.negRisk;
    if (ev.lastTradePriceStr !== undefined) st.lastTradePrice = ev.lastTradePriceStr;
    if (ev.tickSize !== undefined) st.book.tick = ev.tickSize;
    st.book.loadSnapshot(ev.bids, ev.asks, this.now());
    st.stats.snapshots++;
    st.everSnapshot = true;
    st.lastTsMs = ev.timestampMs;
    st.snapshotTsMs = ev.timestampMs;
    st.live = true;
    st.book.setInSync(true);
    // sampled (verifyEvery N > 1, e.g. a backtest): a token's 1st, N+1th, 2N+1th... snapshot
    if (this.verifyEvery > 0 && ev.hash !== '' && (st.stats.snapshots - 1) % this.verifyEvery === 0) this.verify(st, ev.timestampStr, ev.hash);
    this.notify(st, ++this.seq);
  }

  private applyPriceChange(ev: PriceChangeEvent): void {
    if (this.groupTs !== null && this.groupTs !== ev.timestampStr) this.closeGroup();
    this.groupTs = ev.timestampStr;
    const seq = ++this.seq;
    const changes = ev.changes;
    const nowMs = this.now();
    for (let i = 0; i < changes.length; i++) {
      const c = changes[i];
      // the last two tokens seen answer almost every lookup (a binary market's pair) without
      // hashing the 77-digit id that JSON.parse just allocated
      let st = this.recent0;
      if (st === undefined || st.book.assetId !== c.assetId) {
        st = this.recent1;
        if (st === undefined || st.book.assetId !== c.assetId) {
          st = this.state(c.assetId);
          this.joinMarket(st, ev.market);
        }
        this.recent1 = this.recent0;
        this.recent0 = st;
      }
      if (!st.live) {
        if (!(this.seeding && !st.everSnapshot && this.seed(st, ev))) {
          st.stats.ignoredDeltas++;
          continue;
        }
      }
      if (ev.timestampMs < st.snapshotTsMs) {
        // older than the snapshot that replaced the book: already in it (e.g. in flight during a resync)
        st.stats.ignoredDeltas++;
        continue;
      }
      if (ev.timestampMs < st.lastTsMs) {
        // deltas never go back in time within a subscription: we missed or reordered data
        st.stats.gaps++;
        this.outOfSync(st, 'gap', true);
        continue;
      }
      st.lastTsMs = ev.timestampMs;
      const book = st.book;
      book.set(c.side, c.price, c.size, c.priceStr, c.sizeStr);
      book.touch(nowMs);
      st.stats.deltas++;
      if (c.bestBid !== undefined || c.bestAsk !== undefined) {
        st.stats.bestChecks++;
        const bb = book.bestBid();
        const ba = book.bestAsk();
        // an empty side is sent as best_bid "0" / best_ask "1"
        if ((c.bestBid !== undefined && c.bestBid !== (bb < 0 ? 0 : bb)) || (c.bestAsk !== undefined && c.bestAsk !== (ba < 0 ? PRICE_SCALE : ba))) {
          st.stats.bestMismatches++;
          this.outOfSync(st, 'best_mismatch', true);
          continue;
        }
      }
      if (c.hash !== undefined) {
        st.pendingHash = c.hash;
        st.pendingTs = ev.timestampStr;
        st.pendingEntries++;
        if (!st.inGroup) {
          st.inGroup = true;
          this.touched.push(st);
        }
      }
      this.notify(st, seq);
    }
  }

  private closeGroup(): void {
    this.groupTs = null;
    const t = this.touched;
    for (let i = 0; i < t.length; i++) {
      const st = t[i];
      st.inGroup = false;
      const h = st.pendingHash;
      const entries = st.pendingEntries;
      st.pendingHash = undefined;
      st.pendingEntries = 0;
      if (!st.live || h === undefined || this.verifyEvery === 0) continue;
      if (++st.groups % this.verifyEvery === 0 && this.verify(st, st.pendingTs, h)) st.stats.entriesVerified += entries;
    }
    t.length = 0;
  }

  private verify(st: TokenState, timestamp: string, expected: string): boolean {
    const b = st.book;
    const payload = bookHashPayloadFromText(
      { market: st.market, assetId: b.assetId, timestamp, minOrderSize: st.minOrderSize, tickSize: st.tickSize, negRisk: st.negRisk, lastTradePrice: st.lastTradePrice },
      b.sideText('BUY'),
      b.sideText('SELL'),
    );
    const got = sha1Hex(payload);
    if (got === expected || this.matchesWithTradedPrice(st, timestamp, expected)) {
      st.stats.hashesVerified++;
      return true;
    }
    st.stats.mismatches++;
    st.lastMismatch = { timestamp, expected, computed: got };
    this.opts.log?.warn({ assetId: b.assetId, timestamp, expected, computed: got }, 'book hash mismatch');
    this.outOfSync(st, 'hash_mismatch', true);
    return false;
  }

  /** Whether the hash matches once last_trade_price is the latest trade's price; adopts it if so. */
  private matchesWithTradedPrice(st: TokenState, timestamp: string, expected: string): boolean {
    const alt = st.tradedPrice;
    if (alt === undefined || alt === st.lastTradePrice) return false;
    const b = st.book;
    const m = { market: st.market, assetId: b.assetId, timestamp, minOrderSize: st.minOrderSize, tickSize: st.tickSize, negRisk: st.negRisk, lastTradePrice: alt };
    if (sha1Hex(bookHashPayloadFromText(m, b.sideText('BUY'), b.sideText('SELL'))) !== expected) return false;
    st.lastTradePrice = alt;
    st.tradedPrice = undefined;
    return true;
  }

  private seed(st: TokenState, ev: PriceChangeEvent): boolean {
    const ids = this.marketTokens.get(ev.market);
    if (!ids || ids.length !== 2) return false;
    const sib = this.tokens.get(ids[0] === st.book.assetId ? ids[1] : ids[0]);
    if (!sib || !sib.live || !sib.everSnapshot) return false;
    const src = sib.book;
    const dst = st.book;
    mirrorBookInto(src, dst);
    dst.tick = src.tick;
    st.tickSize = sib.tickSize;
    st.minOrderSize = sib.minOrderSize;
    st.negRisk = sib.negRisk;
    st.lastTradePrice = sib.lastTradePrice;
    st.lastTsMs = sib.lastTsMs;
    st.snapshotTsMs = sib.snapshotTsMs;
    st.live = true;
    dst.setInSync(true);
    st.stats.seeded++;
    this.opts.log?.info({ assetId: dst.assetId, from: src.assetId }, 'complement seeding: book seeded from the sibling mirror');
    return true;
  }

  private outOfSync(st: TokenState, reason: OutOfSyncReason, resync: boolean): void {
    const wasLive = st.live;
    st.live = false;
    st.book.setInSync(false);
    st.book.clear();
    st.pendingHash = undefined;
    st.pendingEntries = 0;
    if (!wasLive && reason !== 'tick_size_change') return;
    st.stats.outOfSync++;
    for (const fn of this.oosListeners) fn(st.book.assetId, reason);
    if (resync) this.opts.onResync?.(st.book.assetId, reason);
  }

  private notify(st: TokenState, seq: number): void {
    if (st.notified === seq) return;
    st.notified = seq;
    for (let i = 0; i < this.updateListeners.length; i++) this.updateListeners[i](st.book);
  }
}
