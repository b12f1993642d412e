// Reconciliation with the venue: before the first quote (after restoring the store's orders and
// fills) and periodically. Orders the venue has that we do not know are adopted (our markets) or
// cancelled (anything else); orders we think are working that the venue no longer has are
// settled; trades we missed become fills (idempotent on trade id + order id).
import { settleWithin } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import type { Venue, VenueTrade } from '../venue/types.js';
import type { Engine } from '../engine/engine.js';
import { TERMINAL, sizeToCome, type TrackedOrder } from '../engine/orders.js';
import { KEEP_SETTLED, fillKey, settled, type Fill } from '../engine/fills.js';
import { tradeStatusOf, type TradeStatus } from '../core/events.js';

const IN_FLIGHT_GRACE_MS = 10_000;
/** An unclear submit's request has ended; the venue lists an order it took within this long. */
export const AMBIGUOUS_GRACE_MS = 2_000;
/**
 * How much earlier than our order a trade's match time may be and still be its fill: our clock
 * against the venue's (whole seconds on the wire; the daemon's start-up check allows 5 s).
 */
const BIND_SKEW_MS = 10_000;

export interface ReconcileReport {
  venueOrders: number;
  adopted: number;
  bound: number;
  cancelledForeign: number;
  /** Our orders in markets no longer quoted (the set changed across a kill): cancelled, none left resting unmanaged. */
  cancelledOrphans: number;
  settled: number;
  missedFills: number;
  /** Known fills whose status the venue had moved on (CONFIRMED, FAILED). */
  statusMoves: number;
}

/**
 * A venue trade's status (the spellings tradeStatusOf accepts). An unknown one counts as MATCHED:
 * not settled, so a later FAILED still reverses it and its shares wait for a known status before
 * they are sold; taken as CONFIRMED, a trade that then failed would leave shares we never had.
 * (A trade with no status at all is listed as done: LiveVenue.trades.)
 */
function tradeStatus(s: string): TradeStatus {
  return tradeStatusOf(s) ?? 'MATCHED';
}

/**
 * Loads what the store knew into the engine: orders to track, and every fill, oldest first, read
 * once (positions). The ledger holds what can still be reported: every fill not settled and the
 * `keepSettled` newest settled ones (what its housekeeping keeps anyway), so a long history is
 * not all in memory at start; the rest is counted.
 */
export function restoreFromStore(engine: Engine, orders: readonly TrackedOrder[], fills: Iterable<Fill>, keepSettled = KEEP_SETTLED): void {
  // the stored fills of the orders restored (their unseen part below)
  const byOrder = new Map<string, number>();
  // and how many pieces (the fills' rounding slack grows with them: fills.ts withinRounding)
  const pieces = new Map<string, number>();
  for (const o of orders) if (o.orderId !== undefined) byOrder.set(o.orderId, 0);
  // the newest settled fills, a ring in time order from `head`
  const ring: Fill[] = [];
  let head = 0;
  let dropped = 0;
  for (const f of fills) {
    // a token held outside the set after this restart is asked about by its market (ResolutionWatch)
    engine.noteMarketOf(f.tokenId, f.market);
    if (f.status !== 'FAILED') {
      engine.positions.applyFill(f, fillKey(f.tradeId, f.orderId), !settled(f.status));
      const sum = byOrder.get(f.orderId);
      if (sum !== undefined) {
        byOrder.set(f.orderId, sum + f.size);
        pieces.set(f.orderId, (pieces.get(f.orderId) ?? 0) + 1);
      }
    }
    if (!settled(f.status)) engine.ledger.preload(f);
    else if (ring.length < keepSettled) ring.push(f);
    else if (keepSettled > 0) {
      ring[head] = f;
      head = (head + 1) % ring.length;
      dropped++;
    } else dropped++;
  }
  for (let i = 0; i < ring.length; i++) engine.ledger.preload(ring[(head + i) % ring.length]);
  engine.ledger.countStored(dropped);
  for (const o of orders) {
    // filled beyond the order's stored fills is what a venue list counted before its trades came
    const unseen = o.filled - (o.orderId === undefined ? 0 : (byOrder.get(o.orderId) ?? 0));
    if (unseen > 0) o.unseen = unseen;
    const n = o.orderId === undefined ? undefined : pieces.get(o.orderId);
    if (n) o.pieces = n;
    engine.orders.restore(o);
  }
}

/** Whether the store holds this trade's fill; undefined when it could not say (the error kept in `failed`). */
function storedFill(engine: Engine, t: VenueTrade, failed: { err?: unknown }): boolean | undefined {
  const h = engine.history;
  if (!h) return false;
  if (failed.err !== undefined) return undefined;
  try {
    return h.hasFill(t.tradeId, t.orderId);
  } catch (err) {
    failed.err = err;
    return undefined;
  }
}

/**
 * Restored orders that ended matched with trades still to come (not stored, not found by start-up's
 * look-up) have that size held as unreported again, as before the restart (engine.matchedUnreported:
 * a BUY's shares toward the limits and its cost out of the budget, a SELL's not sellable twice, the
 * venue asked if no trade comes): an order the venue said MATCHED, all of what its fills have not
 * brought; a cancelled one, what the venue listed matched before its trades. Called once the
 * look-up has run (its fills counted; the hold's clock starts as quoting can).
 */
export function holdRestoredMatched(engine: Engine, restored: readonly TrackedOrder[]): void {
  for (const o of restored) {
    const left = o.state === 'filled' ? sizeToCome(o) : o.state === 'canceled' ? (o.unseen ?? 0) : 0;
    if (left > 0) engine.matchedUnreported(o, left);
  }
}

/**
 * The stored order a trade names when the engine has forgotten it, tracked again (as start-up
 * restores it) so the trade's fill is recorded; undefined when the store never held the order, or
 * already holds this fill (its order is not brought back for a trade already counted).
 */
function forgottenOrder(engine: Engine, t: VenueTrade, failed: { err?: unknown }): TrackedOrder | 'recorded' | undefined {
  const h = engine.history;
  if (!h || failed.err !== undefined) return undefined;
  const recorded = storedFill(engine, t, failed);
  if (recorded !== false) return recorded ? 'recorded' : undefined;
  let o: TrackedOrder | undefined;
  try {
    o = h.orderByVenueId(t.orderId);
  } catch (err) {
    // the look-up goes on without the store (its other work is not the store's) and fails after
    failed.err = err;
    return undefined;
  }
  if (!o) return undefined;
  engine.orders.restore(o);
  return o;
}

/** An hour, ms (start-up's margin before the store's last activity; the look-ups' window). */
export const HOUR = 3_600_000;

/**
 * Where start-up looks for trades: from an hour before the last thing the store holds (the
 * downtime and the moment of a crash; 24 h back when it holds nothing), and further back still when
 * daemon.recoveryWindowMs (`fixedMs`) asks for more. A set window never shortens the downtime's: a
 * trade of a resting order in a crash's last seconds would otherwise be missed after a long outage,
 * the order settled as cancelled and its shares never counted.
 */
export function recoveryStart(nowMs: number, fixedMs: number, lastActivityMs: number | undefined): number {
  const downtime = lastActivityMs === undefined ? nowMs - 24 * HOUR : Math.min(nowMs, lastActivityMs) - HOUR;
  return fixedMs > 0 ? Math.min(nowMs - fixedMs, downtime) : downtime;
}

/** How far back a fill still unsettled is read again at most (unsettledSince). */
const UNSETTLED_BACK_MS = 24 * HOUR;

/**
 * Where a start-up or periodic read of the venue's trades must begin to see the fills still
 * unsettled (MATCHED, RETRYING) again: their oldest match time less a minute; Infinity when none.
 * One matched more than a day ago is left out (not a day of trades read at every look-up for a
 * status nobody will move). The reads cover the last hour otherwise, so a trade unsettled longer that
 * then FAILED (or was CONFIRMED) was never read again: a failed fill never reversed.
 */
export function unsettledSince(fills: readonly Fill[], nowMs: number): number {
  let oldest = Infinity;
  const cap = nowMs - UNSETTLED_BACK_MS;
  for (const f of fills) if (f.timeMs > cap && f.timeMs < oldest) oldest = f.timeMs;
  return oldest === Infinity ? Infinity : Math.max(cap, oldest - 60_000);
}

/** Missing orders asked for one by one at most (the rest are settled on the list alone), and at once. */
const CONFIRM_MAX = 200;
const CONFIRM_PARALLEL = 8;
/** The time a look-up gives its by-id questions in all (a start-up, a stop and every look-up wait for it). */
const CONFIRM_BUDGET_MS = 3000;

/**
 * Of the working orders a list did not show, those the venue confirms are not open. A paged list
 * can skip an order (an earlier one ended during the walk, so the rest moved up a page): each is
 * asked for by id where the venue can answer that. One it shows open stays; one whose answer
 * cannot tell (a timeout, the budget spent) stays until the next look-up. More than CONFIRM_MAX
 * missing is a venue-wide cancel (a dead-man switch, a cancel-all): the list alone decides.
 */
async function confirmGone(venue: Venue, missing: readonly TrackedOrder[], log: Logger): Promise<{ gone: TrackedOrder[]; matched: Map<TrackedOrder, number> }> {
  const ask = venue.lookUpOrder?.bind(venue);
  const asked = missing.filter((o) => o.orderId !== undefined);
  /** What an ended order matched, by its answer (its trades may not have come yet). */
  const matched = new Map<TrackedOrder, number>();
  if (!ask || asked.length === 0 || asked.length > CONFIRM_MAX) return { gone: [...missing], matched };
  const gone = missing.filter((o) => o.orderId === undefined);
  let open = 0;
  let unknown = 0;
  const deadline = performance.now() + CONFIRM_BUDGET_MS;
  for (let i = 0; i < asked.length; i += CONFIRM_PARALLEL) {
    const part = asked.slice(i, i + CONFIRM_PARALLEL);
    const answers = await settleWithin(Promise.allSettled(part.map((o) => ask(o.orderId as string))), deadline - performance.now());
    if (answers === undefined) {
      unknown += asked.length - i; // the budget is spent: the rest wait for the next look-up
      break;
    }
    answers.forEach((a, k) => {
      if (a.status === 'rejected') unknown++;
      else if (a.value !== null && !a.value.ended) open++;
      else {
        gone.push(part[k]);
        if (a.value?.ended && a.value.sizeMatched > 0) matched.set(part[k], a.value.sizeMatched);
      }
    });
  }
  if (open || unknown) log.warn({ missing: missing.length, open, unknown }, 'reconcile: orders missing from the list that the venue shows open by id (or could not tell) are kept');
  return { gone, matched };
}

/**
 * Our orders the venue lists in markets the engine no longer quotes: restored after a kill while
 * the market set changed (a market query, other --markets). No requote walks them, so they would
 * rest at their old prices, fill, and be kept alive by the heartbeats until the next stop: they are
 * cancelled. One the venue does not confirm stays working here and is cancelled again next time.
 */
async function cancelOrphans(engine: Engine, venue: Venue, listed: ReadonlyArray<[TrackedOrder, number]>, log: Logger): Promise<string[]> {
  const orphans = listed.map(([o]) => o).filter((o) => o.orderId !== undefined && !TERMINAL.has(o.state) && o.state !== 'pending_cancel' && !engine.marketOf(o.tokenId));
  if (orphans.length === 0) return [];
  const now = engine.clock.now();
  for (const o of orphans) engine.orders.cancelSent(o, now);
  let canceled: string[] = [];
  try {
    canceled = (await venue.cancelOrders(orphans.map((o) => o.orderId as string))).canceled;
  } catch (err) {
    log.warn({ err, orders: orphans.length }, 'reconcile: cancelling our orders in markets no longer quoted failed; tried again at the next look-up');
  }
  const done = new Set(canceled);
  for (const o of orphans) {
    const id = o.orderId as string;
    if (done.has(id)) engine.orders.canceled(id, engine.clock.now());
    else engine.orders.cancelRefused(id, 'cancel of an order in a market no longer quoted not confirmed', engine.clock.now());
  }
  log.warn({ orders: orphans.length, canceled: canceled.length, markets: [...new Set(orphans.map((o) => o.market))] }, 'reconcile: our orders in markets no longer quoted cancelled');
  return canceled;
}

/** What a look-up saw and did at the venue, for a caller that acts on it (a stop: what still rests). */
export interface ReconcileListing {
  /** The ids the venue listed open. */
  openIds: string[];
  /** The ids this look-up itself had cancelled (another program's orders, ours in markets no longer quoted). */
  cancelled: string[];
}

/**
 * The store could not be read for a trade of an order no longer in memory: the look-up did the rest
 * (its listing is good), but its trades must be read again, so it fails.
 */
export class ReconcileStoreError extends Error {}

export async function reconcileWithVenue(engine: Engine, venue: Venue, sinceMs: number, log: Logger, listing?: ReconcileListing): Promise<ReconcileReport> {
  const rep: ReconcileReport = { venueOrders: 0, adopted: 0, bound: 0, cancelledForeign: 0, cancelledOrphans: 0, settled: 0, missedFills: 0, statusMoves: 0 };
  const now = () => engine.clock.now();
  const startedMs = now();
  const [venueOrders, trades] = await Promise.all([venue.openOrders(), venue.trades(sinceMs)]);
  // orders that moved while the lists were read (a place answered) are newer than the lists; what
  // this look-up moves itself below (a missed fill, a binding) is not
  const movedWhileListed = new Set<TrackedOrder>();
  for (const o of engine.orders.open()) if (o.updatedMs >= startedMs) movedWhileListed.add(o);
  rep.venueOrders = venueOrders.length;
  // the ids the venue lists open, for a caller that acts on them (a stop: what still rests)
  if (listing) for (const vo of venueOrders) listing.openIds.push(vo.orderId);
  const seen = new Set<string>();
  const foreign: string[] = [];
  // our orders the list shows, with the venue's size matched: what they filled is raised to it
  // only after the trades below, which may hold the same fills (counting both would double them)
  const listed: Array<[TrackedOrder, number]> = [];
  for (const vo of venueOrders) {
    seen.add(vo.orderId);
    const known = engine.orders.byVenueId(vo.orderId);
    if (vo.unreadable) {
      // listed, so not gone: ours stays as we track it; one we cannot read we cannot adopt either
      if (!known) foreign.push(vo.orderId);
      continue;
    }
    if (known) {
      if (known.state === 'ambiguous' || known.state === 'pending_new') engine.orders.bind(known, vo.orderId, now());
      // a cancel unanswered for long, or an earlier process's (restored as pending: no answer will
      // come, and it may never have been sent), while the venue still lists the order: cancelled
      // again by the next requote, never left resting
      else if (known.state === 'pending_cancel' && (engine.orders.unchangedSinceRestore(known) || known.updatedMs < startedMs - IN_FLIGHT_GRACE_MS))
        engine.orders.cancelRefused(vo.orderId, 'cancel not answered, the venue lists the order', now());
      // an order we ended wrongly (a crash between two writes) is working again; one that ended
      // after the list was asked for (its cancel answered meanwhile) ended after what the list shows
      else if (known.updatedMs < startedMs) engine.orders.reopen(known, now());
      listed.push([known, vo.sizeMatched]);
      continue;
    }
    const unbound = engine.orders.matchUnbound(vo.tokenId, vo.side, vo.price, vo.originalSize);
    if (unbound) {
      engine.orders.bind(unbound, vo.orderId, now());
      listed.push([unbound, vo.sizeMatched]);
      rep.bound++;
      continue;
    }
    const st = engine.marketOf(vo.tokenId);
    if (st) {
      const adopted = engine.orders.adopt(
        {
          clientId: `adopted-${vo.orderId}`,
          orderId: vo.orderId,
          tokenId: vo.tokenId,
          market: st.meta.conditionId,
          side: vo.side,
          price: vo.price,
          size: vo.originalSize,
          filled: 0,
          createdMs: vo.createdAtMs || now(),
        },
        now(),
      );
      listed.push([adopted, vo.sizeMatched]);
      rep.adopted++;
    } else {
      foreign.push(vo.orderId);
    }
  }
  // Trades first: a vanished order may have filled. Finished orders count too (the store loaded
  // those of the window): a crash may have stored the order's end without its fill.
  let statusMoves = 0;
  let unknownTrades = 0;
  /** A store read that failed (forgottenOrder): the look-up fails once the rest is done, so its trades are read again. */
  const history: { err?: unknown } = {};
  for (const t of trades) {
    if (engine.ledger.has(t.tradeId, t.orderId)) {
      // a status we missed while down: MATCHED -> CONFIRMED, or FAILED (the fill is reversed); its
      // order may be finished and forgotten, and is never looked for among the unanswered ones
      if (engine.atomically(() => engine.ledger.venueStatus(t.tradeId, t.orderId, tradeStatus(t.status), now()))) statusMoves++;
      continue;
    }
    // settled fills older than the newest the ledger keeps are in the store only: one listed again is no new fill
    // (a store that cannot say: skipped, the look-up fails after and its trades are read again)
    if (engine.ledger.storedNotHeld > 0 && storedFill(engine, t, history) !== false) continue;
    let o = engine.orders.byVenueId(t.orderId);
    if (!o) {
      // an order of ours whose place was never answered (a crash, a lost answer) that filled and
      // left the book: its trade names it by the venue's id, its terms name it to us, if it
      // matched after the order was made (the look-ups read an hour of trades: an older one is a
      // finished order's, and an order bound to its id would never take its own answer)
      const madeBy = t.timeMs > 0 ? t.timeMs + BIND_SKEW_MS : Infinity;
      o = engine.orders.matchUnboundFill(t.tokenId, t.side, t.price, t.size, madeBy);
      if (o) {
        engine.orders.bind(o, t.orderId, now());
        rep.bound++;
      } else {
        // a finished order of ours the engine has forgotten (it keeps them 10 minutes; the look-ups
        // read an hour): the store has it, and this trade's fill unless it was missed
        const stored = forgottenOrder(engine, t, history);
        if (stored === 'recorded') continue;
        o = stored;
        // none: one taken for gone that landed late (asked last: an order the store names by this id is that one)
        if (!o && history.err === undefined) {
          o = engine.orders.matchPresumedGone(t.tokenId, t.side, t.price, t.size, madeBy);
          if (o) {
            engine.orders.bind(o, t.orderId, now());
            rep.bound++;
          }
        }
        if (!o) {
          // (not when the store could not say: the look-up fails for it, naming the store)
          if (history.err === undefined && engine.marketOf(t.tokenId)) unknownTrades++;
          continue;
        }
      }
    }
    const f: Fill = {
      tradeId: t.tradeId,
      orderId: t.orderId,
      tokenId: t.tokenId,
      market: t.market || o.market,
      side: o.side,
      price: t.price,
      size: t.size,
      fee: engine.fillFee(t.tokenId, t.price, t.size, t.feeRateBps, t.liquidity),
      liquidity: t.liquidity,
      status: tradeStatus(t.status),
      timeMs: t.timeMs,
    };
    if (t.sizeMicros !== undefined) f.sizeMicros = t.sizeMicros;
    if (engine.atomically(() => engine.ledger.record(f, now(), t.feeRateBps))) rep.missedFills++;
  }
  for (const [o, matched] of listed) {
    const was = o.state;
    const unseen = o.unseen ?? 0;
    engine.orders.matchedAtLeast(o, matched, now());
    // ended matched with trades not seen: their size counts as held until they come (as an order
    // event MATCHED before its trade does); a partial fill's counts with its open size (risk-inputs)
    if ((o.unseen ?? 0) > unseen && o.state === 'filled' && was !== 'filled') engine.matchedUnreported(o, sizeToCome(o));
  }
  // Orders we track as working that the venue no longer lists (placed before the query started).
  const missing: TrackedOrder[] = [];
  for (const o of [...engine.orders.open()]) {
    if (o.orderId && seen.has(o.orderId)) continue;
    if (o.createdMs >= startedMs) continue; // sent while the query ran
    if (movedWhileListed.has(o)) continue;
    // A request may still be on its way: leave recent in-flight orders to their answers. One an
    // earlier process sent (restored) will get no answer: it waits as long as an unanswered place
    const inFlight = o.state === 'pending_new' || o.state === 'pending_cancel';
    const grace = engine.orders.isRestored(o) ? AMBIGUOUS_GRACE_MS : IN_FLIGHT_GRACE_MS;
    if (inFlight && o.updatedMs > startedMs - grace) continue;
    if (o.state === 'ambiguous' && o.updatedMs > startedMs - AMBIGUOUS_GRACE_MS) continue;
    missing.push(o);
  }
  const asked = new Map(missing.map((o) => [o, o.updatedMs]));
  const { gone, matched } = await confirmGone(venue, missing, log);
  for (const o of gone) {
    if (TERMINAL.has(o.state) || o.updatedMs !== asked.get(o)) continue; // moved while we asked
    // what it matched counts, as for a listed order: held as unreported until its trade comes
    // (one cancelled after a part matched holds that part when it ends below)
    const m = matched.get(o);
    if (m !== undefined) {
      const was = o.state;
      engine.orders.matchedAtLeast(o, m, now());
      if (o.state === 'filled' && was !== 'filled') engine.matchedUnreported(o, sizeToCome(o));
    }
    engine.orders.settleMissing(o, now());
    rep.settled++;
  }
  if (foreign.length) {
    try {
      const r = await venue.cancelOrders(foreign);
      rep.cancelledForeign = r.canceled.length;
      listing?.cancelled.push(...r.canceled);
      // said every time: orders keep coming from elsewhere when another process trades this key
      if (r.canceled.length)
        log.warn(
          { orders: r.canceled.length },
          'reconcile: cancelled orders this daemon did not place, outside its markets (placed by hand, or by another process trading this key: two daemons must not trade one key)',
        );
    } catch (err) {
      log.warn({ err, orders: foreign.length }, 'reconcile: cancelling unknown orders failed');
    }
  }
  const orphans = await cancelOrphans(engine, venue, listed, log);
  rep.cancelledOrphans = orphans.length;
  listing?.cancelled.push(...orphans);
  rep.statusMoves = statusMoves;
  if (unknownTrades) log.warn({ trades: unknownTrades }, 'reconcile: trades in our markets name orders we do not know');
  if (history.err !== undefined) {
    const why = history.err instanceof Error ? history.err.message : String(history.err);
    throw new ReconcileStoreError(`reconcile: the store could not be read for a trade of an order no longer in memory (${why}); its trades are read again next time`);
  }
  log.info({ ...rep }, 'reconciled with the venue');
  return rep;
}
