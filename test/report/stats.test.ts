import { describe, it, expect } from 'vitest';
import { StatsCollector, type FillRecord } from '../../src/report/stats.js';
import { BoundedSeries, TimeGrid } from '../../src/report/series.js';

const A = 'tokA';

function fill(timeMs: number, side: 'BUY' | 'SELL', price: number, size: number, fee = 0, liquidity: 'MAKER' | 'TAKER' = 'MAKER'): FillRecord {
  return { timeMs, tokenId: A, side, price, size, fee, liquidity, tradeId: `t${timeMs}`, orderId: `o${timeMs}` };
}

/** A hand-checked scenario: buy 10 @ 0.49, mid falls to 0.48, sell 10 @ 0.50 with a $0.001 fee. */
function scenario(ratioIntervalMs = 60_000): StatsCollector {
  const s = new StatsCollector({ ratioIntervalMs });
  s.mark(A, 0, 4900, 5100);
  s.quotes(A, 0, 4900, 5100);
  s.order(A, 2);
  s.fill(fill(1000, 'BUY', 4900, 1000));
  s.mark(A, 2000, 4700, 4900);
  s.quotes(A, 3000, -1, -1);
  s.cancel(A, 1);
  s.fill(fill(4000, 'SELL', 5000, 1000, 1000, 'TAKER'));
  return s;
}

describe('StatsCollector: the totals at one instant', () => {
  it('a hedged YES+NO pair repriced by one frame (both tokens at one time) shows no drawdown and no inventory peak in between', () => {
    const s = new StatsCollector();
    const f = (tokenId: string, timeMs: number): FillRecord => ({
      timeMs,
      tokenId,
      side: 'BUY',
      price: 5000,
      size: 10_000,
      fee: 0,
      liquidity: 'MAKER',
      tradeId: `t-${tokenId}`,
      orderId: `o-${tokenId}`,
    });
    s.market('Y', 'N', 0);
    s.mark('Y', 0, 4900, 5100);
    s.mark('N', 0, 4900, 5100);
    s.fill(f('Y', 1000));
    s.fill(f('N', 1000));
    // one frame moves YES to 0.55 and NO to 0.45: the pair is worth 1 throughout
    s.mark('Y', 2000, 5400, 5600);
    s.mark('N', 2000, 4400, 4600);
    s.mark('Y', 3000, 5900, 6100);
    s.mark('N', 3000, 3900, 4100);
    const r = s.finish(4000);
    expect(r.total.maxDrawdown).toBe(0);
    expect(r.total.maxInventoryNotional).toBe(100);
    expect(r.total.pnl.total).toBe(0);
    // the equity chart has no spike either
    const eq = s.charts().equity;
    for (const v of [...eq.min, ...eq.max]) if (v !== null) expect(Math.abs(v)).toBeLessThan(1e-9);
  });

  it('a loss at a later instant still counts against the peak of the earlier one', () => {
    const s = new StatsCollector();
    s.mark(A, 0, 4900, 5100);
    s.fill(fill(1000, 'BUY', 5000, 1000));
    s.mark(A, 2000, 5900, 6100); // +1.00
    s.mark(A, 3000, 4900, 5100); // back to 0
    expect(s.finish(4000).total.maxDrawdown).toBe(1);
  });
});

describe('StatsCollector', () => {
  it('computes PnL, fees, inventory, drawdown, uptime and risk ratio for a hand-checked run', () => {
    const r = scenario().finish(5000);
    const t = r.tokens[0];
    expect(r.tokens).toHaveLength(1);
    // spread capture: bought 10 at 0.49 with the mid at 0.50 (+0.10), sold 10 at 0.50 with the mid at 0.48 (+0.20);
    // inventory: 10 shares held while the mid fell from 0.50 to 0.48 (-0.20)
    expect(t.pnl).toEqual({ realized: 0.1, unrealized: 0, fees: 0.001, total: 0.099, spreadCapture: 0.3, inventory: -0.2 });
    expect(t.fills).toBe(2);
    expect(t.makerFills).toBe(1);
    expect(t.makerShare).toBe(0.5);
    // bought at 0.49 with the mid at 0.50 (+0.01), sold at 0.50 with the mid at 0.48 (+0.02)
    expect(t.fillEdge).toBeCloseTo(0.015, 9);
    expect(r.total.fillEdge).toBeCloseTo(0.015, 9);
    expect(t.volume).toEqual({ shares: 20, notional: 9.9 });
    // 10 shares held from 1 s to 4 s of a 5 s run
    expect(t.inventory).toEqual({ final: 0, mean: 6, max: 10, timeWeightedAbs: 6 });
    // equity peaked at +$0.10 (bought at 0.49, mid 0.50) and fell to -$0.10 (mid 0.48)
    expect(t.maxDrawdown).toBe(0.2);
    expect(r.total.maxDrawdown).toBe(0.2);
    // both sides quoted from 0 to 3 s of 5 s
    expect(t.quoteUptime).toBe(0.6);
    expect(t.orders).toBe(2);
    expect(t.cancels).toBe(1);
    expect(r.total.maxInventoryNotional).toBe(5);
    expect(r.total.pnlPerMaxInventory).toBeCloseTo(0.099 / 5, 9);
    expect(r.total.pnl.total).toBe(0.099);
    expect(r.startMs).toBe(0);
    expect(r.endMs).toBe(5000);
  });

  it('marks an open position to the mid as unrealized PnL, short positions included', () => {
    const s = new StatsCollector();
    s.mark(A, 0, 4000, 4200);
    s.fill(fill(10, 'SELL', 4000, 500)); // short 5 @ 0.40
    s.mark(A, 20, 3800, 3900); // mid 0.385
    const t = s.finish(30).tokens[0];
    expect(t.inventory.final).toBe(-5);
    expect(t.pnl.realized).toBe(0);
    expect(t.pnl.unrealized).toBeCloseTo(5 * (0.4 - 0.385), 9);
  });

  it('Sharpe-like ratio is mean over sample stdev of per-interval equity changes', () => {
    const r = scenario(1000).finish(5000);
    // equity (micros) at the interval ends 1..5 s, each taken before that instant's event
    const eq = [0, 0, 100_000, -100_000, -100_000, 99_000];
    const d = eq.slice(1).map((v, i) => v - eq[i]);
    const mean = d.reduce((a, b) => a + b, 0) / d.length;
    const sd = Math.sqrt(d.reduce((a, b) => a + (b - mean) ** 2, 0) / (d.length - 1));
    expect(r.total.intervalSharpe).toBeCloseTo(mean / sd, 5);
    expect(r.total.ratioIntervalMs).toBe(1000);
  });

  it('gives null ratios and zero figures for a run without fills', () => {
    const s = new StatsCollector();
    s.mark(A, 0, 4900, 5100);
    const r = s.finish(100);
    expect(r.total.pnlPerMaxInventory).toBeNull();
    expect(r.total.intervalSharpe).toBeNull();
    expect(r.total.fills).toBe(0);
    expect(r.total.makerShare).toBe(0);
  });

  it('is deterministic: the same stream gives the same JSON', () => {
    expect(JSON.stringify(scenario().finish(5000))).toBe(JSON.stringify(scenario().finish(5000)));
  });

  it('keeps chart series bounded on one shared axis and counts every fill in the marks', () => {
    const s = new StatsCollector({ maxPoints: 50 });
    for (let i = 0; i < 10_000; i++) {
      s.mark(A, i * 100, 4900 + (i % 7) * 100, 5200 + (i % 7) * 100);
      if (i % 10 === 0) s.fill(fill(i * 100, i % 20 === 0 ? 'BUY' : 'SELL', 5000, 100));
    }
    const r = s.finish();
    const c = s.charts();
    expect(c.n).toBeLessThanOrEqual(50);
    expect(c.n).toBeGreaterThan(20);
    // every column has one value per bucket of the shared axis
    for (const col of [c.equity.last, c.equity.min, c.equity.max, c.drawdown, c.spreadCapture, c.inventory, c.fees, c.prices[0].mid.last, c.prices[0].bid, c.exposure[0].values])
      expect(col).toHaveLength(c.n);
    expect(c.t0 + (c.n - 1) * c.stepMs).toBeLessThanOrEqual(c.endMs);
    expect(c.t0 + c.n * c.stepMs).toBeGreaterThan(c.endMs);
    // all 1000 fills are in the marks, none thinned away
    expect(c.fillsTotal).toBe(1000);
    expect(c.prices[0].fills.reduce((a, f) => a + f.buys + f.sells, 0)).toBe(1000);
    expect(c.prices[0].fills.reduce((a, f) => a + f.buySize, 0)).toBe(500);
    // the last bucket ends where the figures end
    expect(c.equity.last[c.n - 1]).toBeCloseTo(r.total.pnl.total, 6);
    expect(c.spreadCapture[c.n - 1]).toBeCloseTo(r.total.pnl.spreadCapture, 6);
    expect(c.inventory[c.n - 1]).toBeCloseTo(r.total.pnl.inventory, 6);
    // the drawdown column never goes above 0 and reaches the max drawdown
    expect(Math.max(...c.drawdown.map((v) => v ?? 0))).toBeLessThanOrEqual(0);
    expect(Math.min(...c.drawdown.map((v) => v ?? 0))).toBeCloseTo(-r.total.maxDrawdown, 6);
  });

  it('PnL parts add up exactly to the total, per token and in total; inventory is the position times the mid moves', () => {
    // a deterministic pseudo-random run over a binary market and a lone token, with fees
    let seed = 12345;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const s = new StatsCollector();
    const ids = ['yes', 'no', 'solo'];
    s.market('yes', 'no', 0);
    const mid = new Map<string, number>();
    const pos = new Map<string, number>();
    const inv = new Map<string, number>(ids.map((id) => [id, 0]));
    for (let i = 0; i < 3000; i++) {
      const t = i * 37;
      const id = ids[rnd(3)];
      if (rnd(3) > 0 || !mid.has(id)) {
        const bid = 1000 + rnd(8000);
        const ask = bid + 1 + rnd(300); // odd spreads too: half-unit mids
        const m = (bid + ask) / 2;
        if (mid.has(id)) inv.set(id, (inv.get(id) as number) + (pos.get(id) ?? 0) * (m - (mid.get(id) as number)));
        mid.set(id, m);
        s.mark(id, t, bid, ask);
      } else {
        const side = rnd(2) ? 'BUY' : 'SELL';
        const size = 100 * (1 + rnd(20));
        const price = Math.round((mid.get(id) as number) + rnd(201) - 100);
        s.fill({ timeMs: t, tokenId: id, side, price, size, fee: rnd(3000), liquidity: 'MAKER', tradeId: `t${i}`, orderId: `o${i}` });
        pos.set(id, (pos.get(id) ?? 0) + (side === 'BUY' ? size : -size));
      }
    }
    const r = s.finish();
    const micros = (x: number): number => Math.round(x * 1e6);
    const addsUp = (p: { total: number; spreadCapture: number; inventory: number; fees: number; realized: number; unrealized: number }): void => {
      expect(micros(p.spreadCapture) + micros(p.inventory) - micros(p.fees)).toBe(micros(p.total));
      expect(Math.abs(micros(p.realized) + micros(p.unrealized) - micros(p.fees) - micros(p.total))).toBeLessThanOrEqual(1);
    };
    addsUp(r.total.pnl);
    let invSum = 0;
    for (const t of r.tokens) {
      addsUp(t.pnl);
      expect(t.fills).toBeGreaterThan(50);
      // computed independently: sum of position x each mid change (micro-dollars), within rounding
      expect(Math.abs(micros(t.pnl.inventory) - (inv.get(t.tokenId) as number))).toBeLessThanOrEqual(1);
      invSum += inv.get(t.tokenId) as number;
    }
    expect(Math.abs(micros(r.total.pnl.inventory) - invSum)).toBeLessThanOrEqual(1);
    expect(r.total.pnl.spreadCapture).not.toBe(0);
    expect(r.total.pnl.inventory).not.toBe(0);
  });

  it('markouts: the mid in force h after each fill, signed by side, on a hand-made case', () => {
    const s = new StatsCollector();
    s.mark(A, 0, 4900, 5100); // mid 0.50
    s.fill(fill(1000, 'BUY', 4900, 1000)); // 10 shares, mid 0.50
    s.mark(A, 1500, 5000, 5200); // 0.51
    s.mark(A, 2000, 5100, 5300); // 0.52: in force at 2000 exactly, the buy's 1 s mark
    s.fill(fill(2500, 'SELL', 5300, 500)); // 5 shares, mid 0.52
    s.mark(A, 3000, 5200, 5400); // 0.53: in force at 3500, the sell's 1 s mark
    s.mark(A, 3600, 4900, 5100); // 0.50 until the end
    s.fill({ ...fill(100, 'BUY', 4000, 100), tokenId: 'nomid' }); // no mid ever: never measured
    s.fill(fill(12_000, 'BUY', 4900, 100)); // less than 1 s before the end: not measured
    const r = s.finish(12_600);
    const [m1, m10, m60] = r.tokens.find((t) => t.tokenId === A)!.markouts;
    // 1 s: buy +0.02 (0.50 -> 0.52), sell -0.01 (0.52 -> 0.53 against a sell)
    expect(m1.horizonMs).toBe(1000);
    expect(m1.fills).toBe(2);
    expect(m1.meanMove).toBeCloseTo((0.02 * 10 - 0.01 * 5) / 15, 9);
    expect(m1.medianMove).toBeCloseTo(0.005, 9);
    expect(m1.adverseShare).toBe(0.5);
    // 10 s: buy 0 (0.50 at 11 s), sell +0.02 (0.50 at 12.5 s, below its 0.52)
    expect(m10.horizonMs).toBe(10_000);
    expect(m10.fills).toBe(2);
    expect(m10.meanMove).toBeCloseTo((0 * 10 + 0.02 * 5) / 15, 6);
    expect(m10.medianMove).toBeCloseTo(0.01, 9);
    expect(m10.adverseShare).toBe(0);
    // 60 s: past the end for every fill
    expect(m60).toEqual({ horizonMs: 60_000, fills: 0, meanMove: null, medianMove: null, adverseShare: null });
    expect(r.total.markouts.map((m) => m.fills)).toEqual([2, 2, 0]);
    // the distribution in the chart data: one fill at each move
    const c = s.charts();
    expect(c.markouts[0]).toEqual({
      horizonMs: 1000,
      moves: [
        [-0.01, 1],
        [0.02, 1],
      ],
    });
    expect(c.markouts[1].moves).toEqual([
      [0, 1],
      [0.02, 1],
    ]);
  });

  it('net exposure per market: the priced token minus its complement; complement fills mapped onto the priced token', () => {
    const s = new StatsCollector();
    s.market('yes', 'no', 0);
    s.mark('yes', 0, 4900, 5100);
    s.mark('no', 0, 4900, 5100);
    s.fill({ ...fill(100, 'BUY', 4900, 1000), tokenId: 'yes' }); // +10 yes
    s.fill({ ...fill(200, 'BUY', 4800, 400), tokenId: 'no' }); // +4 no: a sell of yes at 0.52
    s.finish(300);
    const c = s.charts();
    expect(c.exposure).toHaveLength(1);
    expect(c.exposure[0].tokenId).toBe('yes');
    expect(c.exposure[0].complementId).toBe('no');
    expect(c.exposure[0].values[c.n - 1]).toBe(6);
    expect(c.prices.map((p) => p.tokenId)).toEqual(['yes']);
    const marks = c.prices[0].fills;
    expect(marks.reduce((a, f) => a + f.buys, 0)).toBe(1);
    expect(marks.find((f) => f.sells)!.sellPrice).toBe(0.52);
    expect(marks.find((f) => f.buys)!.buyPrice).toBe(0.49);
  });
});

describe('BoundedSeries', () => {
  it('stays within its budget and keeps a spike in the bucket extremes', () => {
    const s = new BoundedSeries(16, 1);
    for (let t = 0; t < 10_000; t++) s.add(t, t === 5000 ? 1e6 : 1);
    const pts = s.points();
    expect(pts.length).toBeLessThanOrEqual(16);
    expect(Math.max(...pts.map((p) => p.max))).toBe(1e6);
    expect(pts[pts.length - 1].v).toBe(1);
    for (let i = 1; i < pts.length; i++) expect(pts[i].t).toBeGreaterThan(pts[i - 1].t);
  });
  it('series on one grid share their buckets; an empty bucket carries the state; NaN is a gap', () => {
    const g = new TimeGrid(8, 10);
    const a = new BoundedSeries(g);
    const b = new BoundedSeries(g);
    a.add(0, 1);
    a.add(5, 3); // bucket 0: last 3, range 1..3
    b.add(35, 7); // bucket 3 of 10 ms, bucket 0 once 40 ms wide
    a.add(200, 2); // widens the grid: 10 -> 20 -> 40 ms buckets
    expect(g.width).toBe(40);
    b.add(210, NaN);
    const n = g.count(230);
    expect(n).toBe(6);
    const ca = a.columns(n);
    expect(ca.last).toEqual([3, 3, 3, 3, 3, 2]);
    expect(ca.min).toEqual([1, 3, 3, 3, 3, 2]);
    const cb = b.columns(n);
    expect(cb.last).toEqual([7, 7, 7, 7, 7, null]);
    // inside the last bucket b was 7 until the NaN: the last finite value is 7, the range too
    expect(cb.lastFinite).toEqual([7, 7, 7, 7, 7, 7]);
    expect(cb.max).toEqual([7, 7, 7, 7, 7, 7]);
  });
});

describe('StatsCollector: a fill reported after later events (a feed or user latency: found in review)', () => {
  it('is taken at the latest time the statistics know, so the equity chart goes on to the end', () => {
    // the venue's match time is before marks the engine already saw: added at it, the equity point
    // went into an older bucket out of order and the chart stayed flat from there on
    const s = new StatsCollector();
    s.market(A, 'B', 0);
    s.mark(A, 0, 4900, 5100);
    s.fill(fill(10, 'BUY', 4900, 1000));
    s.mark(A, 120, 5100, 5300);
    s.quotes(A, 130, 5000, 5200);
    s.fill(fill(90, 'BUY', 5000, 1000));
    s.mark(A, 500, 5300, 5500);
    const r = s.finish(600);
    const eq = s.charts().equity.last;
    expect(eq.at(-1)).toBeCloseTo(r.total.pnl.total, 6);
  });
});
