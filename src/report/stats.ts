// Backtest and run statistics, computed in one pass over a stream of marks (the market's top of
// book), our quotes, fills and order counts, all stamped with virtual time. Memory is constant:
// sums and running extremes only, plus bounded chart series (series.ts). Money is kept in
// micro-dollars (price units x size units, exact integers for cash); figures leave as dollars
// rounded to the micro-dollar, so the same stream always gives the same bytes.
import { BoundedSeries, ThinnedList, type SeriesPoint } from './series.js';
import { TokenTally, notional, round6, dollars, shares, ratio, pnl } from './token-state.js';
import type { ChartData, FillMark, FillRecord, StatsOptions, StatsResult, TokenResult } from './types.js';
import { foldFill } from '../core/accounting.js';

export type * from './types.js';

export class StatsCollector {
  private readonly tokens = new Map<string, TokenTally>();
  /** complement token -> the market's priced token (charts show both in the priced token's terms). */
  private readonly complements = new Map<string, string>();
  private readonly maxPoints: number;
  private readonly ratioIntervalMs: number;
  private readonly equitySeries: BoundedSeries;
  private readonly fillMarks: ThinnedList<FillMark>;
  private startMs = NaN;
  private nowMs = NaN;
  private equity = 0; // micros, all tokens
  private peak = 0;
  private drawdown = 0;
  private invNotional = 0; // micros, sum |pos| x mid
  private maxInvNotional = 0;
  private nextSampleAt = NaN;
  private lastSampleEquity = 0;
  private nSamples = 0;
  private meanDiff = 0;
  private m2Diff = 0;

  constructor(opts: StatsOptions = {}) {
    this.maxPoints = opts.maxPoints ?? 2000;
    this.ratioIntervalMs = opts.ratioIntervalMs ?? 60_000;
    this.equitySeries = new BoundedSeries(this.maxPoints);
    this.fillMarks = new ThinnedList(opts.maxFillMarks ?? 2000);
  }

  private token(id: string): TokenTally {
    let s = this.tokens.get(id);
    if (!s) {
      s = new TokenTally(id, this.maxPoints);
      this.tokens.set(id, s);
    }
    return s;
  }

  /** Moves the collector's time to t (monotone), closing any ratio intervals passed. */
  private at(t: number): void {
    if (Number.isNaN(this.startMs)) {
      this.startMs = t;
      this.nextSampleAt = t + this.ratioIntervalMs;
      this.equitySeries.add(t, 0);
    }
    if (Number.isNaN(this.nowMs) || t > this.nowMs) this.nowMs = t;
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

  /** Replaces one token's equity contribution and re-checks the totals. */
  private reprice(s: TokenTally, t: number, before: number, notionalBefore: number): void {
    this.equity += s.equity() - before;
    this.invNotional += notional(s) - notionalBefore;
    if (this.invNotional > this.maxInvNotional) this.maxInvNotional = this.invNotional;
    if (this.equity > this.peak) this.peak = this.equity;
    if (this.peak - this.equity > this.drawdown) this.drawdown = this.peak - this.equity;
    s.noteEquity();
    this.equitySeries.add(t, this.equity);
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
    const s = this.token(tokenId);
    const c = this.token(complementId);
    s.quotesTracked = true;
    // the inventory lines start flat at zero when the market appears
    if (t !== undefined) for (const x of [s, c]) if (x.posSeries.length === 0) x.posSeries.add(t, 0);
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
    this.at(f.timeMs);
    const s = this.token(f.tokenId);
    s.advance(f.timeMs);
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
      s.edgeSum += (f.side === 'BUY' ? s.mid - f.price : f.price - s.mid) * f.size;
      s.edgeVol += f.size;
    }
    s.posSeries.add(f.timeMs, s.pos / 100);
    this.fillMarks.add({ t: f.timeMs, tokenId: f.tokenId, side: f.side, price: f.price, size: f.size });
    this.reprice(s, f.timeMs, before, nb);
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
    const start = Number.isNaN(this.startMs) ? end : this.startMs;
    const tokens: TokenResult[] = [];
    const tot = { edgeSum: 0, edgeVol: 0, realized: 0, unrealized: 0, fees: 0, volume: 0, notional: 0, fills: 0, maker: 0, orders: 0, cancels: 0, uptime: 0, quotedTokens: 0 };
    for (const id of [...this.tokens.keys()].sort()) {
      const s = this.tokens.get(id) as TokenTally;
      s.advance(end);
      const span = Number.isNaN(s.firstMarkT) ? 0 : end - s.firstMarkT;
      const whole = end - start;
      const unrealized = Number.isNaN(s.mid) ? 0 : s.mid * s.pos - s.basis.cost;
      const uptime = s.quotesTracked ? (span > 0 ? s.quotedTime / span : 0) : null;
      tokens.push({
        tokenId: id,
        pnl: pnl(s.realized, unrealized, s.fees),
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
    const totalPnl = pnl(tot.realized, tot.unrealized, tot.fees);
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
      },
      tokens,
    };
  }

  /** Downsampled series for the report (dollars, shares, prices 0..1). */
  charts(): ChartData {
    const ids = [...this.tokens.keys()].sort();
    const priced = ids.filter((id) => !this.complements.has(id));
    const scale = (ps: SeriesPoint[], k: number): SeriesPoint[] => ps.map((p) => ({ t: p.t, v: p.v / k, min: p.min / k, max: p.max / k }));
    return {
      equity: scale(this.equitySeries.points(), 1e6),
      inventory: ids.map((id) => ({ tokenId: id, points: (this.tokens.get(id) as TokenTally).posSeries.points() })),
      prices: priced.map((id) => {
        const s = this.tokens.get(id) as TokenTally;
        return { tokenId: id, mid: scale(s.midSeries.points(), 1e4), bid: scale(s.bidSeries.points(), 1e4), ask: scale(s.askSeries.points(), 1e4) };
      }),
      fills: this.fillMarks.list().map((f) => {
        const main = this.complements.get(f.tokenId);
        if (main === undefined) return { ...f, price: f.price / 1e4, size: f.size / 100 };
        // a BUY of the complement at q is a SELL of the priced token at 1 - q
        return { t: f.t, tokenId: main, side: f.side === 'BUY' ? 'SELL' : 'BUY', price: (10_000 - f.price) / 1e4, size: f.size / 100 };
      }),
      fillsTotal: this.fillMarks.total,
    };
  }
}
