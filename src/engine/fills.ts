// Trade lifecycle for our fills: a trade event names our order as taker or as one of its maker
// orders; each (trade, order) pair is one fill, applied once. Status moves MATCHED -> MINED ->
// CONFIRMED, or RETRYING -> FAILED; a FAILED trade reverses its fill (position and order).
import type { Side, TradeStatus, UserTradeEvent } from '../core/events.js';
import { sizeToCome, type OrderTracker, type TrackedOrder } from './orders.js';
import { fillProblem, type FillClaim } from './fill-checks.js';

export interface Fill {
  tradeId: string;
  orderId: string;
  tokenId: string;
  market: string;
  side: Side;
  price: number;
  size: number;
  /** The venue's size exactly, millionths of a share, when finer than 0.01 share (`size` is rounded: positions.ts overstated). */
  sizeMicros?: number;
  /** Micro-dollars. */
  fee: number;
  liquidity: 'MAKER' | 'TAKER';
  status: TradeStatus;
  timeMs: number;
}

export interface FillSink {
  /** A new fill (status MATCHED or later). */
  onFill(f: Fill): void;
  /** A known fill changed status; `reversed` when it just became FAILED. */
  onFillStatus(f: Fill, reversed: boolean): void;
  /** A trade naming our order failed the checks (fill-checks.ts): it was not taken as a fill. */
  onBadTrade?(orderId: string, problem: string, trade: unknown): void;
  /** A piece of our order under half a unit, no fill on the 0.01 grid: its exact shares, millionths (Positions.roundedAway). */
  onRoundedAway?(tokenId: string, side: Side, micros: number): void;
}

/** A fill's key: its trade and our order (one trade fills several orders; an order fills in several trades). */
export const fillKey = (tradeId: string, orderId: string): string => `${tradeId}|${orderId}`;

import { feeMicros, MICROS_PER_UNIT } from '../core/units.js';

/** Settled fills kept in memory for de-duplication; older ones are dropped (the store keeps them all). */
export const KEEP_SETTLED = 100_000;

/** A trade not yet on chain: the venue may not count shares it bought as ours to sell yet. */
const unmined = (s: TradeStatus): boolean => s === 'MATCHED' || s === 'RETRYING';

/** A trade whose status moves no more (CONFIRMED or FAILED): its fill may leave memory. */
export const settled = (s: TradeStatus): boolean => s === 'CONFIRMED' || s === 'FAILED';

/** Trades kept for an order whose venue id is not bound yet, at most (a flood of unknown ids cannot grow memory). */
const MAX_EARLY = 1000;
/** How long such a trade is kept for its order's place answer. */
const EARLY_KEEP_MS = 60_000;

export class FillLedger {
  private readonly fills = new Map<string, Fill>();
  /**
   * Trades whose maker part named a venue id we do not know while an order of ours at its terms
   * waited for its place's answer (the user channel can be ahead of REST), by that id: taken by
   * takeEarly when the answer binds the id. Not bound by terms here: a trade lists other accounts'
   * maker orders too, and a guess would invent a fill.
   */
  private readonly early = new Map<string, { atMs: number; trades: UserTradeEvent[] }>();
  private earlyTrades = 0;
  /** Trades not kept for their order's answer: the bound was full (metrics engine_early_trades_dropped). */
  earlyDropped = 0;
  /** Fills recorded since start (including preloaded ones), whatever was pruned from memory. */
  private total = 0;
  /** Trades refused by the checks. */
  refused = 0;
  /** Shares bought per token in fills not yet on chain (MATCHED, RETRYING), size units. */
  private readonly unminedBuys = new Map<string, number>();
  constructor(
    private readonly orders: OrderTracker,
    private readonly sink: FillSink,
    /** The highest fee rate a fill may carry (config risk.maxFeeRateBps). */
    private readonly maxFeeRateBps = 1000,
    /** What a fill of ours pays (Engine.fillFee: its market's fee rule when it has one); default the flat rate the trade names. */
    private readonly feeOf: FillFee = flatFee,
  ) {}

  has(tradeId: string, orderId: string): boolean {
    return this.fills.has(fillKey(tradeId, orderId));
  }

  /** Fills already known (from the store at startup): no double count later. */
  preload(f: Fill): void {
    const k = fillKey(f.tradeId, f.orderId);
    const prev = this.fills.get(k);
    if (prev === undefined) this.total++;
    else this.mined(prev, prev.status, 'CONFIRMED'); // its share of the unmined buys goes with it
    this.fills.set(k, f);
    this.mined(f, undefined, f.status);
  }

  /** Stored fills not held in memory (settled, older than the newest kept: restoreFromStore): counted only. */
  countStored(n: number): void {
    this.total += n;
    this.storedNotHeld += n;
  }
  /** Fills not held in memory (countStored at start, prune while running): a trade the ledger does not know may be one of them (the store says). */
  storedNotHeld = 0;

  count(): number {
    return this.total;
  }

  /** Fills held in memory for de-duplication. */
  held(): number {
    return this.fills.size;
  }

  /**
   * Shares of `tokenId` bought in fills not yet on chain, size units: held by our count, but the
   * venue's balance check may not count them yet (a SELL of them can come back "not enough balance").
   */
  unminedBought(tokenId: string): number {
    return this.unminedBuys.get(tokenId) ?? 0;
  }

  /** Fills of these tokens whose status may still move (not CONFIRMED or FAILED); a scan of the fills held. */
  unsettledIn(tokens: ReadonlySet<string>): number {
    let n = 0;
    for (const f of this.fills.values()) if (!settled(f.status) && tokens.has(f.tokenId)) n++;
    return n;
  }

  /** The fills held whose status may still move (MATCHED, RETRYING). */
  unsettledFills(): Fill[] {
    const out: Fill[] = [];
    for (const f of this.fills.values()) if (!settled(f.status)) out.push(f);
    return out;
  }

  /** Keeps unminedBuys as a fill appears (`from` undefined) or changes status. */
  private mined(f: Fill, from: TradeStatus | undefined, to: TradeStatus): void {
    if (f.side !== 'BUY') return;
    const was = from !== undefined && unmined(from) ? f.size : 0;
    const now = unmined(to) ? f.size : 0;
    if (now === was) return;
    const left = (this.unminedBuys.get(f.tokenId) ?? 0) + now - was;
    if (left > 0) this.unminedBuys.set(f.tokenId, left);
    else this.unminedBuys.delete(f.tokenId);
  }

  private keepEarly(orderId: string, e: UserTradeEvent, nowMs: number): void {
    this.pruneEarly(nowMs);
    let k = this.early.get(orderId);
    if (k?.trades.some((t) => t.tradeId === e.tradeId && t.status === e.status)) return;
    if (this.earlyTrades >= MAX_EARLY) {
      this.earlyDropped++;
      return;
    }
    if (!k) this.early.set(orderId, (k = { atMs: nowMs, trades: [] }));
    k.trades.push(e);
    this.earlyTrades++;
  }

  /** The trades kept for venue id `orderId` before it was bound (handled again by the caller), forgotten here. */
  takeEarly(orderId: string): UserTradeEvent[] | undefined {
    const k = this.early.get(orderId);
    if (!k) return undefined;
    this.early.delete(orderId);
    this.earlyTrades -= k.trades.length;
    return k.trades;
  }

  /** Forgets kept trades no answer claimed within EARLY_KEEP_MS (another account's orders); the oldest come first. */
  private pruneEarly(nowMs: number): void {
    for (const [id, k] of this.early) {
      if (nowMs - k.atMs < EARLY_KEEP_MS) break;
      this.early.delete(id);
      this.earlyTrades -= k.trades.length;
    }
  }

  /** Forgets the oldest settled (CONFIRMED or FAILED) fills beyond the memory bound. */
  prune(): void {
    let excess = this.fills.size - KEEP_SETTLED;
    if (excess <= 0) return;
    for (const [k, f] of this.fills) {
      if (excess <= 0) break;
      if (settled(f.status)) {
        this.fills.delete(k);
        this.storedNotHeld++;
        excess--;
      }
    }
  }

  /** Returns how many of our fills the event created or changed: the taker's part, then each maker's. */
  onTrade(e: UserTradeEvent, nowMs: number): number {
    let n = this.orderPart(e, e.takerOrderId, { tokenId: e.assetId, side: e.side, price: e.price, size: e.size, micros: e.sizeMicros, feeRateBps: e.feeRateBps, liquidity: 'TAKER' }, nowMs);
    for (const m of e.makerOrders) {
      n += this.orderPart(e, m.orderId, { tokenId: m.assetId, side: m.side, price: m.price, size: m.matchedAmount, micros: m.matchedMicros, feeRateBps: m.feeRateBps, liquidity: 'MAKER' }, nowMs);
    }
    return n;
  }

  /**
   * One order's part of a trade. A fill already known moves on by its status even when its order
   * is finished and forgotten (the tracker keeps those 10 minutes; the venue may take longer to
   * give up on a trade); a new one counts only for an order of ours, and only past the checks.
   */
  private orderPart(e: UserTradeEvent, orderId: string, c: FillClaim, nowMs: number): number {
    const k = fillKey(e.tradeId, orderId);
    const known = this.fills.get(k);
    if (known) return this.moveStatus(known, orderId, e.status, nowMs);
    const o = this.orders.byVenueId(orderId);
    if (!o) {
      if (c.liquidity === 'MAKER' && this.orders.hasUnboundAt(c.tokenId, c.side, c.price)) this.keepEarly(orderId, e, nowMs);
      return 0;
    }
    if (e.status !== 'FAILED') c.size = withinRounding(o, c.size, c.micros);
    if (c.size === 0) {
      this.underHalfUnit(k, o, c.micros, e.status);
      return 0;
    }
    // a trade first seen as FAILED moves nothing: recorded without the size check
    const problem = fillProblem(o, c, this.maxFeeRateBps, e.status !== 'FAILED');
    if (problem !== undefined) {
      this.refused++;
      this.sink.onBadTrade?.(orderId, problem, e);
      return 0;
    }
    const f: Fill = {
      tradeId: e.tradeId,
      orderId,
      tokenId: c.tokenId,
      market: e.market,
      side: o.side,
      price: c.price,
      size: c.size,
      fee: this.feeOf(c.tokenId, c.price, c.size, c.feeRateBps, c.liquidity),
      liquidity: c.liquidity,
      status: e.status,
      timeMs: e.matchTimeMs || e.timestampMs || nowMs,
    };
    if (c.micros !== undefined) f.sizeMicros = c.micros;
    this.fills.set(k, f);
    this.total++;
    this.mined(f, undefined, f.status);
    // A trade first seen as FAILED never moved anything: record it, apply nothing.
    if (f.status !== 'FAILED') {
      this.orders.applyFill(orderId, f.size, nowMs);
      roundedUp(o, f.size, c.micros);
    }
    this.sink.onFill(f);
    return 1;
  }

  /**
   * A piece of a trade of ours under half a unit (0.005 share: a 6-decimal remainder such as
   * "0.003", rounded to 0 on our 0.01 grid) is no fill on our grid, and no bad trade either: a
   * refusal asks for a look-up, which refuses it again, and two refusals suspend the market's
   * quoting. Its exact shares did move the wallet: from the user channel they go to the position's
   * rounding count (FillSink.onRoundedAway), once per trade and order (the newest ROUNDED_AWAY_KEPT
   * remembered; a FAILED one is not taken back: under half a unit).
   */
  private underHalfUnit(k: string, o: TrackedOrder, micros: number | undefined, status: TradeStatus): void {
    if (micros === undefined || micros <= 0 || status === 'FAILED' || this.roundedAway.has(k)) return;
    this.roundedAway.add(k);
    if (this.roundedAway.size > ROUNDED_AWAY_KEPT) this.roundedAway.delete(this.roundedAway.values().next().value as string);
    this.sink.onRoundedAway?.(o.tokenId, o.side, micros);
  }
  private readonly roundedAway = new Set<string>();

  /** A fill found by reconciliation (GET /trades) that the user channel never delivered. */
  record(f: Fill, nowMs: number, feeRateBps = 0): boolean {
    const k = fillKey(f.tradeId, f.orderId);
    if (this.fills.has(k)) return false;
    const o = this.orders.byVenueId(f.orderId);
    if (o && f.status !== 'FAILED') {
      const size = withinRounding(o, f.size, f.sizeMicros);
      if (size !== f.size) f = { ...f, size, fee: this.feeOf(f.tokenId, f.price, size, feeRateBps, f.liquidity) };
    }
    // a piece under half a unit is no fill, and no bad trade (underHalfUnit); not counted in the
    // rounding tally from here: a look-up re-reads trades of before a restart, whose other pieces
    // the store holds on the 0.01 grid only (their rounding is not in the tally)
    if (o && f.size === 0) return false;
    const problem = o && fillProblem(o, { tokenId: f.tokenId, side: undefined, price: f.price, size: f.size, feeRateBps, liquidity: f.liquidity }, this.maxFeeRateBps, false);
    if (problem) {
      this.refused++;
      this.sink.onBadTrade?.(f.orderId, problem, f);
      return false;
    }
    this.fills.set(k, f);
    this.total++;
    this.mined(f, undefined, f.status);
    if (f.status !== 'FAILED' && this.orders.applyFill(f.orderId, f.size, nowMs) && o) roundedUp(o, f.size, f.sizeMicros);
    this.sink.onFill(f);
    return true;
  }

  /**
   * The venue's status of a fill we know (reconciliation): moves it on as the user channel would
   * (MATCHED to CONFIRMED; FAILED reverses it). Returns true when it changed.
   */
  venueStatus(tradeId: string, orderId: string, status: TradeStatus, nowMs: number): boolean {
    const known = this.fills.get(fillKey(tradeId, orderId));
    if (!known) return false;
    return this.moveStatus(known, orderId, status, nowMs) > 0;
  }

  private moveStatus(known: Fill, orderId: string, status: TradeStatus, nowMs: number): number {
    if (known.status === status || known.status === 'FAILED' || known.status === 'CONFIRMED') return 0;
    // MATCHED is where a trade starts: told after another status, it is an older reading (a
    // look-up's list read before the user channel's MINED), never a move
    if (status === 'MATCHED') return 0;
    const reversed = status === 'FAILED';
    this.mined(known, known.status, status);
    known.status = status;
    if (reversed) this.orders.reverseFill(orderId, known.size, nowMs);
    this.sink.onFillStatus(known, reversed);
    return 1;
  }
}

/**
 * A fill a few units (0.01 share each) past what its order has left is the rounding of the venue's
 * 6 decimals, piece by piece (each piece rounds half up: 3.336 + 3.336 + 3.328 shares come as 3.34 +
 * 3.34 + 3.33, five pieces of 2.005 as 2.01 each): it fills what is left, so the order and the
 * position end at the order's size (refused, the last piece was an implausible trade and the
 * position drifted from the venue's balance). Each piece rounds by half a unit at most, so the slack
 * is half a unit per piece taken so far with this one (ROUNDING_SLACK at least: ten pieces, for an
 * order restored with its fills); more is left to the checks.
 */
function withinRounding(o: TrackedOrder, size: number, micros: number | undefined): number {
  const left = sizeToCome(o);
  // an order filled already (its pieces rounded up to its size): a piece of one unit, or one whose
  // exact size its pieces already counted by rounding up (roundUpMicros), is that rounding (no fill
  // on our grid; its exact shares go to the position's rounding count: Positions.roundedAway)
  if (left === 0) return size === 1 || (micros !== undefined && micros <= (o.roundUpMicros ?? 0)) ? 0 : size;
  const slack = Math.max(ROUNDING_SLACK, Math.ceil(((o.pieces ?? 0) + 1) / 2));
  return size > left && size - left <= slack ? left : size;
}

/** Keeps TrackedOrder.roundUpMicros as a piece of `size` units (`micros` exact, when known) is applied to `o`. */
function roundedUp(o: TrackedOrder, size: number, micros: number | undefined): void {
  if (micros === undefined || !Number.isSafeInteger(micros)) return;
  o.roundUpMicros = (o.roundUpMicros ?? 0) + size * MICROS_PER_UNIT - micros;
}

/** Pieces rounded to nothing remembered, so one seen again (the user channel, then a look-up) counts once. */
const ROUNDED_AWAY_KEPT = 10_000;

/** Size units a fill may round past its order's remainder at the least (withinRounding): half a unit per piece, ten pieces. */
const ROUNDING_SLACK = 5;

/** What a fill of ours pays, micro-dollars, from what its trade says. */
export type FillFee = (tokenId: string, price: number, size: number, feeRateBps: number, liquidity: 'MAKER' | 'TAKER') => number;

/** The trade's fee_rate_bps on the fill's notional (a market without a fee rule). */
export const flatFee: FillFee = (_t, price, size, feeRateBps) => feeMicros(price, size, feeRateBps);
