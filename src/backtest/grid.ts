// Parameter sweeps: a grid spec such as 'bands.0.distance=0.01,0.02;skewPerShare=0,0.0005'
// expands to every combination, each merged over the base params and run as its own deterministic
// backtest (in worker processes, pool.ts). A name is a path into the strategy's params: fields
// joined by dots, a list element by its index from 0 (bands.0.distance). Before anything runs,
// every path is checked against the strategy's schema and every combination is validated by it;
// the first problem is one line naming the parameter and the value. Results are ranked by total
// PnL, ties by smaller drawdown, then by grid order, and written as CSV.
import { MakerdError } from '../core/errors.js';
import { parseWith } from '../config.js';
import type { StrategyModule } from '../engine/strategy.js';
import type { TotalResult } from '../report/stats.js';
import { paramsJsonSchema, propertyNames, typeOf, type SchemaNode } from '../strategy/params.js';

export class GridSpecError extends MakerdError {}

export type GridValue = number | string | boolean;

export interface GridAxis {
  name: string;
  values: GridValue[];
  /** The values as written (trimmed): what a parameter the schema wants as text takes ('007' stays '007'). */
  raw?: string[];
}

const NUMBER = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;
/** A path: a field name, then fields or list indexes (0, 1, ... without leading zeros), dot-separated. */
const NAME = /^[A-Za-z_][A-Za-z0-9_]*(?:\.(?:[A-Za-z_][A-Za-z0-9_]*|0|[1-9][0-9]*))*$/;

function parseValue(raw: string, name: string): GridValue {
  const s = raw.trim();
  if (s === '') throw new GridSpecError(`--grid: empty value for '${name}'`);
  if (NUMBER.test(s)) return Number(s);
  if (s === 'true') return true;
  if (s === 'false') return false;
  return s;
}

/** 'a=1,2;b.0.c=x,y' -> axes in the order written. Names are paths (nested fields, list indexes). */
export function parseGridSpec(spec: string): GridAxis[] {
  const axes: GridAxis[] = [];
  for (const part of spec.split(';')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    if (eq < 0) throw new GridSpecError(`--grid: '${part.trim()}' is not name=v1,v2,...`);
    const name = part.slice(0, eq).trim();
    if (!NAME.test(name)) throw new GridSpecError(`--grid: bad parameter path '${name}' (fields joined by dots, a list element by its index: bands.0.distance)`);
    if (axes.some((a) => a.name === name)) throw new GridSpecError(`--grid: '${name}' given twice`);
    const raw = part
      .slice(eq + 1)
      .split(',')
      .map((v) => v.trim());
    const values = raw.map((v) => parseValue(v, name));
    // the same text twice; values equal once read as numbers ('1.0' and '1') are checked against the schema (validateGrid)
    if (new Set(raw).size !== raw.length) throw new GridSpecError(`--grid: repeated value for '${name}'`);
    axes.push({ name, values, raw });
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

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);
const INDEX = /^(?:0|[1-9][0-9]*)$/;

/**
 * Sets each path of `combo` over a copy of `base`. A container the path needs and `base` lacks is
 * copied from `defaults` (the params with the schema's defaults filled in), so 'bands.0.distance'
 * over {} keeps the default band's other fields; without one it starts empty.
 */
export function mergeParams(base: Obj, combo: Record<string, unknown>, defaults: Obj = {}): Obj {
  const out: Obj = structuredClone(base);
  for (const [key, v] of Object.entries(combo)) {
    const path = key.split('.');
    let o = out;
    let d: unknown = defaults;
    for (let i = 0; i < path.length - 1; i++) {
      const k = path[i];
      const list = INDEX.test(path[i + 1]);
      d = isObj(d) || Array.isArray(d) ? (d as Obj)[k] : undefined;
      let cur = o[k];
      if (list ? !Array.isArray(cur) : !isObj(cur)) {
        cur = (list ? Array.isArray(d) : isObj(d)) ? structuredClone(d) : list ? [] : {};
        o[k] = cur;
      }
      o = cur as Obj;
    }
    o[path[path.length - 1]] = v;
  }
  return out;
}

const oneLine = (s: string): string => s.replace(/\s+/g, ' ').trim();

function kindOf(n: SchemaNode): string {
  const t = Array.isArray(n.type) ? n.type[0] : n.type;
  return t === 'number' ? 'a number' : t === 'integer' ? 'an integer' : t === 'string' ? 'text' : t === 'boolean' ? 'a boolean' : `a value (${typeOf(n)})`;
}

/** Walks `name` through the JSON Schema (and the resolved params, for list lengths); returns the leaf's node, or undefined where the schema cannot tell. */
function checkPath(name: string, root: SchemaNode, resolved: unknown, strategy: string): SchemaNode | undefined {
  const segs = name.split('.');
  let node: SchemaNode = root;
  let data: unknown = resolved;
  const see = `makerd strategies ${strategy} describes them`;
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i];
    const here = segs.slice(0, i).join('.');
    if (node.anyOf || node.oneOf) return undefined;
    const type = Array.isArray(node.type) ? node.type[0] : node.type;
    if (type === 'object' || node.properties) {
      if (INDEX.test(seg)) throw new GridSpecError(`--grid: '${name}': ${here || 'the params'} is an object, not a list: name one of its fields (${propertyNames(node).join(', ')})`);
      const child = node.properties?.[seg];
      if (!child) {
        if (node.additionalProperties !== false) return undefined;
        const has = here ? `${here} has: ${propertyNames(node).join(', ')}` : `its parameters: ${propertyNames(node).join(', ')}`;
        throw new GridSpecError(`--grid: '${name}' is not a parameter of strategy ${strategy} (${has}; ${see})`);
      }
      node = child;
      data = isObj(data) ? data[seg] : undefined;
    } else if (type === 'array') {
      if (!INDEX.test(seg)) throw new GridSpecError(`--grid: '${name}': ${here} is a list: index it by number (${[here, '0', ...segs.slice(i + 1)].join('.')})`);
      const len = Array.isArray(data) ? data.length : 0;
      if (Number(seg) >= len) {
        const range = len === 0 ? 'no elements' : len === 1 ? '1 element (index 0)' : `${len} elements (index 0 to ${len - 1})`;
        throw new GridSpecError(`--grid: '${name}': ${here} has ${range}; give the list you want with --params`);
      }
      node = node.items ?? {};
      data = (data as unknown[])[Number(seg)];
    } else {
      throw new GridSpecError(`--grid: '${name}': ${here} is ${kindOf(node)}, not an object or list`);
    }
  }
  return node;
}

interface Issue {
  path: PropertyKey[];
  message: string;
  code?: string;
  keys?: string[];
}

/**
 * Every combination's params, checked before anything runs: each path exists in the strategy's
 * schema (and each list index in the params), values are kept as text where the schema wants text,
 * and each merged combination passes the schema. Throws GridSpecError with one line naming the
 * parameter and the value (ConfigError when the base params themselves are invalid).
 */
export function validateGrid(axes: GridAxis[], strategy: Pick<StrategyModule, 'name' | 'params'>, base: Obj): Obj[] {
  return typedGrid(axes, strategy, base).params;
}

/** validateGrid's params, and the axes with each value as its run takes it (text where the schema wants text): what the ranking names. */
export function typedGrid(axes: GridAxis[], strategy: Pick<StrategyModule, 'name' | 'params'>, base: Obj): { params: Obj[]; axes: GridAxis[] } {
  const resolved = parseWith(strategy.params, base, 'strategy.params');
  const root = paramsJsonSchema(strategy.params);
  const typed = axes.map((a) => {
    const leaf = root ? checkPath(a.name, root, resolved, strategy.name) : undefined;
    const text = leaf !== undefined && (leaf.type === 'string' || (leaf.enum !== undefined && leaf.enum.every((v) => typeof v === 'string')));
    const t = text ? { name: a.name, values: a.raw ?? a.values.map(String) } : a;
    if (new Set(t.values.map((v) => JSON.stringify(v))).size !== t.values.length) throw new GridSpecError(`--grid: repeated value for '${a.name}'`);
    return t;
  });
  const out: Obj[] = [];
  for (const combo of expandGrid(typed)) {
    const params = mergeParams(base, combo, isObj(resolved) ? resolved : {});
    const r = strategy.params.safeParse(params);
    if (!r.success) throw new GridSpecError(comboError(r.error.issues as Issue[], typed, combo, strategy.name));
    out.push(params);
  }
  return { params: out, axes: typed };
}

function comboError(issues: Issue[], axes: GridAxis[], combo: Record<string, GridValue>, strategy: string): string {
  const located = issues.map((issue) => {
    const full = issue.path.map(String);
    if (issue.code === 'unrecognized_keys' && issue.keys?.length) full.push(issue.keys[0]);
    const msg = issue.code === 'unrecognized_keys' ? 'unknown key' : oneLine(issue.message);
    // the swept path the issue is in (or above): the longest that matches
    let best: GridAxis | undefined;
    for (const a of axes) {
      const segs = a.name.split('.');
      const n = Math.min(segs.length, full.length);
      if (segs.slice(0, n).join('.') === full.slice(0, n).join('.') && (!best || segs.length > best.name.split('.').length)) best = a;
    }
    return { full: full.join('.'), msg, axis: best };
  });
  const hit = located.find((l) => l.axis) ?? located[0];
  if (hit?.axis) {
    const where = hit.full && hit.full !== hit.axis.name ? `${hit.full}: ` : '';
    return `--grid: ${hit.axis.name}=${String(combo[hit.axis.name])}: ${where}${hit.msg}`;
  }
  const c = Object.entries(combo)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(', ');
  return `--grid: the combination ${c} does not fit strategy ${strategy}: ${hit?.full || '(params)'}: ${hit?.msg ?? 'invalid'}`;
}

export interface GridRow {
  /** Position in grid order (0-based). */
  index: number;
  combo: Record<string, GridValue>;
  total?: TotalResult;
  error?: string;
  /** Why the risk gate halted its quoting part way (its figures cover the run up to the halt). */
  halted?: string;
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
  ['spread_capture', (t) => t.pnl.spreadCapture],
  ['inventory_pnl', (t) => t.pnl.inventory],
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
  // mean markouts (report/markouts.ts), dollars per share
  ['markout_1s', (t) => markout(t, 1_000)],
  ['markout_10s', (t) => markout(t, 10_000)],
  ['markout_60s', (t) => markout(t, 60_000)],
];

function markout(t: TotalResult, horizonMs: number): number | null {
  return t.markouts.find((m) => m.horizonMs === horizonMs)?.meanMove ?? null;
}

function csvCell(v: unknown): string {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Ranked rows as CSV: rank, the grid parameters, the metrics, and an error column. */
export function gridCsv(axes: GridAxis[], ranked: GridRow[]): string {
  // grid: the combination's place in grid order, the n of its folder grid/<n> and its report's title
  const head = ['rank', 'grid', ...axes.map((a) => a.name), ...METRICS.map(([n]) => n), 'halted', 'error'];
  const lines = [head.map(csvCell).join(',')];
  ranked.forEach((r, i) => {
    const cells: unknown[] = [i + 1, r.index, ...axes.map((a) => r.combo[a.name])];
    for (const [, f] of METRICS) cells.push(r.total ? f(r.total) : '');
    cells.push(r.halted ?? '');
    cells.push(r.error ?? '');
    lines.push(cells.map(csvCell).join(','));
  });
  return lines.join('\n') + '\n';
}

const clip = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** The ranking for the terminal: rank, the combination's grid/<n>, parameters, PnL, drawdown, fills, uptime. */
export function gridTableRows(axes: GridAxis[], ranked: GridRow[]): string[][] {
  const rows = [['rank', 'grid', ...axes.map((a) => a.name), 'pnl $', 'max dd', 'fills', 'maker', 'uptime', 'orders', 'halted']];
  ranked.forEach((r, i) => {
    const t = r.total;
    rows.push([
      String(i + 1),
      String(r.index),
      ...axes.map((a) => String(r.combo[a.name])),
      t ? t.pnl.total.toFixed(4) : `error: ${clip(oneLine(r.error ?? '?'), 100)}`,
      t ? t.maxDrawdown.toFixed(4) : '',
      t ? String(t.fills) : '',
      t ? `${(t.makerShare * 100).toFixed(1)}%` : '',
      t ? `${(t.quoteUptime * 100).toFixed(1)}%` : '',
      t ? String(t.orders) : '',
      r.halted ? clip(oneLine(r.halted), 60) : '',
    ]);
  });
  return rows;
}
