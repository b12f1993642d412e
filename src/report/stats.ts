// Backtest and run statistics, computed in one pass over a stream of marks (the market's top of
// book), our quotes, fills and order counts, all stamped with virtual time. Memory is constant:
// sums and running extremes only, plus bounded chart series on one shared time grid (series.ts)
// and the markouts' short queues (markouts.ts). Money is kept in micro-dollars (price units x size
// units, exact integers for cash); figures leave as dollars rounded to the micro-dollar, so the
// same stream always gives the same bytes.
//
// The PnL split (types.ts PnlFigures): at a fill of signed size q (+ buy, - sell) at price p with
// the mid at m, equity (cash + position x mid - fees) moves by q x (m - p) - fee: that is the
// fill's spread capture, less its fee. Between fills equity moves by position x (mid change): the
// inventory's mark-to-market. So total = spread capture + inventory - fees, and inventory is
// computed as the remainder, on whole micro-dollars, so the three add up to the total exactly.
import { BoundedSeries, FillBuckets, TimeGrid } from './series.js';
import { TokenTally, notional, round6, dollars, shares, ratio, pnl } from './token-state.js';
import { DEFAULT_MARKOUT_HORIZONS_MS, MarkoutSums, MarkoutTracker } from './markouts.js';
import type { BandColumns, ChartData, Column, FillMarks, FillRecord, MarkoutFigures, StatsOptions, StatsResult, TokenResult } from './types.js';
import { foldFill } from '../core/accounting.js';

export type * from './types.js';

export class StatsCollector {
  private readonly tokens = new Map<string, TokenTally>();
  /** complement token -> the market's priced token (charts show both in the priced token's terms). */
  private readonly complements = new Map<string, string>();
  /** priced token -> its complement. */
  private readonly pairs = new Map<string, string>();
  private readonly ratioIntervalMs: number;
  private readonly horizons: number[];
  /** The one time grid of every chart series. */
  private readonly grid: TimeGrid;
  private readonly equitySeries: BoundedSeries;
  private readonly drawdownSeries: BoundedSeries;
  private readonly spreadSeries: BoundedSeries;
  private readonly feesSeries: BoundedSeries;
  /** Net exposure per market (priced token), size units. */
  private readonly exposure = new Map<string, BoundedSeries>();
  /** Our fills per market (priced token), in its terms. */
  private readonly fillMarks = new Map<string, FillBuckets>();
  private fillsTotal = 0;
  private startMs = NaN;
  private nowMs = NaN;
  private endMs = NaN;
  private equity = 0; // micros, all tokens
  private spread = 0; // micros, all tokens: spread capture so far
  private fees = 0; // micros, all tokens
  private peak = 0;
  private drawdown = 0;
  private invNotional = 0; // micros, sum |pos| x mid
  private maxInvNotional = 0;
  /** Time of the totals' last change not yet checked (checkTotals), NaN when none. */
  private repricedAt = NaN;
  private nextSampleAt = NaN;
  private lastSampleEquity = 0;
  private nSamples = 0;
  private meanDiff = 0;
  private m2Diff = 0;

  constructor(opts: StatsOptions = {}) {
    this.ratioIntervalMs = opts.ratioIntervalMs ?? 60_000;
    this.horizons = opts.markoutHorizonsMs ?? DEFAULT_MARKOUT_HORIZONS_MS;
    this.grid = new TimeGrid(opts.maxPoints ?? 2000);
    this.equitySeries = new BoundedSeries(this.grid);
    this.drawdownSeries = new BoundedSeries(this.grid);
    this.spreadSeries = new BoundedSeries(this.grid);
    this.feesSeries = new BoundedSeries(this.grid);
  }

  private token(id: string): TokenTally {
    let s = this.tokens.get(id);
    if (!s) {
      s = new TokenTally(id, this.grid, new MarkoutTracker(this.horizons));
      this.tokens.set(id, s);
    }
    return s;
  }

  private exposureSeries(priced: string): BoundedSeries {
    let x = this.exposure.get(priced);
    if (!x) {
      x = new BoundedSeries(this.grid);
      this.exposure.set(priced, x);
    }
    return x;
  }

  /** Moves the collector's time to t (monotone), closing any ratio intervals passed. */
  private at(t: number): void {
    if (Number.isNaN(this.startMs)) {
      this.startMs = t;
      this.nextSampleAt = t + this.ratioIntervalMs;
      this.equitySeries.add(t, 0);
    }
    if (Number.isNaN(this.nowMs) || t > this.nowMs) {
      this.checkTotals();
      this.nowMs = t;
    }
    while (this.nextSampleAt <= t) {
      const d = this.equity - this.lastSampleEquity;
      this.lastSampleEquity = this.equity;
      this.nSamples++;
      const delta = d - this.meanDiff;
      this.meanDiff += delta / this.nSamples;
      this.m2Diff += delta * (d - this.meanDiff);
      this.nextSampleAt += this.ratioIntervalMs;
    }
  }

  /** Replaces one token's equity contribution; the totals are checked once the instant is over (checkTotals). */
  private reprice(s: TokenTally, t: number, before: number, notionalBefore: number): void {
    this.equity += s.equity() - before;
    this.invNotional += notional(s) - notionalBefore;
    s.noteEquity();
    this.repricedAt = t;
  }

  /**
   * Peak, drawdown, inventory peak and the equity chart, from the totals after every change of one
   * instant: a frame repricing YES and then NO (a hedged pair) passes through a state that never
   * was, one token moved and not the other, and would show as a drawdown and a spike.
   */
  private checkTotals(): void {
    const t = this.repricedAt;
    if (Number.isNaN(t)) return;
    this.repricedAt = NaN;
    if (this.invNotional > this.maxInvNotional) this.maxInvNotional = this.invNotional;
    if (this.equity > this.peak) this.peak = this.equity;
    if (this.peak - this.equity > this.drawdown) this.drawdown = this.peak - this.equity;
    this.equitySeries.add(t, this.equity);
    this.drawdownSeries.add(t, this.equity - this.peak);
  }

  /** The market's top of book for a token (price units, -1 for an empty side). */
  mark(tokenId: string, t: number, bestBid: number, bestAsk: number): void {
    this.at(t);
    const s = this.token(tokenId);
    if (bestBid < 0 || bestAsk < 0) return;
    const mid = (bestBid + bestAsk) / 2;
    if (Number.isNaN(s.firstMarkT)) {
      s.firstMarkT = t;
      s.advance(t);
    }
    if (mid === s.mid) return;
    // the old mid was in force until now: fills due before t are measured with it
    s.markouts.settle(t, s.mid);
    s.midSeries.add(t, mid);
    if (s.pos === 0 && !Number.isNaN(s.mid)) {
      s.mid = mid;
      return;
    }
    const before = s.equity();
    const nb = notional(s);
    s.mid = mid;
    this.reprice(s, t, before, nb);
  }

  /** Declares a binary market's pair: quotes are tracked on `tokenId`, charts map the complement onto it. */
  market(tokenId: string, complementId: string, t?: number): void {
    this.complements.set(complementId, tokenId);
    this.pairs.set(tokenId, complementId);
    const s = this.token(tokenId);
    const c = this.token(complementId);
    s.quotesTracked = true;
    // the inventory and exposure lines start flat at zero when the market appears
    if (t !== undefined) {
      for (const x of [s, c]) if (x.posSeries.length === 0) x.posSeries.add(t, 0);
      const e = this.exposureSeries(tokenId);
      if (e.length === 0) e.add(t, s.pos - c.pos);
    }
  }

  /** Our best resting bid and ask on a token (price units, -1 when none). */
  quotes(tokenId: string, t: number, ourBid: number, ourAsk: number): void {
    this.at(t);
    const s = this.token(tokenId);
    s.quotesTracked = true;
    if (ourBid === s.ourBid && ourAsk === s.ourAsk) return;
    s.advance(t);
    s.ourBid = ourBid;
    s.ourAsk = ourAsk;
    s.bidSeries.add(t, ourBid >= 0 ? ourBid : NaN);
    s.askSeries.add(t, ourAsk >= 0 ? ourAsk : NaN);
  }

  fill(f: FillRecord): void {
    // a fill reported after later events (feed or user latency: the venue matched it before what
    // our view has shown since) counts from when we knew: the series and markouts stay in order
    const t = Number.isNaN(this.nowMs) || f.timeMs > this.nowMs ? f.timeMs : this.nowMs;
    this.at(t);
    const s = this.token(f.tokenId);
    s.advance(t);
    const before = s.equity();
    const nb = notional(s);
    const cost = f.price * f.size;
    s.cash += f.side === 'BUY' ? -cost : cost;
    s.fees += f.fee;
    foldFill(s.basis, f.side, f.price, f.size);
    if (Math.abs(s.pos) > s.maxAbs) s.maxAbs = Math.abs(s.pos);
    s.volume += f.size;
    s.notional += cost;
    s.fills++;
    if (f.liquidity === 'MAKER') s.makerFills++;
    if (!Number.isNaN(s.mid)) {
      // spread capture: (mid - price) x signed size
      const spread = (f.side === 'BUY' ? s.mid - f.price : f.price - s.mid) * f.size;
      s.edgeSum += spread;
      s.edgeVol += f.size;
      this.spread += spread;
    }
    this.fees += f.fee;
    s.markouts.fill(t, f.side, f.size, s.mid);
    s.posSeries.add(t, s.pos / 100);
    // the market's net exposure and fill marks, in its priced token's terms
    const priced = this.complements.get(f.tokenId);
    if (priced === undefined) {
      this.exposureSeries(f.tokenId).add(t, s.pos - this.posOf(this.pairs.get(f.tokenId)));
      this.marks(f.tokenId).add(t, f.side, f.price, f.size);
    } else {
      this.exposureSeries(priced).add(t, this.posOf(priced) - s.pos);
      // a BUY of the complement at q is a SELL of the priced token at 1 - q
      this.marks(priced).add(t, f.side === 'BUY' ? 'SELL' : 'BUY', 10_000 - f.price, f.size);
    }
    this.fillsTotal++;
    this.reprice(s, t, before, nb);
    this.spreadSeries.add(t, this.spread);
    this.feesSeries.add(t, this.fees);
  }

  private posOf(id: string | undefined): number {
    const s = id === undefined ? undefined : this.tokens.get(id);
    return s ? s.pos : 0;
  }

  private marks(priced: string): FillBuckets {
    let m = this.fillMarks.get(priced);
    if (!m) {
      m = new FillBuckets(this.grid);
      this.fillMarks.set(priced, m);
    }
    return m;
  }

  order(tokenId: string, n = 1): void {
    this.token(tokenId).orders += n;
  }
  cancel(tokenId: string, n = 1): void {
    this.token(tokenId).cancels += n;
  }

  /** Closes the books at endMs (the time of the last event) and returns the figures. */
  finish(endMs?: number): StatsResult {
    const end = endMs ?? (Number.isNaN(this.nowMs) ? 0 : this.nowMs);
    if (!Number.isNaN(this.startMs)) this.at(end);
    this.checkTotals();
    this.endMs = end;
    const start = Number.isNaN(this.startMs) ? end : this.startMs;
    const tokens: TokenResult[] = [];
    const tot = { edgeSum: 0, edgeVol: 0, realized: 0, unrealized: 0, fees: 0, volume: 0, notional: 0, fills: 0, maker: 0, orders: 0, cancels: 0, uptime: 0, quotedTokens: 0 };
    const markouts = this.horizons.map(() => new MarkoutSums());
    for (const id of [...this.tokens.keys()].sort()) {
      const s = this.tokens.get(id) as TokenTally;
      s.advance(end);
      // the mid in force at the end measures the fills due by then
      s.markouts.settle(end, s.mid, true);
      s.markouts.sums.forEach((m, i) => markouts[i].merge(m));
      const span = Number.isNaN(s.firstMarkT) ? 0 : end - s.firstMarkT;
      const whole = end - start;
      const unrealized = Number.isNaN(s.mid) ? 0 : s.mid * s.pos - s.basis.cost;
      const uptime = s.quotesTracked ? (span > 0 ? s.quotedTime / span : 0) : null;
      tokens.push({
        tokenId: id,
        pnl: pnl(s.realized, unrealized, s.fees, s.edgeSum),
        volume: { shares: shares(s.volume), notional: dollars(s.notional) },
        fills: s.fills,
        makerFills: s.makerFills,
        makerShare: ratio(s.makerFills, s.fills),
        fillEdge: s.edgeVol > 0 ? round6(s.edgeSum / s.edgeVol / 10_000) : null,
        inventory: {
          final: shares(s.pos),
          mean: whole > 0 ? round6(s.posTime / whole / 100) : 0,
          max: shares(s.maxAbs),
          timeWeightedAbs: whole > 0 ? round6(s.absTime / whole / 100) : 0,
        },
        maxDrawdown: dollars(s.drawdown),
        quoteUptime: uptime === null ? null : round6(uptime),
        orders: s.orders,
        cancels: s.cancels,
        lastMid: Number.isNaN(s.mid) ? null : round6(s.mid / 10_000),
        markouts: s.markouts.figures(),
      });
      tot.realized += s.realized;
      tot.unrealized += unrealized;
      tot.fees += s.fees;
      tot.volume += s.volume;
      tot.notional += s.notional;
      tot.fills += s.fills;
      tot.maker += s.makerFills;
      tot.edgeSum += s.edgeSum;
      tot.edgeVol += s.edgeVol;
      tot.orders += s.orders;
      tot.cancels += s.cancels;
      if (uptime !== null) {
        tot.uptime += uptime;
        tot.quotedTokens++;
      }
    }
    const totalPnl = pnl(tot.realized, tot.unrealized, tot.fees, tot.edgeSum);
    this.markoutSums = markouts;
    const sd = this.nSamples >= 2 ? Math.sqrt(this.m2Diff / (this.nSamples - 1)) : 0;
    return {
      startMs: start,
      endMs: end,
      total: {
        pnl: totalPnl,
        volume: { shares: shares(tot.volume), notional: dollars(tot.notional) },
        fills: tot.fills,
        makerFills: tot.maker,
        makerShare: ratio(tot.maker, tot.fills),
        fillEdge: tot.edgeVol > 0 ? round6(tot.edgeSum / tot.edgeVol / 10_000) : null,
        maxDrawdown: dollars(this.drawdown),
        maxInventoryNotional: dollars(this.maxInvNotional),
        pnlPerMaxInventory: this.maxInvNotional > 0 ? round6((tot.realized + tot.unrealized - tot.fees) / this.maxInvNotional) : null,
        intervalSharpe: sd > 0 ? round6(this.meanDiff / sd) : null,
        ratioIntervalMs: this.ratioIntervalMs,
        quoteUptime: tot.quotedTokens ? round6(tot.uptime / tot.quotedTokens) : 0,
        orders: tot.orders,
        cancels: tot.cancels,
        markouts: markouts.map((m, i): MarkoutFigures => m.figures(this.horizons[i])),
      },
      tokens,
    };
  }

  /** Every token's markouts merged, as of the last finish(). */
  private markoutSums: MarkoutSums[] = [];

  /**
   * The chart data on one time axis (dollars, shares, prices 0..1), after finish(): every series
   * cut into the same buckets of the shared grid, at most maxPoints of them.
   */
  charts(): ChartData {
    const end = Number.isNaN(this.endMs) ? (Number.isNaN(this.nowMs) ? 0 : this.nowMs) : this.endMs;
    const n = this.grid.count(end);
    const g = this.grid;
    const ids = [...this.tokens.keys()].sort();
    const priced = ids.filter((id) => !this.complements.has(id));
    const scale = (c: Column, k: number): Column => c.map((v) => (v === null ? null : round6(v / k)));
    const band = (s: BoundedSeries, k: number): BandColumns => {
      const c = s.columns(n);
      return { last: scale(c.last, k), min: scale(c.min, k), max: scale(c.max, k) };
    };
    const eq = this.equitySeries.columns(n);
    const sp = this.spreadSeries.columns(n).last;
    const fe = this.feesSeries.columns(n).last;
    const inv: Column = eq.last.map((e, k) => (e === null ? null : round6((e - (sp[k] ?? 0) + (fe[k] ?? 0)) / 1e6)));
    const started = (c: Column): Column => c.map((v, k) => (eq.last[k] === null ? null : round6((v ?? 0) / 1e6)));
    const pair = (id: string): { complementId?: string } => {
      const c = this.pairs.get(id);
      return c === undefined ? {} : { complementId: c };
    };
    return {
      t0: Number.isNaN(g.t0) ? end : g.t0,
      stepMs: g.width,
      n,
      startMs: Number.isNaN(this.startMs) ? end : this.startMs,
      endMs: end,
      equity: band(this.equitySeries, 1e6),
      drawdown: scale(this.drawdownSeries.columns(n).min, 1e6),
      spreadCapture: started(sp),
      inventory: inv,
      fees: started(fe),
      exposure: [...this.exposure.keys()].sort().map((id) => ({ tokenId: id, ...pair(id), values: scale((this.exposure.get(id) as BoundedSeries).columns(n).last, 100) })),
      prices: priced.map((id) => {
        const s = this.tokens.get(id) as TokenTally;
        return {
          tokenId: id,
          ...pair(id),
          mid: band(s.midSeries, 1e4),
          // the last quote resting in each bucket (a requote's instant without one leaves no gap)
          bid: scale(s.bidSeries.columns(n).lastFinite, 1e4),
          ask: scale(s.askSeries.columns(n).lastFinite, 1e4),
          fills: fillMarks(this.fillMarks.get(id), g),
        };
      }),
      fillsTotal: this.fillsTotal,
      markouts: this.markoutSums.map((m, i) => ({ horizonMs: this.horizons[i], moves: m.sorted().map(([mv, c]): [number, number] => [round6(mv / 1e4), c]) })),
    };
  }
}

function fillMarks(b: FillBuckets | undefined, g: TimeGrid): FillMarks[] {
  if (!b) return [];
  return b.buckets().map((r) => ({
    k: Math.round((r.t - g.t0) / g.width),
    buys: r.buys,
    buySize: shares(r.buySize),
    buyPrice: r.buySize > 0 ? round6(r.buyNotional / r.buySize / 1e4) : null,
    sells: r.sells,
    sellSize: shares(r.sellSize),
    sellPrice: r.sellSize > 0 ? round6(r.sellNotional / r.sellSize / 1e4) : null,
  }));
}
