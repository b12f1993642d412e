// Parameter sweeps: a grid spec such as 'gamma=0.05,0.1,0.2;spread=2,4' expands to every
// combination, each merged over the base params and run as its own deterministic backtest
// (in worker processes, pool.ts). Results are ranked by total PnL, ties by smaller drawdown,
// then by grid order, and written as CSV.
import { MakerdError } from '../core/errors.js';
import type { TotalResult } from '../report/stats.js';

export class GridSpecError extends MakerdError {}

export type GridValue = number | string | boolean;

export interface GridAxis {
  name: string;
  values: GridValue[];
}

const NUMBER = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/;

function parseValue(raw: string, name: string): GridValue {
  const s = raw.trim();
  if (s === '') throw new GridSpecError(`--grid: empty value for '${name}'`);
  if (NUMBER.test(s)) return Number(s);
  if (s === 'true') return true;
  if (s === 'false') return false;
  return s;
}

/** 'a=1,2;b=x,y' -> axes in the order written. Names may be dotted (nested params). */
export function parseGridSpec(spec: string): GridAxis[] {
  const axes: GridAxis[] = [];
  for (const part of spec.split(';')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    if (eq < 0) throw new GridSpecError(`--grid: '${part.trim()}' is not name=v1,v2,...`);
    const name = part.slice(0, eq).trim();
    if (!NAME.test(name)) throw new GridSpecError(`--grid: bad parameter name '${name}'`);
    if (axes.some((a) => a.name === name)) throw new GridSpecError(`--grid: '${name}' given twice`);
    const values = part
      .slice(eq + 1)
      .split(',')
      .map((v) => parseValue(v, name));
    const seen = new Set(values.map((v) => JSON.stringify(v)));
    if (seen.size !== values.length) throw new GridSpecError(`--grid: repeated value for '${name}'`);
    axes.push({ name, values });
  }
  if (!axes.length) throw new GridSpecError('--grid: no parameters');
  return axes;
}

/** Every combination, the last axis varying fastest. */
export function expandGrid(axes: GridAxis[]): Array<Record<string, GridValue>> {
  let combos: Array<Record<string, GridValue>> = [{}];
  for (const a of axes) {
    const next: Array<Record<string, GridValue>> = [];
    for (const c of combos) for (const v of a.values) next.push({ ...c, [a.name]: v });
    combos = next;
  }
  return combos;
}

/** Sets each (possibly dotted) key of `combo` over a copy of `base`. */
export function mergeParams(base: Record<string, unknown>, combo: Record<string, GridValue>): Record<string, unknown> {
  const out: Record<string, unknown> = structuredClone(base);
  for (const [key, v] of Object.entries(combo)) {
    const path = key.split('.');
    let o = out;
    for (const k of path.slice(0, -1)) {
      const cur = o[k];
      if (typeof cur !== 'object' || cur === null || Array.isArray(cur)) o[k] = {};
      o = o[k] as Record<string, unknown>;
    }
    o[path[path.length - 1]] = v;
  }
  return out;
}

export interface GridRow {
  /** Position in grid order (0-based). */
  index: number;
  combo: Record<string, GridValue>;
  total?: TotalResult;
  error?: string;
}

/** Best first: higher total PnL, then smaller max drawdown, then grid order; failed runs last. */
export function rankRows(rows: GridRow[]): GridRow[] {
  return [...rows].sort((a, b) => {
    if (!a.total || !b.total) return a.total ? -1 : b.total ? 1 : a.index - b.index;
    if (a.total.pnl.total !== b.total.pnl.total) return b.total.pnl.total - a.total.pnl.total;
    if (a.total.maxDrawdown !== b.total.maxDrawdown) return a.total.maxDrawdown - b.total.maxDrawdown;
    return a.index - b.index;
  });
}

const METRICS: Array<[string, (t: TotalResult) => number | null]> = [
  ['total_pnl', (t) => t.pnl.total],
  ['realized_pnl', (t) => t.pnl.realized],
  ['unrealized_pnl', (t) => t.pnl.unrealized],
  ['fees', (t) => t.pnl.fees],
  ['max_drawdown', (t) => t.maxDrawdown],
  ['fills', (t) => t.fills],
  ['maker_share', (t) => t.makerShare],
  ['fill_edge', (t) => t.fillEdge],
  ['volume_shares', (t) => t.volume.shares],
  ['pnl_per_max_inventory', (t) => t.pnlPerMaxInventory],
  ['interval_sharpe', (t) => t.intervalSharpe],
  ['quote_uptime', (t) => t.quoteUptime],
  ['orders', (t) => t.orders],
  ['cancels', (t) => t.cancels],
];

function csvCell(v: unknown): string {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Ranked rows as CSV: rank, the grid parameters, the metrics, and an error column. */
export function gridCsv(axes: GridAxis[], ranked: GridRow[]): string {
  const head = ['rank', ...axes.map((a) => a.name), ...METRICS.map(([n]) => n), 'error'];
  const lines = [head.map(csvCell).join(',')];
  ranked.forEach((r, i) => {
    const cells: unknown[] = [i + 1, ...axes.map((a) => r.combo[a.name])];
    for (const [, f] of METRICS) cells.push(r.total ? f(r.total) : '');
    cells.push(r.error ?? '');
    lines.push(cells.map(csvCell).join(','));
  });
  return lines.join('\n') + '\n';
}

/** The ranking for the terminal: rank, parameters, PnL, drawdown, fills, uptime. */
export function gridTableRows(axes: GridAxis[], ranked: GridRow[]): string[][] {
  const rows = [['#', ...axes.map((a) => a.name), 'pnl $', 'max dd', 'fills', 'maker', 'uptime', 'orders']];
  ranked.forEach((r, i) => {
    const t = r.total;
    rows.push([
      String(i + 1),
      ...axes.map((a) => String(r.combo[a.name])),
      t ? t.pnl.total.toFixed(4) : `error: ${r.error ?? '?'}`,
      t ? t.maxDrawdown.toFixed(4) : '',
      t ? String(t.fills) : '',
      t ? `${(t.makerShare * 100).toFixed(1)}%` : '',
      t ? `${(t.quoteUptime * 100).toFixed(1)}%` : '',
      t ? String(t.orders) : '',
    ]);
  });
  return rows;
}
