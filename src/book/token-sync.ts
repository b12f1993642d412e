// Per-token state of the book mirror: the book, the fields the venue hashes but frames omit, the
// open timestamp group (its hash run and the tops claimed but not yet proven), recent trade prices
// for last_trade_price recovery, and the token's sync history (for /status and the warn lines).
import { DenseBook } from './book.js';
import { BookHasher } from './hash.js';
import { RecentPrices } from './ltp-recovery.js';

/** `rejected_message`: a price_change of the token the decoder could not take (its update was lost). */
export type OutOfSyncReason = 'hash_mismatch' | 'best_mismatch' | 'inconsistent_group' | 'gap' | 'tick_size_change' | 'reconnect' | 'rejected_message';

/** What one out-of-sync episode was: the evidence a warn line and /status show. */
export interface OutOfSyncInfo {
  assetId: string;
  reason: OutOfSyncReason;
  /** The venue timestamp of the group or snapshot that failed ('' when none, e.g. reconnect). */
  timestamp: string;
  /** What the venue sent: the hash, or the top as "bid/ask" (best_mismatch). */
  expected?: string;
  /** What the mirror computed: the hash, or the top as "bid/ask". */
  computed?: string;
}

/** A token's sync history: state now, since when, and time in sync since the mirror first saw it. */
export interface SyncInfo {
  inSync: boolean;
  /** Reason of the current (or last) out-of-sync episode; null when never out of sync. */
  reason: OutOfSyncReason | null;
  /** Clock ms of the last change of inSync (or of first sight). */
  sinceMs: number;
  /** Clock ms of first sight (setMeta or first event). */
  firstSeenMs: number;
  /** Total ms in sync up to the time asked. */
  inSyncMs: number;
  /** Out-of-sync episodes so far. */
  episodes: number;
  /** Evidence of the last episode. */
  last?: OutOfSyncInfo;
}

export interface TokenStats {
  snapshots: number;
  deltas: number;
  /** Deltas dropped: no in-sync book yet (before the first snapshot, after a drop), or already in the snapshot. */
  ignoredDeltas: number;
  /** Hash checks that passed (snapshots, and each run of equal hashes in a timestamp group). */
  hashesVerified: number;
  /** price_change entries whose carried hash was proven. */
  entriesVerified: number;
  mismatches: number;
  bestChecks: number;
  bestMismatches: number;
  /** Groups whose hashes matched neither their own message nor the batch (a corrupted hash). */
  inconsistentGroups: number;
  /** Checks that passed only once the hashed last_trade_price was recovered. */
  ltpRecovered: number;
  gaps: number;
  outOfSync: number;
  /** Times the book was seeded from its sibling's mirror (complement seeding). */
  seeded: number;
}

/** No claim on that side. */
export const NO_CLAIM = -2;

export class TokenSync {
  readonly book: DenseBook;
  /** The venue hash of `book`, with its head and tail bytes cached. */
  readonly hasher = new BookHasher();
  market = '';
  minOrderSize: string;
  tickSize = '';
  negRisk = false;
  /** neg_risk came from metadata, a frame, or a verified hash; otherwise a failing snapshot tries the other value once. */
  negRiskKnown = false;
  lastTradePrice = '';
  /** True while the book is a verified (or seeded) image of the venue's. */
  live = false;
  everSnapshot = false;
  /** May still be seeded from its sibling's mirror: never had a snapshot or a seed (seeding is for a first book only). */
  seedable = true;
  lastTsMs = 0;
  snapshotTsMs = 0;
  /** Hash of the last snapshot: same-timestamp deltas up to the one carrying it are already in it. */
  snapshotHash = '';
  skipSameTs = false;

  // ---- the open timestamp group ----
  inGroup = false;
  groupTs = '';
  groupTouchedMs = 0;
  /** Its check failed when it went idle: kept open, as the rest of a split batch may still come (BookMirror.closeIdleGroups). */
  idleFailed = false;
  /** Whether this group's hashes are checked (verifyEvery sampling decides at open). */
  groupSampled = false;
  /** Hash of the current run of equal hashes in the group. */
  runHash: string | undefined = undefined;
  runEntries = 0;
  /** Top claims not equal to the top right after their entry: [bid, ask] pairs, checked at message end. */
  readonly msgClaims: number[] = [];
  inMsgList = false;
  /** A claim not equal to the top after its message either must be the top after the batch; every such claim in a group is the same. */
  groupBid = NO_CLAIM;
  groupAsk = NO_CLAIM;
  inOpenList = false;
  /** Same-timestamp deltas after a snapshot: the one carrying the snapshot's hash was seen. */
  sawSnapshotHash = false;
  /** A same-timestamp hash skipped before the snapshot's own was seen. */
  skippedHash: string | undefined = undefined;
  groups = 0;

  notified = 0;
  lastMismatch: { timestamp: string; expected: string; computed: string } | undefined = undefined;
  /**
   * Hashed last_trade_price candidates, newest first whatever their source: our own trades, trades
   * announced on the feed (the hashed and the sent text), the sibling's trades as 1 - p. The newest
   * trade is the likeliest: tried in this order, a recovery costs about one hash.
   */
  readonly recentTrades = new RecentPrices(12);
  /** A trade was noted since the last hash check: the next check tries the newest trade's price first. */
  tradeNews = false;
  /**
   * The tick before the last change (0: none yet): a trade's price on it may still be the hashed
   * last_trade_price after the change (the trade moved the price across the tick rule's threshold,
   * and its print comes later), so the recovery's grid search covers the finer of the two.
   */
  prevTick = 0;

  // ---- sync history ----
  readonly firstSeenMs: number;
  sinceMs: number;
  inSyncMs = 0;
  reason: OutOfSyncReason | null = null;
  lastInfo: OutOfSyncInfo | undefined = undefined;

  readonly stats: TokenStats = {
    snapshots: 0,
    deltas: 0,
    ignoredDeltas: 0,
    hashesVerified: 0,
    entriesVerified: 0,
    mismatches: 0,
    bestChecks: 0,
    bestMismatches: 0,
    inconsistentGroups: 0,
    ltpRecovered: 0,
    gaps: 0,
    outOfSync: 0,
    seeded: 0,
  };

  constructor(assetId: string, minOrderSize: string, nowMs: number) {
    this.book = new DenseBook(assetId);
    this.minOrderSize = minOrderSize;
    this.firstSeenMs = nowMs;
    this.sinceMs = nowMs;
  }

  /** Records a change of in-sync state at `nowMs` (time accounting for SyncInfo). */
  setLive(v: boolean, nowMs: number): void {
    if (this.live === v) return;
    if (this.live) this.inSyncMs += Math.max(0, nowMs - this.sinceMs);
    this.live = v;
    this.sinceMs = nowMs;
    this.book.setInSync(v);
  }

  /** Drops the open group (its evidence no longer applies: the book was cleared or replaced). */
  resetGroup(): void {
    this.inGroup = false;
    this.idleFailed = false;
    this.runHash = undefined;
    this.runEntries = 0;
    this.msgClaims.length = 0;
    this.groupBid = NO_CLAIM;
    this.groupAsk = NO_CLAIM;
  }

  syncInfo(nowMs: number): SyncInfo {
    return {
      inSync: this.live,
      reason: this.reason,
      sinceMs: this.sinceMs,
      firstSeenMs: this.firstSeenMs,
      inSyncMs: this.inSyncMs + (this.live ? Math.max(0, nowMs - this.sinceMs) : 0),
      episodes: this.stats.outOfSync,
      last: this.lastInfo,
    };
  }
}
