// The live venue: the Venue interface over the CLOB REST client and the user channel. Every
// request passes the API layer's one limiter (the scheduler only peeks at the windows). An
// unclear submit surfaces as AmbiguousSubmitError from the transport and is never retried here.
import type { Logger } from '../core/log.js';
import { tickDecimals, unixToMs } from '../core/units.js';
import type { UserEvent, Side } from '../core/events.js';
import { spendableCollateral, type ClobClient, type NewOrder } from '../api/clob-client.js';
import type { ClobProfile } from '../api/clob-profile.js';
import { AmbiguousSubmitError, ApiError, ResponseShapeError } from '../core/errors.js';
import type { CancelResponse, OpenOrder, OrderResponse, Trade } from '../api/schemas.js';
import { priceUnits, sizeUnits } from '../api/schemas.js';
import { refusalOf, rejectCodeOf } from './rejections.js';
import { microsToDollars, parsePriceRounded, sizeMicrosIfFiner } from '../core/units.js';
import type { CancelResult, OrderRequest, PlaceResult, PlaceStatus, Venue, VenueOrder, VenueTrade } from './types.js';

export interface LiveVenueOptions {
  clob: ClobClient;
  /** Subscribes to the user channel's decoded events (the market feed's user connection). */
  subscribeUser: (fn: (e: UserEvent) => void) => void;
  /** The tick of a token in price units (prices are printed with its decimals). */
  tickOf: (tokenId: string) => number;
  /** Whether a token's market is neg-risk (the polymarket profile signs for the neg-risk exchange). */
  negRiskOf?: (tokenId: string) => boolean;
  /**
   * The exchange contracts our markets' BUYs spend collateral through (polymarket: exchangeOf of
   * each market's neg-risk flag). The collateral read is the balance or the least of their
   * allowances, whichever is lower: the venue refuses a BUY beyond either (py-clob-client issue 95:
   * "not enough balance / allowance" for 600 USDC, 5 fine, under a small allowance).
   */
  exchangesInUse?: () => readonly string[];
  log: Logger;
}

const STATUSES: ReadonlySet<string> = new Set(['live', 'matched', 'delayed', 'unmatched']);

/**
 * A place answered 2xx in a shape we cannot read: the venue may have taken the orders, so the
 * outcome is unclear (looked up), as after a timeout; never a refusal, which would place them again.
 */
function unclearIfShapeless(err: unknown): unknown {
  if (err instanceof ResponseShapeError) return new AmbiguousSubmitError(err.method, err.path, err);
  // an error envelope under a 2xx that names no refusal (refusalOf): the order may have been taken
  if (err instanceof ApiError && err.status >= 200 && err.status < 300) return new AmbiguousSubmitError(err.method, err.path, err);
  return err;
}

/** A REST time field in ms, 0 when absent or malformed (the caller falls back to the next field). */
function toMs(v: unknown): number {
  const ms = unixToMs(v);
  return ms > 0 ? ms : 0;
}

function cancelResult(r: CancelResponse): CancelResult {
  const notCanceled: Record<string, string> = {};
  // a reason is kept as the order's error (the store): as far as the envelope keeps a venue's text
  for (const [id, why] of Object.entries(r.not_canceled ?? {})) notCanceled[id] = (typeof why === 'string' ? why : (JSON.stringify(why) ?? '')).slice(0, 500);
  return { canceled: r.canceled, notCanceled };
}

export class LiveVenue implements Venue {
  /** The venue's feed shows our resting orders in its books. */
  readonly booksIncludeOwnOrders = true;
  get makersPayNoFee(): boolean {
    return this.o.clob.profile.makersPayNoFee;
  }
  private readonly listeners: Array<(e: UserEvent) => void> = [];
  /** The exchange whose allowance the last collateral read was capped at (undefined: the balance was the lesser). */
  private allowanceBinds: string | undefined = undefined;

  constructor(private readonly o: LiveVenueOptions) {
    if (o.clob.readsCollateral) this.collateral = () => this.readCollateral();
    o.subscribeUser((e) => {
      for (const fn of this.listeners) fn(e);
    });
  }

  private body(r: OrderRequest): NewOrder {
    return {
      tokenId: r.tokenId,
      price: r.price,
      size: r.size,
      side: r.side,
      orderType: r.orderType,
      postOnly: r.postOnly,
      priceDecimals: tickDecimals(this.o.tickOf(r.tokenId)),
      negRisk: this.o.negRiskOf?.(r.tokenId) ?? false,
      expirationSec: r.orderType === 'GTD' ? r.expirationSec : undefined,
    };
  }

  private result(r: OrderRequest, res: OrderResponse): PlaceResult {
    const ok = res.success && !!res.orderID && !res.errorMsg;
    const status = res.status && STATUSES.has(res.status.toLowerCase()) ? (res.status.toLowerCase() as PlaceStatus) : undefined;
    return ok
      ? { clientId: r.clientId, ok: true, orderId: res.orderID as string, status: status ?? 'live' }
      : { clientId: r.clientId, ok: false, error: rejectCodeOf(res.errorMsg ?? undefined), message: (res.errorMsg || 'refused').slice(0, 500) };
  }

  /**
   * The answers in request order, one per order. A list of another length cannot be paired by
   * position (a dropped answer would give each later order the next one's id), so then no order
   * gets a result: the engine takes them all as unclear and looks them up (a refusal would have
   * one placed again, twice if it rests).
   */
  async placeOrders(orders: OrderRequest[]): Promise<PlaceResult[]> {
    let res: OrderResponse[];
    try {
      res = await this.o.clob.postOrders(orders.map((r) => this.body(r)));
    } catch (err) {
      // a 4xx refuses the whole request: every order with its code
      const no = refusalOf(err);
      if (!no) throw unclearIfShapeless(err);
      return orders.map((r) => ({ clientId: r.clientId, ok: false, error: no.code, message: no.message }));
    }
    if (res.length !== orders.length) {
      this.o.log.warn(
        { orders: orders.length, answers: res.length },
        `live venue: a batch answer of ${res.length} answers for ${orders.length} orders: none can be paired, every order of it is unclear`,
      );
      return [];
    }
    return orders.map((r, i) => this.result(r, res[i]));
  }

  async placeOrder(order: OrderRequest): Promise<PlaceResult> {
    try {
      return this.result(order, await this.o.clob.postOrder(this.body(order)));
    } catch (err) {
      // a single order refused by the venue comes back as a 400 with the code
      const no = refusalOf(err);
      if (!no) throw unclearIfShapeless(err);
      return { clientId: order.clientId, ok: false, error: no.code, message: no.message };
    }
  }

  async cancelOrders(orderIds: string[]): Promise<CancelResult> {
    return cancelResult(await this.o.clob.cancelOrders(orderIds));
  }

  async cancelOrder(orderId: string): Promise<CancelResult> {
    return cancelResult(await this.o.clob.cancelOrder(orderId));
  }

  async cancelAll(): Promise<CancelResult> {
    return cancelResult(await this.o.clob.cancelAll());
  }

  async cancelMarket(market: string): Promise<CancelResult> {
    return cancelResult(await this.o.clob.cancelMarketOrders(market));
  }

  async refreshBalance(tokenId?: string): Promise<void> {
    await this.o.clob.refreshBalance(tokenId);
  }

  /** Present where the profile can read our collateral (Venue.collateral). */
  readonly collateral?: () => Promise<number>;

  private async readCollateral(): Promise<number> {
    const b = await this.o.clob.getBalanceAllowance();
    if (!b) throw new RangeError('the venue profile has no collateral read');
    const { balance, spendable, binds } = spendableCollateral(b, this.o.exchangesInUse?.() ?? []);
    // beyond 2^53 micro-dollars the cap cannot bind anyway
    const n = (v: bigint): number => Number(v > BigInt(Number.MAX_SAFE_INTEGER) ? BigInt(Number.MAX_SAFE_INTEGER) : v);
    if (binds !== this.allowanceBinds) {
      if (binds !== undefined) {
        this.o.log.warn(
          { exchange: binds, allowanceUsd: microsToDollars(n(spendable)), balanceUsd: microsToDollars(n(balance)) },
          'live venue: the exchange allowance is below the balance: BUYs are capped at the allowance (approve more from the wallet)',
        );
      } else this.o.log.info({ balanceUsd: microsToDollars(n(balance)) }, 'live venue: the exchange allowances cover the balance again');
      this.allowanceBinds = binds;
    }
    return n(spendable);
  }

  /**
   * Every open order the venue lists. One with a price or size we cannot read is listed by its id
   * (`unreadable`): left out, an order of ours would be taken as gone while it rests. One listed
   * with an ended status (the spec's GET /orders does not say it lists open orders only) is left
   * out: taken for open, an order of ours that ended would be working again.
   */
  async openOrders(): Promise<VenueOrder[]> {
    const out: VenueOrder[] = [];
    for await (const w of this.o.clob.iterateOrders()) {
      const v = toVenueOrder(w);
      if (!v.unreadable && ENDED.test(v.status)) continue;
      if (v.unreadable)
        this.o.log.warn({ order: w.id, price: String(w.price).slice(0, 40), originalSize: String(w.original_size).slice(0, 40) }, 'live venue: open order with a price or size we cannot read');
      out.push(v);
    }
    return out;
  }

  async lookUpOrder(orderId: string): Promise<VenueOrder | null> {
    // not found (404, null, an empty body): not open there. An answer that is no order (an HTML
    // page, a drifted shape) tells nothing: it throws, and the order is kept as it was
    const w = await this.o.clob.findOrder(orderId);
    if (w === null) return null;
    // another order's answer (a path the id could change) is not this one's
    if (w.id !== orderId) throw new ResponseShapeError('GET', 'order', `asked for order ${orderId.slice(0, 80)}, the answer is order ${String(w.id).slice(0, 80)}`);
    const v = toVenueOrder(w);
    if (!v.unreadable && ENDED.test(v.status)) v.ended = true;
    return v;
  }

  async trades(sinceMs: number): Promise<VenueTrade[]> {
    const out: VenueTrade[] = [];
    const unreadable: string[] = [];
    for await (const t of this.o.clob.iterateTrades({ after: Math.floor(sinceMs / 1000) })) if (!expandTrade(t, this.o.clob.profile, out)) unreadable.push(String(t.id).slice(0, 80));
    if (unreadable.length) this.o.log.warn({ trades: unreadable.slice(0, 20), count: unreadable.length }, 'live venue: trades naming an order of ours whose price or size cannot be read: left out');
    return out;
  }

  onUserEvent(listener: (e: UserEvent) => void): void {
    this.listeners.push(listener);
  }

  async close(): Promise<void> {
    this.listeners.length = 0;
  }
}

/**
 * Statuses of an order the venue no longer has open (MATCHED, CANCELED and CANCELED_<reason>,
 * UNMATCHED, INVALID, EXPIRED), read after orderStatus; any other counts as open.
 */
const ENDED = /^(MATCHED|CANCELL?ED|UNMATCHED|INVALID|EXPIRED)/i;
/** The API reference's spelling of a REST order status ("ORDER_STATUS_LIVE", "ORDER_STATUS_CANCELED"). */
const ORDER_STATUS_PREFIX = /^ORDER_STATUS_/i;

/** A REST order status without the API reference's ORDER_STATUS_ prefix (as TRADE_STATUS_ is dropped from trades); absent is LIVE. */
function orderStatus(s: string | undefined): string {
  return s === undefined ? 'LIVE' : s.replace(ORDER_STATUS_PREFIX, '');
}

function toVenueOrder(w: OpenOrder): VenueOrder {
  // a price in floating point noise ("0.4700000000000001", as the venue writes complement prices) is rounded
  let price = priceUnits(w.price);
  if (price < 0) price = parsePriceRounded(w.price);
  const originalSize = sizeUnits(w.original_size);
  const sizeMatched = sizeUnits(w.size_matched);
  const x = w as Record<string, unknown>;
  const v: VenueOrder = {
    orderId: w.id,
    tokenId: w.asset_id,
    market: w.market ?? '',
    side: w.side,
    price,
    originalSize,
    sizeMatched,
    status: orderStatus(w.status),
    orderType: typeof x.order_type === 'string' ? x.order_type : 'GTC',
    createdAtMs: toMs(x.created_at),
  };
  if (price < 0 || originalSize < 0 || sizeMatched < 0) Object.assign(v, { price: -1, originalSize: 0, sizeMatched: 0, unreadable: true });
  return v;
}

/**
 * Whether a maker entry of a REST trade names another account's order. The venue lists every maker
 * order a trade matched, whoever owns it (NautilusTrader's captured trade: someone else's order
 * beside our taker order), and reconciliation binds an unanswered order of ours to a listed order
 * of its terms: someone else's would become a fill we never had. Judged by the maker address where
 * the profile knows ours (it outlives an API key), else by `owner` (the API key); an entry naming
 * neither is kept.
 */
function othersMaker(m: Record<string, unknown>, p: ClobProfile): boolean {
  if (p.makerAddress !== undefined && typeof m.maker_address === 'string' && m.maker_address !== '') return m.maker_address.toLowerCase() !== p.makerAddress;
  const key = p.userAuth?.apiKey;
  return key !== undefined && typeof m.owner === 'string' && m.owner !== '' && m.owner !== key;
}

/** One REST trade -> one VenueTrade per order of ours it names (the taker's, and each maker order); false when a part of ours could not be read. */
function expandTrade(t: Trade, profile: ClobProfile, out: VenueTrade[]): boolean {
  let readable = true;
  const x = t as Record<string, unknown>;
  const timeMs = toMs(x.match_time) || toMs(x.last_update) || toMs(x.timestamp);
  const status = t.status ?? 'CONFIRMED';
  const market = t.market ?? '';
  const price = priceUnits(t.price);
  const size = sizeUnits(t.size);
  const fee = Number(x.fee_rate_bps ?? 0) || 0;
  // A trade we were a maker in (trader_side MAKER) names someone else's taker order: not one of
  // ours to recover (start-up reconciliation would warn of an order it does not know).
  const takerId = typeof x.taker_order_id === 'string' && x.trader_side !== 'MAKER' ? x.taker_order_id : undefined;
  if (takerId !== undefined && (price < 0 || size < 0)) readable = false;
  if (takerId !== undefined && price >= 0 && size >= 0) {
    const exact = typeof t.size === 'string' ? sizeMicrosIfFiner(t.size) : undefined;
    out.push({
      tradeId: t.id,
      orderId: takerId,
      tokenId: t.asset_id,
      market,
      side: t.side,
      price,
      size,
      ...(exact === undefined ? {} : { sizeMicros: exact }),
      feeRateBps: fee,
      status,
      liquidity: 'TAKER',
      timeMs,
    });
  }
  const makers = Array.isArray(x.maker_orders) ? (x.maker_orders as Array<Record<string, unknown>>) : [];
  for (const m of makers) {
    if (typeof m.order_id !== 'string' || othersMaker(m, profile)) continue;
    // a complement maker's price is the venue's float 1 - p (real captures): rounded, not refused
    const mp = typeof m.price === 'string' ? parsePriceRounded(m.price) : priceUnits(typeof m.price === 'number' ? m.price : '');
    const ms = sizeUnits(typeof m.matched_amount === 'string' || typeof m.matched_amount === 'number' ? m.matched_amount : '');
    if (mp < 0 || ms < 0) {
      readable = false;
      continue;
    }
    const tokenId = typeof m.asset_id === 'string' ? m.asset_id : t.asset_id;
    // Older trades omit the maker's side: against the same token the maker took the other side;
    // on the complement token (a mint or merge match) it did the same as the taker.
    const side: Side = m.side === 'BUY' || m.side === 'SELL' ? m.side : tokenId !== t.asset_id ? t.side : t.side === 'BUY' ? 'SELL' : 'BUY';
    const exact = typeof m.matched_amount === 'string' ? sizeMicrosIfFiner(m.matched_amount) : undefined;
    out.push({
      tradeId: t.id,
      orderId: m.order_id,
      tokenId,
      market,
      side,
      price: mp,
      size: ms,
      ...(exact === undefined ? {} : { sizeMicros: exact }),
      feeRateBps: Number(m.fee_rate_bps ?? 0) || 0,
      status,
      liquidity: 'MAKER',
      timeMs,
    });
  }
  return readable;
}
