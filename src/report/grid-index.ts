// The index page of a --grid sweep (DIR/index.html): every combination ranked by the objective
// (total PnL, ties by the smaller max drawdown, then grid order; failed runs last), each linked to
// its own report (DIR/grid/<n>/report.html), with two small charts of the objective across the
// grid: a heat table (the last swept parameter across, the others down) and a bar per combination
// in grid order. Plain HTML and inline SVG, no script, no network.
import { esc, fmt, pct } from './html.js';
import type { TotalResult } from './types.js';
import { GENERATOR_META } from './html.js';

export interface GridIndexRow {
  /** Position in grid order (0-based): the combination's folder is grid/<index>. */
  index: number;
  combo: Record<string, number | string | boolean>;
  total?: TotalResult;
  error?: string;
  /** Why the risk gate halted the run's quoting part way. */
  halted?: string;
}

export interface GridIndexInput {
  title: string;
  inputs: Array<[string, string]>;
  /** The swept parameters in the order given, with their values. */
  axes: Array<{ name: string; values: Array<number | string | boolean> }>;
  /** Best first. */
  ranked: GridIndexRow[];
  /** The link to a combination's report, relative to the index page (undefined: it has none, its run failed). */
  href: (index: number) => string | undefined;
}

/** The objective the rows are ranked by. */
export const OBJECTIVE = { label: 'total PnL ($)', value: (t: TotalResult): number => t.pnl.total };

/** A colour for x on a scale symmetric around 0 (green above, red below), white at 0. */
function heat(x: number, scale: number): string {
  if (!(scale > 0) || x === 0) return '#ffffff';
  const a = Math.min(1, Math.abs(x) / scale);
  const [r, g, b] = x > 0 ? [22, 163, 74] : [220, 38, 38];
  const mix = (c: number): number => Math.round(255 + (c - 255) * (0.12 + 0.68 * a));
  return `rgb(${mix(r)},${mix(g)},${mix(b)})`;
}

/** `inner` linked to the combination's report when it has one. */
function linked(r: GridIndexInput, index: number, inner: string): string {
  const h = r.href(index);
  return h === undefined ? inner : `<a href="${esc(h)}">${inner}</a>`;
}

const key = (combo: Record<string, unknown>, names: string[]): string => names.map((n) => JSON.stringify(combo[n])).join('|');

function heatTable(r: GridIndexInput, rank: Map<number, number>, scale: number): string {
  const last = r.axes[r.axes.length - 1];
  const rest = r.axes.slice(0, -1);
  const byKey = new Map<string, GridIndexRow>();
  for (const row of r.ranked)
    byKey.set(
      key(
        row.combo,
        r.axes.map((a) => a.name),
      ),
      row,
    );
  // the other parameters' combinations, in grid order (the last axis varies fastest)
  let prefixes: Array<Record<string, unknown>> = [{}];
  for (const a of rest) prefixes = prefixes.flatMap((p) => a.values.map((v) => ({ ...p, [a.name]: v })));
  const head = `<tr><th>${esc(rest.map((a) => a.name).join(', ') || '')}${rest.length ? ' \\ ' : ''}${esc(last.name)}</th>${last.values.map((v) => `<th>${esc(String(v))}</th>`).join('')}</tr>`;
  const body = prefixes
    .map((p) => {
      const label = rest.map((a) => `${a.name}=${String(p[a.name])}`).join(', ') || OBJECTIVE.label;
      const cells = last.values.map((v) => {
        const row = byKey.get(
          key(
            { ...p, [last.name]: v },
            r.axes.map((a) => a.name),
          ),
        );
        if (!row) return '<td></td>';
        if (!row.total) return `<td class="err" title="${esc(row.error ?? 'failed')}">${linked(r, row.index, 'error')}</td>`;
        const x = OBJECTIVE.value(row.total);
        return `<td style="background:${heat(x, scale)}">${linked(r, row.index, esc(fmt(x, 4)))}<small>rank ${rank.get(row.index)}</small></td>`;
      });
      return `<tr><th>${esc(label)}</th>${cells.join('')}</tr>`;
    })
    .join('');
  return `<table class="heat">${head}${body}</table>`;
}

function barChart(r: GridIndexInput): string {
  const rows = [...r.ranked].sort((a, b) => a.index - b.index);
  const W = 900;
  const H = 180;
  const pad = { l: 70, r: 10, t: 10, b: 24 };
  const n = rows.length;
  const bw = (W - pad.l - pad.r) / Math.max(1, n);
  const vals = rows.map((x) => (x.total ? OBJECTIVE.value(x.total) : 0));
  // round ticks (1, 2, 2.5 or 5 x 10^k) covering every value and 0
  const step = niceStep((Math.max(0, ...vals) - Math.min(0, ...vals)) / 4);
  const hi = Math.ceil(Math.max(0, ...vals) / step - 1e-9) * step;
  const lo = Math.floor(Math.min(0, ...vals) / step + 1e-9) * step;
  const span = hi - lo || 1;
  const y = (v: number): number => pad.t + ((hi - v) / span) * (H - pad.t - pad.b);
  const digits = decimalsOf(step);
  const parts: string[] = [];
  for (let k = Math.round(lo / step); k <= Math.round(hi / step); k++) {
    const v = k * step;
    parts.push(`<line x1="${pad.l}" x2="${W - pad.r}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="${k === 0 ? '#6b7280' : '#e5e7eb'}"/>`);
    parts.push(`<text x="${pad.l - 6}" y="${y(v).toFixed(1)}" text-anchor="end" dominant-baseline="middle">${esc(fmt(v, digits))}</text>`);
  }
  rows.forEach((row, i) => {
    const x = pad.l + i * bw + bw * 0.1;
    const label = Object.entries(row.combo)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(', ');
    if (!row.total) {
      parts.push(
        `<text x="${(x + bw * 0.4).toFixed(1)}" y="${(y(0) - 4).toFixed(1)}" text-anchor="middle" fill="#9ca3af">×<title>#${row.index}: ${esc(label)}: ${esc(row.error ?? 'failed')}</title></text>`,
      );
      return;
    }
    const v = OBJECTIVE.value(row.total);
    const top = Math.min(y(v), y(0));
    const h = Math.max(1, Math.abs(y(v) - y(0)));
    const fill = v > 0 ? '#16a34a' : v < 0 ? '#dc2626' : '#9ca3af';
    parts.push(
      linked(
        r,
        row.index,
        `<rect class="bar" x="${x.toFixed(1)}" y="${top.toFixed(1)}" width="${(bw * 0.8).toFixed(1)}" height="${h.toFixed(1)}" fill="${fill}"><title>#${row.index}: ${esc(label)}: ${esc(fmt(v, 4))}</title></rect>`,
      ),
    );
    if (n <= 40) parts.push(`<text x="${(x + bw * 0.4).toFixed(1)}" y="${H - 8}" text-anchor="middle" fill="#6b7280">${row.index}</text>`);
  });
  return `<svg class="bars" viewBox="0 0 ${W} ${H}" width="100%" style="max-width:${W}px" font-size="11" font-family="system-ui,sans-serif">${parts.join('')}</svg>`;
}

/** A round step (1, 2, 2.5 or 5 x 10^k) at least x. */
function niceStep(x: number): number {
  if (!(x > 0)) return 1;
  const p = Math.pow(10, Math.floor(Math.log10(x)));
  for (const m of [1, 2, 2.5, 5]) if (m * p >= x * (1 - 1e-12)) return m * p;
  return 10 * p;
}

/** Decimals that print every multiple of `step` exactly. */
function decimalsOf(step: number): number {
  for (let d = 0; d < 10; d++) {
    const m = step * Math.pow(10, d);
    if (Math.abs(m - Math.round(m)) < 1e-6) return d;
  }
  return 10;
}

export function renderGridIndex(r: GridIndexInput): string {
  const rank = new Map<number, number>();
  r.ranked.forEach((row, i) => rank.set(row.index, i + 1));
  let scale = 0;
  for (const row of r.ranked) if (row.total) scale = Math.max(scale, Math.abs(OBJECTIVE.value(row.total)));
  const mo = (t: TotalResult, h: number): string => {
    const m = t.markouts.find((x) => x.horizonMs === h);
    return m && m.meanMove !== null ? fmt(m.meanMove, 4) : '-';
  };
  const head = ['rank', ...r.axes.map((a) => a.name), OBJECTIVE.label, '', 'spread capture', 'inventory', 'fees', 'max DD', 'fills', 'maker', 'markout 10 s', 'uptime', 'report'];
  const rows = r.ranked.map((row, i) => {
    const params = r.axes.map((a) => `<td>${esc(String(row.combo[a.name]))}</td>`).join('');
    const link = linked(r, row.index, `grid/${row.index}`);
    const t = row.total;
    if (!t) return `<tr class="failed"><td>${i + 1}</td>${params}<td colspan="${head.length - r.axes.length - 2}" class="msg">error: ${esc(row.error ?? 'failed')}</td><td>${link}</td></tr>`;
    const x = OBJECTIVE.value(t);
    const w = scale > 0 ? Math.round((Math.abs(x) / scale) * 100) : 0;
    const bar = `<span class="bar ${x < 0 ? 'neg' : 'pos'}" style="width:${w}px"></span>`;
    const cells = [
      fmt(x, 4),
      '',
      fmt(t.pnl.spreadCapture, 4),
      fmt(t.pnl.inventory, 4),
      fmt(t.pnl.fees, 4),
      fmt(t.maxDrawdown, 4),
      String(t.fills),
      pct(t.makerShare),
      mo(t, 10_000),
      pct(t.quoteUptime),
    ];
    const tds = cells.map((c, j) => (j === 1 ? `<td class="barcell">${bar}</td>` : `<td>${esc(c)}</td>`)).join('');
    // a halted run's figures cover it up to the halt: said on its row
    const halted = row.halted ? ` <span class="halted" title="${esc(row.halted)}">HALTED: ${esc(row.halted)}</span>` : '';
    return `<tr${row.halted ? ' class="halted"' : ''}><td>${i + 1}</td>${params}${tds}<td>${link}${halted}</td></tr>`;
  });
  const failed = r.ranked.filter((x) => !x.total).length;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">${GENERATOR_META}<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(r.title)}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:20px auto;padding:0 20px;color:#111827;max-width:1240px;font-size:14px}
h1{font-size:22px}h2{font-size:18px;margin:26px 0 8px;border-bottom:1px solid #e5e7eb;padding-bottom:4px}
table{border-collapse:collapse;margin:6px 0 14px;font-size:12.5px;font-variant-numeric:tabular-nums}
td,th{border:1px solid #e5e7eb;padding:3px 8px;text-align:right;white-space:nowrap}th{background:#f9fafb}
td:first-child,th:first-child{text-align:left}table.kv td:last-child{text-align:left;white-space:normal;word-break:break-all}
table.heat td{min-width:70px;text-align:center}table.heat td a{color:#111827;text-decoration:none;font-weight:600}table.heat small{display:block;color:#374151;font-size:10.5px}
td.err{background:#f3f4f6;color:#6b7280}tr.failed td{color:#6b7280}td.msg{text-align:left;white-space:normal}
td.barcell{width:104px;text-align:left}span.bar{display:inline-block;height:10px}span.bar.pos{background:#16a34a}span.bar.neg{background:#dc2626}
.note{color:#6b7280;font-size:12.5px}a{color:#2563eb}svg.bars a rect:hover{opacity:.7}
</style></head><body>
<h1>${esc(r.title)}</h1>
<table class="kv">${r.inputs.map(([k, v]) => `<tr><td>${esc(k)}</td><td>${esc(v)}</td></tr>`).join('')}</table>
<h2>Objective across the grid</h2>
<p class="note">${esc(OBJECTIVE.label)} of each combination, its rank under it; click one for its report.${failed ? ` ${failed} combination${failed === 1 ? '' : 's'} failed.` : ''}</p>
${heatTable(r, rank, scale)}
<p class="note">In grid order (the last parameter varies fastest), numbered as the folders under grid/.</p>
${barChart(r)}
<h2>Ranking</h2>
<p class="note">By ${esc(OBJECTIVE.label)}, ties by the smaller max drawdown, then grid order; failed runs last. PnL = spread capture + inventory - fees (each report defines them).</p>
<table class="rank"><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>
</body></html>
`;
}
