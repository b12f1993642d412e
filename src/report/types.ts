// The figures a backtest reports and the series its charts draw (see stats.ts for how they are
// computed). Money in dollars rounded to the micro-dollar, sizes in shares, prices 0..1.
import type { Side } from '../core/events.js';
import type { SeriesPoint } from './series.js';

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
  /** Point budget per chart series. */
  maxPoints?: number;
  /** Fill markers kept for the price chart. */
  maxFillMarks?: number;
  /** Interval of the Sharpe-like ratio, virtual ms. */
  ratioIntervalMs?: number;
}

export interface PnlFigures {
  /** Dollars. Realized on the average-cost basis. */
  realized: number;
  unrealized: number;
  fees: number;
  /** realized + unrealized - fees. */
  total: number;
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
}

export interface StatsResult {
  startMs: number;
  endMs: number;
  total: TotalResult;
  tokens: TokenResult[];
}

export interface FillMark {
  t: number;
  tokenId: string;
  side: Side;
  price: number;
  size: number;
}

export interface ChartData {
  equity: SeriesPoint[];
  inventory: Array<{ tokenId: string; points: SeriesPoint[] }>;
  prices: Array<{ tokenId: string; mid: SeriesPoint[]; bid: SeriesPoint[]; ask: SeriesPoint[] }>;
  fills: FillMark[];
  fillsTotal: number;
}
