// The figures a backtest reports and the series its charts draw (see stats.ts for how they are
// computed). Money in dollars rounded to the micro-dollar, sizes in shares, prices 0..1.
import type { Side } from '../core/events.js';

export interface FillRecord {
  timeMs: number;
  tokenId: string;
  side: Side;
  /** Price units. */
  price: number;
  /** Size units. */
  size: number;
  /** Fee paid, micro-dollars (>= 0), as the engine's Fill carries it (src/engine/fills.ts). */
  fee: number;
  liquidity: 'MAKER' | 'TAKER';
  tradeId: string;
  orderId: string;
}

export interface StatsOptions {
  /** Point budget of the shared time axis (every chart series has at most this many buckets). */
  maxPoints?: number;
  /** Interval of the Sharpe-like ratio, virtual ms. */
  ratioIntervalMs?: number;
  /** Markout horizons, virtual ms (default 1 s, 10 s, 60 s). */
  markoutHorizonsMs?: number[];
}

/**
 * PnL in dollars, two ways that both add up to the total, to the micro-dollar:
 *   total = realized + unrealized - fees = spreadCapture + inventory - fees.
 */
export interface PnlFigures {
  /** Dollars. Realized on the average-cost basis. */
  realized: number;
  unrealized: number;
  /** Fees paid (>= 0). */
  fees: number;
  /** realized + unrealized - fees. */
  total: number;
  /**
   * What the fills earned against the mid when they happened: the sum over our fills of
   * (mid at the fill - fill price) x signed size (+size for a buy, -size for a sell). The mid is the
   * token's book mid as the engine saw it at the fill (our feed view); a fill before any mid counts 0.
   */
  spreadCapture: number;
  /**
   * Inventory mark-to-market: total - spreadCapture + fees, which is the sum over time of the
   * position held x each change of the mid (what holding the inventory gained or lost).
   */
  inventory: number;
}

/**
 * Markout of our fills at one horizon: how the token's mid moved in the `horizonMs` after each fill,
 * signed by side (mid(t + h) - mid(t) for a buy, mid(t) - mid(t + h) for a sell): positive = the
 * market moved our way, negative = adverse selection. Prices are mids as the engine saw them.
 */
export interface MarkoutFigures {
  horizonMs: number;
  /** Fills measured: a fill with no mid yet, or less than the horizon before the end of the run, is not. */
  fills: number;
  /** Size-weighted mean move, dollars per share (null when none measured). */
  meanMove: number | null;
  /** Median move over the measured fills (each fill counts once), dollars per share. */
  medianMove: number | null;
  /** Share of measured fills whose move was adverse (< 0). */
  adverseShare: number | null;
}

export interface InventoryFigures {
  /** Shares, signed, at the end. */
  final: number;
  /** Time-weighted mean of the signed position, shares. */
  mean: number;
  /** Largest |position| reached, shares. */
  max: number;
  /** Time-weighted mean of |position|, shares. */
  timeWeightedAbs: number;
}

export interface TokenResult {
  tokenId: string;
  pnl: PnlFigures;
  volume: { shares: number; notional: number };
  fills: number;
  makerFills: number;
  /** Maker fills / fills (0 when no fills). */
  makerShare: number;
  /**
   * Average edge of our fills against the mid at fill time, dollars per share, volume-weighted:
   * mid - price for buys, price - mid for sells (positive = bought below / sold above the mid).
   * null when no fill happened with a known mid.
   */
  fillEdge: number | null;
  inventory: InventoryFigures;
  /** Largest fall of this token's equity from its running peak, dollars. */
  maxDrawdown: number;
  /**
   * Share of the time since the token's first two-sided market during which we had both a bid and
   * an ask resting; null for a complement token (its market's quotes are counted on the priced token).
   */
  quoteUptime: number | null;
  orders: number;
  cancels: number;
  /** Last market mid, as a price (0..1); null when never seen. */
  lastMid: number | null;
  /** One per markout horizon. */
  markouts: MarkoutFigures[];
}

export interface TotalResult {
  pnl: PnlFigures;
  volume: { shares: number; notional: number };
  fills: number;
  makerFills: number;
  makerShare: number;
  /** As TokenResult.fillEdge, over every token. */
  fillEdge: number | null;
  maxDrawdown: number;
  /** Largest mark-to-mid value of all open inventory, sum of |position| x mid, dollars. */
  maxInventoryNotional: number;
  /** total PnL / maxInventoryNotional (null when we never held inventory). */
  pnlPerMaxInventory: number | null;
  /** mean / stdev of total equity changes over ratioIntervalMs intervals, not annualised (null below 2 intervals or zero stdev). */
  intervalSharpe: number | null;
  ratioIntervalMs: number;
  /** Mean of the quote uptimes of the tokens whose quotes are tracked. */
  quoteUptime: number;
  orders: number;
  cancels: number;
  /** One per markout horizon, over every token's fills. */
  markouts: MarkoutFigures[];
}

export interface StatsResult {
  startMs: number;
  endMs: number;
  total: TotalResult;
  tokens: TokenResult[];
}

/** A column of the shared time axis: one value per bucket, null where there is none (before the first value, or not quoted). */
export type Column = Array<number | null>;

/** A downsampled line: the value at each bucket's end and its low and high inside the bucket. */
export interface BandColumns {
  last: Column;
  min: Column;
  max: Column;
}

/** Our fills in one bucket of a market's chart, in the priced token's terms (a complement BUY at q is a SELL at 1 - q). */
export interface FillMarks {
  /** Bucket index on the shared axis. */
  k: number;
  buys: number;
  /** Shares. */
  buySize: number;
  /** Size-weighted price of the buys, 0..1 (null when none). */
  buyPrice: number | null;
  sells: number;
  sellSize: number;
  sellPrice: number | null;
}

export interface ChartData {
  /** The shared time axis: point k is the bucket [t0 + k x stepMs, t0 + (k + 1) x stepMs), n points. */
  t0: number;
  stepMs: number;
  n: number;
  /** The run's period (the x range every chart shows). */
  startMs: number;
  endMs: number;
  /** Total equity (PnL marked to mid, after fees), dollars. */
  equity: BandColumns;
  /** Equity minus its running peak, dollars (<= 0): the lowest value inside each bucket. */
  drawdown: Column;
  /** The PnL split over time (dollars, cumulative at each bucket's end): spread capture + inventory - fees = equity. */
  spreadCapture: Column;
  inventory: Column;
  fees: Column;
  /** Net exposure per market, YES-equivalent shares: position in the priced token minus position in its complement. */
  exposure: Array<{ tokenId: string; complementId?: string; values: Column }>;
  /** Per market, in the priced token's terms: its mid (0..1) with each bucket's range, our best bid and ask, our fills. */
  prices: Array<{ tokenId: string; complementId?: string; mid: BandColumns; bid: Column; ask: Column; fills: FillMarks[] }>;
  /** Every fill of ours (each counted in some bucket of `prices[].fills`). */
  fillsTotal: number;
  /** Per horizon, the distribution of the signed mid moves over the measured fills: [move in dollars per share, fills], ascending. */
  markouts: Array<{ horizonMs: number; moves: Array<[number, number]> }>;
}
