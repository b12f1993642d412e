// The venue interface: what the engine's order scheduler talks to. The live venue implements it
// over the REST API and the user channel; the simulated venue (paper, backtest) over the
// matching engine. The engine never knows which one it has.
import type { Side, UserEvent } from '../core/events.js';
import type { RejectCode } from './rejections.js';

export type { RejectCode } from './rejections.js';

export type { OrderType } from '../core/events.js';
import type { OrderType } from '../core/events.js';

export interface OrderRequest {
  /** Our id, stored before the order is sent (an unanswered place is still found by it). */
  clientId: string;
  tokenId: string;
  side: Side;
  /** Price units (1e-4). */
  price: number;
  /** Size units (1e-2 shares). */
  size: number;
  orderType: OrderType;
  postOnly: boolean;
  /** GTD only: expiry, Unix seconds. */
  expirationSec?: number;
}

export type PlaceStatus = 'live' | 'matched' | 'delayed' | 'unmatched';

export interface PlaceResult {
  clientId: string;
  ok: boolean;
  /** The venue's order id when accepted. */
  orderId?: string;
  status?: PlaceStatus;
  /** Why the venue refused it (wire-formats.md 4.4), e.g. INVALID_POST_ONLY_ORDER. */
  error?: RejectCode;
  /** The venue's own words for a refusal, for the log. */
  message?: string;
}

export interface CancelResult {
  canceled: string[];
  notCanceled: Record<string, string>;
}

/** An order as the venue reports it (GET /orders, startup reconciliation). */
export interface VenueOrder {
  orderId: string;
  tokenId: string;
  market: string;
  side: Side;
  price: number;
  originalSize: number;
  sizeMatched: number;
  status: string;
  orderType: string;
  createdAtMs: number;
  /** The venue listed it with a price or size we cannot read: only its id is sure (price -1, sizes 0). */
  unreadable?: true;
  /** A look-up by id found it no longer open (matched, cancelled, expired...): sizeMatched is what it traded. */
  ended?: true;
}

export interface VenueTrade {
  tradeId: string;
  orderId: string;
  tokenId: string;
  market: string;
  side: Side;
  price: number;
  size: number;
  /** The size exactly, millionths of a share, when the venue's is finer than 0.01 share. */
  sizeMicros?: number;
  feeRateBps: number;
  status: string;
  liquidity: 'MAKER' | 'TAKER';
  timeMs: number;
}

export interface Venue {
  /**
   * True when the market feed's books include our own resting orders (a real venue, the emulator);
   * false for the simulated venue, whose external book never holds them. PnL marks exclude our
   * own orders where they are included.
   */
  readonly booksIncludeOwnOrders: boolean;
  /** Our maker fills pay no fee where the market's fee rule is unknown (ClobProfile.makersPayNoFee); false for the simulated venue, which charges its own. */
  readonly makersPayNoFee: boolean;
  /** At most 15 orders. Throws AmbiguousSubmitError when the outcome is unknown; never retried. */
  placeOrders(orders: OrderRequest[]): Promise<PlaceResult[]>;
  /** One order through the single-order endpoint (overflow when the batch windows are full). */
  placeOrder(order: OrderRequest): Promise<PlaceResult>;
  cancelOrders(orderIds: string[]): Promise<CancelResult>;
  cancelOrder(orderId: string): Promise<CancelResult>;
  cancelAll(): Promise<CancelResult>;
  cancelMarket(market: string): Promise<CancelResult>;
  openOrders(): Promise<VenueOrder[]>;
  /**
   * One order by id (GET /order, the polymarket profile's /data/order/{id}): the order as the venue
   * has it (`ended` once it is no longer open, with what it matched), null when the venue does not
   * know it; throws when the answer cannot tell (a timeout, a 5xx). Absent where the venue has no
   * such read.
   */
  lookUpOrder?(orderId: string): Promise<VenueOrder | null>;
  trades(sinceMs: number): Promise<VenueTrade[]>;
  /**
   * Asks the venue to re-read our balance of a token (after a SELL refused for balance), or of our
   * collateral without one (after a BUY); absent where it cannot.
   */
  refreshBalance?(tokenId?: string): Promise<void>;
  /** Our collateral balance, micro-dollars (the figure the venue's BUY check reads); absent where the venue has no such read. */
  collateral?(): Promise<number>;
  /** Order and trade updates (the user channel, or the simulated venue's own events). */
  onUserEvent(listener: (e: UserEvent) => void): void;
  close(): Promise<void>;
}
