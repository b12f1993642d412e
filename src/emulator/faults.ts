// Fault injection for the emulator: dropped WebSocket connections, a silent feed that still
// answers PONG (and ignores resubscribes), malformed frames, wrong hashes, skipped updates, REST
// 500s and 429s (probability or next N), 425s while the matching engine restarts, added latency and answers that trickle in forever. Set by flags at start, by
// `POST /admin/faults` with a JSON patch, or programmatically through FaultControls. The same
// patch sets the feed's shape (the variants of wire-formats.md 5.4, FEED_KEYS), which the synthetic
// markets read at every batch.
import type { Rng } from '../core/rng.js';
import { realFeedShape, type FeedShape } from './book-frames.js';

/** Faults, and the feed's shape (FeedShape: the variants of wire-formats.md 5.4) set by the same patch. */
export interface FaultConfig extends FeedShape {
  /** Market data is withheld on every market/all connection; PING still gets PONG; subscribes are ignored. */
  silentFeed: boolean;
  /** User-channel frames are withheld (the connection stays up and answers PING). */
  silentUser: boolean;
  /** The next N user-channel trade messages are sent truncated (a shape no decoder takes: the trade is not readable from the channel). */
  userTradeUnreadableNext: number;
  /**
   * The next N matches of users' orders fail on chain: MATCHED, then RETRYING, then FAILED (the
   * trade's status sequence of wire-formats.md 3), and the shares and cash they moved go back.
   */
  tradeFailNext: number;
  /**
   * The user channel ignores live `{"markets", "operation"}` messages and keeps the first
   * subscription's markets only (the spec, wire-formats.md 2, describes no other; the venue's docs do).
   */
  userOpsIgnored: boolean;
  /** The next N market frames are sent malformed (truncated JSON). */
  malformedNext: number;
  /** The next N price_change frames carry a wrong hash in every entry. */
  wrongHashNext: number;
  /** The next N price_change frames are not sent at all (a gap; a book frame that follows heals it). */
  skipNext: number;
  /** REST: the next N requests answer 500; and each request with this probability. */
  http500Next: number;
  http500Rate: number;
  /** REST: the next N requests answer 429 (with the rate-limit headers); and with this probability. */
  http429Next: number;
  http429Rate: number;
  /**
   * The matching engine restarting (the venue's weekly restart, ~90 s): every CLOB POST and DELETE
   * (places, cancels, heartbeats) answers 425 Too Early and is not carried out.
   */
  engineRestart: boolean;
  /** Added latency on every REST answer, ms. */
  latencyMs: number;
  /**
   * A stalled venue: CLOB DELETEs (cancelTrickleMs) or GETs (readTrickleMs) are not carried out;
   * the answer's headers come at once, then one byte of body every N ms, never finished. 0 = off.
   */
  cancelTrickleMs: number;
  readTrickleMs: number;
  /** The next N batches of two or more price_change messages get one hash corrupted, at a seeded random position. */
  corruptGroupHashNext: number;
  /**
   * A stale balance cache: a bought share counts toward the SELL balance check this many ms after
   * its trade is CONFIRMED, not at once (py-clob-client issue 290: SELLs refused after settlement).
   */
  balanceLagMs: number;
  /**
   * The venue's clock runs this far ahead of ours (polymarket: GET /time, and the freshness check of
   * signed requests' timestamps, which allows 30 s): a daemon on a machine whose clock is behind.
   */
  clockAheadMs: number;
}

/** The keys of FaultConfig the synthetic markets read (the rest act at the server). */
export const FEED_KEYS = ['topsAfterBatch', 'hashPerMessage', 'oneMessagePerBatch', 'ltpLeads', 'complementLtp', 'printLagMs', 'corruptGroupHashNext'] as const;

export const noFaults: FaultConfig = {
  silentFeed: false,
  silentUser: false,
  userTradeUnreadableNext: 0,
  tradeFailNext: 0,
  userOpsIgnored: false,
  malformedNext: 0,
  wrongHashNext: 0,
  skipNext: 0,
  http500Next: 0,
  http500Rate: 0,
  http429Next: 0,
  http429Rate: 0,
  engineRestart: false,
  latencyMs: 0,
  cancelTrickleMs: 0,
  readTrickleMs: 0,
  ...realFeedShape,
  corruptGroupHashNext: 0,
  balanceLagMs: 0,
  clockAheadMs: 0,
};

export interface FaultControls {
  /** Merges a patch into the active faults; returns the result. */
  set(patch: Partial<FaultConfig>): FaultConfig;
  get(): FaultConfig;
  /** Back to no faults. */
  clear(): void;
  /** Closes every WebSocket connection now (market, user, all and price feed); returns how many. */
  dropConnections(): number;
  /**
   * Forces a tick size change ("0.1", "0.01", "0.001", "0.0001") on every synthetic market, or on
   * the one with condition id `market`; it holds until forced again, and "auto" hands the tick back
   * to the venue's price rule. Returns how many markets changed tick; throws RangeError on a bad
   * tick, an unknown market, or a replay (whose ticks are as recorded).
   */
  setTickSize(tickSize: string, market?: string): number;
}

/** Validates an admin patch; returns an error message or the patch. */
export function parseFaultPatch(body: unknown): Partial<FaultConfig> | string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'body must be a JSON object';
  const out: Partial<FaultConfig> = {};
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    if (k === 'drop' || k === 'tickSize' || k === 'market') continue; // actions, not fault state
    if (!(k in noFaults)) return `unknown fault '${k}'`;
    const want = typeof noFaults[k as keyof FaultConfig];
    if (typeof v !== want || (typeof v === 'number' && !(v >= 0))) return `${k} must be a ${want === 'number' ? 'non-negative number' : want}`;
    if (k.endsWith('Rate') && (v as number) > 1) return `${k} must be within 0..1`;
    if (k === 'printLagMs' && (v as number) > 60_000) return 'printLagMs must be at most 60000';
    (out as Record<string, unknown>)[k] = v;
  }
  return out;
}

/** The fault state the server consults; counters are consumed as faults fire. */
export class FaultState {
  cfg: FaultConfig = { ...noFaults };
  constructor(private readonly rng: Rng) {}

  /** Which REST fault (if any) hits this request. */
  restFault(): 500 | 429 | 0 {
    const c = this.cfg;
    if (c.http500Next > 0) {
      c.http500Next--;
      return 500;
    }
    if (c.http429Next > 0) {
      c.http429Next--;
      return 429;
    }
    if (c.http500Rate > 0 && this.rng.next() < c.http500Rate) return 500;
    if (c.http429Rate > 0 && this.rng.next() < c.http429Rate) return 429;
    return 0;
  }

  /** Transforms one outgoing market frame; undefined means it is not sent. */
  marketFrame(text: string, type: string): string | undefined {
    const c = this.cfg;
    if (type === 'price_change' && c.skipNext > 0) {
      c.skipNext--;
      return undefined;
    }
    if (c.malformedNext > 0) {
      c.malformedNext--;
      return text.slice(0, Math.max(1, text.length >> 1));
    }
    if (type === 'price_change' && c.wrongHashNext > 0) {
      c.wrongHashNext--;
      return text.replace(/"hash":"([0-9a-f]{40})"/g, (_m, h: string) => `"hash":"${h.startsWith('0') ? 'f' : '0'}${h.slice(1)}"`);
    }
    return text;
  }

  /** Transforms one outgoing user-channel frame (userTradeUnreadableNext). */
  userFrame(text: string): string {
    const c = this.cfg;
    if (c.userTradeUnreadableNext > 0 && text.includes('"event_type":"trade"')) {
      c.userTradeUnreadableNext--;
      return text.slice(0, Math.max(1, text.length >> 1));
    }
    return text;
  }
}
