// The book mirror: applies decoded market events to one DenseBook per token and proves it is in
// sync (wire-formats.md 5.3, 5.4). Messages of one token sharing a timestamp form a group; a
// group closes on the token's next timestamp, a snapshot, flush(), or after `groupIdleMs` without
// a message. Real feeds differ on what a hash inside a group is: the book after the whole batch
// (polytope) or after its own message (glmbotpoly). Both are accepted by checking each run of
// equal hashes against the book at the end of that run, so any single corrupted hash fails, wherever
// it sits. A top (best_bid/best_ask) may be the one after its entry, its message or the batch; the
// last is checked when the group closes. A hash that fails only on the hashed last_trade_price is
// recovered (ltp-recovery.ts). A mismatch or gap marks the token out of sync (one warn line, a
// listener call) and asks the owner to resync; other tokens are untouched.
//
// Complement seeding: a binary market whose second token never got a snapshot is seeded with the
// mirror of its sibling's book (price 1-p, bids<->asks), counted in `seeded`; later hashes prove it.
// Only a first book is seeded: a token that went out of sync waits for a snapshot of its own.
//
// Hashed fields nothing gave (a backtest knows only the market): a snapshot without tick_size is
// hashed with the coarsest venue tick its prices sit on, and one whose hash fails while neg_risk is
// unknown is tried once more with the other neg_risk (wire-formats.md 5.4); what verifies is kept.
import type { Logger } from '../core/log.js';
import { PRICE_SCALE, formatPrice, parsePrice } from '../core/units.js';
import type { BookEvent, MarketEvent, PriceChangeEvent, WireLevel } from '../core/events.js';
import type { DenseBook } from './book.js';
import { mirrorBookInto } from './complement.js';
import { bookHashPayloadFromText, type HashMeta } from './hash.js';
import { hashedLtp, recoverLtp } from './ltp-recovery.js';
import { NO_CLAIM, TokenSync, type OutOfSyncInfo, type OutOfSyncReason, type SyncInfo, type TokenStats } from './token-sync.js';

export type { OutOfSyncInfo, OutOfSyncReason, SyncInfo, TokenStats } from './token-sync.js';

/** Hash fields the WS frames omit, from market metadata (REST /book, CLOB /markets). */
export interface TokenMeta {
  market?: string;
  minOrderSize?: string;
  tickSize?: string;
  negRisk?: boolean;
  lastTradePrice?: string;
}

export interface MirrorOptions {
  /** 1 = verify every snapshot and timestamp group, N = every Nth group and snapshot per token (a token's first snapshot always), 0 = never. */
  verifyEvery?: number;
  /** Time source (engine clock): book age, idle groups, sync history; default Date.now. */
  now?: () => number;
  /** A group with no message for this long (by `now`) is complete and checked; default 250. */
  groupIdleMs?: number;
  /** Called once per out-of-sync episode: resubscribe or GET /book, then feed the snapshot back. */
  onResync?: (assetId: string, reason: OutOfSyncReason) => void;
  /** See the file comment; default true. */
  complementSeeding?: boolean;
  /** min_order_size hashed when neither metadata nor a snapshot gives one (every 2026 capture: "5"). */
  defaultMinOrderSize?: string;
  /** neg_risk hashed first when neither metadata nor a snapshot gives one (a failing snapshot then tries the other); default false. */
  defaultNegRisk?: boolean;
  /** A snapshot without a 40-hex hash is rejected (the token stays out of sync) instead of taken unchecked; a venue's feed sets it. */
  requireHash?: boolean;
  /** Events for tokens never given to setMeta are counted (`droppedUnknown`) and dropped without allocating a book. */
  knownTokensOnly?: boolean;
  log?: Logger;
}

const HEX40 = /^[0-9a-f]{40}$/;

/** Venue ticks in price units, coarsest first (0.1 left out: a book on it is on 0.01 too, far the likelier), and as the hash prints them. */
const TICKS = [100, 50, 25, 10, 1];
const TICK_TEXT = ['0.01', '0.005', '0.0025', '0.001', '0.0001'];

const gcd = (a: number, b: number): number => {
  while (b !== 0) {
    const t = a % b;
    a = b;
    b = t;
  }
  return a;
};

/** Index in TICKS of the coarsest tick every price of the book sits on (0.01 for an empty book). */
function gridTickIndex(bids: readonly WireLevel[], asks: readonly WireLevel[]): number {
  let g = 0;
  for (let i = 0; i < bids.length; i++) g = gcd(bids[i].price, g);
  for (let i = 0; i < asks.length; i++) g = gcd(asks[i].price, g);
  let k = 0;
  while (k < TICKS.length - 1 && g % TICKS[k] !== 0) k++;
  return k;
}

export interface MismatchInfo {
  timestamp: string;
  expected: string;
  computed: string;
}

export type OutOfSyncListener = (assetId: string, reason: OutOfSyncReason, info: OutOfSyncInfo) => void;
export type BookUpdateListener = (book: DenseBook) => void;

const topBid = (b: DenseBook): number => (b.bestBid() < 0 ? 0 : b.bestBid());
const topAsk = (b: DenseBook): number => (b.bestAsk() < 0 ? PRICE_SCALE : b.bestAsk());
const fmtTop = (bid: number, ask: number): string => `${bid === NO_CLAIM ? '-' : formatPrice(bid)}/${ask === NO_CLAIM ? '-' : formatPrice(ask)}`;

/** A group whose check failed when it went idle is a mismatch after this many groupIdleMs of quiet (closeIdleGroups). */
const LATE_FACTOR = 10;

export class BookMirror {
  private readonly tokens = new Map<string, TokenSync>();
  private readonly marketTokens = new Map<string, string[]>();
  /** Tokens with an open group (entries whose inGroup went false are dropped lazily). */
  private readonly open: TokenSync[] = [];
  /** Tokens with top claims waiting for the end of the current message. */
  private readonly msgPending: TokenSync[] = [];
  private recent0: TokenSync | undefined = undefined;
  private recent1: TokenSync | undefined = undefined;
  private seq = 0;
  private readonly verifyEvery: number;
  private readonly now: () => number;
  private readonly idleMs: number;
  private readonly idleScanMs: number;
  private readonly lateMs: number;
  private lastIdleScan = 0;
  private readonly seeding: boolean;
  private readonly defaultMos: string;
  private readonly oosListeners: OutOfSyncListener[] = [];
  /** Events (or price_change entries) dropped for tokens not subscribed (knownTokensOnly). */
  droppedUnknown = 0;
  /** Snapshots rejected before they touched a book (requireHash: no valid hash). */
  rejectedSnapshots = 0;
  private readonly updateListeners: BookUpdateListener[] = [];

  constructor(private readonly opts: MirrorOptions = {}) {
    this.verifyEvery = opts.verifyEvery ?? 1;
    this.now = opts.now ?? Date.now;
    this.idleMs = opts.groupIdleMs ?? 250;
    this.idleScanMs = Math.max(1, this.idleMs >> 2);
    this.lateMs = this.idleMs * LATE_FACTOR;
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
    if (meta.tickSize !== undefined) {
      st.tickSize = meta.tickSize;
      // the ltp recovery's grid and the hashed ltp's decimals go by the book's tick
      const tick = parsePrice(meta.tickSize);
      if (tick > 0) st.book.tick = tick;
    }
    if (meta.negRisk !== undefined) {
      st.negRisk = meta.negRisk;
      st.negRiskKnown = true;
    }
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
  syncInfo(assetId: string): SyncInfo | undefined {
    return this.tokens.get(assetId)?.syncInfo(this.now());
  }
  assetIds(): string[] {
    return [...this.tokens.keys()];
  }

  /**
   * Forgets a token that left the market set: its book, sync state and open group. With
   * knownTokensOnly a later event for it is dropped as unknown; setMeta takes it in afresh.
   */
  forget(assetId: string): void {
    const st = this.tokens.get(assetId);
    if (!st) return;
    this.tokens.delete(assetId);
    st.inGroup = false; // the open list drops it lazily
    if (this.recent0 === st) this.recent0 = undefined;
    if (this.recent1 === st) this.recent1 = undefined;
    const ids = this.marketTokens.get(st.market);
    if (!ids) return;
    const i = ids.indexOf(assetId);
    if (i >= 0) ids.splice(i, 1);
    if (ids.length === 0) this.marketTokens.delete(st.market);
  }

  /** One of our own fills: a candidate hashed last_trade_price for the token (and 1 - p for its sibling). */
  noteOwnTrade(assetId: string, priceUnits: number): void {
    const st = this.tokens.get(assetId);
    if (!st || !(priceUnits > 0 && priceUnits < PRICE_SCALE)) return;
    this.noteTrade(st, hashedLtp(priceUnits, st.book.tick));
    const sib = this.sibling(st);
    if (sib) this.noteTrade(sib, hashedLtp(PRICE_SCALE - priceUnits, st.book.tick));
  }

  /** Applies one decoded market event. Events other than book/price_change/tick_size_change/last_trade_price are ignored. */
  apply(ev: MarketEvent): void {
    switch (ev.type) {
      case 'price_change':
        this.applyPriceChange(ev);
        return;
      case 'book':
        if (this.unknown(ev.assetId)) return;
        this.applySnapshot(ev);
        return;
      case 'tick_size_change': {
        if (this.unknown(ev.assetId)) return;
        const st = this.state(ev.assetId);
        st.tickSize = ev.newTickSizeStr;
        if (ev.newTickSize !== st.book.tick) st.prevTick = st.book.tick;
        st.book.tick = ev.newTickSize;
        this.outOfSync(st, 'tick_size_change', true, String(ev.timestampMs));
        return;
      }
      case 'last_trade_price': {
        // a trade may move the hashed last_trade_price; the candidates are tried when a hash fails
        const st = this.tokens.get(ev.assetId);
        if (!st || !(ev.price > 0 && ev.price < PRICE_SCALE)) return;
        // the hash prints it with 3 decimals; the event's own text is tried too
        if (ev.priceStr !== undefined) st.recentTrades.add(ev.priceStr);
        this.noteTrade(st, hashedLtp(ev.price, st.book.tick));
        const sib = this.sibling(st);
        if (sib) this.noteTrade(sib, hashedLtp(PRICE_SCALE - ev.price, st.book.tick));
        return;
      }
      default:
        return;
    }
  }

  /** A candidate hashed last_trade_price, newest: the next hash check tries it first. */
  private noteTrade(st: TokenSync, hashed: string): void {
    st.recentTrades.add(hashed);
    st.tradeNews = true;
  }

  /** Checks every open group now (end of a replay, or when the owner knows the batch is complete). */
  flush(): void {
    for (const st of this.open.splice(0)) {
      st.inOpenList = false;
      if (st.inGroup) this.closeGroup(st);
    }
  }

  /**
   * Checks the groups with no message for groupIdleMs (the owner calls this on a timer). One that
   * fails then stays open: a venue may send one timestamp's batch in pieces far apart (166 ms in a
   * real capture) with the hash after the whole batch on every entry, so only a later timestamp,
   * or LATE_FACTOR x groupIdleMs of quiet, makes the failure a mismatch; a message of the same
   * timestamp reopens the check.
   */
  closeIdleGroups(nowMs = this.now()): void {
    const open = this.open;
    let k = 0;
    for (let i = 0; i < open.length; i++) {
      const st = open[i];
      if (st.inGroup) {
        // a clock stepped back: the quiet is measured again from now, not held for the step
        if (nowMs < st.groupTouchedMs) st.groupTouchedMs = nowMs;
        const quiet = nowMs - st.groupTouchedMs;
        if (!st.idleFailed) {
          if (quiet >= this.idleMs) this.closeGroup(st, true);
        } else if (quiet >= this.lateMs) this.closeGroup(st);
      }
      if (st.inGroup) open[k++] = st;
      else st.inOpenList = false;
    }
    open.length = k;
  }

  /**
   * The end of a recording: every open group is checked as after a long quiet, counted when it
   * verifies; one that does not stays open, not yet counted (flush() makes it a mismatch): a
   * recording may stop between the pieces of one batch, whose hash is the whole batch's. Returns those tokens.
   */
  closeAtEnd(): string[] {
    const ids: string[] = [];
    for (const st of this.open.splice(0)) {
      st.inOpenList = false;
      if (st.inGroup) this.closeGroup(st, true);
      if (st.inGroup) {
        ids.push(st.book.assetId);
        st.inOpenList = true;
        this.open.push(st);
      }
    }
    return ids;
  }

  /** Whether price_change messages are waiting for their group to close (see flush). */
  hasOpenGroup(): boolean {
    for (let i = 0; i < this.open.length; i++) if (this.open[i].inGroup) return true;
    return false;
  }

  /** Marks every token out of sync (e.g. the connection dropped); `resync` asks the owner for each. */
  markAllOutOfSync(reason: OutOfSyncReason, resync = false): void {
    for (const st of this.tokens.values()) if (st.live) this.outOfSync(st, reason, resync, '');
  }

  /** Marks these tokens out of sync (e.g. the one connection that carried them dropped). */
  markOutOfSync(assetIds: Iterable<string>, reason: OutOfSyncReason, resync = false): void {
    for (const id of assetIds) {
      const st = this.tokens.get(id);
      if (st?.live) this.outOfSync(st, reason, resync, '');
    }
  }

  /** Marks every token of a market out of sync (e.g. a message of it was lost and names no token that can be read). */
  markMarketOutOfSync(market: string, reason: OutOfSyncReason, resync = false): void {
    const ids = this.marketTokens.get(market);
    if (ids) this.markOutOfSync(ids.slice(), reason, resync);
  }

  /** Whether an event for this token is dropped (knownTokensOnly and never given to setMeta). */
  private unknown(assetId: string): boolean {
    if (!this.opts.knownTokensOnly || this.tokens.has(assetId)) return false;
    this.droppedUnknown++;
    return true;
  }

  private state(assetId: string): TokenSync {
    let st = this.tokens.get(assetId);
    if (!st) {
      st = new TokenSync(assetId, this.defaultMos, this.now());
      st.negRisk = this.opts.defaultNegRisk ?? false;
      this.tokens.set(assetId, st);
    }
    return st;
  }

  private joinMarket(st: TokenSync, market: string): void {
    if (st.market === market) return;
    st.market = market;
    const list = this.marketTokens.get(market);
    if (!list) this.marketTokens.set(market, [st.book.assetId]);
    else if (!list.includes(st.book.assetId)) list.push(st.book.assetId);
  }

  private sibling(st: TokenSync): TokenSync | undefined {
    const ids = this.marketTokens.get(st.market);
    if (!ids || ids.length !== 2) return undefined;
    return this.tokens.get(ids[0] === st.book.assetId ? ids[1] : ids[0]);
  }

  private applySnapshot(ev: BookEvent): void {
    const st = this.state(ev.assetId);
    if (st.inGroup) this.closeGroup(st);
    if (this.opts.requireHash && !HEX40.test(ev.hash)) {
      // a book nobody can prove is not one to quote on: refuse it before it touches anything
      this.rejectedSnapshots++;
      this.opts.log?.warn({ assetId: ev.assetId, hash: ev.hash.slice(0, 64) }, 'book snapshot without a valid hash rejected');
      if (st.live) this.outOfSync(st, 'hash_mismatch', true, ev.timestampStr, ev.hash.slice(0, 64), '');
      else this.opts.onResync?.(ev.assetId, 'hash_mismatch'); // still waiting for a book: ask again
      return;
    }
    this.joinMarket(st, ev.market);
    // the hashed fields a frame carries are adopted only once it verifies (a bad frame must not
    // break every later check): kept aside and restored on a mismatch
    const prev = { tickSize: st.tickSize, minOrderSize: st.minOrderSize, negRisk: st.negRisk, lastTradePrice: st.lastTradePrice, tick: st.book.tick };
    // neg_risk known from nowhere: a failing hash is tried once more with the other value
    const tryOtherNegRisk = !st.negRiskKnown && ev.negRisk === undefined;
    if (ev.tickSizeStr !== undefined) st.tickSize = ev.tickSizeStr;
    if (ev.minOrderSizeStr !== undefined) st.minOrderSize = ev.minOrderSizeStr;
    if (ev.negRisk !== undefined) st.negRisk = ev.negRisk;
    if (ev.lastTradePriceStr !== undefined) st.lastTradePrice = ev.lastTradePriceStr;
    if (ev.tickSize !== undefined) {
      if (ev.tickSize !== st.book.tick && st.book.tick > 0) st.prevTick = st.book.tick;
      st.book.tick = ev.tickSize;
    }
    // no tick from metadata or the frame (the venue hashes one): the coarsest its prices sit on, kept only if it verifies
    const inferTick = st.tickSize === '';
    if (inferTick) {
      const k = gridTickIndex(ev.bids, ev.asks);
      st.tickSize = TICK_TEXT[k];
      st.book.tick = TICKS[k];
    }
    const nowMs = this.now();
    st.book.loadSnapshot(ev.bids, ev.asks, nowMs);
    st.stats.snapshots++;
    st.everSnapshot = true;
    st.seedable = false;
    st.lastTsMs = ev.timestampMs;
    st.snapshotTsMs = ev.timestampMs;
    st.snapshotHash = ev.hash;
    st.skipSameTs = true;
    st.sawSnapshotHash = false;
    st.skippedHash = undefined;
    st.setLive(true, nowMs);
    // sampled (verifyEvery N > 1, e.g. a backtest): a token's 1st, N+1th, 2N+1th... snapshot
    if (this.verifyEvery > 0 && ev.hash !== '' && (st.stats.snapshots - 1) % this.verifyEvery === 0) {
      const got = this.hashOrRecover(st, ev.timestampStr, ev.hash);
      if (got !== undefined && !(tryOtherNegRisk && this.verifiesWithOtherNegRisk(st, ev.timestampStr, ev.hash))) {
        this.hashFailed(st, ev.timestampStr, ev.hash, got, 'hash_mismatch');
        st.tickSize = prev.tickSize;
        st.minOrderSize = prev.minOrderSize;
        st.negRisk = prev.negRisk;
        st.lastTradePrice = prev.lastTradePrice;
        st.book.tick = prev.tick;
        return;
      }
      st.negRiskKnown = true; // proven with the rest of the hashed fields
    } else if (inferTick) {
      // unchecked: a guess is no better than not knowing
      st.tickSize = prev.tickSize;
      st.book.tick = prev.tick;
    }
    this.notify(st, ++this.seq);
  }

  private applyPriceChange(ev: PriceChangeEvent): void {
    const seq = ++this.seq;
    const changes = ev.changes;
    const nowMs = this.now();
    // idle groups are looked for at most every idleMs/4 of clock time, not per message: with many
    // markets the open list is long and the per-message work must not grow with it
    if (this.open.length > 0 && (nowMs - this.lastIdleScan >= this.idleScanMs || nowMs < this.lastIdleScan)) {
      this.lastIdleScan = nowMs;
      this.closeIdleGroups(nowMs);
    }
    const tsMs = ev.timestampMs;
    const tsStr = ev.timestampStr;
    for (let i = 0; i < changes.length; i++) {
      const c = changes[i];
      // the last two tokens seen answer almost every lookup (a binary market's pair) without
      // hashing the 77-digit id that JSON.parse just allocated
      let st = this.recent0;
      if (st === undefined || st.book.assetId !== c.assetId) {
        st = this.recent1;
        if (st === undefined || st.book.assetId !== c.assetId) {
          if (this.unknown(c.assetId)) continue;
          st = this.state(c.assetId);
          this.joinMarket(st, ev.market);
        }
        this.recent1 = this.recent0;
        this.recent0 = st;
      }
      if (!st.live && !(this.seeding && st.seedable && this.seed(st, ev, nowMs))) {
        st.stats.ignoredDeltas++;
        continue;
      }
      // "" is no hash, as on a snapshot (the decoders give undefined for it; other producers may not)
      const hash = c.hash || undefined;
      if ((st.skipSameTs || tsMs < st.snapshotTsMs) && this.alreadyInSnapshot(st, tsMs, hash)) {
        st.stats.ignoredDeltas++;
        continue;
      }
      if (tsMs < st.lastTsMs) {
        // deltas never go back in time within a subscription: we missed or reordered data
        st.stats.gaps++;
        this.outOfSync(st, 'gap', true, tsStr);
        continue;
      }
      if (st.inGroup && st.groupTs !== tsStr) this.closeGroup(st);
      if (!st.live) {
        st.stats.ignoredDeltas++;
        continue;
      }
      if (!st.inGroup) this.openGroup(st, tsStr);
      if (hash !== undefined) {
        if (st.runHash === undefined) st.runHash = hash;
        else if (hash !== st.runHash) {
          // a new hash in the group: the run before it must be the book after its own message
          if (st.groupSampled && !this.checkRun(st, 'inconsistent_group')) continue;
          st.runHash = hash;
          st.runEntries = 0;
        }
        st.runEntries++;
      }
      st.groupTouchedMs = nowMs;
      st.idleFailed = false;
      st.lastTsMs = tsMs;
      const book = st.book;
      book.set(c.side, c.price, c.size, c.priceStr, c.sizeStr);
      book.touch(nowMs);
      st.stats.deltas++;
      if (c.bestBid !== undefined || c.bestAsk !== undefined) {
        st.stats.bestChecks++;
        const cb = c.bestBid ?? NO_CLAIM;
        const ca = c.bestAsk ?? NO_CLAIM;
        const bb = topBid(book);
        const ba = topAsk(book);
        if ((cb !== NO_CLAIM && cb !== bb) || (ca !== NO_CLAIM && ca !== ba)) {
          // not the top after this entry: may still be the top after the message or the batch
          st.msgClaims.push(cb === bb ? NO_CLAIM : cb, ca === ba ? NO_CLAIM : ca);
          if (!st.inMsgList) {
            st.inMsgList = true;
            this.msgPending.push(st);
          }
        }
      }
      this.notify(st, seq);
    }
    if (this.msgPending.length > 0) this.settleMessageClaims(tsStr);
  }

  /**
   * Deltas already in the last snapshot: older ones, and same-timestamp ones up to the one carrying
   * the snapshot's hash. Same-timestamp deltas that never reach that hash mean one was corrupted
   * (or the snapshot was not the state it claims): a mismatch once a later delta shows up.
   */
  private alreadyInSnapshot(st: TokenSync, tsMs: number, hash: string | undefined): boolean {
    if (tsMs < st.snapshotTsMs) return true;
    if (tsMs === st.snapshotTsMs) {
      if (hash === st.snapshotHash) {
        st.sawSnapshotHash = true;
        return true;
      }
      if (!st.sawSnapshotHash && hash !== undefined) {
        st.skippedHash = hash;
        return true;
      }
    }
    st.skipSameTs = false;
    if (!st.sawSnapshotHash && st.skippedHash !== undefined) {
      st.stats.mismatches++;
      st.stats.inconsistentGroups++;
      this.outOfSync(st, 'inconsistent_group', true, String(st.snapshotTsMs), st.snapshotHash, st.skippedHash);
      return true;
    }
    return false;
  }

  private openGroup(st: TokenSync, tsStr: string): void {
    st.inGroup = true;
    st.groupTs = tsStr;
    st.groups++;
    st.groupSampled = this.verifyEvery > 0 && st.groups % this.verifyEvery === 0;
    if (!st.inOpenList) {
      st.inOpenList = true;
      this.open.push(st);
    }
  }

  /** Claims not matching the top after their message must all be the top after the batch (checked at close). */
  private settleMessageClaims(tsStr: string): void {
    const pending = this.msgPending;
    for (let i = 0; i < pending.length; i++) {
      const st = pending[i];
      st.inMsgList = false;
      const claims = st.msgClaims;
      if (!st.live) {
        claims.length = 0;
        continue;
      }
      const bb = topBid(st.book);
      const ba = topAsk(st.book);
      let bad: string | undefined;
      for (let k = 0; k < claims.length && bad === undefined; k += 2) {
        const cb = claims[k];
        const ca = claims[k + 1];
        if (cb !== NO_CLAIM && cb !== bb) {
          if (st.groupBid !== NO_CLAIM && st.groupBid !== cb) bad = fmtTop(cb, ca);
          else st.groupBid = cb;
        }
        if (ca !== NO_CLAIM && ca !== ba && bad === undefined) {
          if (st.groupAsk !== NO_CLAIM && st.groupAsk !== ca) bad = fmtTop(cb, ca);
          else st.groupAsk = ca;
        }
      }
      claims.length = 0;
      // two different claims that only the after-batch top could satisfy: one of them is wrong
      if (bad !== undefined) this.bestMismatch(st, tsStr, bad, fmtTop(st.groupBid, st.groupAsk));
    }
    pending.length = 0;
  }

  /** Checks and ends the group; `idle` (closed by quiet, not by the next timestamp): a failure keeps it open instead (closeIdleGroups). */
  private closeGroup(st: TokenSync, idle = false): void {
    st.inGroup = false;
    if (!st.live) return st.resetGroup();
    if (st.groupBid !== NO_CLAIM || st.groupAsk !== NO_CLAIM) {
      const bb = topBid(st.book);
      const ba = topAsk(st.book);
      if ((st.groupBid !== NO_CLAIM && st.groupBid !== bb) || (st.groupAsk !== NO_CLAIM && st.groupAsk !== ba)) {
        if (idle) return this.keepAfterIdleFailure(st);
        return this.bestMismatch(st, st.groupTs, fmtTop(st.groupBid, st.groupAsk), fmtTop(bb, ba));
      }
    }
    if (st.groupSampled && st.runHash !== undefined && !this.checkRun(st, 'hash_mismatch', idle) && idle) return this.keepAfterIdleFailure(st);
    st.resetGroup();
  }

  private keepAfterIdleFailure(st: TokenSync): void {
    st.inGroup = true;
    st.idleFailed = true;
  }

  /** `quietFail`: a failure is only returned (no mismatch counted, nothing out of sync). */
  private checkRun(st: TokenSync, reason: OutOfSyncReason, quietFail = false): boolean {
    const ok = this.checkHash(st, st.groupTs, st.runHash as string, reason, quietFail);
    if (ok) st.stats.entriesVerified += st.runEntries;
    return ok;
  }

  private bestMismatch(st: TokenSync, timestamp: string, expected: string, computed: string): void {
    st.stats.bestMismatches++;
    this.outOfSync(st, 'best_mismatch', true, timestamp, expected, computed);
  }

  /** Hashes the book against `expected`; on failure tries to recover the hashed last_trade_price, else goes out of sync. */
  private checkHash(st: TokenSync, timestamp: string, expected: string, reason: OutOfSyncReason, quietFail = false): boolean {
    const got = this.hashOrRecover(st, timestamp, expected);
    if (got === undefined) return true;
    if (!quietFail) this.hashFailed(st, timestamp, expected, got, reason);
    return false;
  }

  /** A failed check: counted, and the token out of sync. */
  private hashFailed(st: TokenSync, timestamp: string, expected: string, got: string, reason: OutOfSyncReason): void {
    st.stats.mismatches++;
    if (reason === 'inconsistent_group') st.stats.inconsistentGroups++;
    st.lastMismatch = { timestamp, expected, computed: got };
    this.outOfSync(st, reason, true, timestamp, expected, got);
  }

  /** Whether the book verifies with the other neg_risk (then kept); st.negRisk is unchanged when not. */
  private verifiesWithOtherNegRisk(st: TokenSync, timestamp: string, expected: string): boolean {
    st.negRisk = !st.negRisk;
    if (this.hashOrRecover(st, timestamp, expected) === undefined) return true;
    st.negRisk = !st.negRisk;
    return false;
  }

  /**
   * Hashes the book against `expected`, recovering the hashed last_trade_price when only it differs
   * (counted as verified). Returns undefined when it verifies, else the hash computed with the
   * fields as they were.
   */
  private hashOrRecover(st: TokenSync, timestamp: string, expected: string): string | undefined {
    const b = st.book;
    const meta = { market: st.market, assetId: b.assetId, timestamp, minOrderSize: st.minOrderSize, tickSize: st.tickSize, negRisk: st.negRisk, lastTradePrice: st.lastTradePrice };
    // a trade noted since the last check has most likely moved the hashed price: tried first, once
    const news = st.tradeNews ? st.recentTrades.values()[0] : undefined;
    st.tradeNews = false;
    if (news !== undefined && news !== meta.lastTradePrice) {
      meta.lastTradePrice = news;
      if (st.hasher.hash(meta, b) === expected) {
        st.lastTradePrice = news;
        st.stats.ltpRecovered++;
        st.stats.hashesVerified++;
        return undefined;
      }
      meta.lastTradePrice = st.lastTradePrice;
    }
    const got = st.hasher.hash(meta, b);
    if (got === expected) {
      st.stats.hashesVerified++;
      return undefined;
    }
    // the likely candidates (recent trades, newest first) first: each one SHA-1 where the book lies
    // (no Hash object, no payload string); the rest of the search as before
    const fast = this.firstLtp(st, meta, expected, st.recentTrades.values(), news);
    if (fast !== undefined) {
      st.lastTradePrice = fast;
      st.stats.ltpRecovered++;
      st.stats.hashesVerified++;
      return undefined;
    }
    const bb = b.bestBid();
    const ba = b.bestAsk();
    meta.lastTradePrice = '';
    const ltp = recoverLtp(bookHashPayloadFromText(meta, b.sideText('BUY'), b.sideText('SELL')), expected, {
      centre: bb >= 0 && ba >= 0 ? (bb + ba) / 2 : Math.max(bb, ba),
      // the finer of the tick and the one before it (a trade on the old grid may be the hashed one)
      tick: st.prevTick > 0 && st.prevTick < b.tick ? st.prevTick : b.tick,
      tried: st.lastTradePrice,
    });
    if (ltp !== undefined) {
      st.lastTradePrice = ltp;
      st.stats.ltpRecovered++;
      st.stats.hashesVerified++;
      return undefined;
    }
    return got;
  }

  /**
   * The first of the recent trades' prices (newest first, distinct; skipping those that failed)
   * under which the book hashes to `expected`; undefined when none does.
   */
  private firstLtp(st: TokenSync, meta: HashMeta, expected: string, list: readonly string[], alsoTried: string | undefined): string | undefined {
    const tried = meta.lastTradePrice;
    for (let i = 0; i < list.length; i++) {
      const v = list[i];
      if (v === tried || v === alsoTried) continue;
      meta.lastTradePrice = v;
      if (st.hasher.hash(meta, st.book) === expected) return v;
    }
    meta.lastTradePrice = tried;
    return undefined;
  }

  private seed(st: TokenSync, ev: PriceChangeEvent, nowMs: number): boolean {
    const sib = this.sibling(st);
    if (!sib || !sib.live || !sib.everSnapshot || st.market !== ev.market) return false;
    const src = sib.book;
    const dst = st.book;
    mirrorBookInto(src, dst);
    // once where a resync can bring a snapshot of its own (the daemon's feed); a replay has none, so
    // there a token may be seeded again after going out of sync (its next groups' hashes check it)
    if (this.opts.onResync) st.seedable = false;
    dst.tick = src.tick;
    st.tickSize = sib.tickSize;
    st.minOrderSize = sib.minOrderSize;
    if (!st.negRiskKnown) {
      st.negRisk = sib.negRisk;
      st.negRiskKnown = sib.negRiskKnown;
    }
    st.lastTradePrice = sib.lastTradePrice;
    st.lastTsMs = sib.lastTsMs;
    st.snapshotTsMs = sib.snapshotTsMs;
    st.skipSameTs = false;
    st.setLive(true, nowMs);
    st.stats.seeded++;
    this.opts.log?.info({ assetId: dst.assetId, from: src.assetId }, 'complement seeding: book seeded from the sibling mirror');
    return true;
  }

  private outOfSync(st: TokenSync, reason: OutOfSyncReason, resync: boolean, timestamp: string, expected?: string, computed?: string): void {
    const wasLive = st.live;
    st.setLive(false, this.now());
    st.book.clear();
    st.resetGroup();
    if (!wasLive && reason !== 'tick_size_change') return;
    st.stats.outOfSync++;
    const info: OutOfSyncInfo = { assetId: st.book.assetId, reason, timestamp };
    if (expected !== undefined) info.expected = expected;
    if (computed !== undefined) info.computed = computed;
    st.reason = reason;
    st.lastInfo = info;
    // a dropped connection is one event (the feed says so once); each token's part of it is detail
    if (reason === 'reconnect') this.opts.log?.info(info, 'book out of sync: reconnect');
    else this.opts.log?.warn(info, `book out of sync: ${reason}`);
    for (const fn of this.oosListeners) fn(st.book.assetId, reason, info);
    if (resync) this.opts.onResync?.(st.book.assetId, reason);
  }

  private notify(st: TokenSync, seq: number): void {
    if (st.notified === seq) return;
    st.notified = seq;
    for (let i = 0; i < this.updateListeners.length; i++) this.updateListeners[i](st.book);
  }
}
