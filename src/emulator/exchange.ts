// The emulated exchange's account side: users' orders (owner = API key) go into the synthetic
// markets' matching engines (or, replaying a recording, into per-key simulated venues); fills,
// cancels and expiries become user-channel `order` and `trade` events (trades MATCHED, then
// CONFIRMED after a delay) and update balances and positions. REST routes read their answers
// from here. Money is in micro-dollars (price units x size units).
import type { Clock } from '../core/clock.js';
import { formatSize, parsePrice, parseSize, PRICE_SCALE } from '../core/units.js';
import type { Side, UserEvent } from '../core/events.js';
import type { OrderType } from '../venue/types.js';
import type { MatchFill, RestingOrder } from '../venue/matching-api.js';
import type { EmuMarket } from './market.js';
import type { ReplayOrderDesk } from './replay-orders.js';
import { SYNTHETIC_OWNER_PREFIX, SyntheticMarket } from './synthetic-market.js';
import { hex64 } from './ids.js';
import { addressOf, orderWire, tradeWire, type Account, type CancelAnswer, type MakerPart, type OrderBodyIn, type UserFrame, type UserOrder, type UserTrade } from './user-wire.js';

export { addressOf };
export type { Account, CancelAnswer, MakerPart, OrderBodyIn, UserFrame, UserOrder, UserTrade };

export class BadOrderError extends Error {}

/** Counts a confirmed buy's shares toward its owner's SELL balance (settle); `tokenId`: the shares'. */
type Confirm = (() => void) & { tokenId: string };

export const START_CASH_MICROS = 10_000 * 1_000_000;

/** Done orders and trades kept for the REST queries. */
const HISTORY = 100_000;

const ORDER_TYPES: ReadonlySet<string> = new Set(['GTC', 'GTD', 'FOK', 'FAK']);

export class Exchange {
  readonly byToken = new Map<string, { market: EmuMarket; outcome: number }>();
  readonly byCondition = new Map<string, EmuMarket>();
  readonly orders = new Map<string, UserOrder>();
  readonly trades: UserTrade[] = [];
  private readonly accounts = new Map<string, Account>();
  /** LIVE orders per owner (open-order queries never scan the history). */
  private readonly live = new Map<string, Map<string, UserOrder>>();
  private readonly listeners: Array<(f: UserFrame) => void> = [];
  private seq = 0;
  /** Whether the next match of users' orders fails on chain (FaultConfig.tradeFailNext; told once per match). */
  takeTradeFailure: () => boolean = () => false;
  /** How long after a trade's CONFIRMED its bought shares count toward the SELL balance check (FaultConfig.balanceLagMs). */
  balanceLagMs: () => number = () => 0;
  /** Confirmed buys whose shares the lagging balance does not count yet, per owner and token (refreshBalance counts them). */
  private readonly lagging = new Map<string, Array<() => void>>();
  /** The wallet address shown for an owner (maker_address); the polymarket profile names the account's maker. */
  makerAddress: (owner: string) => string = addressOf;
  /** Orders of synthetic markets the venue rejected, per owner and code (rejected orders keep no record). */
  private readonly rejected = new Map<string, Map<string, number>>();

  constructor(
    readonly markets: EmuMarket[],
    private readonly clock: Clock,
    private readonly confirmDelayMs = 200,
    private readonly desk?: ReplayOrderDesk,
    /** Refuse a SELL beyond the owner's confirmed shares (EmulatorOptions.checkSellBalance). */
    private readonly checkSellBalance = true,
    /** Every account's collateral at its first request, micro-dollars (EmulatorOptions.startCashMicros). */
    readonly startCashMicros = START_CASH_MICROS,
    /** Every account's allowance to the exchanges at its first request, micro-dollars (EmulatorOptions.allowanceMicros; Infinity: unlimited). */
    readonly startAllowanceMicros = Infinity,
  ) {
    for (const m of markets) {
      this.byCondition.set(m.conditionId, m);
      m.tokens.forEach((t, i) => {
        if (!this.byToken.has(t)) this.byToken.set(t, { market: m, outcome: i });
      });
      if (m instanceof SyntheticMarket) {
        m.onFills((fills) => this.onFills(m, fills));
        m.onOrdersGone((os) => {
          for (const o of os) this.gone(o, 'CANCELED');
        });
      }
    }
    desk?.onEvent((owner, e) => this.onVenueEvent(owner, e));
  }

  /** How many of the owner's orders on synthetic markets the venue rejected, by error code. */
  rejectionsOf(owner: string): Record<string, number> {
    return Object.fromEntries(this.rejected.get(owner) ?? []);
  }

  private countRejection(owner: string, code: string): void {
    let m = this.rejected.get(owner);
    if (!m) this.rejected.set(owner, (m = new Map()));
    m.set(code, (m.get(code) ?? 0) + 1);
  }

  onUserFrame(fn: (f: UserFrame) => void): void {
    this.listeners.push(fn);
  }

  outcomeName(tokenId: string): string {
    return this.byToken.get(tokenId)?.outcome === 1 ? 'No' : 'Yes';
  }

  account(owner: string): Account {
    let a = this.accounts.get(owner);
    if (!a) this.accounts.set(owner, (a = { cashMicros: this.startCashMicros, allowanceMicros: this.startAllowanceMicros, sharesApproved: true, positions: new Map(), unconfirmedBuys: new Map() }));
    return a;
  }

  /**
   * Splits collateral into `size` of each of the market's tokens for the owner (the conditional
   * tokens contract's split, done on chain and not through the CLOB): shares sellable at once.
   * How a test's other trader gets shares to sell.
   */
  split(owner: string, conditionId: string, size: number): void {
    const m = this.byCondition.get(conditionId);
    if (!m) throw new BadOrderError(`unknown market ${conditionId}`);
    const a = this.account(owner);
    for (const t of m.tokens) a.positions.set(t, (a.positions.get(t) ?? 0) + size);
    a.cashMicros -= PRICE_SCALE * size;
  }

  /** Shares of `tokenId` the owner may sell: held less those bought in trades not yet CONFIRMED. */
  sellableShares(owner: string, tokenId: string): number {
    const a = this.account(owner);
    return (a.positions.get(tokenId) ?? 0) - (a.unconfirmedBuys.get(tokenId) ?? 0);
  }

  /**
   * The venue's balance check of a new order: a BUY's cost fits the cash (or the allowance, if
   * less) its open BUYs leave; a SELL fits the sellable shares its token's open SELLs leave (both
   * as the live orders promise), and needs the owner's approval of its shares.
   */
  hasFunds(owner: string, tokenId: string, side: Side, price: number, size: number): boolean {
    let promised = 0;
    const live = this.live.get(owner);
    if (side === 'BUY') {
      if (live) for (const o of live.values()) if (o.side === 'BUY') promised += o.price * (o.originalSize - o.sizeMatched);
      // the exchange can take only what the owner approved it to, and only what the wallet holds
      const a = this.account(owner);
      return Math.min(a.cashMicros, a.allowanceMicros) - promised >= price * size;
    }
    // the exchange moves shares only with the owner's approval (the conditional tokens' setApprovalForAll)
    if (!this.account(owner).sharesApproved) return false;
    if (live) for (const o of live.values()) if (o.side === 'SELL' && o.assetId === tokenId) promised += o.originalSize - o.sizeMatched;
    return this.sellableShares(owner, tokenId) - promised >= size;
  }

  /** POST /order: returns the order response object (errors of the venue are in errorMsg). */
  async place(owner: string, body: OrderBodyIn): Promise<Record<string, unknown>> {
    const tokenId = typeof body.tokenID === 'string' ? body.tokenID : '';
    const m = this.byToken.get(tokenId);
    if (!m) throw new BadOrderError('Invalid token id');
    const price = typeof body.price === 'string' ? parsePrice(body.price) : typeof body.price === 'number' ? Math.round(body.price * PRICE_SCALE) : -1;
    const size = typeof body.size === 'string' ? parseSize(body.size) : typeof body.size === 'number' ? Math.round(body.size * 100) : -1;
    if (price < 0 || price > PRICE_SCALE) throw new BadOrderError('invalid price');
    if (size <= 0) throw new BadOrderError('invalid size');
    if (body.side !== 'BUY' && body.side !== 'SELL') throw new BadOrderError('side must be BUY or SELL');
    const orderType = (body.orderType ?? 'GTC') as OrderType;
    if (!ORDER_TYPES.has(orderType)) throw new BadOrderError('orderType must be GTC, GTD, FOK or FAK');
    const postOnly = body.postOnly === true;
    const expirationSec = orderType === 'GTD' ? Number(body.expiration ?? 0) : 0;
    // the venue's balance check: a SELL needs shares on chain for it and every SELL of the token
    // still open (py-clob-client issues 287, 290: refused right after a buy that only matched)
    if (this.checkSellBalance && body.side === 'SELL' && !this.hasFunds(owner, tokenId, 'SELL', price, size)) {
      this.countRejection(owner, 'INVALID_ORDER_NOT_ENOUGH_BALANCE');
      return { success: false, errorMsg: 'INVALID_ORDER_NOT_ENOUGH_BALANCE', orderID: '', status: 'unmatched' };
    }
    const market = m.market;
    if (!(market instanceof SyntheticMarket)) return this.placeReplay(owner, tokenId, body.side, price, size, orderType, postOnly, expirationSec);
    const now = market.time();
    const id = '0x' + hex64(`${owner}:${++this.seq}:${now}`);
    const rec: UserOrder = {
      id,
      owner,
      market,
      assetId: tokenId,
      side: body.side,
      price,
      originalSize: size,
      sizeMatched: 0,
      status: 'LIVE',
      orderType,
      createdAtMs: now,
      expirationSec,
      trades: [],
    };
    this.remember(rec);
    const out = market.place({
      orderId: id,
      owner,
      tokenId,
      side: body.side,
      price,
      size,
      orderType,
      postOnly,
      expiresAtMs: orderType === 'GTD' ? expirationSec * 1000 : undefined,
    });
    if (!out.ok) {
      this.setStatus(rec, 'INVALID');
      this.orders.delete(id);
      this.countRejection(owner, out.error ?? 'INVALID_ORDER_ERROR');
      return { success: false, errorMsg: out.error ?? 'INVALID_ORDER_ERROR', orderID: '', status: 'unmatched' };
    }
    const status = out.status ?? 'live';
    if (status === 'live') this.emitOrder(rec, 'PLACEMENT');
    else if (status === 'unmatched') this.setStatus(rec, rec.sizeMatched > 0 ? 'MATCHED' : 'UNMATCHED');
    const tradeIds = [...new Set(out.fills.map((f) => f.tradeId))];
    const matched = out.fills.reduce((s, f) => s + f.size, 0);
    const notional = out.fills.reduce((s, f) => s + f.takerPrice * f.size, 0);
    const making = body.side === 'BUY' ? notional / 1e6 : matched / 100;
    const taking = body.side === 'BUY' ? matched / 100 : notional / 1e6;
    return { success: true, errorMsg: '', orderID: id, status, makingAmount: String(making), takingAmount: String(taking), tradeIDs: tradeIds };
  }

  /** Cancels the owner's orders among `ids`. */
  async cancel(owner: string, ids: readonly string[]): Promise<CancelAnswer> {
    const canceled: string[] = [];
    const notCanceled: Record<string, string> = {};
    const viaVenue: string[] = [];
    for (const id of ids) {
      const rec = this.orders.get(id);
      if (!rec || rec.owner !== owner) {
        notCanceled[id] = 'order not found';
        continue;
      }
      if (!(rec.market instanceof SyntheticMarket)) {
        viaVenue.push(id);
        continue;
      }
      const gone = rec.market.cancel(id);
      if (!gone) {
        notCanceled[id] = 'already canceled or matched';
        continue;
      }
      this.gone(gone, 'CANCELED');
      canceled.push(id);
    }
    if (viaVenue.length && this.desk) {
      const r = await this.desk.venueFor(owner).cancelOrders(viaVenue);
      canceled.push(...r.canceled);
      Object.assign(notCanceled, r.notCanceled);
    }
    return { canceled, not_canceled: notCanceled };
  }

  cancelWhere(owner: string, pred: (o: UserOrder) => boolean): Promise<CancelAnswer> {
    const ids = this.openOrders(owner)
      .filter(pred)
      .map((o) => o.id);
    return this.cancel(owner, ids);
  }

  openOrders(owner: string): UserOrder[] {
    const live = this.live.get(owner);
    return live ? [...live.values()] : [];
  }

  /** Keeps the per-owner index of LIVE orders in step with every status change. */
  private setStatus(rec: UserOrder, status: string): void {
    rec.status = status;
    const live = this.live.get(rec.owner);
    if (status === 'LIVE') {
      if (live) live.set(rec.id, rec);
      else this.live.set(rec.owner, new Map([[rec.id, rec]]));
    } else live?.delete(rec.id);
  }

  /** Records an order; the oldest done orders are forgotten past HISTORY. */
  private remember(rec: UserOrder): void {
    this.orders.set(rec.id, rec);
    this.setStatus(rec, rec.status);
    if (this.orders.size <= HISTORY) return;
    for (const [id, o] of this.orders) {
      if (this.orders.size <= HISTORY) break;
      if (o.status !== 'LIVE') this.orders.delete(id);
    }
  }

  tradesOf(owner: string): UserTrade[] {
    return this.trades.filter((t) => t.owner === owner);
  }

  /** Removes all of an owner's state (DELETE /auth/api-key): cancels its orders. */
  async forget(owner: string): Promise<void> {
    await this.cancelWhere(owner, () => true);
  }

  /** Replay mode: the order goes to the owner's simulated venue; its events arrive via onVenueEvent. */
  private async placeReplay(owner: string, tokenId: string, side: Side, price: number, size: number, orderType: OrderType, postOnly: boolean, expirationSec: number): Promise<Record<string, unknown>> {
    if (!this.desk) throw new BadOrderError('market not ready');
    const venue = this.desk.venueFor(owner);
    const r = await venue.placeOrder({ clientId: `${owner}:${++this.seq}`, tokenId, side, price, size, orderType, postOnly, expirationSec: orderType === 'GTD' ? expirationSec : undefined });
    if (!r.ok || !r.orderId) return { success: false, errorMsg: r.error ?? 'INVALID_ORDER_ERROR', orderID: '', status: 'unmatched' };
    let rec = this.orders.get(r.orderId);
    if (!rec) {
      // done on arrival (took liquidity, FAK/FOK): no order event came; keep it for GET /order
      const m = this.byToken.get(tokenId)!.market;
      const mine = this.trades.filter((t) => t.owner === owner && t.takerOrderId === r.orderId);
      const matched = mine.reduce((a, t) => a + t.size, 0);
      const status = matched >= size ? 'MATCHED' : matched > 0 ? 'CANCELED' : 'UNMATCHED';
      rec = {
        id: r.orderId,
        owner,
        market: m,
        assetId: tokenId,
        side,
        price,
        originalSize: size,
        sizeMatched: matched,
        status,
        orderType,
        createdAtMs: m.time(),
        expirationSec,
        trades: mine.map((t) => t.id),
      };
      this.remember(rec);
    }
    const tradeIds = rec ? [...rec.trades] : [];
    return { success: true, errorMsg: '', orderID: r.orderId, status: r.status ?? 'live', tradeIDs: tradeIds };
  }

  /** Replay mode: a simulated venue's order or trade event for `owner`. */
  private onVenueEvent(owner: string, e: UserEvent): void {
    const m = this.byCondition.get(e.market) ?? this.byToken.get(e.assetId)?.market;
    if (!m) return;
    if (e.type === 'order') {
      let rec = this.orders.get(e.orderId);
      if (!rec) {
        rec = {
          id: e.orderId,
          owner,
          market: m,
          assetId: e.assetId,
          side: e.side,
          price: e.price,
          originalSize: e.originalSize,
          sizeMatched: 0,
          status: 'LIVE',
          orderType: e.orderType as OrderType,
          createdAtMs: e.createdAtMs,
          expirationSec: 0,
          trades: [],
        };
        this.remember(rec);
      }
      rec.sizeMatched = e.sizeMatched;
      this.setStatus(rec, e.status);
      for (const t of e.associateTrades) if (!rec.trades.includes(t)) rec.trades.push(t);
      this.emitOrder(rec, e.kind);
      return;
    }
    if (e.status !== 'MATCHED') return; // CONFIRMED follows from record(), after the confirm delay
    const mine = e.traderSide === 'MAKER' ? e.makerOrders.find((x) => x.owner === owner) : undefined;
    const confirmed = this.settle(owner, mine ? mine.assetId : e.assetId, mine?.side ?? (e.traderSide === 'MAKER' ? (e.side === 'BUY' ? 'SELL' : 'BUY') : e.side), mine ? mine.price : e.price, e.size);
    const taker = this.orders.get(e.takerOrderId);
    if (taker && taker.owner === owner && !taker.trades.includes(e.tradeId)) taker.trades.push(e.tradeId);
    this.record(
      {
        key: `${e.tradeId}:${e.traderSide === 'MAKER' ? 'M' : 'T'}`,
        id: e.tradeId,
        owner,
        traderSide: e.traderSide ?? 'TAKER', // the simulated venue's trades always name it
        takerOrderId: e.takerOrderId,
        market: m,
        assetId: e.assetId,
        side: e.side,
        price: e.price,
        size: e.size,
        status: 'MATCHED',
        matchTimeMs: e.matchTimeMs,
        lastUpdateMs: e.matchTimeMs,
        makerOrders: e.makerOrders.map((x) => ({
          order_id: x.orderId,
          owner: x.owner,
          maker_address: this.makerAddress(x.owner),
          matched_amount: formatSize(x.matchedAmount),
          price: m.frames.price(x.price),
          fee_rate_bps: String(x.feeRateBps),
          asset_id: x.assetId,
          outcome: x.outcome,
          side: x.side ?? (e.side === 'BUY' ? 'SELL' : 'BUY'),
        })),
      },
      confirmed,
    );
  }

  orderJson(o: UserOrder): Record<string, unknown> {
    return orderWire(o, this.outcomeName(o.assetId), this.makerAddress(o.owner));
  }

  tradeJson(t: UserTrade): Record<string, unknown> {
    return tradeWire(t, this.outcomeName(t.assetId), this.makerAddress(t.owner));
  }

  private emit(owner: string, market: EmuMarket, obj: Record<string, unknown>): void {
    const f: UserFrame = { owner, conditionId: market.conditionId, text: JSON.stringify(obj) };
    for (const fn of this.listeners) fn(f);
  }

  private emitOrder(o: UserOrder, type: 'PLACEMENT' | 'UPDATE' | 'CANCELLATION'): void {
    const j = this.orderJson(o);
    this.emit(o.owner, o.market, {
      ...j,
      event_type: 'order',
      type,
      order_owner: o.owner,
      associate_trades: o.trades.length ? o.trades : null,
      created_at: String(j.created_at),
      timestamp: String(Math.floor(o.market.time())),
    });
  }

  private emitTrade(t: UserTrade): void {
    this.emit(t.owner, t.market, { ...this.tradeJson(t), event_type: 'trade', type: 'TRADE', trade_owner: t.owner, timestamp: String(Math.floor(t.lastUpdateMs)) });
  }

  private gone(o: RestingOrder, status: 'CANCELED'): void {
    const rec = this.orders.get(o.orderId);
    if (!rec || rec.status !== 'LIVE') return;
    this.setStatus(rec, status);
    this.emitOrder(rec, 'CANCELLATION');
  }

  /** A confirmed buy's shares counted `lagMs` later, or at a refresh of the owner's balance of the token. */
  private lag(owner: string, tokenId: string, count: () => void, lagMs: number): void {
    const key = `${owner}|${tokenId}`;
    let list = this.lagging.get(key);
    if (!list) this.lagging.set(key, (list = []));
    const waiting = list;
    let done = false;
    const once = (): void => {
      if (done) return;
      done = true;
      count();
      const i = waiting.indexOf(once);
      if (i >= 0) waiting.splice(i, 1);
      if (!waiting.length && this.lagging.get(key) === waiting) this.lagging.delete(key);
    };
    waiting.push(once);
    this.clock.schedule(this.clock.now() + lagMs, once);
  }

  /**
   * GET /balance-allowance/update (CONDITIONAL): the venue re-reads the owner's balance of the
   * token, so the shares of every confirmed buy count now, lag or not.
   */
  refreshBalance(owner: string, tokenId: string): void {
    const list = this.lagging.get(`${owner}|${tokenId}`);
    if (list) for (const f of list.slice()) f();
  }

  /** Moves shares and cash at the match; a BUY's shares stay unconfirmed until `confirmed` is called (record). */
  private settle(owner: string, tokenId: string, side: Side, price: number, size: number): Confirm | undefined {
    const a = this.account(owner);
    const sign = side === 'BUY' ? 1 : -1;
    a.positions.set(tokenId, (a.positions.get(tokenId) ?? 0) + sign * size);
    a.cashMicros -= sign * price * size;
    if (side !== 'BUY') return undefined;
    if (a.allowanceMicros !== Infinity) a.allowanceMicros = Math.max(0, a.allowanceMicros - price * size);
    a.unconfirmedBuys.set(tokenId, (a.unconfirmedBuys.get(tokenId) ?? 0) + size);
    const confirm = (): void => {
      const left = (a.unconfirmedBuys.get(tokenId) ?? 0) - size;
      if (left > 0) a.unconfirmedBuys.set(tokenId, left);
      else a.unconfirmedBuys.delete(tokenId);
    };
    return Object.assign(confirm, { tokenId });
  }

  private onFills(market: EmuMarket, fills: MatchFill[]): void {
    const now = market.time();
    for (const f of fills) {
      const makerIsUser = !f.makerOwner.startsWith(SYNTHETIC_OWNER_PREFIX);
      const takerIsUser = !f.takerOwner.startsWith(SYNTHETIC_OWNER_PREFIX);
      if (!makerIsUser && !takerIsUser) continue;
      const fails = this.takeTradeFailure();
      const makerPart: MakerPart = {
        order_id: f.makerOrderId,
        owner: f.makerOwner,
        maker_address: this.makerAddress(f.makerOwner),
        matched_amount: formatSize(f.size),
        price: market.frames.price(f.makerPrice),
        fee_rate_bps: '0',
        asset_id: f.makerTokenId,
        outcome: this.outcomeName(f.makerTokenId),
        side: f.makerSide,
      };
      const base = {
        id: f.tradeId,
        takerOrderId: f.takerOrderId,
        market,
        assetId: f.takerTokenId,
        side: f.takerSide,
        price: f.takerPrice,
        size: f.size,
        status: 'MATCHED' as const,
        matchTimeMs: f.timeMs || now,
        lastUpdateMs: f.timeMs || now,
        makerOrders: [makerPart],
      };
      if (makerIsUser) {
        const rec = this.orders.get(f.makerOrderId);
        const confirmed = this.settle(f.makerOwner, f.makerTokenId, f.makerSide, f.makerPrice, f.size);
        const undo = fails ? () => this.unsettle(f.makerOwner, f.makerTokenId, f.makerSide, f.makerPrice, f.size) : undefined;
        this.record({ ...base, key: `${f.tradeId}:M`, owner: f.makerOwner, traderSide: 'MAKER' }, confirmed, undo);
        if (rec) {
          rec.sizeMatched += f.size;
          rec.trades.push(f.tradeId);
          if (rec.sizeMatched >= rec.originalSize) this.setStatus(rec, 'MATCHED');
          this.emitOrder(rec, 'UPDATE');
        }
      }
      if (takerIsUser) {
        const rec = this.orders.get(f.takerOrderId);
        const confirmed = this.settle(f.takerOwner, f.takerTokenId, f.takerSide, f.takerPrice, f.size);
        const undo = fails ? () => this.unsettle(f.takerOwner, f.takerTokenId, f.takerSide, f.takerPrice, f.size) : undefined;
        this.record({ ...base, key: `${f.tradeId}:T`, owner: f.takerOwner, traderSide: 'TAKER' }, confirmed, undo);
        if (rec) {
          rec.sizeMatched += f.size;
          rec.trades.push(f.tradeId);
          if (rec.sizeMatched >= rec.originalSize) this.setStatus(rec, 'MATCHED');
        }
      }
    }
  }

  /** What settle moved, moved back (a trade that failed on chain). */
  private unsettle(owner: string, tokenId: string, side: Side, price: number, size: number): void {
    const a = this.account(owner);
    const sign = side === 'BUY' ? 1 : -1;
    a.positions.set(tokenId, (a.positions.get(tokenId) ?? 0) - sign * size);
    a.cashMicros += sign * price * size;
    if (side !== 'BUY') return;
    if (a.allowanceMicros !== Infinity) a.allowanceMicros += price * size;
    const left = (a.unconfirmedBuys.get(tokenId) ?? 0) - size;
    if (left > 0) a.unconfirmedBuys.set(tokenId, left);
    else a.unconfirmedBuys.delete(tokenId);
  }

  private record(t: UserTrade, confirmed: Confirm | undefined, failed?: () => void): void {
    this.trades.push(t);
    if (this.trades.length > HISTORY) this.trades.splice(0, this.trades.length - HISTORY);
    this.emitTrade(t);
    if (failed) {
      // on chain it fails: RETRYING half way, then FAILED, what it moved moved back
      const step = (status: 'RETRYING' | 'FAILED', atMs: number): void => {
        this.clock.schedule(atMs, () => {
          t.status = status;
          t.lastUpdateMs = t.market.time();
          if (status === 'FAILED') failed();
          this.emitTrade(t);
        });
      };
      step('RETRYING', this.clock.now() + this.confirmDelayMs / 2);
      step('FAILED', this.clock.now() + this.confirmDelayMs);
      return;
    }
    this.clock.schedule(this.clock.now() + this.confirmDelayMs, () => {
      // a trade failed meanwhile (a test, an admin) stays failed: only a MATCHED one is confirmed
      if (t.status !== 'MATCHED') return;
      const lag = this.balanceLagMs();
      if (confirmed && lag > 0) this.lag(t.owner, confirmed.tokenId, confirmed, lag);
      else confirmed?.();
      t.status = 'CONFIRMED';
      t.lastUpdateMs = t.market.time();
      this.emitTrade(t);
    });
  }
}
