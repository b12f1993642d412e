import { describe, it, expect } from 'vitest';
import { z } from 'zod';
import { parseGridSpec, expandGrid, mergeParams, rankRows, gridCsv, gridTableRows, validateGrid, GridSpecError, type GridRow } from '../../src/backtest/grid.js';
import bands from '../../strategies/bands.js';
import avellaneda from '../../strategies/avellaneda.js';
import type { TotalResult } from '../../src/report/stats.js';

function total(pnl: number, dd: number): TotalResult {
  return {
    pnl: { realized: pnl, unrealized: 0, fees: 0, total: pnl, spreadCapture: pnl, inventory: 0 },
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
    markouts: [],
  };
}

describe('grid spec', () => {
  it('parses names and typed values in order', () => {
    expect(parseGridSpec('gamma=0.05,0.1,0.2;spread=2,4')).toEqual([
      { name: 'gamma', values: [0.05, 0.1, 0.2], raw: ['0.05', '0.1', '0.2'] },
      { name: 'spread', values: [2, 4], raw: ['2', '4'] },
    ]);
    expect(parseGridSpec(' fair = mid , microprice ; skew=true,false ;')).toEqual([
      { name: 'fair', values: ['mid', 'microprice'], raw: ['mid', 'microprice'] },
      { name: 'skew', values: [true, false], raw: ['true', 'false'] },
    ]);
    expect(parseGridSpec('a.b=-1,1e-3')).toEqual([{ name: 'a.b', values: [-1, 0.001], raw: ['-1', '1e-3'] }]);
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
    // rank, then the combination's folder (grid/<n>: its report), then its parameters
    expect(lines[0].split(',').slice(0, 5)).toEqual(['rank', 'grid', 's', 'total_pnl', 'realized_pnl']);
    expect(lines).toHaveLength(6);
    expect(lines[1].startsWith('1,3,4,3,')).toBe(true);
    // rank, grid, s, 19 empty metrics, halted (empty), the error
    expect(lines[5]).toBe(`5,2,3,${','.repeat(20)}"boom, ""bad"""`);
  });
});

// Issue 13, item 4: any parameter can be swept by path (nested objects, array elements), and every
// combination is checked against the strategy's schema before anything runs, with one plain line.
describe('grid paths and validation against the strategy schema', () => {
  it('parses paths with array indexes, and refuses malformed ones', () => {
    expect(parseGridSpec('bands.0.distance=0.01,0.02;bands.12.size=5')).toEqual([
      { name: 'bands.0.distance', values: [0.01, 0.02], raw: ['0.01', '0.02'] },
      { name: 'bands.12.size', values: [5], raw: ['5'] },
    ]);
    for (const bad of ['0.x=1', 'bands..distance=1', 'bands.01.size=1', 'bands.-1.size=1', 'bands.0.=1']) {
      expect(() => parseGridSpec(bad), bad).toThrow(GridSpecError);
    }
  });

  it('sweeps an element of the default strategy’s band list, keeping the rest of the default', () => {
    const params = validateGrid(parseGridSpec('bands.0.distance=0.01,0.02;skewPerShare=0,0.0005'), bands, {});
    expect(params).toEqual([
      { bands: [{ distance: 0.01, size: 10 }], skewPerShare: 0 },
      { bands: [{ distance: 0.01, size: 10 }], skewPerShare: 0.0005 },
      { bands: [{ distance: 0.02, size: 10 }], skewPerShare: 0 },
      { bands: [{ distance: 0.02, size: 10 }], skewPerShare: 0.0005 },
    ]);
    // base params given by --params are the starting point
    const two = {
      bands: [
        { distance: 0.01, size: 10 },
        { distance: 0.03, size: 5 },
      ],
    };
    expect(validateGrid(parseGridSpec('bands.1.size=7'), bands, two)).toEqual([
      {
        bands: [
          { distance: 0.01, size: 10 },
          { distance: 0.03, size: 7 },
        ],
      },
    ]);
    expect(two.bands[1].size).toBe(5);
    // a plain key merges as before: only what the grid sets
    expect(validateGrid(parseGridSpec('minSpread=0.01,0.04'), bands, {})).toEqual([{ minSpread: 0.01 }, { minSpread: 0.04 }]);
  });

  it('refuses an invalid value before anything runs: one line naming the parameter and the value', () => {
    const cases: Array<[string, RegExp]> = [
      ['minSpread=abc,0.01', /^--grid: minSpread=abc: .*expected number/],
      ['minSpread=0.01,-5', /^--grid: minSpread=-5: .*(>=|small)/],
      ['bands.0.distance=0.01,0.9', /^--grid: bands\.0\.distance=0\.9: /],
      ['fair=mid,best', /^--grid: fair=best: /],
    ];
    for (const [spec, msg] of cases) {
      let err: unknown;
      try {
        validateGrid(parseGridSpec(spec), bands, {});
      } catch (e) {
        err = e;
      }
      expect(err, spec).toBeInstanceOf(GridSpecError);
      expect((err as Error).message, spec).toMatch(msg);
      expect((err as Error).message, spec).not.toContain('\n');
    }
  });

  it('refuses a combination whose min exceeds its max (the strategy would quote nothing) before anything runs', () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      // a swept min over the default max: named by the swept parameter and value
      ['minSpread=0.01,0.3', {}, /^--grid: minSpread=0\.3: .*exceeds maxSpread/],
      ['minPrice=0.05,0.96', {}, /^--grid: minPrice=0\.96: .*exceeds maxPrice/],
      // a swept max under the base min: the combination and the min key
      ['maxSpread=0.2,0.05', { minSpread: 0.1 }, /^--grid: the combination maxSpread=0\.05 does not fit strategy bands: minSpread: .*exceeds maxSpread/],
      ['maxPrice=0.95,0.5', { minPrice: 0.6 }, /^--grid: the combination maxPrice=0\.5 does not fit strategy bands: minPrice: .*exceeds maxPrice/],
    ];
    for (const [spec, base, msg] of cases) {
      expect(() => validateGrid(parseGridSpec(spec), bands, base), spec).toThrow(GridSpecError);
      expect(() => validateGrid(parseGridSpec(spec), bands, base), spec).toThrow(msg);
    }
    expect(() => validateGrid(parseGridSpec('minSpread=0.01,0.3'), avellaneda, {})).toThrow(/^--grid: minSpread=0\.3: .*exceeds maxSpread/);
    expect(() => validateGrid(parseGridSpec('minPrice=0.05,0.96'), avellaneda, {})).toThrow(/^--grid: minPrice=0\.96: .*exceeds maxPrice/);
    // equal bounds pass
    expect(validateGrid(parseGridSpec('minSpread=0.2'), bands, {})).toEqual([{ minSpread: 0.2 }]);
  });

  it('names an unknown parameter, a missing element and a path through a value', () => {
    const cases: Array<[string, RegExp]> = [
      ['gamma=0.05,0.1', /^--grid: 'gamma' is not a parameter of strategy bands \(its parameters: fair, bands, skewPerShare, /],
      ['bands.0.width=1', /^--grid: 'bands\.0\.width' is not a parameter of strategy bands/],
      ['bands.1.distance=0.02', /^--grid: 'bands\.1\.distance': bands has 1 element \(index 0\)/],
      ['bands.first.distance=0.02', /^--grid: 'bands\.first\.distance': bands is a list: index it by number/],
      ['minSpread.x=1', /^--grid: 'minSpread\.x': minSpread is a number, not an object or list/],
    ];
    for (const [spec, msg] of cases) {
      expect(() => validateGrid(parseGridSpec(spec), bands, {}), spec).toThrow(msg);
    }
  });

  it('keeps values as text where the schema wants text', () => {
    const s = { name: 'labels', params: z.strictObject({ label: z.string().default('x'), n: z.number().default(1) }) };
    expect(validateGrid(parseGridSpec('label=1,true;n=2'), s, {})).toEqual([
      { label: '1', n: 2 },
      { label: 'true', n: 2 },
    ]);
    // as written: not read as a number first ('007' was '7', '1.0' and '1' one value, a long id rounded)
    const id = '71321045679252212594626385532706912750332728571942532289631379312455583992563';
    expect(validateGrid(parseGridSpec(`label=007,0.10,1.0,1,${id}`), s, {}).map((p) => p.label)).toEqual(['007', '0.10', '1.0', '1', id]);
    // for a number the same value twice is still refused
    expect(() => validateGrid(parseGridSpec('n=1.0,1'), s, {})).toThrow(/repeated value for 'n'/);
  });

  it('prints one line per row in the terminal table, even for a multi-line error', () => {
    const rows = gridTableRows(parseGridSpec('s=1'), [{ index: 0, combo: { s: 1 }, error: 'strategy threw\n  at quote (x.ts:1)\n  at y' }]);
    for (const cell of rows.flat()) expect(cell).not.toMatch(/[\n\r]/);
    expect(rows[1].join(' ')).toMatch(/error: strategy threw/);
  });
});
