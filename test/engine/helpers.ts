// Test helpers: real books (DenseBook) and a recording venue that answers like the REST API.
import { DenseBook } from '../../src/book/book.js';
import { BookMirror } from '../../src/book/mirror.js';
import { MarketPipeline, type FeedVenue, type MarketEventSink } from '../../src/feed/market-pipeline.js';
import { createMarketDecodeStats } from '../../src/feed/decode-market.js';
import type { MarketEvent } from '../../src/core/events.js';
import { Engine, type EngineOptions } from '../../src/engine/engine.js';
import { SeededRng } from '../../src/core/rng.js';
import { silentLogger } from '../../src/core/log.js';
import { formatPrice, formatSize } from '../../src/core/units.js';
import type { BookEvent, WireLevel, UserEvent, UserOrderEvent, UserTradeEvent } from '../../src/core/events.js';
import type { Venue, OrderRequest, PlaceResult, CancelResult, VenueOrder, VenueTrade } from '../../src/venue/types.js';
import { Limiter, type LimiterOptions } from '../../src/api/limiter.js';
import { OrderScheduler, type SchedulerOptions, type SchedulerSink } from '../../src/engine/scheduler.js';
import { VirtualClock } from '../../src/core/clock.js';
import { loadConfig, type Config } from '../../src/config.js';
import { loadStrategy } from '../../src/strategy/loader.js';
import type { TrackedOrder } from '../../src/engine/orders.js';
import type { MarketMeta } from '../../src/engine/strategy.js';
import type { RiskInputs } from '../../src/engine/risk.js';

export function lv(price: number, size: number): WireLevel {
  return { price, size, priceStr: formatPrice(price), sizeStr: formatSize(size) };
}

/** The test market: YES and NO tokens of one condition id. */
export const Y = '111';
export const N = '222';
export const M = '0xmarket';

export interface BookShape {
  /** Size units at every level (default 10_000 = 100 shares). */
  size?: number;
  /** Tick in price units (default 100 = 0.01); the second level sits one tick behind the touch. */
  tick?: number;
  /** Levels per side: 2 (the touch and one behind, default) or 1. */
  depth?: 1 | 2;
}

/** A book event of one token of market M with its touch at bid/ask (price units). */
export function bookEv(asset: string, bid: number, ask: number, t: number, o: BookShape = {}): BookEvent {
  const size = o.size ?? 10_000;
  const tick = o.tick ?? 100;
  const two = (o.depth ?? 2) === 2;
  return {
    type: 'book',
    market: M,
    assetId: asset,
    timestampMs: t,
    timestampStr: String(t),
    hash: '',
    bids: two ? [lv(bid - tick, size), lv(bid, size)] : [lv(bid, size)],
    asks: two ? [lv(ask + tick, size), lv(ask, size)] : [lv(ask, size)],
    tickSize: tick,
    tickSizeStr: formatPrice(tick),
  };
}

/** Levels of one side as [price, size] pairs (price and size units), in any order. */
export type Levels = Array<[number, number]>;
/** An external market around 0.50: bids 0.47 x 5000 and 0.48 x 3000, asks 0.52 x 3000 and 0.53 x 5000. */
export const EXTERNAL_BIDS: Levels = [
  [4700, 5000],
  [4800, 3000],
];
export const EXTERNAL_ASKS: Levels = [
  [5200, 3000],
  [5300, 5000],
];
/**
 * Bands params under which only our bid rests: fair = mid, bid 0.01 under it; maxPrice 0.5095
 * drops the ask (fair + 0.01 > 0.5095) while fair stays quotable, so a book around 0.50 holds our
 * bid 0.49 x 10 alone.
 */
export const BID_ONLY_BANDS = { fair: 'mid', bands: [{ distance: 0.01, size: 10 }], skewPerShare: 0, minSpread: 0.01, maxPrice: 0.5095 };

/** A book event of `asset` on `market` with these levels, sent as the wire orders them (bids ascending, asks descending). */
export function levelsBook(market: string, asset: string, bids: Levels, asks: Levels, t: number, tick = 100): BookEvent {
  const wire = (levels: Levels, ascending: boolean): WireLevel[] => [...levels].sort((a, b) => (ascending ? a[0] - b[0] : b[0] - a[0])).map(([p, s]) => lv(p, s));
  return {
    type: 'book',
    market,
    assetId: asset,
    timestampMs: t,
    timestampStr: String(t),
    hash: '',
    bids: wire(bids, true),
    asks: wire(asks, false),
    tickSize: tick,
    tickSizeStr: formatPrice(tick),
  };
}

/** `yes`'s book with these levels and the `no` book mirroring it (bid 1 - ask, ask 1 - bid). */
export function mirroredBooks(market: string, yes: string, no: string, bids: Levels, asks: Levels, t: number, tick = 100): BookEvent[] {
  const flip = (levels: Levels): Levels => levels.map(([p, s]) => [10_000 - p, s]);
  return [levelsBook(market, yes, bids, asks, t, tick), levelsBook(market, no, flip(asks), flip(bids), t, tick)];
}

/** Both tokens' books for a YES bid/ask: the NO book is its mirror (bid 1 - ask, ask 1 - bid). */
export function books(bid: number, ask: number, t: number, o: BookShape = {}): BookEvent[] {
  return [bookEv(Y, bid, ask, t, o), bookEv(N, 10_000 - ask, 10_000 - bid, t, o)];
}

/** A synced book: bids and asks as [price, size] pairs (any order), tick in price units. */
export function makeBook(assetId: string, bids: Array<[number, number]>, asks: Array<[number, number]>, nowMs = 0, tick = 100): DenseBook {
  const b = new DenseBook(assetId);
  b.loadSnapshot(
    bids.sort((x, y) => x[0] - y[0]).map(([p, s]) => lv(p, s)),
    asks.sort((x, y) => y[0] - x[0]).map(([p, s]) => lv(p, s)),
    nowMs,
  );
  b.tick = tick;
  b.setInSync(true);
  return b;
}

/** Records every call; answers each order 'live' with a fresh id unless told otherwise. */
export class RecordingVenue implements Venue {
  /** Tests of the mark set this to play a real venue whose books show our orders. */
  booksIncludeOwnOrders = false;
  /** Tests of a venue charging makers nothing (Polymarket) set this. */
  makersPayNoFee = false;
  calls: Array<{ kind: string; t: number; n: number; ids?: string[]; reqs?: OrderRequest[] }> = [];
  private seq = 0;
  private listener: ((e: UserEvent) => void) | undefined;
  live = new Map<string, OrderRequest>();
  /** Override to reject or throw. */
  answer: (r: OrderRequest) => PlaceResult = (r) => ({ clientId: r.clientId, ok: true, orderId: `o${++this.seq}`, status: 'live' });
  throwOnPlace: Error | undefined;
  constructor(private readonly now: () => number = () => 0) {}
  async placeOrders(orders: OrderRequest[]): Promise<PlaceResult[]> {
    this.calls.push({ kind: 'placeOrders', t: this.now(), n: orders.length, reqs: orders });
    if (this.throwOnPlace) throw this.throwOnPlace;
    const res = orders.map((o) => this.answer(o));
    res.forEach((r, i) => r.ok && r.orderId && this.live.set(r.orderId, orders[i]));
    return res;
  }
  async placeOrder(order: OrderRequest): Promise<PlaceResult> {
    this.calls.push({ kind: 'placeOrder', t: this.now(), n: 1, reqs: [order] });
    if (this.throwOnPlace) throw this.throwOnPlace;
    const r = this.answer(order);
    if (r.ok && r.orderId) this.live.set(r.orderId, order);
    return r;
  }
  private cancel(ids: string[]): CancelResult {
    const res: CancelResult = { canceled: [], notCanceled: {} };
    for (const id of ids) {
      if (this.live.delete(id)) res.canceled.push(id);
      else res.notCanceled[id] = 'not found';
    }
    return res;
  }
  async cancelOrders(ids: string[]): Promise<CancelResult> {
    this.calls.push({ kind: 'cancelOrders', t: this.now(), n: ids.length, ids });
    return this.cancel(ids);
  }
  async cancelOrder(id: string): Promise<CancelResult> {
    this.calls.push({ kind: 'cancelOrder', t: this.now(), n: 1, ids: [id] });
    return this.cancel([id]);
  }
  async cancelAll(): Promise<CancelResult> {
    this.calls.push({ kind: 'cancelAll', t: this.now(), n: this.live.size });
    return this.cancel([...this.live.keys()]);
  }
  async cancelMarket(): Promise<CancelResult> {
    return { canceled: [], notCanceled: {} };
  }
  async openOrders(): Promise<VenueOrder[]> {
    return [];
  }
  async trades(_sinceMs?: number): Promise<VenueTrade[]> {
    return [];
  }
  onUserEvent(l: (e: UserEvent) => void): void {
    this.listener = l;
  }
  emit(e: UserEvent): void {
    this.listener?.(e);
  }
  async close(): Promise<void> {}
}

/** Lets pending promise callbacks run. */
/** Waits (5 ms polls, real time: performance.now, which a test stepping Date.now() does not move) until `ok`; throws past `ms`. */
export async function until(what: string, ok: () => boolean, ms = 3000): Promise<void> {
  const end = performance.now() + ms;
  while (!ok()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await Promise.resolve();
}

/** Market events through the one market pipeline: the venue (when it keeps its own books), then the mirror and the engine. */
export function deliver(mirror: BookMirror, engine: MarketEventSink, events: readonly MarketEvent[], venue?: FeedVenue): void {
  const p = new MarketPipeline({ mirror, stats: createMarketDecodeStats() });
  p.connect({ venue, engine });
  p.dispatch(1, events);
}

/** An engine with the tests' defaults: seed 1, a silent logger, the limiter use recorded (a simulated venue). */
export function testEngine(o: Omit<EngineOptions, 'rng' | 'log' | 'recordLimiterUse'> & Partial<Pick<EngineOptions, 'rng' | 'log' | 'recordLimiterUse'>>): Engine {
  return new Engine({ rng: new SeededRng(1), log: silentLogger, recordLimiterUse: true, ...o });
}

/**
 * The engine of most engine tests: the bands strategy with `params` on the test market (`meta`,
 * tick 0.01 unless given), a fresh unverified mirror, the default risk and scheduler settings
 * (`reconciler` and `risk` override keys of them), and every change requoted (debounce 0);
 * `more` adds or overrides engine options.
 */
export async function bandsEngine(
  o: {
    clock: EngineOptions['clock'];
    venue: Venue;
    params: Record<string, unknown>;
    meta?: MarketMeta;
    reconciler?: Partial<Config['reconciler']>;
    risk?: Partial<Config['risk']>;
  } & Partial<Omit<EngineOptions, 'clock' | 'venue'>>,
): Promise<{ engine: Engine; mirror: BookMirror }> {
  const { clock, venue, params, meta, reconciler, risk, ...more } = o;
  const cfg = loadConfig({ env: {} });
  const mirror = new BookMirror({ verifyEvery: 0, now: () => clock.now() });
  const engine = testEngine({
    clock,
    venue,
    limiter: new Limiter({ clock }),
    books: mirror,
    strategy: await loadStrategy('bands', params),
    config: { reconciler: { ...cfg.reconciler, debounceMs: 0, ...reconciler }, risk: { ...cfg.risk, ...risk }, scheduler: cfg.scheduler },
    markets: [meta ?? { conditionId: M, tokenId: Y, complementId: N, tick: 100, minSize: 500, negRisk: false }],
    ...more,
  });
  return { engine, mirror };
}

/** The risk gate's view of an engine with no order, no position and no collateral cap, every token at mid `mid`; `over` replaces any part. */
export function emptyRiskInputs(mid: number, over: Partial<RiskInputs> = {}): RiskInputs {
  return {
    qty: () => 0,
    unreportedBuy: () => 0,
    unreportedSell: () => 0,
    unmined: () => 0,
    sellWaiting: () => false,
    openBuy: () => 0,
    openSell: () => 0,
    // a test that sets only openSell has no SELL on its way out
    openSellAll: over.openSell ?? (() => 0),
    openNotional: () => 0,
    openBuyCost: () => 0,
    collateral: () => Infinity,
    buyWaiting: () => false,
    openOrders: () => 0,
    mid: () => mid,
    ...over,
  };
}

/** A trade in which our resting order `orderId` (token Y, side `side`; by default 10 shares at 0.50) was the maker, at `status`. */
export function makerTrade(tradeId: string, orderId: string, side: 'BUY' | 'SELL', status: UserTradeEvent['status'], t: number, fill: { price?: number; size?: number } = {}): UserTradeEvent {
  const price = fill.price ?? 5000;
  const size = fill.size ?? 1000;
  return {
    type: 'trade',
    tradeId,
    takerOrderId: 'other',
    market: M,
    assetId: Y,
    side: side === 'BUY' ? 'SELL' : 'BUY',
    price,
    size,
    feeRateBps: 0,
    status,
    traderSide: 'MAKER',
    outcome: 'Yes',
    owner: 'k',
    makerOrders: [{ orderId, assetId: Y, price, matchedAmount: size, feeRateBps: 0, outcome: 'Yes', side, owner: 'k' }],
    matchTimeMs: t,
    timestampMs: t,
  };
}

/** The venue's order event saying `o` (one of ours, bound to its venue id) is all MATCHED, at `t`; its trade reported apart. */
export function matchedOrderEvent(o: TrackedOrder, t: number): UserOrderEvent {
  return {
    type: 'order',
    kind: 'UPDATE',
    orderId: o.orderId as string,
    market: o.market,
    assetId: o.tokenId,
    side: o.side,
    price: o.price,
    originalSize: o.size,
    sizeMatched: o.size,
    status: 'MATCHED',
    orderType: 'GTC',
    outcome: o.tokenId === Y ? 'Yes' : 'No',
    associateTrades: [],
    createdAtMs: 0,
    timestampMs: t,
  };
}

/** The venue's answer refusing an order for balance, in Polymarket's words. */
export function refusedForBalance(r: OrderRequest): PlaceResult {
  return { clientId: r.clientId, ok: false, error: 'INVALID_ORDER_NOT_ENOUGH_BALANCE', message: 'not enough balance / allowance' };
}

/** Has `venue` refuse its orders of `side` for balance while `on()` holds (always by default); the rest it answers as before. */
export function refuseForBalance(venue: RecordingVenue, side: 'BUY' | 'SELL', on: () => boolean = () => true): void {
  const answer = venue.answer;
  venue.answer = (r) => (on() && r.side === side ? refusedForBalance(r) : answer(r));
}

/**
 * An OrderScheduler in virtual time over a RecordingVenue, the limiter recording its use (as for a
 * simulated venue): its sink makes a request of each quote and otherwise does nothing (tests
 * override what they watch).
 */
export function schedulerRig(limiter: Omit<LimiterOptions, 'clock'> = {}, o: Partial<Pick<SchedulerOptions, 'singleOverflow' | 'log' | 'maxInFlight'>> = {}) {
  const clock = new VirtualClock(1_000_000);
  const lim = new Limiter({ clock, ...limiter });
  const venue = new RecordingVenue(() => clock.now());
  let n = 0;
  const sink: SchedulerSink = {
    preparePlaces: (qs) => qs.map((q): OrderRequest => ({ clientId: `c${n++}`, tokenId: q.tokenId, side: q.side, price: q.price, size: q.size, orderType: 'GTC', postOnly: true })),
    placed: () => {},
    placeFailed: () => {},
    notSent: () => {},
    prepareCancels: () => {},
    canceled: () => {},
    cancelFailed: () => {},
  };
  const s = new OrderScheduler({
    venue,
    limiter: lim,
    clock,
    log: o.log ?? silentLogger,
    sink,
    maxBatch: 15,
    singleOverflow: o.singleOverflow ?? true,
    recordUse: true,
    maxInFlight: o.maxInFlight ?? 1000,
  });
  return { clock, limiter: lim, venue, s, sink };
}

/** Risk limits for gate tests: roomy, with a quick error-rate breaker; `over` replaces any. */
export function riskConfig(over: Partial<Config['risk']> = {}): Config['risk'] {
  return {
    maxPositionPerToken: 1000,
    maxPositionPerMarket: 1000,
    maxTotalNotional: 100_000,
    maxOrderSize: 500,
    maxOpenOrders: 40,
    priceCollar: 0.1,
    staleBookMs: 1000,
    dailyLossLimit: 10,
    errorRateWindowMs: 10_000,
    errorRateMax: 0.5,
    errorRateMinSamples: 4,
    maxFeeRateBps: 1000,
    collateralReadMs: 30000,
    ...over,
  };
}

/** The one market of gate tests: Y and N, a cent tick, 5 shares minimum. */
export const GATE_MARKET: MarketMeta = { conditionId: 'm', tokenId: 'Y', complementId: 'N', tick: 100, minSize: 500, negRisk: false };

/** One band 0.02 from the mid, 10 shares, no skew: the engine tests' usual strategy. */
export const ONE_BAND = { fair: 'mid', bands: [{ distance: 0.02, size: 10 }], skewPerShare: 0 };

/** Two bands 0.02 and 0.04 from the mid, 10 shares each, no skew: two bids and two asks. */
export const TWO_BANDS = {
  fair: 'mid',
  bands: [
    { distance: 0.02, size: 10 },
    { distance: 0.04, size: 10 },
  ],
  skewPerShare: 0,
};

/** A bands engine (`params`, ONE_BAND by default) over the venue `makeVenue` gives, on books 0.49 / 0.51, started and settled: quoting. */
export async function quotingEngine<V extends Venue>(
  makeVenue: (now: () => number) => V,
  params: Record<string, unknown> = ONE_BAND,
): Promise<{ clock: VirtualClock; venue: V; engine: Engine; mirror: BookMirror }> {
  const clock = new VirtualClock(1_700_000_000_000);
  const venue = makeVenue(() => clock.now());
  const { engine, mirror } = await bandsEngine({ clock, venue, params });
  deliver(mirror, engine, books(4900, 5100, clock.now()));
  engine.start();
  await settle(10);
  return { clock, venue, engine, mirror };
}
