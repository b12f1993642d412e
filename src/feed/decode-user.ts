// User-channel frame decoder (live and replay): `order` events (PLACEMENT / UPDATE / CANCELLATION,
// statuses kept as sent incl. CANCELED_<reason>) and `trade` events (every status, maker_orders)
// into typed events with integer prices/sizes. Time fields arrive in seconds or ms: normalised to ms.
import type { Logger } from '../core/log.js';
import { MAX_SIZE_UNITS, parsePrice, parsePriceRounded, parseSize, sizeFromNumber, sizeMicrosIfFiner } from '../core/units.js';
import { tradeStatusOf, type MakerOrderFill, type OrderEventKind, type Side, type UserEvent, type UserOrderEvent, type UserTradeEvent } from '../core/events.js';
import { DecodeStats, FieldError, optStr, reqStr, toMs, type Json } from './decode-stats.js';
import { decodeFrame } from './decode-frame.js';

export function createUserDecodeStats(log?: Logger): DecodeStats {
  return new DecodeStats('user', log);
}

function price(v: unknown, field: string): number {
  const p = typeof v === 'string' ? parsePrice(v) : -1;
  if (p < 0) throw new FieldError(field);
  return p;
}

/** Decimals the venue's amounts have at most (on-chain units of 1e-6): more is not a venue size. */
const VENUE_SIZE_DECIMALS = 6;

/** A size the venue could mean: finite, at most MAX_SIZE_UNITS (a JSON 1e400 is Infinity), at most 6 decimals. */
function priceRounded(v: string): number {
  const p = parsePriceRounded(v);
  if (p < 0) throw new FieldError('maker_orders.price');
  return p;
}

/** Finer than our 0.01 share grid (the venue's fills carry up to 6 decimals, a real capture: "8.771927"): rounded half up, counted in stats.sizesRounded. */
function size(v: unknown, field: string, stats: DecodeStats): number {
  let s = -1;
  if (typeof v === 'string') {
    const dot = v.indexOf('.');
    const decimals = dot < 0 ? 0 : v.length - dot - 1;
    if (decimals > VENUE_SIZE_DECIMALS) throw new FieldError(field);
    s = parseSize(v);
    if (decimals > 2 && s >= 0 && !/^0*$/.test(v.slice(dot + 3))) stats.sizesRounded++;
  } else if (typeof v === 'number') s = sizeFromNumber(v);
  if (!(s >= 0 && s <= MAX_SIZE_UNITS)) throw new FieldError(field);
  return s;
}

function side(v: unknown, field = 'side'): Side {
  if (v === 'BUY' || v === 'SELL') return v;
  throw new FieldError(field);
}

function bps(v: unknown): number {
  if (v === undefined || v === null || v === '') return 0;
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isFinite(n) || n < 0) throw new FieldError('fee_rate_bps');
  return n;
}

const KINDS: ReadonlySet<string> = new Set(['PLACEMENT', 'UPDATE', 'CANCELLATION']);

function decodeOrder(o: Json, stats: DecodeStats): UserOrderEvent {
  const kind = reqStr(o, 'type');
  if (!KINDS.has(kind)) throw new FieldError('type');
  const status = reqStr(o, 'status');
  const trades = o.associate_trades;
  if (trades !== null && trades !== undefined && !(Array.isArray(trades) && trades.every((t) => typeof t === 'string'))) {
    throw new FieldError('associate_trades');
  }
  return {
    type: 'order',
    kind: kind as OrderEventKind,
    orderId: reqStr(o, 'id'),
    market: reqStr(o, 'market'),
    assetId: reqStr(o, 'asset_id'),
    side: side(o.side),
    price: price(o.price, 'price'),
    originalSize: size(o.original_size, 'original_size', stats),
    sizeMatched: o.size_matched === undefined || o.size_matched === '' ? 0 : size(o.size_matched, 'size_matched', stats),
    status,
    orderType: optStr(o, 'order_type') ?? '',
    outcome: optStr(o, 'outcome') ?? '',
    associateTrades: (trades as string[] | null | undefined) ?? [],
    createdAtMs: o.created_at === undefined || o.created_at === '' ? 0 : toMs(o.created_at, 'created_at'),
    timestampMs: toMs(o.timestamp ?? o.created_at, 'timestamp'),
  };
}

function makerOrder(m: unknown, stats: DecodeStats): MakerOrderFill {
  if (typeof m !== 'object' || m === null) throw new FieldError('maker_orders');
  const o = m as Json;
  const fill: MakerOrderFill = {
    orderId: reqStr(o, 'order_id'),
    assetId: reqStr(o, 'asset_id'),
    // a complement maker's price arrives as the venue's float 1 - p (a real capture): rounded
    price: typeof o.price === 'string' ? priceRounded(o.price) : price(o.price, 'maker_orders.price'),
    matchedAmount: size(o.matched_amount, 'maker_orders.matched_amount', stats),
    feeRateBps: bps(o.fee_rate_bps),
    outcome: optStr(o, 'outcome') ?? '',
    owner: optStr(o, 'owner') ?? '',
  };
  if (o.side !== undefined) fill.side = side(o.side, 'maker_orders.side');
  const exact = typeof o.matched_amount === 'string' ? sizeMicrosIfFiner(o.matched_amount) : undefined;
  if (exact !== undefined) fill.matchedMicros = exact;
  return fill;
}

function decodeTrade(o: Json, stats: DecodeStats): UserTradeEvent {
  const status = tradeStatusOf(reqStr(o, 'status'));
  if (status === undefined) throw new FieldError('status');
  // read where given; nothing depends on it (the venue's docs example has none): absent, not a reject
  const ts = o.trader_side === 'TAKER' || o.trader_side === 'MAKER' ? o.trader_side : undefined;
  const makers = o.maker_orders;
  if (makers !== undefined && makers !== null && !Array.isArray(makers)) throw new FieldError('maker_orders');
  // docs spell `matchtime`; real messages `match_time`
  const matchRaw = o.match_time ?? o.matchtime;
  const ev: UserTradeEvent = {
    type: 'trade',
    tradeId: reqStr(o, 'id'),
    takerOrderId: reqStr(o, 'taker_order_id'),
    market: reqStr(o, 'market'),
    assetId: reqStr(o, 'asset_id'),
    side: side(o.side),
    price: price(o.price, 'price'),
    size: size(o.size, 'size', stats),
    feeRateBps: bps(o.fee_rate_bps),
    status,
    outcome: optStr(o, 'outcome') ?? '',
    owner: optStr(o, 'owner') ?? '',
    makerOrders: Array.isArray(makers) ? makers.map((m) => makerOrder(m, stats)) : [],
    matchTimeMs: matchRaw === undefined ? 0 : toMs(matchRaw, 'match_time'),
    // REST trade objects (same shape, no event_type) carry only last_update
    timestampMs: toMs(o.timestamp ?? o.last_update ?? matchRaw, 'timestamp'),
  };
  if (ts !== undefined) ev.traderSide = ts;
  const tx = optStr(o, 'transaction_hash');
  if (tx) ev.transactionHash = tx;
  const exact = typeof o.size === 'string' ? sizeMicrosIfFiner(o.size) : undefined;
  if (exact !== undefined) ev.sizeMicros = exact;
  return ev;
}

function decodeEvent(o: Json, stats: DecodeStats): UserEvent | string {
  const et = o.event_type ?? (typeof o.taker_order_id === 'string' ? 'trade' : undefined);
  if (et === 'order') return decodeOrder(o, stats);
  if (et === 'trade') return decodeTrade(o, stats);
  return `unknown_event:${typeof et === 'string' ? et.slice(0, 40) : typeof et}`;
}

/** Decodes one raw user-channel frame into `out`; returns events appended. Never throws. */
export function decodeUserFrame(frame: string, out: UserEvent[], stats: DecodeStats): number {
  return decodeFrame(frame, out, stats, decodeEvent);
}
