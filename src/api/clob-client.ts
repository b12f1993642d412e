// The CLOB (order-book trading) API, all 25 endpoints of spec 4.1. Book and quote prices come
// back in integer units; order bodies are formatted from integer units. Shapes: src/api/README.md.
import { ApiError, ResponseShapeError } from '../core/errors.js';
import { ACCOUNT_MAX_PAGES, cursorItems, validate } from './paginate.js';
import {
  bookSchema,
  cancelResponseSchema,
  clobMarketSchema,
  looseObjectSchema,
  midpointSchema,
  negRiskSchema,
  openOrderSchema,
  orderResponseSchema,
  pageSchema,
  priceSchema,
  priceUnits,
  spreadSchema,
  tickSizeSchema,
  toBook,
  tradeSchema,
  type Book,
  type CancelResponse,
  type ClobMarket,
  type JsonObject,
  type OpenOrder,
  type OrderResponse,
  type Page,
  type Trade,
} from './schemas.js';
import type { Method, QueryValue, Transport } from './transport.js';
import { z } from 'zod';

import type { Side } from '../core/events.js';
import { specProfile, type ClobProfile, type NewOrder } from './clob-profile.js';
import { feeRuleOf, type FeeRule } from './fee-rule.js';
import { MAX_BATCH, MAX_CANCEL_IDS } from './limit-table.js';
export type { OrderType, Side } from '../core/events.js';
export { orderBody, type NewOrder, type OrderBody } from './clob-profile.js';

export interface TradeQuery {
  id?: string;
  market?: string;
  asset_id?: string;
  maker_address?: string;
  before?: number;
  after?: number;
}
export interface OrdersQuery {
  id?: string;
  market?: string;
  asset_id?: string;
}

const marketPage = pageSchema(clobMarketSchema);
const objectPage = pageSchema(looseObjectSchema);
const orderPage = pageSchema(openOrderSchema);
const tradePage = pageSchema(tradeSchema);
const orderResponses = orderResponseSchema.array();
const heartbeatSchema = z.looseObject({ heartbeat_id: z.string() });
const serverTimeSchema = z.number().int().positive();
// no version in the answer reads as 2, as the official client reads it (client.js getVersion)
const versionSchema = z.looseObject({ version: z.number().int().positive().nullish() });
const balanceAllowanceSchema = z.looseObject({ balance: z.string().regex(/^\d+$/), allowances: z.record(z.string(), z.string().regex(/^\d+$/)).default({}) });
export type BalanceAllowance = z.infer<typeof balanceAllowanceSchema>;

/**
 * The allowance a balance answer gives `exchange`, raw 1e-6 units: its entry in `allowances` (any
 * case of the address), else a lone `allowance` field (the shape some answers show); undefined
 * when the answer names none.
 */
export function allowanceOf(b: BalanceAllowance, exchange: string): bigint | undefined {
  const want = exchange.toLowerCase();
  for (const [k, v] of Object.entries(b.allowances)) if (k.toLowerCase() === want) return BigInt(v);
  const lone = (b as { allowance?: unknown }).allowance;
  return typeof lone === 'string' && /^\d+$/.test(lone) ? BigInt(lone) : undefined;
}

/**
 * What our BUYs may promise together by a balance answer, raw 1e-6 units: the balance, or the least
 * allowance among `exchanges` if lower (the venue refuses a BUY beyond either); `binds` names the
 * exchange whose allowance that is. An exchange the answer names no allowance for does not cap.
 */
export function spendableCollateral(b: BalanceAllowance, exchanges: readonly string[]): { balance: bigint; spendable: bigint; binds: string | undefined } {
  const balance = BigInt(b.balance);
  let spendable = balance;
  let binds: string | undefined;
  for (const exchange of exchanges) {
    const a = allowanceOf(b, exchange);
    if (a !== undefined && a < spendable) {
      spendable = a;
      binds = exchange;
    }
  }
  return { balance, spendable, binds };
}

/** Clock skew we call too much (doctor's default, the daemon's start-up check), beyond the venue clock's 1 s resolution. */
export const CLOCK_SKEW_MS = 5000;

export class ClobClient {
  constructor(
    readonly transport: Transport,
    readonly profile: ClobProfile = specProfile(),
  ) {}

  /** `cost`: the orders the request counts in the venue's per-signer bucket (a batch's; default 1). */
  private async call<T>(schema: z.ZodType<T>, method: Method, path: string, query?: Record<string, QueryValue>, body?: unknown, cost?: number): Promise<T> {
    return validate(schema, await this.transport.request({ method, path, query, body, cost }), method, path);
  }

  private units(v: string | number, path: string, field: string): number {
    const u = priceUnits(v);
    if (u < 0) throw new ResponseShapeError('GET', path, `${field}: not a price: ${JSON.stringify(v)}`);
    return u;
  }

  // ---- markets ----
  listMarkets(q: { next_cursor?: string; limit?: number; offset?: number } = {}): Promise<Page<ClobMarket>> {
    return this.call(marketPage, 'GET', '/markets', q);
  }
  iterateMarkets(startCursor?: string): AsyncGenerator<ClobMarket> {
    return cursorItems((c) => this.listMarkets({ next_cursor: c }), startCursor);
  }
  getMarket(conditionId: string): Promise<ClobMarket> {
    const r = this.profile.market(conditionId);
    return this.call(clobMarketSchema, 'GET', r.path, r.query);
  }
  /** A market's fee rule from the venue's market info; undefined where the profile has none or the answer holds none. */
  async getFeeRule(conditionId: string): Promise<FeeRule | undefined> {
    const r = this.profile.marketInfo?.(conditionId);
    if (!r) return undefined;
    const rule = feeRuleOf(await this.transport.request({ method: 'GET', path: r.path, query: r.query }));
    if (!rule) throw new ResponseShapeError('GET', r.path, 'no token list t, or a malformed fee rule fd');
    return rule;
  }
  samplingMarkets(nextCursor?: string): Promise<Page<ClobMarket>> {
    return this.call(marketPage, 'GET', '/sampling-markets', { next_cursor: nextCursor });
  }
  samplingSimplifiedMarkets(nextCursor?: string): Promise<Page<JsonObject>> {
    return this.call(objectPage, 'GET', '/sampling-simplified-markets', { next_cursor: nextCursor });
  }

  // ---- book and quotes (integer price units) ----
  async getBook(tokenId: string): Promise<Book> {
    const w = await this.call(bookSchema, 'GET', '/book', { token_id: tokenId });
    const b = toBook(w);
    if (typeof b === 'string') throw new ResponseShapeError('GET', '/book', b);
    return b;
  }
  async getMidpoint(tokenId: string): Promise<number> {
    const r = await this.call(midpointSchema, 'GET', '/midpoint', { token_id: tokenId });
    return this.units((r.mid ?? r.mid_price) as string | number, '/midpoint', 'mid');
  }
  /** BUY -> best ask, SELL -> best bid. */
  async getPrice(tokenId: string, side: Side): Promise<number> {
    const r = await this.call(priceSchema, 'GET', '/price', { token_id: tokenId, side });
    return this.units(r.price, '/price', 'price');
  }
  async getSpread(tokenId: string): Promise<number> {
    const r = await this.call(spreadSchema, 'GET', '/spread', { token_id: tokenId });
    return this.units(r.spread, '/spread', 'spread');
  }
  /** The minimum tick in price units (0.01 -> 100). */
  async getTickSize(tokenId: string): Promise<number> {
    const r = await this.call(tickSizeSchema, 'GET', '/tick-size', { token_id: tokenId });
    return this.units(r.minimum_tick_size, '/tick-size', 'minimum_tick_size');
  }
  async getNegRisk(tokenId: string): Promise<boolean> {
    return (await this.call(negRiskSchema, 'GET', '/neg-risk', { token_id: tokenId })).neg_risk;
  }

  // ---- orders ----
  /** POST /order. A 5xx/timeout/network error throws AmbiguousSubmitError (never retried). */
  postOrder(order: NewOrder): Promise<OrderResponse> {
    return this.withBodies([order], (b) => this.call(orderResponseSchema, 'POST', '/order', undefined, b[0]));
  }
  /** POST /orders with 1..15 orders; responses in request order. */
  postOrders(orders: NewOrder[]): Promise<OrderResponse[]> {
    if (orders.length < 1 || orders.length > MAX_BATCH) return Promise.reject(new RangeError(`a batch holds 1..${MAX_BATCH} orders, got ${orders.length}`));
    return this.withBodies(orders, (b) => this.call(orderResponses, 'POST', '/orders', undefined, b, b.length));
  }
  /** The profile's bodies, sent in this turn when they are ready at once (the spec's unsigned ones). */
  private withBodies<T>(orders: readonly NewOrder[], send: (bodies: unknown[]) => Promise<T>): Promise<T> {
    const b = this.profile.orderBodies(orders);
    return Array.isArray(b) ? send(b) : b.then(send);
  }
  getOrder(orderId: string): Promise<OpenOrder> {
    const r = this.profile.order(orderId);
    return this.call(openOrderSchema, 'GET', r.path, r.query);
  }
  /** One order by id, or null when the venue answers that it has none (404, an empty body or null); any other answer that is no order throws. */
  async findOrder(orderId: string): Promise<OpenOrder | null> {
    const r = this.profile.order(orderId);
    try {
      return await this.call(openOrderSchema.nullable(), 'GET', r.path, r.query);
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) return null;
      throw e;
    }
  }
  getOrders(q: OrdersQuery & { next_cursor?: string } = {}): Promise<Page<OpenOrder>> {
    return this.call(orderPage, 'GET', this.profile.openOrdersPath, { ...q });
  }
  iterateOrders(q: OrdersQuery = {}): AsyncGenerator<OpenOrder> {
    return cursorItems((c) => this.getOrders({ ...q, next_cursor: c }), undefined, ACCOUNT_MAX_PAGES);
  }
  cancelOrder(orderId: string): Promise<CancelResponse> {
    return this.call(cancelResponseSchema, 'DELETE', '/order', undefined, { orderID: orderId });
  }
  /**
   * DELETE /orders: body {orderIds: [...]} in the spec profile (our choice; see README), a plain
   * array on Polymarket. More ids than one request may carry (the venue's 1000, or the per-signer
   * cancel bucket's burst) go in parts, one after another, their answers merged.
   */
  async cancelOrders(orderIds: string[]): Promise<CancelResponse> {
    const per = Math.min(MAX_CANCEL_IDS, this.transport.maxCost('DELETE', '/orders'));
    if (orderIds.length <= per) return this.call(cancelResponseSchema, 'DELETE', '/orders', undefined, this.profile.cancelOrdersBody(orderIds), orderIds.length);
    const out: CancelResponse = { canceled: [], not_canceled: {} };
    for (let i = 0; i < orderIds.length; i += per) {
      const r = await this.cancelOrders(orderIds.slice(i, i + per));
      out.canceled.push(...r.canceled);
      Object.assign(out.not_canceled, r.not_canceled);
    }
    return out;
  }
  cancelAll(): Promise<CancelResponse> {
    return this.call(cancelResponseSchema, 'DELETE', '/cancel-all');
  }
  cancelMarketOrders(market: string, assetId?: string): Promise<CancelResponse> {
    const body: { market: string; asset_id?: string } = { market };
    if (assetId !== undefined) body.asset_id = assetId;
    return this.call(cancelResponseSchema, 'DELETE', '/cancel-market-orders', undefined, body);
  }

  // ---- trades, balances, positions ----
  /** Our trades: GET /trades in the spec profile, /data/trades on Polymarket. */
  getTrades(q: TradeQuery & { next_cursor?: string } = {}): Promise<Page<Trade>> {
    return this.call(tradePage, 'GET', this.profile.tradesPath, { ...q });
  }
  iterateTrades(q: TradeQuery = {}): AsyncGenerator<Trade> {
    return cursorItems((c) => this.getTrades({ ...q, next_cursor: c }), undefined, ACCOUNT_MAX_PAGES * 5);
  }
  getDataTrades(q: TradeQuery & { next_cursor?: string } = {}): Promise<Page<Trade>> {
    return this.call(tradePage, 'GET', '/data/trades', { ...q });
  }
  iterateDataTrades(q: TradeQuery = {}): AsyncGenerator<Trade> {
    return cursorItems((c) => this.getDataTrades({ ...q, next_cursor: c }), undefined, ACCOUNT_MAX_PAGES * 5);
  }
  getBalances(): Promise<JsonObject> {
    return this.call(looseObjectSchema, 'GET', '/balances');
  }
  /** Shape not documented: returned as parsed JSON. */
  getPositions(): Promise<unknown> {
    return this.transport.request({ method: 'GET', path: '/positions' });
  }

  // ---- the dead-man switch (polymarket profile) ----
  /** POST /v1/heartbeats {heartbeat_id}: the id to send next ("" starts a chain); `deadlineMs` instead of the read deadline. */
  async postHeartbeat(heartbeatId: string, deadlineMs?: number): Promise<string> {
    const path = '/v1/heartbeats';
    const r = validate(heartbeatSchema, await this.transport.request({ method: 'POST', path, body: { heartbeat_id: heartbeatId }, deadlineMs }), 'POST', path);
    return r.heartbeat_id;
  }
  /** True when the profile can read our collateral balance (getBalanceAllowance). */
  get readsCollateral(): boolean {
    return this.profile.collateralBalance !== undefined;
  }
  /** Our collateral balance and the exchanges' allowances, raw 1e-6 units (ClobProfile.collateralBalance); undefined where the profile has no such read. */
  async getBalanceAllowance(): Promise<BalanceAllowance | undefined> {
    const r = this.profile.collateralBalance;
    return r ? this.call(balanceAllowanceSchema, 'GET', r.path, r.query) : undefined;
  }
  /** Our balance of a token and the exchanges' allowances of our shares, raw 1e-6 units (ClobProfile.sharesBalance); undefined where the profile has no such read. */
  async getSharesBalance(tokenId: string): Promise<BalanceAllowance | undefined> {
    const r = this.profile.sharesBalance?.(tokenId);
    return r ? this.call(balanceAllowanceSchema, 'GET', r.path, r.query) : undefined;
  }
  /** Asks the venue to re-read our balance of a token, or of our collateral without one (ClobProfile.balanceRefresh); false where the profile cannot. */
  async refreshBalance(tokenId?: string): Promise<boolean> {
    const r = this.profile.balanceRefresh?.(tokenId);
    if (!r) return false;
    await this.transport.request({ method: 'GET', path: r.path, query: r.query });
    return true;
  }
  /** GET /time: the venue's clock, Unix seconds. */
  async getServerTime(): Promise<number> {
    return validate(serverTimeSchema, await this.transport.request({ method: 'GET', path: '/time' }), 'GET', '/time');
  }
  /** Our clock minus the venue's (GET /time, taken at the middle of the request), ms; the venue's has second resolution (CLOCK_SKEW_MS). */
  async clockSkewMs(): Promise<number> {
    const t0 = Date.now();
    const venueSec = await this.getServerTime();
    return Math.round((t0 + Date.now()) / 2 - venueSec * 1000);
  }

  /** GET /version (polymarket): the order version the venue takes (ORDER_VERSION is the one we sign). */
  async getOrderVersion(): Promise<number> {
    const r = validate(versionSchema, await this.transport.request({ method: 'GET', path: '/version' }), 'GET', '/version');
    return r.version ?? 2;
  }

  // ---- API keys ----
  createApiKey(): Promise<JsonObject> {
    return this.call(looseObjectSchema, 'POST', '/auth/api-key');
  }
  getApiKey(): Promise<JsonObject> {
    return this.call(looseObjectSchema, 'GET', '/auth/api-key');
  }
  deleteApiKey(): Promise<JsonObject> {
    return this.call(looseObjectSchema, 'DELETE', '/auth/api-key');
  }
}
