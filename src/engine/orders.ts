// Order state machine: every order we send, from before it is sent to its end. REST results and
// user-channel events drive it; an unclear submit is the state 'ambiguous' until the user channel,
// polling or reconciliation settles it (README, "Running the daemon"). Fills are NOT counted here from order
// updates (the trade events carry them, see fills.ts); order updates only move the state.
import type { Side, UserOrderEvent } from '../core/events.js';
import type { PlaceResult } from '../venue/types.js';

export type OrderState = 'pending_new' | 'live' | 'partially_filled' | 'pending_cancel' | 'canceled' | 'filled' | 'rejected' | 'ambiguous';

export const TERMINAL: ReadonlySet<OrderState> = new Set(['canceled', 'filled', 'rejected']);

export interface TrackedOrder {
  clientId: string;
  orderId?: string;
  tokenId: string;
  market: string;
  side: Side;
  price: number;
  size: number;
  /** Size units filled (from trades; never decreases except by a FAILED trade). */
  filled: number;
  /**
   * Of `filled`, what the venue's list showed matched beyond the fills we had seen (a trade not yet
   * listed or reported): this order's next fills are counted in it, not on top of it.
   */
  unseen?: number;
  /** Fills applied to it in this process (each rounds its 6 decimals to our grid by half a unit at most: fills.ts withinRounding). */
  pieces?: number;
  /** Of its fills in this process with exact sizes, millionths of a share counted beyond them (rounded up; less what rounded down): fills.ts. */
  roundUpMicros?: number;
  state: OrderState;
  /** State before pending_cancel, restored when the venue refuses the cancel. */
  prevState?: OrderState;
  error?: string;
  createdMs: number;
  updatedMs: number;
}

export type OrderChange = (o: TrackedOrder, from: OrderState) => void;

export class OrderTracker {
  private readonly byClient = new Map<string, TrackedOrder>();
  private readonly byOrderId = new Map<string, TrackedOrder>();
  /** Listeners see every state change (the store persists it). */
  private readonly listeners: OrderChange[] = [];
  /** Non-terminal orders, each with the sequence number of its (last) entry into the set. */
  private readonly openSet = new Map<TrackedOrder, number>();
  private openSeqNext = 0;
  /**
   * The same orders per token, each set in openSet's order (added and removed together): what a
   * requote and the risk gate walk, so a market's work does not grow with the number of markets.
   */
  private readonly openByToken = new Map<string, Set<TrackedOrder>>();
  /** Sum over open orders of price x (size - filled), micro-dollars, kept as they change. */
  private openNotionalSum = 0;
  private openBuyCostSum = 0;
  /** Non-terminal orders without a venue id (pending or ambiguous): matched by terms. */
  private readonly unbound = new Set<TrackedOrder>();
  /**
   * Orders settled as never placed because no look-up saw them (settleMissing without a venue id),
   * while they are remembered: a request that timed out may still have landed late and filled
   * whole before any list showed it, and then its trade, naming an id we never heard, is its own.
   */
  private readonly presumedGone = new Set<TrackedOrder>();
  /** Orders bound to a venue id by their terms (a guess): a REST answer naming that id wins. */
  private readonly guessed = new Set<TrackedOrder>();
  /**
   * Terminal orders in the order they ended (so by updatedMs), for pruning: prune walks it from the
   * head and stops at the first one inside the retention.
   */
  private readonly ended: TrackedOrder[] = [];
  private endedHead = 0;
  /** restore() put a finished order on `ended` behind a later one (the store's rows come in row order): prune sorts first. */
  private endedUnsorted = false;
  private seq = 0;
  private idMs = NaN;
  private idMsPart = '';

  constructor(private readonly idPrefix = 'c') {}

  onChange(fn: OrderChange): void {
    this.listeners.push(fn);
  }

  nextClientId(nowMs: number): string {
    // Orders of one batch share a millisecond: its part of the id is built once.
    if (nowMs !== this.idMs) {
      this.idMs = nowMs;
      this.idMsPart = `${this.idPrefix}${nowMs.toString(36)}-`;
    }
    return this.idMsPart + (this.seq++).toString(36);
  }

  /** Records an order before it is sent: state pending_new. */
  create(o: Omit<TrackedOrder, 'filled' | 'state' | 'updatedMs'>): TrackedOrder {
    const t: TrackedOrder = {
      clientId: o.clientId,
      orderId: o.orderId,
      tokenId: o.tokenId,
      market: o.market,
      side: o.side,
      price: o.price,
      size: o.size,
      filled: 0,
      state: 'pending_new',
      prevState: undefined,
      error: undefined,
      createdMs: o.createdMs,
      updatedMs: o.createdMs,
    };
    this.byClient.set(t.clientId, t);
    this.addOpen(t);
    this.unbound.add(t);
    this.emit(t, 'pending_new');
    return t;
  }

  /** Adopts an order the venue has and we did not know (startup reconciliation). */
  adopt(o: Omit<TrackedOrder, 'state' | 'updatedMs'> & { orderId: string }, nowMs: number): TrackedOrder {
    const t: TrackedOrder = { ...o, state: o.filled > 0 ? 'partially_filled' : 'live', updatedMs: nowMs };
    this.byClient.set(t.clientId, t);
    this.byOrderId.set(o.orderId, t);
    this.addOpen(t);
    this.emit(t, 'pending_new');
    return t;
  }

  get(clientId: string): TrackedOrder | undefined {
    return this.byClient.get(clientId);
  }
  byVenueId(orderId: string): TrackedOrder | undefined {
    return this.byOrderId.get(orderId);
  }
  all(): IterableIterator<TrackedOrder> {
    return this.byClient.values();
  }

  /** Orders not yet in a terminal state. */
  open(): IterableIterator<TrackedOrder> {
    return this.openSet.keys();
  }

  /** The open orders of one token, in open()'s order (undefined or empty when none). */
  openOf(tokenId: string): ReadonlySet<TrackedOrder> | undefined {
    return this.openByToken.get(tokenId);
  }

  /**
   * The open orders of tokens `a` and `b` into `out` (cleared first), in open()'s order: the two
   * tokens' sets merged by when each order entered the open set. O(orders of the two tokens).
   */
  openOfPair(a: string, b: string, out: TrackedOrder[]): TrackedOrder[] {
    out.length = 0;
    const sa = this.openByToken.get(a);
    const sb = a === b ? undefined : this.openByToken.get(b);
    if (!sb || sb.size === 0) {
      if (sa) for (const o of sa) out.push(o);
      return out;
    }
    if (!sa || sa.size === 0) {
      for (const o of sb) out.push(o);
      return out;
    }
    const seq = this.openSet;
    const ib = sb.values();
    let nb = ib.next();
    for (const o of sa) {
      const s = seq.get(o) as number;
      while (!nb.done && (seq.get(nb.value) as number) < s) {
        out.push(nb.value);
        nb = ib.next();
      }
      out.push(o);
    }
    while (!nb.done) {
      out.push(nb.value);
      nb = ib.next();
    }
    return out;
  }

  /** Sum over open orders of price x (size - filled), micro-dollars (kept as orders change). */
  openNotional(): number {
    return this.openNotionalSum;
  }

  /** The same sum over open BUY orders only: the collateral they promise. */
  openBuyCost(): number {
    return this.openBuyCostSum;
  }

  openCount(): number {
    return this.openSet.size;
  }

  /** Resumes tracking an order from the store (startup), in whatever state it was left. */
  /** Orders restored from the store (sent by an earlier process, whose answers will never come), with their updatedMs then. */
  private readonly restored = new WeakMap<TrackedOrder, number>();

  /** Whether `o` came from the store (an earlier process's), not from this process's requests. */
  isRestored(o: TrackedOrder): boolean {
    return this.restored.has(o);
  }

  /** Whether `o` is still as the store gave it back: its state (a pending request) is an earlier process's. */
  unchangedSinceRestore(o: TrackedOrder): boolean {
    return this.restored.get(o) === o.updatedMs;
  }

  restore(o: TrackedOrder): void {
    this.restored.set(o, o.updatedMs);
    this.byClient.set(o.clientId, o);
    if (o.orderId) this.byOrderId.set(o.orderId, o);
    if (!TERMINAL.has(o.state)) {
      this.addOpen(o);
      if (!o.orderId) this.unbound.add(o);
      return;
    }
    // a finished one is forgotten by prune like any other (start-up restores tens of thousands)
    const q = this.ended;
    if (q.length > this.endedHead && q[q.length - 1].updatedMs > o.updatedMs) this.endedUnsorted = true;
    q.push(o);
  }

  placeResult(r: PlaceResult, nowMs: number): void {
    const o = this.byClient.get(r.clientId);
    if (!o) return;
    if (o.state !== 'pending_new' && o.state !== 'ambiguous') {
      // bound by a guess by terms (another order of ours with the same terms, landing late), which
      // moved it on: the answer's id is the venue's word for this one; the guessed order goes back
      // to being unknown (a look-up finds it). Not once fills of the guessed order were counted on
      // it: they are that order's, and the answer's order would start with them (its own refused
      // past its size); then the answer's order is the unknown one, adopted by a look-up
      if (r.ok && r.orderId && r.orderId !== o.orderId && this.guessed.has(o) && o.filled === 0 && !o.unseen) {
        this.bindId(o, r.orderId, true, nowMs);
        this.emit(o, o.state);
      }
      return;
    }
    if (!r.ok) {
      o.error = r.message && r.message !== r.error ? `${r.error ?? 'UNKNOWN'}: ${r.message}` : r.error;
      this.move(o, 'rejected', nowMs);
      return;
    }
    if (r.orderId) this.bindId(o, r.orderId, true, nowMs);
    // A fill reported before the REST answer already moved `filled`; keep the furthest state.
    if (r.status === 'matched' || o.filled >= o.size) this.move(o, 'filled', nowMs);
    else if (r.status === 'unmatched') this.move(o, 'canceled', nowMs);
    else this.move(o, o.filled > 0 ? 'partially_filled' : 'live', nowMs);
  }

  /** The submit's outcome is unknown (AmbiguousSubmitError). */
  ambiguous(clientId: string, nowMs: number): void {
    const o = this.byClient.get(clientId);
    if (o && o.state === 'pending_new') this.move(o, 'ambiguous', nowMs);
  }

  /** A cancel was sent for this order. */
  cancelSent(o: TrackedOrder, nowMs: number): void {
    if (TERMINAL.has(o.state) || o.state === 'pending_cancel') return;
    o.prevState = o.state;
    this.move(o, 'pending_cancel', nowMs);
  }

  canceled(orderId: string, nowMs: number): void {
    const o = this.byOrderId.get(orderId);
    if (o && !TERMINAL.has(o.state)) this.move(o, 'canceled', nowMs);
  }

  /**
   * The cancel did not happen. `final`: the venue answered that it cannot cancel the order (it is
   * already canceled or matched): it is done here, and a late trade still fills it. Otherwise (the
   * request failed) the order goes back to what it was, and the next reconcile cancels it again.
   */
  cancelRefused(orderId: string, reason: string, nowMs: number, final = false): void {
    const o = this.byOrderId.get(orderId);
    if (!o || o.state !== 'pending_cancel') return;
    o.error = reason;
    if (final) this.move(o, o.filled >= o.size ? 'filled' : 'canceled', nowMs);
    else this.move(o, o.prevState ?? 'live', nowMs);
  }

  /** The venue lists as open an order we had ended (reconciliation): it is working again. */
  reopen(o: TrackedOrder, nowMs: number): void {
    if (!TERMINAL.has(o.state)) return;
    this.move(o, o.filled > 0 ? 'partially_filled' : 'live', nowMs);
  }

  /**
   * The size matched of an order the venue lists (reconciliation): what it has filled is at least
   * that, trades we have not seen included (held as `unseen` until they come).
   */
  matchedAtLeast(o: TrackedOrder, sizeMatched: number, nowMs: number): void {
    const filled = Math.min(sizeMatched, o.size);
    if (TERMINAL.has(o.state) || !Number.isSafeInteger(filled) || filled <= o.filled) return;
    this.setUnseen(o, (o.unseen ?? 0) + filled - o.filled);
    this.setFilled(o, filled);
    if (filled >= o.size) this.move(o, 'filled', nowMs);
    else if (o.state === 'live') this.move(o, 'partially_filled', nowMs);
    else this.filledMoved(o, nowMs);
  }

  /** A user-channel order event. Ambiguous orders are matched by their terms (the venue never saw our client id). */
  orderEvent(e: UserOrderEvent, nowMs: number): TrackedOrder | undefined {
    let o = this.byOrderId.get(e.orderId);
    if (!o) {
      o = this.matchUnbound(e.assetId, e.side, e.price, e.originalSize);
      if (!o) return undefined;
      this.bindId(o, e.orderId, false, nowMs);
    }
    if (TERMINAL.has(o.state) && o.state !== 'canceled') return o;
    const status = e.status.toUpperCase();
    if (e.kind === 'CANCELLATION' || status.startsWith('CANCELED') || status === 'INVALID') {
      this.move(o, status === 'INVALID' ? 'rejected' : 'canceled', nowMs);
    } else if (e.sizeMatched >= o.size || status === 'MATCHED') {
      this.move(o, 'filled', nowMs);
    } else {
      if (o.state === 'pending_new' || o.state === 'ambiguous') this.move(o, e.sizeMatched > 0 ? 'partially_filled' : 'live', nowMs);
      // a partial match told before its trade came: in `filled`, held as unseen until the trade
      // does (matchedAtLeast), so a cancel meanwhile still holds what it bought or sold
      if (e.sizeMatched > o.filled) this.matchedAtLeast(o, e.sizeMatched, nowMs);
    }
    return o;
  }

  /** A fill from a trade: size units. Returns the order (undefined when not ours). */
  applyFill(orderId: string, size: number, nowMs: number): TrackedOrder | undefined {
    const o = this.byOrderId.get(orderId);
    if (!o) return undefined;
    o.pieces = (o.pieces ?? 0) + 1;
    // a fill the venue's list already counted (matchedAtLeast) is not counted again
    let add = size;
    if (o.unseen) {
      const known = Math.min(o.unseen, size);
      this.setUnseen(o, o.unseen - known);
      add -= known;
    }
    // a fill recovered for an order already stored as filled (a crash between the two, before
    // they were one write) cannot fill it twice
    const before = o.filled;
    this.setFilled(o, o.state === 'filled' ? Math.min(o.size, o.filled + add) : o.filled + add);
    if (o.filled >= o.size) {
      if (o.state !== 'filled') this.move(o, 'filled', nowMs);
      else if (o.filled !== before) this.filledMoved(o, nowMs);
    } else if (o.state === 'live' || o.state === 'pending_new' || o.state === 'ambiguous') {
      this.move(o, 'partially_filled', nowMs);
    } else if (o.filled !== before) {
      this.filledMoved(o, nowMs);
    } else {
      o.updatedMs = nowMs;
    }
    return o;
  }

  /** A FAILED trade reverses its fill: the size is open again if the order is still working. */
  reverseFill(orderId: string, size: number, nowMs: number): TrackedOrder | undefined {
    const o = this.byOrderId.get(orderId);
    if (!o) return undefined;
    const before = o.filled;
    this.setFilled(o, Math.max(0, o.filled - size));
    if (o.state === 'filled') this.move(o, o.filled > 0 ? 'partially_filled' : 'live', nowMs);
    else if (o.state === 'partially_filled' && o.filled === 0) this.move(o, 'live', nowMs);
    else if (o.filled !== before) this.filledMoved(o, nowMs);
    else o.updatedMs = nowMs;
    return o;
  }

  /** Settles an ambiguous or pending order the venue does not have (reconciliation). */
  settleMissing(o: TrackedOrder, nowMs: number): void {
    if (TERMINAL.has(o.state)) return;
    const to = o.filled >= o.size ? 'filled' : o.orderId ? 'canceled' : 'rejected';
    this.move(o, to, nowMs);
    if (to === 'rejected') this.presumedGone.add(o);
  }

  /** Binds a venue order id to an order we know (reconciliation found it by its terms). */
  bind(o: TrackedOrder, orderId: string, nowMs: number): void {
    this.bindId(o, orderId, false, nowMs);
    // one taken for gone comes back: it landed after all
    if (o.state === 'ambiguous' || o.state === 'pending_new' || this.presumedGone.delete(o)) this.move(o, o.filled > 0 ? 'partially_filled' : 'live', nowMs);
  }

  /** Drops terminal orders older than `beforeMs` from memory (the store keeps them). */
  prune(beforeMs: number): void {
    const q = this.ended;
    if (this.endedUnsorted) {
      // once after start-up: the walk below stops at the first recent order, so it must be sorted
      q.splice(0, this.endedHead);
      this.endedHead = 0;
      q.sort((a, b) => a.updatedMs - b.updatedMs);
      this.endedUnsorted = false;
    }
    let i = this.endedHead;
    for (; i < q.length && q[i].updatedMs < beforeMs; i++) {
      const o = q[i];
      if (!TERMINAL.has(o.state)) continue; // revived by a FAILED trade
      this.byClient.delete(o.clientId);
      if (o.orderId) this.byOrderId.delete(o.orderId);
      this.presumedGone.delete(o);
    }
    this.endedHead = i;
    // compact rarely: amortised O(1) per order
    if (i > 4096 && i * 2 > q.length) {
      q.splice(0, i);
      this.endedHead = 0;
    }
  }

  /**
   * The one unbound order a fill of these terms can belong to (token, side, price, a size it can
   * hold) and made by `madeByMs` (a trade cannot fill an order made after it); undefined when none
   * or more than one could (a guess would invent a fill).
   */
  matchUnboundFill(tokenId: string, side: Side, price: number, fillSize: number, madeByMs = Infinity): TrackedOrder | undefined {
    return oneAt(this.unbound, tokenId, side, price, fillSize, madeByMs);
  }

  /** The same among the orders taken for gone (settleMissing without an id): one that landed late (bind brings it back). */
  matchPresumedGone(tokenId: string, side: Side, price: number, fillSize: number, madeByMs = Infinity): TrackedOrder | undefined {
    return this.presumedGone.size === 0 ? undefined : oneAt(this.presumedGone, tokenId, side, price, fillSize, madeByMs);
  }

  /** Whether an order of ours at these terms still waits for its venue id (a trade naming an id we do not know may be its). */
  hasUnboundAt(tokenId: string, side: Side | undefined, price: number): boolean {
    for (const o of this.unbound) if (o.tokenId === tokenId && (side === undefined || o.side === side) && o.price === price) return true;
    return false;
  }

  matchUnbound(tokenId: string, side: Side, price: number, size: number): TrackedOrder | undefined {
    for (const o of this.unbound) {
      if (o.tokenId === tokenId && o.side === side && o.price === price && o.size === size) return o;
    }
    return undefined;
  }

  /**
   * Gives an order its venue id. `sure` for the REST answer to our own request; otherwise a match
   * by terms, which a later REST answer naming the same id overrides (the guessed order goes back
   * to ambiguous). An id never belongs to two orders.
   */
  private bindId(o: TrackedOrder, orderId: string, sure: boolean, nowMs: number): void {
    if (o.orderId === orderId) {
      if (sure) this.guessed.delete(o);
      return;
    }
    const holder = this.byOrderId.get(orderId);
    if (holder && holder !== o) {
      if (!sure || !this.guessed.has(holder)) return; // keep the first sure binding
      this.guessed.delete(holder);
      holder.orderId = undefined;
      if (!TERMINAL.has(holder.state)) {
        this.unbound.add(holder);
        this.move(holder, 'ambiguous', nowMs);
      } else {
        this.emit(holder, holder.state);
      }
    }
    if (o.orderId) this.byOrderId.delete(o.orderId);
    o.orderId = orderId;
    this.byOrderId.set(orderId, o);
    this.unbound.delete(o);
    if (sure) this.guessed.delete(o);
    else this.guessed.add(o);
  }

  private move(o: TrackedOrder, to: OrderState, nowMs: number): void {
    const from = o.state;
    o.state = to;
    o.updatedMs = nowMs;
    if (TERMINAL.has(to)) {
      if (this.removeOpen(o)) this.ended.push(o);
      this.unbound.delete(o);
      this.guessed.delete(o);
    } else if (!this.openSet.has(o)) {
      this.addOpen(o); // a FAILED trade reopened a filled order
      if (!o.orderId) this.unbound.add(o);
    }
    this.emit(o, from);
  }

  /** Enters an order into the open set, its token's set and the notional sum. */
  private addOpen(o: TrackedOrder): void {
    if (this.openSet.has(o)) return;
    this.openSet.set(o, this.openSeqNext++);
    let s = this.openByToken.get(o.tokenId);
    if (!s) {
      s = new Set();
      this.openByToken.set(o.tokenId, s);
    }
    s.add(o);
    this.openNotionalSum += o.price * (o.size - o.filled);
    if (o.side === 'BUY') this.openBuyCostSum += o.price * sizeToCome(o);
  }

  private removeOpen(o: TrackedOrder): boolean {
    if (!this.openSet.delete(o)) return false;
    const s = this.openByToken.get(o.tokenId);
    if (s) {
      s.delete(o);
      if (s.size === 0) this.openByToken.delete(o.tokenId);
    }
    this.openNotionalSum -= o.price * (o.size - o.filled);
    if (o.side === 'BUY') this.openBuyCostSum -= o.price * sizeToCome(o);
    return true;
  }

  /** Every change of `filled` goes here: an open order's remaining notional moves with it. */
  private setFilled(o: TrackedOrder, filled: number): void {
    if (this.openSet.has(o)) {
      this.openNotionalSum += o.price * (o.filled - filled);
      if (o.side === 'BUY') this.openBuyCostSum += o.price * (o.filled - filled);
    }
    o.filled = filled;
  }

  /**
   * Every change of `unseen` goes here: an open BUY's matched size whose trade has not come still
   * promises its cost (the fill is not yet in Positions.spent), so the collateral gate counts it.
   */
  private setUnseen(o: TrackedOrder, unseen: number): void {
    if (o.side === 'BUY' && this.openSet.has(o)) this.openBuyCostSum += o.price * (unseen - (o.unseen ?? 0));
    o.unseen = unseen;
  }

  /** `filled` changed and the state did not: told all the same (the journal stores every change of filled). */
  private filledMoved(o: TrackedOrder, nowMs: number): void {
    o.updatedMs = nowMs;
    this.emit(o, o.state);
  }

  private emit(o: TrackedOrder, from: OrderState): void {
    for (const fn of this.listeners) fn(o, from);
  }
}

/**
 * The size of an order whose fills have not come yet: what is not filled, and what the venue's list
 * counted as matched before its trades came (unseen: in `filled`, not yet in the position). A fill
 * must fit in it; the risk gate counts it as open; an order that ended matched holds it as unreported.
 */
export function sizeToCome(o: TrackedOrder): number {
  return o.size - o.filled + (o.unseen ?? 0);
}

/** The one order of `orders` a fill of these terms can belong to (made by `madeByMs`, room for the size); undefined when none or more than one could. */
function oneAt(orders: Iterable<TrackedOrder>, tokenId: string, side: Side, price: number, fillSize: number, madeByMs: number): TrackedOrder | undefined {
  let found: TrackedOrder | undefined;
  for (const o of orders) {
    if (o.tokenId !== tokenId || o.side !== side || o.price !== price || fillSize > o.size - o.filled || o.createdMs > madeByMs) continue;
    if (found) return undefined;
    found = o;
  }
  return found;
}
