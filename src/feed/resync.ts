// Resync of an out-of-sync book, short and bounded. An episode starts with the configured method
// (resubscribe: the venue sends a fresh snapshot in-stream; rest: GET /book, hash-checked like
// any snapshot); if the token is not in sync within `timeoutMs` the other method is tried, with
// the deadline doubling up to 8x. Deltas that arrive while a GET /book is in flight are kept and
// replayed after its snapshot (the mirror drops those the snapshot already holds), so a REST
// snapshot older than the stream does not cost another episode. Episodes of one token that follow
// each other closely back off (1 s doubling to 60 s) so a persistent mismatch cannot storm; a token
// that stayed in sync for QUIET_MS since its last episode starts the next one at once.
import { monotonicNow } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import { MAX_TIMER_MS } from '../config.js';
import type { BookMirror, OutOfSyncReason } from '../book/mirror.js';
import type { BookEvent, PriceChangeEvent, Side, WireLevel } from '../core/events.js';
import type { DenseBook } from '../book/book.js';

export type ResyncMethod = 'resubscribe' | 'rest';

export interface ResyncOptions {
  mirror: BookMirror;
  method: ResyncMethod;
  timeoutMs: number;
  resubscribe: (assetId: string) => void;
  /** GET /book as a snapshot event; undefined: resubscribe only. */
  fetchBook?: (assetId: string) => Promise<BookEvent | null>;
  /**
   * Whether the token's connection is live: a REST snapshot is used only then (on a connection
   * that is down no delta can follow it, and the book would stay frozen but in sync). Default: live.
   */
  streaming?: (assetId: string) => boolean;
  /**
   * A REST snapshot was applied to the mirror, then the token's deltas held during the fetch, and
   * the book is in sync: `book` is the mirror's book now, as a snapshot (the REST one's fields, the
   * mirror's levels). The rest of the pipeline (a simulated venue's own book, the engine) must see
   * it as it would an in-stream one. The held deltas are in it, not apart: the venue saw each as it
   * came, and seeing it again would count its decrease twice (the queue model).
   */
  healed?: (book: BookEvent) => void;
  log?: Logger;
}

/** Resync figures for /metrics and /status. */
export interface ResyncStats {
  episodes: Partial<Record<OutOfSyncReason, number>>;
  attempts: Record<ResyncMethod, number>;
  /** Episodes that ended in sync, and their durations (request to verified book). */
  completed: number;
  lastMs: number;
  maxMs: number;
  totalMs: number;
  /** Deadlines that passed without a verified book (each tried the other method). */
  timeouts: number;
  restFailures: number;
}

interface Pending {
  startedMs: number;
  attempt: number;
  timer: NodeJS.Timeout | null;
  /** This token's deltas held while a GET /book is in flight; 'overflow' past MAX_HELD (the snapshot is then not used). */
  held: PriceChangeEvent[] | 'overflow' | null;
}

const MAX_HELD = 2000;
const QUIET_MS = 5000;

export class Resyncer {
  readonly stats: ResyncStats = { episodes: {}, attempts: { resubscribe: 0, rest: 0 }, completed: 0, lastMs: 0, maxMs: 0, totalMs: 0, timeouts: 0, restFailures: 0 };
  private readonly pending = new Map<string, Pending>();
  private readonly throttle = new Map<string, { last: number; delayMs: number; timer: NodeJS.Timeout | null; okSince: number }>();
  private stopped = false;

  constructor(private readonly o: ResyncOptions) {}

  /** The mirror asks for a resync (one call per out-of-sync episode). */
  request(assetId: string, reason: OutOfSyncReason): void {
    if (this.stopped) return;
    this.stats.episodes[reason] = (this.stats.episodes[reason] ?? 0) + 1;
    const now = monotonicNow();
    let t = this.throttle.get(assetId);
    if (!t || (t.okSince > 0 && now - t.okSince >= QUIET_MS)) t = { last: 0, delayMs: 0, timer: null, okSince: 0 };
    this.throttle.set(assetId, t);
    if (t.timer || this.pending.has(assetId)) return; // one resync per token in flight is enough
    const wait = Math.max(0, t.last + t.delayMs - now);
    t.delayMs = Math.min(60_000, t.delayMs === 0 ? 1000 : t.delayMs * 2);
    t.okSince = 0;
    const go = (): void => {
      t.timer = null;
      t.last = monotonicNow();
      this.attempt(assetId, { startedMs: monotonicNow(), attempt: 0, timer: null, held: null });
    };
    if (wait === 0) return go();
    t.timer = setTimeout(go, wait);
    t.timer.unref?.();
  }

  /** Every price_change the feed applies: held for tokens whose GET /book is in flight, when it changes them. */
  observe(ev: PriceChangeEvent): void {
    if (this.pending.size === 0) return;
    for (const [assetId, p] of this.pending) {
      const held = p.held;
      if (held === null || held === 'overflow' || !touches(ev, assetId)) continue;
      // too much to replay: the snapshot would miss deltas, so it is not used (applyRest)
      if (held.length >= MAX_HELD) p.held = 'overflow';
      else held.push(ev);
    }
  }

  /** A book update: ends the token's episode once it is verified in sync. */
  updated(assetId: string, inSync: boolean): void {
    if (!inSync || this.pending.size === 0) return;
    const p = this.pending.get(assetId);
    if (!p) return;
    this.finish(assetId, p);
  }

  /** Episodes in flight (token -> ms since the request). */
  inFlight(): Record<string, number> {
    const out: Record<string, number> = {};
    const now = monotonicNow();
    for (const [id, p] of this.pending) out[id] = now - p.startedMs;
    return out;
  }

  /** Ends a token's episode and its back-off (it left the set): no retry, no GET /book for it. */
  forget(assetId: string): void {
    const p = this.pending.get(assetId);
    if (p?.timer) clearTimeout(p.timer);
    this.pending.delete(assetId); // an answer still in flight is then ignored (applyRest)
    const t = this.throttle.get(assetId);
    if (t?.timer) clearTimeout(t.timer);
    this.throttle.delete(assetId);
  }

  stop(): void {
    this.stopped = true;
    for (const p of this.pending.values()) if (p.timer) clearTimeout(p.timer);
    for (const t of this.throttle.values()) if (t.timer) clearTimeout(t.timer);
    this.pending.clear();
    this.throttle.clear();
  }

  private finish(assetId: string, p: Pending): void {
    if (p.timer) clearTimeout(p.timer);
    this.pending.delete(assetId);
    const ms = monotonicNow() - p.startedMs;
    const t = this.throttle.get(assetId);
    if (t) t.okSince = monotonicNow();
    const s = this.stats;
    s.completed++;
    s.lastMs = ms;
    s.totalMs += ms;
    if (ms > s.maxMs) s.maxMs = ms;
    this.o.log?.info({ assetId, ms, attempts: p.attempt + 1 }, 'book back in sync');
  }

  private attempt(assetId: string, p: Pending): void {
    if (this.stopped) return;
    const other: ResyncMethod = this.o.method === 'rest' ? 'resubscribe' : 'rest';
    let method: ResyncMethod = p.attempt % 2 === 0 ? this.o.method : other;
    if (method === 'rest' && !this.o.fetchBook) method = 'resubscribe';
    this.pending.set(assetId, p);
    this.stats.attempts[method]++;
    // at most what a timer holds (config's bound is on the first deadline, not on its doublings)
    const deadline = Math.min(MAX_TIMER_MS, this.o.timeoutMs * Math.min(8, 2 ** Math.floor(p.attempt / 2)));
    p.timer = setTimeout(() => {
      if (this.pending.get(assetId) !== p) return;
      if (this.o.mirror.book(assetId)?.inSync()) return this.finish(assetId, p);
      this.stats.timeouts++;
      this.o.log?.warn({ assetId, method, afterMs: deadline }, 'book resync: no verified book by the deadline; trying again');
      this.attempt(assetId, { ...p, attempt: p.attempt + 1, timer: null, held: null });
    }, deadline);
    p.timer.unref?.();
    if (method === 'resubscribe') {
      p.held = null;
      this.o.resubscribe(assetId);
      return;
    }
    p.held = [];
    (this.o.fetchBook as (id: string) => Promise<BookEvent | null>)(assetId).then(
      (ev) => this.applyRest(assetId, p, ev),
      (e: unknown) => {
        this.stats.restFailures++;
        this.o.log?.warn({ assetId, err: e }, 'book resync: GET /book failed; resubscribing');
        if (this.pending.get(assetId) === p) {
          p.held = null;
          this.o.resubscribe(assetId);
        }
      },
    );
  }

  private applyRest(assetId: string, p: Pending, ev: BookEvent | null): void {
    if (this.pending.get(assetId) !== p || this.stopped) return;
    const held = p.held;
    p.held = null;
    if (!ev || ev.assetId !== assetId) {
      this.stats.restFailures++;
      this.o.resubscribe(assetId);
      return;
    }
    if (held === 'overflow') {
      this.o.log?.warn({ assetId, held: MAX_HELD }, 'book resync: too many deltas during GET /book to replay; resubscribing for an in-stream snapshot');
      this.o.resubscribe(assetId);
      return;
    }
    if (this.o.streaming && !this.o.streaming(assetId)) {
      // its fresh snapshot comes with the reconnect's subscription (or the deadline tries again)
      this.o.log?.info({ assetId }, 'book resync: GET /book answered while the connection is down; not used');
      return;
    }
    const m = this.o.mirror;
    m.apply(ev);
    // replay what arrived during the fetch, this token's entries only (its sibling already has them)
    if (held) {
      for (const h of held) {
        const changes = h.changes.filter((c) => c.assetId === assetId);
        if (changes.length) m.apply({ ...h, changes });
      }
    }
    const healed = this.o.healed;
    const book = healed && m.book(assetId);
    if (healed && book?.inSync()) healed({ ...ev, bids: wireLevelsOf(book, 'BUY'), asks: wireLevelsOf(book, 'SELL') });
  }
}

/** A book's levels as a snapshot's (wire order, best last). */
function wireLevelsOf(book: DenseBook, side: Side): WireLevel[] {
  const out: WireLevel[] = [];
  book.forEachLevel(side, (price, size, priceStr, sizeStr) => out.push({ price, size, priceStr, sizeStr }));
  return out;
}

/** Whether a price_change has an entry for `assetId`. */
function touches(ev: PriceChangeEvent, assetId: string): boolean {
  const cs = ev.changes;
  for (let i = 0; i < cs.length; i++) if (cs[i].assetId === assetId) return true;
  return false;
}
