// The backtest report page: one self-contained HTML file (no network: uPlot's script and
// stylesheet are inlined, assets.ts) with the summary, the PnL split and markout tables, the
// per-token tables (plain HTML, readable without JavaScript), and the charts, drawn by the page's
// script (client.ts) from one JSON data block (page-data.ts): equity with its drawdown, the PnL
// split over time, net exposure per market, and per market the mid with our bid, ask and fills,
// all on one shared time axis; and the markout distributions. The data are already bucketed on
// the collector's shared grid (series.ts), so the page size is bounded whatever the run length.
import { uplot, inlineJson } from './assets.js';
import { CLIENT_JS } from './client.js';
import { pageData, shortId } from './page-data.js';
import type { ChartData, MarkoutFigures, StatsResult, TokenResult } from './stats.js';

/** Marks a page as a makerd backtest's (a rerun into the same --out replaces only its own files: backtest/output.ts). */
export const GENERATOR_META = '<meta name="generator" content="makerd backtest">';

export interface RateLimitRow {
  scope: string;
  peakUsed: number;
  limit: number;
  windowMs: number;
  peakShare: number;
}

export interface ReportInput {
  title: string;
  /** Key/value lines shown under the title (data files, strategy, params, latencies...). */
  inputs: Array<[string, string]>;
  stats: StatsResult;
  charts: ChartData;
  /** Peak use of each rate-limit scope (omitted: no table). */
  rateLimits?: RateLimitRow[];
  /** A link back (a grid's index page), shown above the title. */
  back?: { href: string; label: string };
}

export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

export function fmt(x: number, digits: number): string {
  const s = x.toFixed(digits);
  return /^-0\.?0*$/.test(s) ? s.slice(1) : s;
}

function opt(x: number | null, digits: number): string {
  return x === null ? 'n/a' : fmt(x, digits);
}

function signed(x: number, digits: number): string {
  const s = fmt(x, digits);
  return x > 0 && !/^0\.?0*$/.test(s) ? `+${s}` : s;
}

export function pct(x: number): string {
  return `${fmt(x * 100, 1)}%`;
}

function row(cells: string[], head = false): string {
  const tag = head ? 'th' : 'td';
  return `<tr>${cells.map((c) => `<${tag}>${esc(c)}</${tag}>`).join('')}</tr>`;
}

function table(head: string[], rows: string[][], cls = ''): string {
  return `<table${cls ? ` class="${cls}"` : ''}><thead>${row(head, true)}</thead><tbody>${rows.map((r) => row(r)).join('')}</tbody></table>`;
}

function horizon(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms / 1000} s`;
}

function markoutCell(m: MarkoutFigures | undefined): string {
  return m && m.meanMove !== null ? signed(m.meanMove, 4) : '-';
}

function tokenTables(ts: TokenResult[], pricedOf: Map<string, string>, horizons: number[]): string {
  const role = (id: string): string => {
    const p = pricedOf.get(id);
    return p === undefined ? 'priced' : `compl. of ${shortId(p).slice(0, 6)}`;
  };
  const pnlRows = ts.map((t) => [
    shortId(t.tokenId),
    role(t.tokenId),
    fmt(t.pnl.total, 4),
    fmt(t.pnl.spreadCapture, 4),
    fmt(t.pnl.inventory, 4),
    fmt(t.pnl.fees, 4),
    fmt(t.pnl.realized, 4),
    fmt(t.pnl.unrealized, 4),
    fmt(t.maxDrawdown, 4),
    opt(t.fillEdge, 4),
    ...horizons.map((h) => markoutCell(t.markouts.find((m) => m.horizonMs === h))),
  ]);
  const actRows = ts.map((t) => [
    shortId(t.tokenId),
    fmt(t.volume.shares, 2),
    fmt(t.volume.notional, 2),
    String(t.fills),
    pct(t.makerShare),
    fmt(t.inventory.final, 2),
    fmt(t.inventory.mean, 2),
    fmt(t.inventory.max, 2),
    fmt(t.inventory.timeWeightedAbs, 2),
    t.quoteUptime === null ? '-' : pct(t.quoteUptime),
    String(t.orders),
    String(t.cancels),
    t.lastMid === null ? '-' : fmt(t.lastMid, 4),
  ]);
  return (
    `<h3>PnL and fills ($; fill edge and markouts (mo) in $ per share)</h3>` +
    table(['token', 'role', 'PnL', 'spread capture', 'inventory', 'fees', 'realized', 'unrealized', 'max DD', 'fill edge', ...horizons.map((h) => `mo ${horizon(h)}`)], pnlRows, 'tokens roles') +
    `<h3>Activity and inventory (shares)</h3>` +
    table(['token', 'volume', 'notional $', 'fills', 'maker', 'final pos', 'mean pos', 'max |pos|', 'mean |pos|', 'uptime', 'orders', 'cancels', 'last mid'], actRows, 'tokens')
  );
}

function card(label: string, value: string, note = '', cls = ''): string {
  return `<div class="card${cls ? ` ${cls}` : ''}"><div class="k">${esc(label)}</div><div class="v">${esc(value)}</div>${note ? `<div class="n">${esc(note)}</div>` : ''}</div>`;
}

function tone(x: number): string {
  return x > 0 ? 'pos' : x < 0 ? 'neg' : '';
}

function chartSection(id: string, title: string, note = ''): string {
  return `<section class="chart" id="${esc(id)}"><h3>${esc(title)}</h3>${note ? `<p class="note">${esc(note)}</p>` : ''}<div class="plot"></div></section>`;
}

const PAGE_CSS = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:20px auto;padding:0 20px;color:#111827;max-width:1240px;font-size:14px}
h1{font-size:22px;margin:8px 0 12px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #e5e7eb;padding-bottom:4px}h3{font-size:14px;margin:14px 0 4px}
table{border-collapse:collapse;margin:6px 0 14px;font-size:12.5px;font-variant-numeric:tabular-nums}
td,th{border:1px solid #e5e7eb;padding:3px 8px;text-align:right;white-space:nowrap}th{background:#f9fafb;font-weight:600}
td:first-child,th:first-child{text-align:left}table.kv td:last-child{text-align:left;white-space:normal;word-break:break-all}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:8px;margin:8px 0 12px}
.card{border:1px solid #e5e7eb;border-radius:6px;padding:8px 10px}.card .k{color:#6b7280;font-size:12px}.card .v{font-size:18px;font-weight:600;font-variant-numeric:tabular-nums}
.card .n{color:#6b7280;font-size:11.5px}.pos .v{color:#047857}.neg .v{color:#b91c1c}
.note,.help{color:#6b7280;font-size:12.5px;margin:2px 0 6px}.help button{font-size:12px;margin:0 4px}
section.chart{margin:10px 0 18px}section.chart h3{margin:0 0 2px}.plot{width:100%;min-height:40px}
.uplot .u-legend{font-size:12px;text-align:left}.uplot .u-legend .u-series>*{padding:1px 4px}
.row3{display:grid;grid-template-columns:repeat(3,1fr);gap:14px}.row3 section.chart{min-width:0}
dl.defs dt{font-weight:600;margin-top:8px}dl.defs dd{margin:2px 0 0 16px;color:#374151}
table.tokens{display:block;overflow-x:auto;max-width:100%}table.roles td:nth-child(2),table.roles th:nth-child(2){text-align:left}
a{color:#2563eb}
`;

export function renderReport(r: ReportInput): string {
  const s = r.stats.total;
  const data = pageData(r.charts);
  const lib = uplot();
  const pricedOf = new Map<string, string>();
  for (const p of r.charts.prices) if (p.complementId) pricedOf.set(p.complementId, p.tokenId);
  const horizons = s.markouts.map((m) => m.horizonMs);
  const mo10 = s.markouts.find((m) => m.horizonMs === 10_000) ?? s.markouts[0];
  const cards = [
    card('total PnL $', fmt(s.pnl.total, 4), 'marked to mid, after fees', tone(s.pnl.total)),
    card('spread capture $', fmt(s.pnl.spreadCapture, 4), 'fills vs mid at the fill', tone(s.pnl.spreadCapture)),
    card('inventory $', fmt(s.pnl.inventory, 4), 'position x mid moves', tone(s.pnl.inventory)),
    card('fees $', fmt(s.pnl.fees, 4), 'paid'),
    card('max drawdown $', fmt(s.maxDrawdown, 4), 'from the running peak'),
    card('fills', String(s.fills), `${pct(s.makerShare)} maker, ${fmt(s.volume.shares, 0)} shares`),
    card('fill edge $/share', opt(s.fillEdge, 4), 'size-weighted, vs mid'),
    mo10 ? card(`markout ${horizon(mo10.horizonMs)} $/share`, mo10.meanMove === null ? 'n/a' : signed(mo10.meanMove, 4), `${mo10.fills} fills; + = mid moved our way`) : '',
    card('quote uptime', pct(s.quoteUptime), 'bid and ask both resting'),
    card('max inventory $', fmt(s.maxInventoryNotional, 2), 'sum |position| x mid'),
  ].join('');
  const totals: Array<[string, string]> = [
    ['total PnL = realized + unrealized - fees ($)', `${fmt(s.pnl.total, 6)} = ${fmt(s.pnl.realized, 6)} + ${fmt(s.pnl.unrealized, 6)} - ${fmt(s.pnl.fees, 6)}`],
    ['total PnL = spread capture + inventory - fees ($)', `${fmt(s.pnl.total, 6)} = ${fmt(s.pnl.spreadCapture, 6)} + ${fmt(s.pnl.inventory, 6)} - ${fmt(s.pnl.fees, 6)}`],
    ['volume (shares / $)', `${fmt(s.volume.shares, 2)} / ${fmt(s.volume.notional, 2)}`],
    ['PnL / max inventory notional', opt(s.pnlPerMaxInventory, 4)],
    [`Sharpe-like (per ${s.ratioIntervalMs / 1000}s, not annualised)`, opt(s.intervalSharpe, 4)],
    ['orders / cancels', `${s.orders} / ${s.cancels}`],
  ];
  const markoutRows = s.markouts.map((m) => [
    horizon(m.horizonMs),
    String(m.fills),
    m.meanMove === null ? 'n/a' : signed(m.meanMove, 5),
    m.medianMove === null ? 'n/a' : signed(m.medianMove, 5),
    m.adverseShare === null ? 'n/a' : pct(m.adverseShare),
  ]);
  const markoutCharts = data.markouts
    .map((m, i) =>
      chartSection(
        `chart-markout-${i}`,
        `${horizon(m.horizonMs)} after the fill (${m.fills} fills)`,
        m.fills === 0 ? 'no fill measured' : `bins of $${fmt(m.binWidth, 5)}${m.clipped ? `; ${m.clipped} beyond the 1st-99th percentile counted in the outer bins` : ''}`,
      ),
    )
    .join('');
  const rateRows = (r.rateLimits ?? []).map((x) => [x.scope, String(x.peakUsed), String(x.limit), `${x.windowMs / 1000}s`, pct(x.peakShare)]);
  const rateTable = rateRows.length
    ? `<h2>Rate limits</h2><p class="note">Peak use of each scope, windows sampled each virtual second.</p>${table(['scope', 'peak requests', 'limit', 'window', 'peak use'], rateRows)}`
    : '';
  const bucket = data.axis.stepMs >= 1000 ? `${fmt(data.axis.stepMs / 1000, data.axis.stepMs % 1000 ? 1 : 0)} s` : `${data.axis.stepMs} ms`;
  const priceCharts = data.prices
    .map((p, i) => {
      const c = r.charts.prices.find((x) => x.tokenId === p.tokenId)?.complementId;
      return chartSection(
        `chart-price-${i}`,
        `Market ${p.label}${c ? ` (complement ${shortId(c)})` : ''}: mid, our best bid and ask, our fills`,
        `In this token's terms (a fill on the complement at q shows at 1 - q, its side swapped). Shaded: the mid's low-high in each bucket. Fills: ▲ buys (tip on the price, from below), ▼ sells (from above), one marker per side per 8 px at the size-weighted price of its fills.`,
      );
    })
    .join('');
  const omitted = data.pricesOmitted
    ? `<p class="note">${data.pricesOmitted} more markets have no chart of their own (the ${data.prices.length} with the most fills are shown); every market is in the tables.</p>`
    : '';
  const back = r.back ? `<p class="note"><a href="${esc(r.back.href)}">${esc(r.back.label)}</a></p>` : '';
  const charts =
    data.axis.n === 0
      ? `<p class="note">No market data: nothing to chart.</p>`
      : `<p class="help">Every chart below shares one time axis (UTC). Drag across a chart to zoom, wheel to zoom, shift+drag (or middle-drag) to pan, double-click or <button id="zoom-reset" type="button">reset</button> for the whole run. <span id="zoom-range"></span></p>
<p class="note">Each point is a ${esc(bucket)} bucket (the run in ${data.axis.n} buckets): a line shows the value at the bucket's end, a shaded band its low and high inside it.</p>
${chartSection('chart-equity', 'Equity ($): PnL marked to mid, after fees')}
${chartSection('chart-drawdown', 'Drawdown ($): equity minus its running peak')}
${chartSection('chart-pnl', 'PnL split ($, cumulative): total = spread capture + inventory - fees')}
${data.exposure.length ? chartSection('chart-exposure', 'Net exposure per market (YES-equivalent shares: position in the priced token minus position in its complement)') : '<p class="note">No market: no exposure chart.</p>'}
${priceCharts}
${omitted}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">${GENERATOR_META}<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(r.title)}</title>
<style>/* ${lib.name} ${lib.version} (MIT) */
${lib.css}</style>
<style>${PAGE_CSS}</style></head><body>
${back}<h1>${esc(r.title)}</h1>
<table class="kv">${r.inputs.map(([k, v]) => row([k, v])).join('')}</table>
<h2>Summary</h2>
<div class="cards">${cards}</div>
<table class="kv">${totals.map(([k, v]) => row([k, v])).join('')}</table>
<h2>Charts</h2>
${charts}
<h2>Markouts</h2>
<p class="note">The mid's move after each of our fills, signed by side ($ per share; + = the mid moved our way, - = adverse selection). Mean: size-weighted; median and adverse share: per fill.</p>
${table(['horizon', 'fills measured', 'mean move', 'median move', 'adverse'], markoutRows)}
<div class="row3">${markoutCharts}</div>
<h2>Per token</h2>
${tokenTables(r.stats.tokens, pricedOf, horizons)}
${rateTable}
<h2>Definitions</h2>
<dl class="defs">
<dt>Mid</dt><dd>(best bid + best ask) / 2 of the token's book as the engine saw it (after the feed latency), in force from the update that set it until the next.</dd>
<dt>Equity, total PnL</dt><dd>cash + position x mid - fees, summed over tokens (a position with no mid yet is worth its cost). At the end: realized (average cost) + unrealized - fees.</dd>
<dt>Spread capture</dt><dd>For each fill: (mid at the fill - fill price) x signed size (+size for a buy, -size for a sell), summed. It is what the fill earned against the mid at that instant; a fill before the token had a mid counts 0.</dd>
<dt>Inventory (mark-to-market)</dt><dd>Total PnL - spread capture + fees: the sum over time of the position held x each change of the mid. Computed on whole micro-dollars as that remainder, so spread capture + inventory - fees equals the total PnL exactly.</dd>
<dt>Fees</dt><dd>Fees paid on our fills (maker and taker rates of the simulated venue, or the market's fee rule).</dd>
<dt>Drawdown</dt><dd>Equity minus its highest value so far; max drawdown is the deepest.</dd>
<dt>Net exposure</dt><dd>Per market, the position in the priced token minus the position in its complement (a complement share moves against the priced token's price), in shares.</dd>
<dt>Markout at h</dt><dd>mid(t + h) - mid(t) for a buy at t, mid(t) - mid(t + h) for a sell, where mid(x) is the mid in force at x. Fills with no mid, or less than h before the end of the run, are not measured.</dd>
<dt>Fill edge</dt><dd>Spread capture per share: size-weighted mean of (mid - price) for buys and (price - mid) for sells.</dd>
</dl>
<script type="application/json" id="report-data">${inlineJson(data)}</script>
<script>/* ${lib.name} ${lib.version} (MIT), inlined */
${lib.js}</script>
<script>${CLIENT_JS}</script>
</body></html>
`;
}
