// Market-channel frame decoder, shared by the live feed and replay: one raw frame (a JSON array,
// an object or the text PONG) in, typed MarketEvents with integer prices/sizes out. Hand-written
// checks instead of a schema per frame; a bad frame or event is counted and skipped, never thrown.
// A skipped price_change is an update lost: the tokens it names (or its market's, when no token id
// can be read) are handed to the caller (RejectedTokens), whose books must not stay in sync.
import type { Logger } from '../core/log.js';
import type { BookEvent, MarketEvent, PriceChangeEntry, Side, WireLevel } from '../core/events.js';
import { DecodeStats, FieldError, optStr, reqStr, toMs, type Json } from './decode-stats.js';
import { decodeFrame } from './decode-frame.js';
import { price, recentAssets, recentMarkets, size, tsMs } from './wire-values.js';
import { PRICE_SCALE } from '../core/units.js';

const assetIdOf = (o: Json): string => recentAssets.get(o, 'asset_id');
const marketOf = (o: Json): string => recentMarkets.get(o, 'market');

export function createMarketDecodeStats(log?: Logger): DecodeStats {
  return new DecodeStats('market', log);
}

function side(s: unknown): Side {
  if (s === 'BUY' || s === 'SELL') return s;
  throw new FieldError('side');
}

function levels(v: unknown, field: 'bids' | 'asks', priceField: string, sizeField: string): WireLevel[] {
  if (!Array.isArray(v)) throw new FieldError(field);
  const out: WireLevel[] = new Array<WireLevel>(v.length);
  for (let i = 0; i < v.length; i++) {
    const l = v[i] as Json;
    if (typeof l !== 'object' || l === null) throw new FieldError(field);
    const ps = l.price;
    const ss = l.size;
    out[i] = { price: price(ps, priceField), size: size(ss, sizeField), priceStr: ps as string, sizeStr: ss as string };
  }
  return out;
}

/** best_bid / best_ask: absent -> undefined; "" is treated as absent too. */
function optPrice(o: Json, k: string): number | undefined {
  const v = o[k];
  if (v === undefined || v === null || v === '') return undefined;
  return price(v, k);
}

function decodeBook(o: Json): BookEvent {
  const ts = reqStr(o, 'timestamp');
  // old docs named the arrays buys/sells; real frames use bids/asks
  const ev: BookEvent = {
    type: 'book',
    market: marketOf(o),
    assetId: assetIdOf(o),
    timestampMs: tsMs(ts),
    timestampStr: ts,
    hash: optStr(o, 'hash') ?? '',
    bids: levels(o.bids ?? o.buys, 'bids', 'bids.price', 'bids.size'),
    asks: levels(o.asks ?? o.sells, 'asks', 'asks.price', 'asks.size'),
  };
  const tick = optStr(o, 'tick_size');
  if (tick !== undefined) {
    ev.tickSize = price(tick, 'tick_size');
    ev.tickSizeStr = tick;
  }
  const mos = optStr(o, 'min_order_size');
  if (mos !== undefined) ev.minOrderSizeStr = mos;
  if (typeof o.neg_risk === 'boolean') ev.negRisk = o.neg_risk;
  const ltp = optStr(o, 'last_trade_price');
  if (ltp !== undefined) ev.lastTradePriceStr = ltp;
  return ev;
}

/** An entry's or a legacy message's hash; "" is no hash (as on a snapshot). */
function optHash(o: Json): string | undefined {
  const v = o.hash;
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function entry(c: Json, assetId: string, hash: string | undefined): PriceChangeEntry {
  const ps = c.price;
  const ss = c.size;
  const e: PriceChangeEntry = {
    assetId,
    side: side(c.side),
    price: price(ps, 'price'),
    size: size(ss, 'size'),
    priceStr: ps as string,
    sizeStr: ss as string,
    hash,
    bestBid: optPrice(c, 'best_bid'),
    bestAsk: optPrice(c, 'best_ask'),
  };
  return e;
}

function decodePriceChange(o: Json): MarketEvent {
  const ts = reqStr(o, 'timestamp');
  const market = marketOf(o);
  const timestampMs = tsMs(ts);
  const pcs = o.price_changes;
  if (Array.isArray(pcs)) {
    const changes: PriceChangeEntry[] = new Array<PriceChangeEntry>(pcs.length);
    for (let i = 0; i < pcs.length; i++) {
      const c = pcs[i] as Json;
      if (typeof c !== 'object' || c === null) throw new FieldError('price_changes');
      changes[i] = entry(c, assetIdOf(c), optHash(c));
    }
    return { type: 'price_change', market, timestampMs, timestampStr: ts, changes, format: 'current' };
  }
  const assetId = assetIdOf(o);
  const hash = optHash(o);
  const legacy = o.changes;
  if (Array.isArray(legacy)) {
    // legacy: root asset_id and hash; the hash is the book after the whole message, so every entry
    // carries it (as the current format's entries of one batch do): the mirror checks the run of a
    // message before the next message's first change
    const changes: PriceChangeEntry[] = new Array<PriceChangeEntry>(legacy.length);
    for (let i = 0; i < legacy.length; i++) {
      const c = legacy[i] as Json;
      if (typeof c !== 'object' || c === null) throw new FieldError('changes');
      changes[i] = entry(c, assetId, hash);
    }
    return { type: 'price_change', market, timestampMs, timestampStr: ts, changes, format: 'changes' };
  }
  return { type: 'price_change', market, timestampMs, timestampStr: ts, changes: [entry(o, assetId, hash)], format: 'flat' };
}

/** The tokens of rejected price_change messages (their books missed an update), filled by decodeMarketFrame. */
export class RejectedTokens {
  /** Token ids read from rejected messages (entries' asset_id, or the root one of the older formats), each once. */
  readonly assetIds: string[] = [];
  /** Condition ids of rejected messages with an entry whose token id could not be read: every token of the market. */
  readonly markets: string[] = [];
  empty(): boolean {
    return this.assetIds.length === 0 && this.markets.length === 0;
  }
  clear(): void {
    this.assetIds.length = 0;
    this.markets.length = 0;
  }
  /** Adds another set's tokens and markets (a frame decoded elsewhere: a backtest's reader). */
  add(o: { readonly assetIds: readonly string[]; readonly markets: readonly string[] }): void {
    for (let i = 0; i < o.assetIds.length; i++) this.addAsset(o.assetIds[i]);
    for (let i = 0; i < o.markets.length; i++) if (!this.markets.includes(o.markets[i])) this.markets.push(o.markets[i]);
  }
  /** Notes what can be read of a rejected price_change object. */
  note(o: Json): void {
    let unknown = false;
    const pcs = o.price_changes;
    if (Array.isArray(pcs)) {
      for (let i = 0; i < pcs.length; i++) {
        const c = pcs[i] as unknown;
        const id = typeof c === 'object' && c !== null ? (c as Json).asset_id : undefined;
        if (!this.addAsset(id)) unknown = true;
      }
    } else if (!this.addAsset(o.asset_id)) unknown = true;
    const m = o.market;
    if (unknown && typeof m === 'string' && m !== '' && !this.markets.includes(m)) this.markets.push(m);
  }
  private addAsset(id: unknown): boolean {
    if (typeof id !== 'string' || id === '') return false;
    if (!this.assetIds.includes(id)) this.assetIds.push(id);
    return true;
  }
}

/** Where decodeEvent notes a rejected price_change (set for one decodeMarketFrame call). */
let rejectedSink: RejectedTokens | undefined;

function decodeEvent(o: Json): MarketEvent | string {
  switch (o.event_type) {
    case 'price_change':
      if (rejectedSink === undefined) return decodePriceChange(o);
      try {
        return decodePriceChange(o);
      } catch (e) {
        rejectedSink.note(o);
        throw e;
      }
    case 'book':
      return decodeBook(o);
    case 'last_trade_price': {
      const fee = optStr(o, 'fee_rate_bps');
      const feeN = fee === undefined || fee === '' ? 0 : Number(fee);
      if (!Number.isFinite(feeN)) throw new FieldError('fee_rate_bps');
      const ev: MarketEvent = {
        type: 'last_trade_price',
        market: marketOf(o),
        assetId: assetIdOf(o),
        price: tradePrice(o.price),
        size: size(o.size, 'size'),
        side: side(o.side),
        feeRateBps: feeN,
        timestampMs: toMs(o.timestamp, 'timestamp'),
      };
      const tx = optStr(o, 'transaction_hash');
      if (tx !== undefined) ev.transactionHash = tx;
      ev.priceStr = o.price as string;
      return ev;
    }
    case 'tick_size_change': {
      const nts = reqStr(o, 'new_tick_size');
      return {
        type: 'tick_size_change',
        market: marketOf(o),
        assetId: assetIdOf(o),
        oldTickSize: price(o.old_tick_size, 'old_tick_size'),
        newTickSize: price(nts, 'new_tick_size'),
        newTickSizeStr: nts,
        timestampMs: toMs(o.timestamp, 'timestamp'),
      };
    }
    case 'best_bid_ask':
      return {
        type: 'best_bid_ask',
        market: marketOf(o),
        assetId: assetIdOf(o),
        bestBid: price(o.best_bid, 'best_bid'),
        bestAsk: price(o.best_ask, 'best_ask'),
        spread: price(o.spread, 'spread'),
        timestampMs: toMs(o.timestamp, 'timestamp'),
      };
    case 'new_market':
    case 'market_resolved': {
      const ev: MarketEvent = {
        type: o.event_type,
        market: marketOf(o),
        question: optStr(o, 'question') ?? '',
        slug: optStr(o, 'slug') ?? '',
        assetIds: strArray(o.assets_ids ?? o.clob_token_ids, 'assets_ids'),
        outcomes: strArray(o.outcomes, 'outcomes'),
        timestampMs: toMs(o.timestamp, 'timestamp'),
      };
      const w = optStr(o, 'winning_asset_id');
      if (w !== undefined) ev.winningAssetId = w;
      const wo = optStr(o, 'winning_outcome');
      if (wo !== undefined) ev.winningOutcome = wo;
      return ev;
    }
    default:
      return `unknown_event:${typeof o.event_type === 'string' ? o.event_type.slice(0, 40) : typeof o.event_type}`;
  }
}

function strArray(v: unknown, field: string): string[] {
  if (v === undefined || v === null) return [];
  // some producers send JSON-encoded string arrays (the Gamma gotcha)
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      throw new FieldError(field);
    }
  }
  if (!Array.isArray(v)) throw new FieldError(field);
  for (const x of v) if (typeof x !== 'string') throw new FieldError(field);
  return v as string[];
}

/**
 * Decodes one raw frame, appending events to `out`. Returns the number appended (0 for PONG or a
 * rejected frame). A bad event inside an array is skipped alone; its siblings still decode. The
 * tokens of a rejected price_change are added to `rejected` when given.
 */
export function decodeMarketFrame(frame: string, out: MarketEvent[], stats: DecodeStats, rejected?: RejectedTokens): number {
  if (rejected === undefined) return decodeFrame(frame, out, stats, decodeEvent);
  rejectedSink = rejected;
  try {
    return decodeFrame(frame, out, stats, decodeEvent);
  } finally {
    rejectedSink = undefined;
  }
}

/** A trade's price: strictly between 0 and 1, as no trade is at either (the simulated venue would fill a whole side). */
function tradePrice(v: unknown): number {
  const p = price(v, 'price');
  if (p <= 0 || p >= PRICE_SCALE) throw new FieldError('price');
  return p;
}
