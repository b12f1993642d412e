// Users' orders and trades as the emulator keeps them, and their REST and user-channel shapes (wire-formats.md 2.1, 2.2, 4.5):
// strings for prices and sizes, Unix seconds for created_at / match_time, a maker address
// derived from the owner's key.
import { hex64 } from './ids.js';
import { formatSize } from '../core/units.js';
import type { Side } from '../core/events.js';
import type { OrderType } from '../venue/types.js';
import type { EmuMarket } from './market.js';

export interface OrderBodyIn {
  tokenID?: unknown;
  price?: unknown;
  size?: unknown;
  side?: unknown;
  orderType?: unknown;
  postOnly?: unknown;
  expiration?: unknown;
}

export interface UserOrder {
  id: string;
  owner: string;
  market: EmuMarket;
  assetId: string;
  side: Side;
  price: number;
  originalSize: number;
  sizeMatched: number;
  /** LIVE, MATCHED, CANCELED, UNMATCHED (or a venue's CANCELED_<reason>). */
  status: string;
  orderType: OrderType;
  createdAtMs: number;
  expirationSec: number;
  trades: string[];
}

export interface MakerPart {
  order_id: string;
  owner: string;
  maker_address: string;
  matched_amount: string;
  price: string;
  fee_rate_bps: string;
  asset_id: string;
  outcome: string;
  side: Side;
}

export interface UserTrade {
  key: string;
  id: string;
  owner: string;
  traderSide: 'TAKER' | 'MAKER';
  takerOrderId: string;
  market: EmuMarket;
  assetId: string;
  side: Side;
  price: number;
  size: number;
  status: 'MATCHED' | 'CONFIRMED' | 'RETRYING' | 'FAILED';
  matchTimeMs: number;
  lastUpdateMs: number;
  makerOrders: MakerPart[];
}

export interface Account {
  cashMicros: number;
  /**
   * What the owner has approved the exchanges to take of that cash, micro-dollars (one figure for
   * both; Infinity: the usual unlimited approval). A finite one is used up by BUY fills, as an
   * ERC-20 allowance is by each transferFrom.
   */
  allowanceMicros: number;
  /**
   * Whether the owner has approved the exchanges to move its shares (the conditional tokens'
   * setApprovalForAll; default true). Without it every SELL is refused for balance / allowance.
   */
  sharesApproved: boolean;
  /** Shares held per token, size units, trades counted from MATCHED. */
  positions: Map<string, number>;
  /** Shares per token bought in trades not yet CONFIRMED: held, but not yet sellable (the venue's balance check lags the match). */
  unconfirmedBuys: Map<string, number>;
}

/** A user-channel frame for one owner about one market. */
export interface UserFrame {
  owner: string;
  conditionId: string;
  text: string;
}

export interface CancelAnswer {
  canceled: string[];
  not_canceled: Record<string, string>;
}

export function addressOf(owner: string): string {
  return '0x' + hex64('addr:' + owner).slice(0, 40);
}

export function orderWire(o: UserOrder, outcome: string, makerAddress = addressOf(o.owner)): Record<string, unknown> {
  return {
    id: o.id,
    status: o.status,
    owner: o.owner,
    maker_address: makerAddress,
    market: o.market.conditionId,
    asset_id: o.assetId,
    side: o.side,
    original_size: formatSize(o.originalSize),
    size_matched: formatSize(o.sizeMatched),
    price: o.market.frames.price(o.price),
    associate_trades: o.trades,
    outcome,
    created_at: Math.floor(o.createdAtMs / 1000),
    expiration: String(o.expirationSec),
    order_type: o.orderType,
  };
}

export function tradeWire(t: UserTrade, outcome: string, makerAddress = addressOf(t.owner)): Record<string, unknown> {
  return {
    id: t.id,
    taker_order_id: t.takerOrderId,
    market: t.market.conditionId,
    asset_id: t.assetId,
    side: t.side,
    size: formatSize(t.size),
    fee_rate_bps: '0',
    price: t.market.frames.price(t.price),
    status: t.status,
    match_time: String(Math.floor(t.matchTimeMs / 1000)),
    last_update: String(Math.floor(t.lastUpdateMs / 1000)),
    outcome,
    bucket_index: 0,
    owner: t.owner,
    maker_address: makerAddress,
    maker_orders: t.makerOrders,
    transaction_hash: '0x' + hex64('tx:' + t.id),
    trader_side: t.traderSide,
  };
}
