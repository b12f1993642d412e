import { describe, it, expect } from 'vitest';
import { StatsCollector, type FillRecord } from '../../src/report/stats.js';
import { BoundedSeries, ThinnedList } from '../../src/report/series.js';

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

describe('StatsCollector', () => {
  it('computes PnL, fees, inventory, drawdown, uptime and risk ratio for a hand-checked run', () => {
    const r = scenario().finish(5000);
    const t = r.tokens[0];
    expect(r.tokens).toHaveLength(1);
    expect(t.pnl).toEqual({ realized: 0.1, unrealized: 0, fees: 0.001, total: 0.099 });
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

  it('keeps chart series bounded and marks fills', () => {
    const s = new StatsCollector({ maxPoints: 50, maxFillMarks: 20 });
    for (let i = 0; i < 10_000; i++) {
      s.mark(A, i * 100, 4900 + (i % 7) * 100, 5200 + (i % 7) * 100);
      if (i % 10 === 0) s.fill(fill(i * 100, i % 20 === 0 ? 'BUY' : 'SELL', 5000, 100));
    }
    const c = s.charts();
    expect(c.equity.length).toBeLessThanOrEqual(50);
    expect(c.prices[0].mid.length).toBeLessThanOrEqual(50);
    expect(c.prices[0].mid.length).toBeGreaterThan(10);
    expect(c.fills.length).toBeLessThanOrEqual(20);
    expect(c.fills.length).toBeGreaterThan(5);
    expect(c.fillsTotal).toBe(1000);
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
  it('ThinnedList keeps an even subset', () => {
    const l = new ThinnedList<number>(10);
    for (let i = 0; i < 100; i++) l.add(i);
    const xs = l.list();
    expect(xs.length).toBeLessThanOrEqual(10);
    const gaps = new Set(xs.slice(1).map((x, i) => x - xs[i]));
    expect(gaps.size).toBe(1);
  });
});
