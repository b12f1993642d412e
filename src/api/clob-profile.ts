// A venue profile: how one venue speaks the CLOB. The client (clob-client.ts) has one code path;
// what differs between the spec's interface and the real Polymarket venue (auth, paths, cancel and
// order bodies, heartbeats) is a ClobProfile. This file holds the interface and the spec profile.
import { createHash } from 'node:crypto';
import type { OrderType, Side } from '../core/events.js';
import { formatPrice, formatSize } from '../core/units.js';
import type { UserAuth } from '../feed/channels.js';
import type { Method, QueryValue } from './transport.js';

export type VenueProfileName = 'spec' | 'polymarket';

/** An order to place, in integer units (price 1e-4, size 1e-2 shares). */
export interface NewOrder {
  tokenId: string;
  price: number;
  size: number;
  side: Side;
  orderType?: OrderType;
  postOnly?: boolean;
  /** Price decimals to print (the tick's), e.g. 2 -> "0.50"; default: minimal. */
  priceDecimals?: number;
  /** The token's market is a neg-risk market (the polymarket profile signs for its exchange). */
  negRisk?: boolean;
  /** GTD only: expiry, Unix seconds. */
  expirationSec?: number;
}

export interface Route {
  path: string;
  query?: Record<string, QueryValue>;
}

export interface ClobProfile {
  readonly name: VenueProfileName;
  /** Auth headers of one request over the exact body text sent; undefined when there is no credential. */
  authHeaders(method: Method, path: string, bodyText: string | undefined): Record<string, string> | undefined;
  /** One CLOB market by condition id. */
  market(conditionId: string): Route;
  /** The venue's market info with its fee rule (GET /clob-markets/{id}); undefined where the profile has none. */
  marketInfo?(conditionId: string): Route;
  /** One of our orders by id. */
  order(orderId: string): Route;
  /** Our open orders and our trades (cursor pages). */
  readonly openOrdersPath: string;
  readonly tradesPath: string;
  /** The DELETE /orders body for these ids. */
  cancelOrdersBody(orderIds: string[]): unknown;
  /** The POST /order body of each order, in order (the polymarket profile signs them). */
  orderBodies(orders: readonly NewOrder[]): unknown[] | Promise<unknown[]>;
  /** The user channel's subscription auth, or undefined without credentials. */
  readonly userAuth: UserAuth | undefined;
  /**
   * Asks the venue to re-read our balance of a token (polymarket: GET /balance-allowance/update,
   * CONDITIONAL), or of our collateral without one (COLLATERAL); undefined where the profile has no such route.
   */
  balanceRefresh?(tokenId?: string): Route;
  /**
   * Our collateral balance and allowances (polymarket: GET /balance-allowance, COLLATERAL: raw
   * 1e-6 units); undefined where the profile has none (the spec leaves GET /balances' body open).
   */
  readonly collateralBalance?: Route;
  /** Our balance of a token and the exchanges' approval of our shares (polymarket: GET /balance-allowance, CONDITIONAL); undefined where the profile has none. */
  sharesBalance?(tokenId: string): Route;
  /** The venue cancels our orders unless heartbeats keep coming (POST /v1/heartbeats). */
  readonly heartbeats: boolean;
  /**
   * Makers pay no fee, whatever fee_rate_bps a trade's maker parts carry (Polymarket puts its base
   * rate, 1000 bps, on them, yet charges takers only); false: a trade's rate is what it charges.
   */
  readonly makersPayNoFee: boolean;
  /** The venue limits each signer's orders and cancels with token buckets (limit-table.ts SIGNER_TIERS). */
  readonly signerBuckets: boolean;
  /** Why this profile cannot trade (the missing environment variables), or undefined when it can. */
  readonly cannotTrade: string | undefined;
  /**
   * Whose orders and positions these are, never a secret: the maker address (polymarket) or the
   * API key's SHA-256 fingerprint (spec); the store refuses another account's database.
   */
  readonly account: string | undefined;
  /**
   * Our maker address as a trade's `maker_orders` name it (polymarket: the funder, else the key's
   * address; lower case); undefined where the profile has none (spec: the API key, `owner`, tells).
   */
  readonly makerAddress: string | undefined;
}

/** The POST /order wire body of the spec profile (spec section 2). */
export interface OrderBody {
  tokenID: string;
  price: string;
  size: string;
  side: Side;
  orderType?: OrderType;
  postOnly?: boolean;
  /** GTD: expiry, Unix seconds, as the venue lists it ("0" = none). */
  expiration?: string;
}

export function orderBody(o: NewOrder): OrderBody {
  const b: OrderBody = { tokenID: o.tokenId, price: formatPrice(o.price, o.priceDecimals ?? 0), size: formatSize(o.size), side: o.side };
  if (o.orderType) b.orderType = o.orderType;
  if (o.postOnly !== undefined) b.postOnly = o.postOnly;
  if (o.expirationSec !== undefined) b.expiration = String(o.expirationSec);
  return b;
}

/** The spec's interface (service-interface.md): a Bearer key, query-string look-ups, unsigned bodies. */
export function specProfile(apiKey?: string): ClobProfile {
  const bearer = apiKey ? { authorization: `Bearer ${apiKey}` } : undefined;
  return {
    name: 'spec',
    authHeaders: () => bearer,
    market: (conditionId) => ({ path: '/market', query: { condition_id: conditionId } }),
    order: (orderId) => ({ path: '/order', query: { id: orderId } }),
    openOrdersPath: '/orders',
    tradesPath: '/trades',
    cancelOrdersBody: (orderIds) => ({ orderIds }),
    orderBodies: (orders) => orders.map(orderBody),
    userAuth: apiKey ? { apiKey } : undefined,
    heartbeats: false,
    makersPayNoFee: false,
    signerBuckets: false,
    cannotTrade: apiKey ? undefined : 'live mode needs MAKERD_API_KEY in the environment',
    account: apiKey ? `key:${createHash('sha256').update(apiKey).digest('hex').slice(0, 16)}` : undefined,
    makerAddress: undefined,
  };
}
