import { describe, it, expect } from 'vitest';
import { renderGridIndex, type GridIndexRow } from '../../src/report/grid-index.js';
import { parseGridSpec, expandGrid, rankRows } from '../../src/backtest/grid.js';
import type { TotalResult } from '../../src/report/stats.js';

function total(pnl: number, dd = 1): TotalResult {
  return {
    pnl: { realized: pnl, unrealized: 0, fees: 0, total: pnl, spreadCapture: pnl + 1, inventory: -1 },
    volume: { shares: 10, notional: 5 },
    fills: 3,
    makerFills: 3,
    makerShare: 1,
    fillEdge: 0.01,
    maxDrawdown: dd,
    maxInventoryNotional: 5,
    pnlPerMaxInventory: pnl / 5,
    intervalSharpe: null,
    ratioIntervalMs: 60_000,
    quoteUptime: 0.9,
    orders: 10,
    cancels: 8,
    markouts: [
      { horizonMs: 1000, fills: 3, meanMove: -0.001, medianMove: 0, adverseShare: 0.3 },
      { horizonMs: 10_000, fills: 3, meanMove: -0.002, medianMove: 0, adverseShare: 0.4 },
      { horizonMs: 60_000, fills: 3, meanMove: -0.003, medianMove: 0, adverseShare: 0.5 },
    ],
  };
}

describe('grid index page', () => {
  it('lists every combination ranked by the objective, each linked to its report, with the heat table and bars', () => {
    const axes = parseGridSpec('a=1,2,3;b=x,y');
    const combos = expandGrid(axes);
    const pnls = [0.5, -1, 2, 0.5, -3, 1];
    const rows: GridIndexRow[] = combos.map((combo, index) => (index === 4 ? { index, combo, error: 'the strategy threw 1 time (first: boom)' } : { index, combo, total: total(pnls[index], index) }));
    const ranked = rankRows(rows);
    const html = renderGridIndex({ title: 'grid <t>', inputs: [['data', 'x']], axes, ranked, href: (i) => (i === 4 ? undefined : `grid/${i}/report.html`) });
    expect(html).toContain('grid &lt;t&gt;');
    expect(html).not.toMatch(/<script|<link\b|\s(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i);
    // the ranking table: every combination once, best first (2, 1, 0.5 with drawdown 0, 0.5 with 3, -1), the failed one last
    const body = html.slice(html.indexOf('<table class="rank">'));
    const order = [...body.matchAll(/<tr(?: class="failed")?><td>(\d+)<\/td><td>(\d)<\/td><td>(\w)<\/td>/g)].map((m) => [Number(m[1]), `${m[2]}${m[3]}`]);
    expect(order).toEqual([
      [1, '2x'],
      [2, '3y'],
      [3, '1x'],
      [4, '2y'],
      [5, '1y'],
      [6, '3x'],
    ]);
    expect(body).toContain('error: the strategy threw 1 time (first: boom)');
    // links to each report that exists, none to the failed one
    for (const i of [0, 1, 2, 3, 5]) expect(html).toContain(`href="grid/${i}/report.html"`);
    expect(html).not.toContain('grid/4/report.html');
    // heat table: a row per value of a, a column per value of b, ranks in the cells
    const heat = html.slice(html.indexOf('<table class="heat">'), html.indexOf('</table>', html.indexOf('<table class="heat">')));
    expect((heat.match(/<tr>/g) ?? []).length).toBe(4);
    expect(heat).toContain('a \\ b');
    expect(heat).toContain('rank 1</small>');
    expect(heat).toContain('>error<');
    // one bar per successful combination, in grid order
    expect((html.match(/<rect class="bar"/g) ?? []).length).toBe(5);
  });

  it('one swept parameter: a single heat row', () => {
    const axes = parseGridSpec('a=1,2');
    const ranked = rankRows(expandGrid(axes).map((combo, index) => ({ index, combo, total: total(index) })));
    const html = renderGridIndex({ title: 'g', inputs: [], axes, ranked, href: (i) => `grid/${i}/report.html` });
    const heat = html.slice(html.indexOf('<table class="heat">'), html.indexOf('</table>', html.indexOf('<table class="heat">')));
    expect((heat.match(/<tr>/g) ?? []).length).toBe(2);
  });
});
