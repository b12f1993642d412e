// Typed market and user events: the one vocabulary between the decoder (live and replay), the
// book mirror, the engine, the simulated venue and the emulator. Prices and sizes are integer
// units (src/core/units.ts); the wire strings of book levels are kept because the book hash is
// computed over them exactly as sent.

export type Side = 'BUY' | 'SELL';

/** Order types of the venue (wire-formats.md 4.4). */
export type OrderType = 'GTC' | 'GTD' | 'FOK' | 'FAK';

/** One aggregate level as sent: integer units plus the exact wire strings (needed for the hash). */
export interface WireLevel {
  price: number;
  size: number;
  priceStr: string;
  sizeStr: string;
}

export interface BookEvent {
  type: 'book';
  market: string;
  assetId: string;
  timestampMs: number;
  /** Exact wire string of the timestamp (hashed as sent). */
  timestampStr: string;
  hash: string;
  /** Ascending by price: the best bid is last. */
  bids: WireLevel[];
  /** Descending by price: the best ask is last. */
  asks: WireLevel[];
  /** Present on newer frames; undefined when the frame omits it. */
  tickSize?: number;
  tickSizeStr?: string;
  minOrderSizeStr?: string;
  negRisk?: boolean;
  lastTradePriceStr?: string;
}

/** One level change of one asset. Legacy formats are normalised into the same shape. */
export interface PriceChangeEntry {
  assetId: string;
  side: Side;
  price: number;
  size: number;
  priceStr: string;
  sizeStr: string;
  /** Hash of the asset's book after every change with the same timestamp; undefined when absent. */
  hash?: string;
  /** Best bid/ask after the update in price units; undefined when absent. 0 / 10000 mean an empty side. */
  bestBid?: number;
  bestAsk?: number;
}

export interface PriceChangeEvent {
  type: 'price_change';
  market: string;
  timestampMs: number;
  timestampStr: string;
  changes: PriceChangeEntry[];
  /** Which wire format it came in: 'current' (price_changes[]), 'changes' (legacy), 'flat' (oldest). */
  format: 'current' | 'changes' | 'flat';
}

export interface TickSizeChangeEvent {
  type: 'tick_size_change';
  market: string;
  assetId: string;
  oldTickSize: number;
  newTickSize: number;
  newTickSizeStr: string;
  timestampMs: number;
}

export interface LastTradePriceEvent {
  type: 'last_trade_price';
  market: string;
  assetId: string;
  price: number;
  size: number;
  /** Taker side. */
  side: Side;
  feeRateBps: number;
  timestampMs: number;
  transactionHash?: string;
  /** Exact wire string of the price (the book hash may carry it as last_trade_price). */
  priceStr?: string;
}

export interface BestBidAskEvent {
  type: 'best_bid_ask';
  market: string;
  assetId: string;
  bestBid: number;
  bestAsk: number;
  spread: number;
  timestampMs: number;
}

export interface MarketLifecycleEvent {
  type: 'new_market' | 'market_resolved';
  market: string;
  question: string;
  slug: string;
  assetIds: string[];
  outcomes: string[];
  winningAssetId?: string;
  winningOutcome?: string;
  timestampMs: number;
}

export type MarketEvent = BookEvent | PriceChangeEvent | TickSizeChangeEvent | LastTradePriceEvent | BestBidAskEvent | MarketLifecycleEvent;

export type OrderEventKind = 'PLACEMENT' | 'UPDATE' | 'CANCELLATION';

export interface UserOrderEvent {
  type: 'order';
  kind: OrderEventKind;
  orderId: string;
  market: string;
  assetId: string;
  side: Side;
  price: number;
  originalSize: number;
  sizeMatched: number;
  /** LIVE, MATCHED, CANCELED, INVALID or CANCELED_<reason>, as sent. */
  status: string;
  orderType: string;
  outcome: string;
  associateTrades: string[];
  createdAtMs: number;
  timestampMs: number;
}

export type TradeStatus = 'MATCHED' | 'MINED' | 'CONFIRMED' | 'RETRYING' | 'FAILED';

const TRADE_STATUSES: ReadonlySet<string> = new Set<TradeStatus>(['MATCHED', 'MINED', 'CONFIRMED', 'RETRYING', 'FAILED']);

/**
 * A venue trade status as this daemon keeps it, or undefined when unknown. Spellings outside
 * clients accept: a `TRADE_STATUS_` prefix (the venue's newer API names, stripped by several
 * clients) and MATCHED_NOT_BROADCASTED (matched, its transaction not yet sent: NautilusTrader's
 * Polymarket adapter lists it), kept as MATCHED since its shares are not settled either.
 */
export function tradeStatusOf(raw: string): TradeStatus | undefined {
  const up = raw.toUpperCase();
  const s = up.startsWith('TRADE_STATUS_') ? up.slice('TRADE_STATUS_'.length) : up;
  if (TRADE_STATUSES.has(s)) return s as TradeStatus;
  return s === 'MATCHED_NOT_BROADCASTED' ? 'MATCHED' : undefined;
}

export interface MakerOrderFill {
  orderId: string;
  assetId: string;
  price: number;
  matchedAmount: number;
  /** matched_amount exactly, millionths of a share, when finer than 0.01 share (units.ts sizeMicrosIfFiner). */
  matchedMicros?: number;
  feeRateBps: number;
  outcome: string;
  side?: Side;
  owner: string;
}

export interface UserTradeEvent {
  type: 'trade';
  tradeId: string;
  takerOrderId: string;
  market: string;
  assetId: string;
  side: Side;
  price: number;
  size: number;
  /** size exactly, millionths of a share, when finer than 0.01 share (units.ts sizeMicrosIfFiner). */
  sizeMicros?: number;
  feeRateBps: number;
  status: TradeStatus;
  /** As the message gives it; absent when it does not (nothing depends on it). */
  traderSide?: 'TAKER' | 'MAKER';
  outcome: string;
  owner: string;
  makerOrders: MakerOrderFill[];
  matchTimeMs: number;
  timestampMs: number;
  transactionHash?: string;
}

export type UserEvent = UserOrderEvent | UserTradeEvent;

/** Crypto price stream (spec 4.5). */
export interface CryptoPriceEvent {
  type: 'crypto_price';
  symbol: string;
  value: number;
  timestampMs: number;
}

export type FeedEvent = MarketEvent | UserEvent;
