// The matching engine: one canonical book per binary market in the first token's terms (a BUY of
// the second token at q rests as a SELL of the first at 1-q), price-time priority, integer units.
// Each side is a dense array of levels indexed by price with an intrusive FIFO list per level
// and a best-price pointer, so place, fill and cancel never sort.
import { PRICE_SCALE } from '../core/units.js';
import type { Side } from '../core/events.js';
import type { LevelChange, MarketSpec, MatchFill, MatchingEngineApi, MatchOrder, PlaceOutcome, RejectCode, RestingOrder } from './matching-api.js';
import { ASK, BID, type BookSide, LEVELS, Ladder, OrderNode, view } from './matching-ladder.js';
import { IdMemory, validateOrder } from './matching-validate.js';

export interface MatchingEngineOptions {
  /** Trade ids are `${tradeIdPrefix}${counter}`: deterministic across runs. */
  tradeIdPrefix?: string;
  /** How many past order ids the duplicate check remembers (default 1,000,000). */
  idMemory?: number;
}

export class MatchingEngine implements MatchingEngineApi {
  readonly spec: MarketSpec;
  private readonly ladders: [Ladder, Ladder] = [new Ladder(true), new Ladder(false)];
  private readonly live = new Map<string, OrderNode>();
  private readonly byOwner = new Map<string, Set<OrderNode>>();
  private readonly gtd = new Set<OrderNode>();
  private readonly dirtyFlag = new Uint8Array(2 * LEVELS);
  private readonly lastSent = new Float64Array(2 * LEVELS);
  private dirty: number[] = [];
  private tradeSeq = 0;
  private readonly prefix: string;
  private readonly seen: IdMemory;

  constructor(spec: MarketSpec, opts: MatchingEngineOptions = {}) {
    this.spec = { ...spec, tokens: [spec.tokens[0], spec.tokens[1]] };
    this.prefix = opts.tradeIdPrefix ?? `${spec.conditionId.slice(0, 10)}-t`;
    this.seen = new IdMemory(opts.idMemory ?? 1_000_000);
  }

  /** A tick_size_change: later orders are checked against the new grid; resting ones stay. */
  setTick(tick: number): void {
    this.spec.tick = tick;
  }

  place(o: MatchOrder, nowMs: number): PlaceOutcome {
    const tokenIx = o.tokenId === this.spec.tokens[0] ? 0 : o.tokenId === this.spec.tokens[1] ? 1 : -1;
    if (tokenIx < 0) return reject('INVALID_ORDER_ERROR');
    if (this.seen.has(o.orderId)) return reject('INVALID_ORDER_DUPLICATED');
    const code = validateOrder(o, this.spec.tick, this.spec.minSize, nowMs);
    if (code) return reject(code);

    const bookSide: BookSide = (o.side === 'BUY') === (tokenIx === 0) ? BID : ASK;
    const limit = tokenIx === 0 ? o.price : PRICE_SCALE - o.price;
    const opp = this.ladders[1 - bookSide];
    const crosses = bookSide === BID ? opp.best <= limit : opp.best >= limit;
    if (o.postOnly && crosses) return reject('INVALID_POST_ONLY_ORDER');
    if (o.orderType === 'FOK' && (!crosses || this.available(opp, limit, o.size) < o.size)) {
      return reject('FOK_ORDER_NOT_FILLED_ERROR');
    }
    this.seen.add(o.orderId); // only accepted orders claim their id

    const fills: MatchFill[] = [];
    const rem = crosses ? this.take(o, tokenIx, bookSide, limit, nowMs, fills) : o.size;
    if (rem === 0) return { ok: true, status: 'matched', fills, resting: 0 };
    if (o.orderType === 'FAK' || o.orderType === 'FOK') {
      // FAK: the remainder is killed; 'matched' when anything filled, else 'unmatched'.
      return { ok: true, status: fills.length ? 'matched' : 'unmatched', fills, resting: 0 };
    }
    const node = new OrderNode(o, rem, nowMs, bookSide, limit);
    this.ladders[bookSide].append(node);
    this.markDirty(bookSide, limit);
    this.live.set(o.orderId, node);
    let set = this.byOwner.get(o.owner);
    if (!set) this.byOwner.set(o.owner, (set = new Set()));
    set.add(node);
    if (o.orderType === 'GTD') this.gtd.add(node);
    return { ok: true, status: 'live', fills, resting: rem };
  }

  cancel(orderId: string): RestingOrder | undefined {
    const n = this.live.get(orderId);
    if (!n) return undefined;
    this.remove(n);
    return view(n);
  }

  cancelOwner(owner: string): RestingOrder[] {
    const set = this.byOwner.get(owner);
    if (!set) return [];
    const out = [...set];
    for (const n of out) this.remove(n);
    return out.map(view);
  }

  cancelAll(): RestingOrder[] {
    const out = [...this.live.values()];
    for (const n of out) this.remove(n);
    return out.map(view);
  }

  expire(nowMs: number): RestingOrder[] {
    const out: OrderNode[] = [];
    for (const n of this.gtd) if ((n.expiresAtMs ?? Infinity) <= nowMs) out.push(n);
    for (const n of out) this.remove(n);
    return out.map(view);
  }

  order(orderId: string): RestingOrder | undefined {
    const n = this.live.get(orderId);
    return n ? view(n) : undefined;
  }

  ordersOf(owner: string): RestingOrder[] {
    const set = this.byOwner.get(owner);
    return set ? [...set].map(view) : [];
  }

  levels(tokenId: string, side: Side): Array<{ price: number; size: number }> {
    const tokenIx = tokenId === this.spec.tokens[0] ? 0 : tokenId === this.spec.tokens[1] ? 1 : -1;
    const out: Array<{ price: number; size: number }> = [];
    if (tokenIx < 0) return out;
    const bookSide: BookSide = (side === 'BUY') === (tokenIx === 0) ? BID : ASK;
    const lad = this.ladders[bookSide];
    // Wire order is best last in the token's own terms; the mirror reverses canonical order.
    const ascendingCanonical = (side === 'BUY') === (tokenIx === 0);
    const lo = bookSide === BID ? 1 : lad.best;
    const hi = bookSide === BID ? lad.best : PRICE_SCALE - 1;
    const conv = (p: number): number => (tokenIx === 0 ? p : PRICE_SCALE - p);
    if (ascendingCanonical) {
      for (let p = lo; p <= hi; p++) if (lad.total[p] > 0) out.push({ price: conv(p), size: lad.total[p] });
    } else {
      for (let p = hi; p >= lo; p--) if (lad.total[p] > 0) out.push({ price: conv(p), size: lad.total[p] });
    }
    return out;
  }

  /** Best bid of a token's view; 0 when that side is empty. */
  bestBid(tokenId: string): number {
    if (tokenId === this.spec.tokens[1]) return PRICE_SCALE - this.ladders[ASK].best;
    return this.ladders[BID].best;
  }

  /** Best ask of a token's view; 10000 when that side is empty. */
  bestAsk(tokenId: string): number {
    if (tokenId === this.spec.tokens[1]) return PRICE_SCALE - this.ladders[BID].best;
    return this.ladders[ASK].best;
  }

  drainChanges(): LevelChange[] {
    const out: LevelChange[] = [];
    const [a, b] = this.spec.tokens;
    for (const key of this.dirty) {
      this.dirtyFlag[key] = 0;
      const bookSide = key >= LEVELS ? ASK : BID;
      const p = key - bookSide * LEVELS;
      const size = this.ladders[bookSide].total[p];
      if (size === this.lastSent[key]) continue; // e.g. placed then cancelled between drains
      this.lastSent[key] = size;
      const sideA: Side = bookSide === BID ? 'BUY' : 'SELL';
      out.push({ tokenId: a, side: sideA, price: p, size });
      out.push({ tokenId: b, side: sideA === 'BUY' ? 'SELL' : 'BUY', price: PRICE_SCALE - p, size });
    }
    this.dirty = [];
    return out;
  }

  /** Resting orders in the book (both tokens). */
  get size(): number {
    return this.live.size;
  }

  private available(opp: Ladder, limit: number, need: number): number {
    let sum = 0;
    if (opp.isBid) for (let p = opp.best; p >= limit && sum < need; p--) sum += opp.total[p];
    else for (let p = opp.best; p <= limit && sum < need; p++) sum += opp.total[p];
    return sum;
  }

  /** Fills against the opposite ladder up to `limit`; returns the size left. */
  private take(o: MatchOrder, tokenIx: number, bookSide: BookSide, limit: number, nowMs: number, fills: MatchFill[]): number {
    const opp = this.ladders[1 - bookSide];
    const oppSide = (1 - bookSide) as BookSide;
    let rem = o.size;
    while (rem > 0 && (bookSide === BID ? opp.best <= limit : opp.best >= limit)) {
      const p = opp.best;
      let n = opp.head[p];
      while (n && rem > 0) {
        const q = rem < n.remaining ? rem : n.remaining;
        fills.push({
          tradeId: this.prefix + String(++this.tradeSeq),
          makerOrderId: n.orderId,
          makerOwner: n.owner,
          makerTokenId: n.tokenId,
          makerSide: n.side,
          makerPrice: n.price,
          takerOrderId: o.orderId,
          takerOwner: o.owner,
          takerTokenId: o.tokenId,
          takerSide: o.side,
          takerPrice: tokenIx === 0 ? p : PRICE_SCALE - p,
          size: q,
          timeMs: nowMs,
        });
        rem -= q;
        if (q === n.remaining) {
          const next = n.next;
          this.remove(n); // also repairs the best pointer once the level empties
          n.remaining = 0;
          n = next;
        } else {
          n.remaining -= q;
          opp.total[p] -= q;
        }
      }
      this.markDirty(oppSide, p);
    }
    return rem;
  }

  private remove(n: OrderNode): void {
    this.ladders[n.bookSide].unlink(n);
    this.markDirty(n.bookSide, n.bookPrice);
    this.live.delete(n.orderId);
    const set = this.byOwner.get(n.owner);
    if (set) {
      set.delete(n);
      if (set.size === 0) this.byOwner.delete(n.owner);
    }
    if (n.orderType === 'GTD') this.gtd.delete(n);
  }

  private markDirty(bookSide: BookSide, p: number): void {
    const key = bookSide * LEVELS + p;
    if (this.dirtyFlag[key]) return;
    this.dirtyFlag[key] = 1;
    this.dirty.push(key);
  }
}

function reject(error: RejectCode): PlaceOutcome {
  return { ok: false, error, fills: [], resting: 0 };
}
