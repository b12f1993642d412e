// Order scheduler: holds the unsent intents of each market and sends them within the rate
// windows of spec section 8, as checked by the one Limiter (src/api/limiter.ts). A place that
// depends on none of the queued cancels of its market goes first, when those cancels can go in
// the same turn (their window has room); a dependent place (it would cross an order being
// cancelled, or sells shares a cancelled SELL holds) goes after them, as does every place while a
// cancel waits for its window.
// Places go in batches of <= maxBatch on POST /orders, cancels many ids per
// DELETE /orders; when a batch window is full the single-order endpoints carry overflow. A newer
// set of intents for a market replaces its unsent ones (coalescing). Sending is synchronous up to
// the venue call, so a quote leaves in the same turn as the frame that caused it.
import type { Logger } from '../core/log.js';
import type { Clock } from '../core/clock.js';
import type { Venue, OrderRequest, PlaceResult, CancelResult } from '../venue/types.js';
import type { Quote } from './strategy.js';
import { PRIORITY, type Limiter } from '../api/limiter.js';
import type { Scope } from '../api/limit-table.js';
import { PRICE_SCALE } from '../core/units.js';
import { RateLimitError } from '../core/errors.js';

export interface SchedulerSink {
  /** Just before sending: record the orders (pending_new, stored) and return their requests. */
  preparePlaces(quotes: readonly Quote[]): OrderRequest[];
  placed(reqs: readonly OrderRequest[], results: readonly PlaceResult[]): void;
  /** The request failed; AmbiguousSubmitError means the orders may exist. */
  placeFailed(reqs: readonly OrderRequest[], err: unknown): void;
  /** Prepared, never sent: a cancel-all began meanwhile (a halt, a stop). */
  notSent(reqs: readonly OrderRequest[], why: string): void;
  /** Just before sending: mark the orders pending_cancel. */
  prepareCancels(orderIds: readonly string[]): void;
  /** A cancel answer; `all`: a cancel-all's (it may name any order). */
  canceled(orderIds: readonly string[], res: CancelResult, all?: boolean): void;
  cancelFailed(orderIds: readonly string[], err: unknown): void;
}

export interface SchedulerOptions {
  venue: Venue;
  limiter: Limiter;
  clock: Clock;
  log: Logger;
  sink: SchedulerSink;
  maxBatch: number;
  singleOverflow: boolean;
  /** True when the venue does not pass the limiter itself (simulated venue): the scheduler records the use. */
  recordUse: boolean;
  /** Concurrent requests at most. */
  maxInFlight?: number;
  /** Ids per DELETE /orders (the venue takes up to 1000). */
  maxCancelBatch?: number;
}

/** Unsent places: how many, and their notional in price x size units. */
export interface QueuedPlaces {
  orders: number;
  notional: number;
  /** Of `notional`, the BUYs' (the collateral they promise). */
  buyNotional: number;
}

export interface SchedulerStats {
  placeBatches: number;
  placeSingles: number;
  cancelBatches: number;
  cancelSingles: number;
  cancelAlls: number;
  ordersSent: number;
  cancelsSent: number;
  coalescedPlaces: number;
  coalescedCancels: number;
  /** Pumps that held intents for the venue's per-signer bucket (no whole token at hand). */
  bucketHolds: number;
}

/** An order to cancel: its venue id, and the terms that tell which places depend on its cancel. */
export interface CancelTarget {
  orderId: string;
  tokenId: string;
  side: Quote['side'];
  price: number;
}

/**
 * True when place `q` must wait for the cancel of `o` (an order of the same market): `q` would
 * cross it (the rule of quote-checks.ts crossesOwn: on its token the opposite side at a price it
 * reaches; on the other token the same side at a price summing past 1), or both are SELLs of the
 * same token and the shares held do not cover both (`sharesCovered` false: the risk gate counted
 * the cancelled SELL's shares as free, and so does the venue's balance check only once the cancel
 * is in).
 */
export function dependsOnCancel(q: Quote, o: Omit<CancelTarget, 'orderId'>, sharesCovered = false): boolean {
  if (o.tokenId === q.tokenId) {
    if (o.side === q.side) return q.side === 'SELL' && !sharesCovered;
    return q.side === 'BUY' ? o.price <= q.price : o.price >= q.price;
  }
  if (o.side !== q.side) return false;
  const sum = q.price + o.price;
  return q.side === 'BUY' ? sum >= PRICE_SCALE : sum <= PRICE_SCALE;
}

/** How often at most the scheduler says that the per-signer bucket holds intents back. */
const BUCKET_WARN_MS = 60_000;

/**
 * The longest a venue's pause on the cancel endpoints may hold the queued cancels: past it they
 * fail at once, to the cancel-all (when its own scopes are free), as a cancel whose call outlives its
 * deadline does. Quotes the market moved through would otherwise rest, unseen, for as long as the
 * pause (a 10-minute window's reset). Longer than a 425's longest wait (8 s: those cancels are
 * sent again when it ends, as a restart's flow wants) and a 10 s window's pause.
 */
export const CANCEL_HOLD_MAX_MS = 10_000;

/** The scopes of each order endpoint, the venue's per-signer buckets included when it has them. */

function endpoints(l: Limiter) {
  return {
    placeBatch: l.scopesOf('clob', 'POST', '/orders'),
    placeOne: l.scopesOf('clob', 'POST', '/order'),
    cancelBatch: l.scopesOf('clob', 'DELETE', '/orders'),
    cancelOne: l.scopesOf('clob', 'DELETE', '/order'),
    cancelAll: l.scopesOf('clob', 'DELETE', '/cancel-all'),
  };
}

/** A venue call whose synchronous throw (a venue's bug) comes back as its rejection: the request fails as any other, its slot is freed. */
function venueCall<T>(f: () => Promise<T>): Promise<T> {
  try {
    return f();
  } catch (err) {
    return Promise.reject(err);
  }
}

export class OrderScheduler {
  readonly stats: SchedulerStats = {
    placeBatches: 0,
    placeSingles: 0,
    cancelBatches: 0,
    cancelSingles: 0,
    cancelAlls: 0,
    ordersSent: 0,
    cancelsSent: 0,
    coalescedPlaces: 0,
    coalescedCancels: 0,
    bucketHolds: 0,
  };
  /** Unsent places per market key, in arrival order of the keys. */
  private readonly places = new Map<string, Quote[]>();
  /** Of those, the ones that depend on no queued cancel: sent before the cancels. */
  private readonly early = new Map<string, Quote[]>();
  private earlyCount = 0;
  private readonly cancels = new Map<string, string[]>();
  /**
   * Cancel requests in flight per market key. A place that depends on a cancel goes once the
   * cancel is answered, not when it is written: another connection may carry the POST out first.
   */
  private readonly cancelsOut = new Map<string, number>();
  private readonly cancelKeys: string[] = [];
  private placeCount = 0;
  private cancelCount = 0;
  private inFlight = 0;
  /** Cancel-alls begun: places prepared before one are not sent after it. */
  private cancelAllsBegun = 0;
  private timer: number | undefined;
  private timerAt = Infinity;
  private pumping = false;
  private readonly maxInFlight: number;
  private readonly maxCancelBatch: number;
  private cancelAllPending = false;
  /**
   * Live: orders sent this turn whose per-signer tokens the HTTP client may not have taken yet (it
   * takes them once they are signed, microtasks later): off the bucket's room until the turn ends,
   * or a pump in between (the gathering one) sees them free and sends orders that then wait in the
   * client, out of reach of a newer intent and of a cancel-all's hold.
   */
  private unclaimed = 0;
  private claimAtTurnEnd = false;
  private closed = false;
  private readonly turnEnded = (): void => {
    this.claimAtTurnEnd = false;
    this.unclaimed = 0;
    if (!this.closed && this.placeCount > 0) this.pump();
  };
  private gathering = false;
  private gatherSends = false;
  private readonly idle: Array<() => void> = [];
  private readonly release = () => {
    this.gathering = false;
    this.pump();
  };

  private readonly ep: ReturnType<typeof endpoints>;
  private bucketWarnAt = -Infinity;

  constructor(private readonly o: SchedulerOptions) {
    this.ep = endpoints(o.limiter);
    this.maxInFlight = o.maxInFlight ?? 8;
    this.maxCancelBatch = o.maxCancelBatch ?? 1000;
  }

  /**
   * Replaces the unsent intents of `key` (a market) with these, and sends what the windows allow.
   * `sharesCovered[i]`: places[i] is a SELL the shares held cover with every open SELL of its
   * token still resting (risk-inputs.ts sellsCovered), so no cancelled SELL's shares hold it back.
   */
  submit(key: string, cancels: readonly CancelTarget[], places: readonly Quote[], sharesCovered?: readonly boolean[]): void {
    const oldP = this.places.get(key);
    if (oldP) {
      this.stats.coalescedPlaces += oldP.length;
      this.placeCount -= oldP.length;
      this.places.delete(key);
    }
    const oldE = this.early.get(key);
    if (oldE) {
      this.stats.coalescedPlaces += oldE.length;
      this.placeCount -= oldE.length;
      this.earlyCount -= oldE.length;
      this.early.delete(key);
    }
    const oldC = this.cancels.get(key);
    if (oldC) {
      // A cancel no longer asked for is dropped; one asked again is not counted as coalesced.
      for (const id of oldC) if (!cancels.some((c) => c.orderId === id)) this.stats.coalescedCancels++;
      this.cancelCount -= oldC.length;
      this.cancels.delete(key);
    }
    if (places.length) {
      let early: Quote[] | undefined;
      let late: Quote[] | undefined;
      for (let i = 0; i < places.length; i++) {
        // a copy: the strategy's own object may be reused (one for every market) while this waits
        const p = places[i];
        const q: Quote = { tokenId: p.tokenId, side: p.side, price: p.price, size: p.size };
        const covered = sharesCovered?.[i] === true;
        let dep = false;
        for (const o of cancels) if ((dep = dependsOnCancel(q, o, covered))) break;
        if (dep) (late ??= []).push(q);
        else (early ??= []).push(q);
      }
      if (early) {
        this.early.set(key, early);
        this.earlyCount += early.length;
      }
      if (late) this.places.set(key, late);
      this.placeCount += places.length;
    }
    if (cancels.length) {
      this.cancels.set(
        key,
        cancels.map((c) => c.orderId),
      );
      this.cancelCount += cancels.length;
    }
    this.pump();
  }

  /** Drops every unsent intent and sends DELETE /cancel-all (halt, shutdown). */
  cancelAll(): Promise<CancelResult | undefined> {
    this.cancelAllsBegun++;
    this.places.clear();
    this.early.clear();
    this.cancels.clear();
    this.stats.coalescedPlaces += this.placeCount;
    this.placeCount = 0;
    this.earlyCount = 0;
    this.cancelCount = 0;
    return new Promise((resolve) => {
      this.cancelAllPending = true;
      this.acquire(this.ep.cancelAll, PRIORITY.cancel, 1, () => {
        this.cancelAllPending = false;
        this.stats.cancelAlls++;
        this.inFlight++;
        venueCall(() => this.o.venue.cancelAll()).then(
          (res) => {
            this.inFlight--;
            this.o.sink.canceled(res.canceled, res, true);
            resolve(res);
            this.pump();
          },
          (err: unknown) => {
            this.inFlight--;
            this.o.log.error({ err }, 'cancel-all failed');
            resolve(undefined);
            this.pump();
          },
        );
      });
    });
  }

  /**
   * Places waiting for a rate window in every market but `key` (whose unsent places its next
   * submit replaces): the risk gate counts them as open, or two markets' queues could pass a
   * global limit together.
   */
  queuedElsewhere(key: string, out: QueuedPlaces): QueuedPlaces {
    out.orders = 0;
    out.notional = 0;
    out.buyNotional = 0;
    if (this.placeCount === 0) return out;
    for (const m of [this.early, this.places])
      for (const [k, qs] of m) {
        if (k === key) continue;
        out.orders += qs.length;
        for (const q of qs) {
          out.notional += q.price * q.size;
          if (q.side === 'BUY') out.buyNotional += q.price * q.size;
        }
      }
    return out;
  }

  pendingPlaces(): number {
    return this.placeCount;
  }
  /** True when `key` (a market) has unsent places or cancels: its next submit replaces them. */
  hasPending(key: string): boolean {
    return this.places.has(key) || this.early.has(key) || this.cancels.has(key);
  }
  pendingCancels(): number {
    return this.cancelCount;
  }
  requestsInFlight(): number {
    return this.inFlight;
  }

  /** Resolves when nothing is queued or in flight (shutdown, tests). */
  whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((r) => this.idle.push(r));
  }

  /** Requests sent so far. */
  private requests(): number {
    const st = this.stats;
    return st.placeBatches + st.placeSingles + st.cancelBatches + st.cancelSingles + st.cancelAlls;
  }

  private isIdle(): boolean {
    return this.inFlight === 0 && this.placeCount === 0 && this.cancelCount === 0 && !this.cancelAllPending;
  }

  /** Earliest time every scope of an endpoint has room. */
  private freeAt(scopes: readonly Scope[], now: number): number {
    const lim = this.o.limiter;
    let t = now;
    for (const s of scopes) {
      const f = lim.window(s).nextFreeAt(now);
      if (f > t) t = f;
    }
    return Math.max(t, this.pausedTo(scopes));
  }

  /** Takes the slot (and `cost` orders of a per-signer bucket): recorded here for a simulated venue, by the HTTP client for the live one. */
  private acquire(scopes: readonly Scope[], prio: number, cost: number, go: () => void): void {
    // one the limiter can never grant (above a bucket's burst: the scheduler sizes none so) goes anyway, for the venue to answer
    if (this.o.recordUse) this.o.limiter.submit(scopes, prio, go, cost, go);
    else go();
  }

  /**
   * Real time: after a send, further sends in the same synchronous run (the other frames of one
   * socket read) wait for its end, a microtask later, and leave together in one batch: the first
   * decision goes out at once, and no later one waits behind a write of its own per earlier frame.
   */
  gatherAfterSend(on: boolean): void {
    this.gatherSends = on;
  }

  /**
   * Runs `fn` with sends held, then sends what it submitted in one pump: the requotes of one
   * socket read (Engine, real time) share their batches instead of the first going alone and the
   * rest waiting behind its request.
   */
  together(fn: () => void): void {
    if (this.gathering || this.pumping) return fn(); // already held: they go when that ends
    this.gathering = true;
    try {
      fn();
    } finally {
      this.gathering = false;
    }
    this.pump();
  }

  pump(): void {
    if (this.pumping || this.gathering) return;
    this.pumping = true;
    const requests = this.requests();
    try {
      this.pumpInner();
    } catch (err) {
      // a pump runs from microtasks, timers and answers too, where a throw would end the
      // process: what it had taken from the queues is dropped (the next requote asks again)
      this.o.log.error({ err }, 'scheduler: sending failed');
    } finally {
      this.pumping = false;
    }
    if (this.gatherSends && this.requests() !== requests) {
      this.gathering = true;
      queueMicrotask(this.release);
    }
    if (this.isIdle() && this.idle.length) for (const r of this.idle.splice(0)) r();
  }

  private pumpInner(): void {
    const now = this.o.clock.now();
    let wakeAt = Infinity;
    // the venue holds the cancels: no place goes until they can (its cancel could not follow), and
    // those it would hold too long fail now
    const cancelsPausedTo = this.cancelsPausedUntil();
    if (cancelsPausedTo > now) {
      // only when the cancel-all can go (a per-signer bucket's pause holds it too): else it is no sooner
      if (this.cancelCount > 0 && cancelsPausedTo > now + CANCEL_HOLD_MAX_MS && this.pausedTo(this.ep.cancelAll) <= now) this.failHeldCancels(cancelsPausedTo);
      this.arm(cancelsPausedTo);
      return;
    }
    // Places that depend on no queued cancel first, when the cancels go in this turn too: a
    // cancel waiting for its window holds every place (no new exposure meanwhile), and one
    // request slot stays for the cancels.
    const ep = this.ep;
    if (this.earlyCount > 0 && this.cancelCount > 0 && this.freeAt(ep.cancelBatch, now) <= now) {
      wakeAt = this.sendPlacesWhileFree(now, true, this.maxInFlight - 1);
    }
    // the per-signer bucket's whole tokens (Infinity without one): a batch never asks for more, so
    // it goes now rather than waiting whole in the queue; spent here as sent, since a signed
    // order's tokens are taken by the HTTP client a few microtasks later
    let cancelRoom = this.o.limiter.room(ep.cancelBatch);
    while (this.cancelCount > 0 && this.inFlight < this.maxInFlight) {
      const batchAt = cancelRoom >= 1 ? this.freeAt(ep.cancelBatch, now) : Infinity;
      if (batchAt <= now) {
        const ids = this.takeCancels(Math.min(this.maxCancelBatch, cancelRoom));
        cancelRoom -= ids.length;
        this.sendCancels(ids, true, this.cancelKeys);
        continue;
      }
      const oneAt = this.o.singleOverflow && cancelRoom >= 1 ? this.freeAt(ep.cancelOne, now) : Infinity;
      if (oneAt <= now) {
        cancelRoom -= 1;
        this.sendCancels(this.takeCancels(1), false, this.cancelKeys);
        continue;
      }
      if (cancelRoom < 1) {
        this.bucketHeld(now);
        wakeAt = Math.min(wakeAt, this.freeAt(ep.cancelOne, now));
      }
      wakeAt = Math.min(wakeAt, batchAt, oneAt);
      break;
    }
    // The rest after the cancels: no new exposure while a cancel waits for its window, and a
    // market's dependent places once its cancels are answered (done() pumps again then).
    // one request slot stays for the cancels: a cancel never waits behind places in flight
    if (this.cancelCount === 0) {
      // and none goes that no cancel could follow at once: a cancel bucket in debt (a cancel-all's
      // after-the-fact debit) or a full cancel window would leave it resting out of reach
      const cancelAt = Math.min(this.freeAt(ep.cancelBatch, now), this.o.singleOverflow ? this.freeAt(ep.cancelOne, now) : Infinity);
      wakeAt = Math.min(wakeAt, cancelAt > now ? cancelAt : this.sendPlacesWhileFree(now, false, Math.max(1, this.maxInFlight - 1)));
    }
    this.arm(wakeAt);
  }

  /** Until when the venue pauses every endpoint a cancel could go on (0: none paused). */
  private cancelsPausedUntil(): number {
    const batch = this.pausedTo(this.ep.cancelBatch);
    return this.o.singleOverflow ? Math.min(batch, this.pausedTo(this.ep.cancelOne)) : batch;
  }

  /** Until when the venue pauses an endpoint (the latest pause of its scopes; 0: none). */
  private pausedTo(scopes: readonly Scope[]): number {
    let t = 0;
    for (const sc of scopes) t = Math.max(t, this.o.limiter.pausedUntil(sc.id));
    return t;
  }

  /** Every queued cancel fails as rate limited (the engine's cancel-all follows); the places that waited for them are dropped. */
  private failHeldCancels(untilMs: number): void {
    const ids = this.takeCancels(this.cancelCount);
    const keys = this.cancelKeys.slice();
    for (const k of keys) this.cancelsOut.set(k, (this.cancelsOut.get(k) ?? 0) + 1);
    this.o.log.warn({ orders: ids.length, pausedForMs: Math.round(untilMs - this.o.clock.now()) }, 'scheduler: the venue pauses every cancel endpoint; cancels left to the cancel-all');
    this.o.sink.prepareCancels(ids);
    this.answered(keys, true);
    this.o.sink.cancelFailed(ids, new RateLimitError('DELETE', '/orders', untilMs));
  }

  /** Sends places (only the independent ones when `earlyOnly`) while windows and `slots` allow; returns when to retry. */
  private sendPlacesWhileFree(now: number, earlyOnly: boolean, slots: number): number {
    const ep = this.ep;
    // the per-signer bucket's whole tokens, spent as sent (see pumpInner)
    let room = this.o.limiter.room(ep.placeBatch) - this.unclaimed;
    while ((earlyOnly ? this.earlyCount : this.placeCount) > 0 && this.inFlight < slots) {
      if (room < 1) {
        // the client has yet to take this turn's tokens: the turn's end pumps again
        if (room + this.unclaimed >= 1) return Infinity;
        this.bucketHeld(now);
        return this.freeAt(ep.placeOne, now) > now ? this.freeAt(ep.placeOne, now) : now + 1;
      }
      const batchAt = this.freeAt(ep.placeBatch, now);
      const oneAt = batchAt <= now || !this.o.singleOverflow ? Infinity : this.freeAt(ep.placeOne, now);
      if (batchAt > now && oneAt > now) return Math.min(batchAt, oneAt);
      const qs = this.takePlaces(batchAt <= now ? Math.min(this.o.maxBatch, room) : 1, earlyOnly);
      if (!qs.length) break; // what is left waits for its market's cancels to be answered
      room -= qs.length;
      this.sendPlaces(qs, batchAt <= now);
    }
    return Infinity;
  }

  /**
   * Intents wait for the per-signer bucket: counted, and said at most once a minute, since it
   * means the strategy asks for more orders than the account's tier gives (they go as tokens
   * come, the newest intent of each market).
   */
  private bucketHeld(now: number): void {
    this.stats.bucketHolds++;
    if (now - this.bucketWarnAt < BUCKET_WARN_MS) return;
    this.bucketWarnAt = now;
    const st = this.stats;
    this.o.log.warn(
      { tier: this.o.limiter.signerTier, places: this.placeCount, cancels: this.cancelCount, holds: st.bucketHolds, coalescedPlaces: st.coalescedPlaces },
      "intents wait for the venue's per-signer bucket: the strategy asks for more orders than the account's tier allows",
    );
  }

  /** Up to n queued cancels; their market keys into cancelKeys. */
  private takeCancels(n: number): string[] {
    const out: string[] = [];
    const keys = this.cancelKeys;
    keys.length = 0;
    for (const [k, ids] of this.cancels) {
      if (ids.length) keys.push(k);
      while (ids.length && out.length < n) out.push(ids.shift() as string);
      if (!ids.length) this.cancels.delete(k);
      if (out.length >= n) break;
    }
    this.cancelCount -= out.length;
    return out;
  }

  /** Up to n places: the independent ones first, then (unless earlyOnly) the others. */
  private takePlaces(n: number, earlyOnly: boolean): Quote[] {
    const out: Quote[] = [];
    this.takeFrom(this.early, n, out);
    this.earlyCount -= out.length;
    if (!earlyOnly) this.takeFrom(this.places, n, out, this.cancelsOut);
    this.placeCount -= out.length;
    return out;
  }

  /** Up to n from `m` into `out`, but not of a key in `skip`. */
  private takeFrom(m: Map<string, Quote[]>, n: number, out: Quote[], skip?: ReadonlyMap<string, number>): void {
    if (out.length >= n) return;
    for (const [k, qs] of m) {
      if (skip?.has(k)) continue;
      while (qs.length && out.length < n) out.push(qs.shift() as Quote);
      if (!qs.length) m.delete(k);
      if (out.length >= n) break;
    }
  }

  private sendCancels(ids: string[], batch: boolean, keyList: readonly string[]): void {
    if (!ids.length) return;
    const sink = this.o.sink;
    const keys = keyList.slice();
    for (const k of keys) this.cancelsOut.set(k, (this.cancelsOut.get(k) ?? 0) + 1);
    sink.prepareCancels(ids);
    this.inFlight++;
    this.stats.cancelsSent += ids.length;
    if (batch) this.stats.cancelBatches++;
    else this.stats.cancelSingles++;
    this.acquire(batch ? this.ep.cancelBatch : this.ep.cancelOne, PRIORITY.cancel, ids.length, () => {
      const p = venueCall(() => (batch ? this.o.venue.cancelOrders(ids) : this.o.venue.cancelOrder(ids[0])));
      p.then(
        (res) => {
          this.answered(keys, false);
          this.done(() => sink.canceled(ids, res));
        },
        (err: unknown) => {
          this.answered(keys, true);
          this.done(() => sink.cancelFailed(ids, err));
        },
      );
    });
  }

  /**
   * A cancel request of these markets answered. A market's places that waited for its cancels
   * depend on none once every one is answered: they join its independent places (sent before
   * other markets' cancels in a turn those go). When the request failed they are dropped instead
   * (their orders may still rest; the next requote decides again).
   */
  private answered(keys: readonly string[], failed: boolean): void {
    for (const k of keys) {
      const left = (this.cancelsOut.get(k) ?? 0) - 1;
      if (left > 0) this.cancelsOut.set(k, left);
      else this.cancelsOut.delete(k);
      const late = this.places.get(k);
      if (!late) continue;
      if (failed) {
        this.stats.coalescedPlaces += late.length;
        this.placeCount -= late.length;
        this.places.delete(k);
      } else if (left <= 0 && !this.cancels.has(k)) {
        this.places.delete(k);
        const early = this.early.get(k);
        if (early) early.push(...late);
        else this.early.set(k, late);
        this.earlyCount += late.length;
      }
    }
  }

  private sendPlaces(quotes: Quote[], batch: boolean): void {
    if (!quotes.length) return;
    const sink = this.o.sink;
    // a cancel-all begun from here on (a store write of these very orders failing halts) must not
    // have them sent behind it, where they could rest after the halt
    const gen = this.cancelAllsBegun;
    const reqs = sink.preparePlaces(quotes);
    if (!reqs.length) return;
    if (gen !== this.cancelAllsBegun) return sink.notSent(reqs, 'a cancel-all began while they were recorded');
    this.inFlight++;
    if (!this.o.recordUse) {
      this.unclaimed += reqs.length;
      if (!this.claimAtTurnEnd) {
        this.claimAtTurnEnd = true;
        setImmediate(this.turnEnded);
      }
    }
    this.stats.ordersSent += reqs.length;
    if (batch) this.stats.placeBatches++;
    else this.stats.placeSingles++;
    this.acquire(batch ? this.ep.placeBatch : this.ep.placeOne, PRIORITY.place, reqs.length, () => {
      if (gen !== this.cancelAllsBegun) return this.done(() => sink.notSent(reqs, 'a cancel-all began while they waited for a rate window'));
      const p: Promise<PlaceResult[]> = venueCall(() => (batch ? this.o.venue.placeOrders(reqs) : this.o.venue.placeOrder(reqs[0]).then((r) => [r])));
      p.then(
        (res) => this.done(() => sink.placed(reqs, res)),
        (err: unknown) => this.done(() => sink.placeFailed(reqs, err)),
      );
    });
  }

  private done(fn: () => void): void {
    this.inFlight--;
    try {
      fn();
    } catch (err) {
      this.o.log.error({ err }, 'scheduler: result handler failed');
    }
    this.pump();
  }

  private arm(at: number): void {
    if (at === Infinity) return;
    if (this.timer !== undefined) {
      if (this.timerAt <= at) return;
      this.o.clock.cancel(this.timer);
    }
    this.timerAt = at;
    this.timer = this.o.clock.schedule(at, () => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.pump();
    });
  }

  /** Stops the wake-up timer (shutdown). */
  close(): void {
    this.closed = true;
    if (this.timer !== undefined) this.o.clock.cancel(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }
}
