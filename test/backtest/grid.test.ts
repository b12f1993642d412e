import { describe, it, expect } from 'vitest';
import { parseGridSpec, expandGrid, mergeParams, rankRows, gridCsv, GridSpecError, type GridRow } from '../../src/backtest/grid.js';
import type { TotalResult } from '../../src/report/stats.js';

function total(pnl: number, dd: number): TotalResult {
  return {
    pnl: { realized: pnl, unrealized: 0, fees: 0, total: pnl },
    volume: { shares: 1, notional: 1 },
    fills: 1,
    makerFills: 1,
    makerShare: 1,
    fillEdge: 0.01,
    maxDrawdown: dd,
    maxInventoryNotional: 1,
    pnlPerMaxInventory: pnl,
    intervalSharpe: null,
    ratioIntervalMs: 60000,
    quoteUptime: 0.5,
    orders: 2,
    cancels: 1,
  };
}

describe('grid spec', () => {
  it('parses names and typed values in order', () => {
    expect(parseGridSpec('gamma=0.05,0.1,0.2;spread=2,4')).toEqual([
      { name: 'gamma', values: [0.05, 0.1, 0.2] },
      { name: 'spread', values: [2, 4] },
    ]);
    expect(parseGridSpec(' fair = mid , microprice ; skew=true,false ;')).toEqual([
      { name: 'fair', values: ['mid', 'microprice'] },
      { name: 'skew', values: [true, false] },
    ]);
    expect(parseGridSpec('a.b=-1,1e-3')).toEqual([{ name: 'a.b', values: [-1, 0.001] }]);
  });

  it('rejects malformed specs with a typed error', () => {
    for (const bad of ['', 'gamma', 'gamma=', 'gamma=1,,2', '1x=2', 'a=1;a=2', 'a=1,1']) {
      expect(() => parseGridSpec(bad), bad).toThrow(GridSpecError);
    }
  });

  it('expands every combination, last axis fastest, and merges over base params', () => {
    const combos = expandGrid(parseGridSpec('gamma=0.05,0.1,0.2;spread=2,4'));
    expect(combos).toHaveLength(6);
    expect(combos[0]).toEqual({ gamma: 0.05, spread: 2 });
    expect(combos[1]).toEqual({ gamma: 0.05, spread: 4 });
    expect(combos[5]).toEqual({ gamma: 0.2, spread: 4 });
    const base = { size: 10, spread: 3, nested: { k: 1 } };
    expect(mergeParams(base, { spread: 4, 'nested.j': 2 })).toEqual({ size: 10, spread: 4, nested: { k: 1, j: 2 } });
    expect(base).toEqual({ size: 10, spread: 3, nested: { k: 1 } });
  });
});

describe('ranking and CSV', () => {
  const rows: GridRow[] = [
    { index: 0, combo: { s: 1 }, total: total(1, 0.5) },
    { index: 1, combo: { s: 2 }, total: total(3, 0.9) },
    { index: 2, combo: { s: 3 }, error: 'boom, "bad"' },
    { index: 3, combo: { s: 4 }, total: total(3, 0.2) },
    { index: 4, combo: { s: 5 }, total: total(1, 0.5) },
  ];
  it('ranks by total PnL, ties by smaller drawdown, then grid order; failures last', () => {
    expect(rankRows(rows).map((r) => r.index)).toEqual([3, 1, 0, 4, 2]);
  });
  it('writes a header, one line per combination and quotes cells that need it', () => {
    const csv = gridCsv(parseGridSpec('s=1,2,3,4,5'), rankRows(rows));
    const lines = csv.trimEnd().split('\n');
    expect(lines[0].split(',').slice(0, 4)).toEqual(['rank', 's', 'total_pnl', 'realized_pnl']);
    expect(lines).toHaveLength(6);
    expect(lines[1].startsWith('1,4,3,')).toBe(true);
    expect(lines[5]).toBe('5,3,,,,,,,,,,,,,,,"boom, ""bad"""');
  });
});
