// The backtest report page: one self-contained HTML file (no scripts, no network) with the
// summary tables and three kinds of inline-SVG charts: equity curve, inventory over time, and
// per token the market mid with our bid and ask and our fills marked. Series arrive already
// downsampled (series.ts), so the page size is bounded whatever the run length.
import type { SeriesPoint } from './series.js';
import type { ChartData, FillMark, StatsResult, TokenResult } from './stats.js';

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
}

const W = 960;
const H = 280;
const PAD = { l: 70, r: 16, t: 14, b: 28 };
const COLORS = ['#2563eb', '#dc2626', '#059669', '#d97706', '#7c3aed', '#0891b2'];

export interface Line {
  label: string;
  color: string;
  points: SeriesPoint[];
  /** Draws each bucket's min..max as a faint bar behind the line. */
  band?: boolean;
  /** Step line (value holds until the next point), for quotes and positions. */
  step?: boolean;
}

export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

function fmt(x: number, digits: number): string {
  const s = x.toFixed(digits);
  return s === '-0' || /^-0\.0*$/.test(s) ? s.slice(1) : s;
}

function timeLabel(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('.000Z', 'Z');
}

/** One SVG chart; `points` in data-points counts the plotted values (lines plus markers). */
export function svgChart(id: string, title: string, lines: Line[], marks: FillMark[] = [], digits = 2): string {
  let t0 = Infinity;
  let t1 = -Infinity;
  let y0 = Infinity;
  let y1 = -Infinity;
  for (const l of lines)
    for (const p of l.points) {
      t0 = Math.min(t0, p.t);
      t1 = Math.max(t1, p.t);
      for (const v of [p.v, p.min, p.max]) {
        if (!Number.isFinite(v)) continue;
        y0 = Math.min(y0, v);
        y1 = Math.max(y1, v);
      }
    }
  for (const m of marks) {
    t0 = Math.min(t0, m.t);
    t1 = Math.max(t1, m.t);
    y0 = Math.min(y0, m.price);
    y1 = Math.max(y1, m.price);
  }
  if (!Number.isFinite(t0)) {
    t0 = 0;
    t1 = 1;
  }
  if (t1 <= t0) t1 = t0 + 1;
  if (!Number.isFinite(y0)) {
    y0 = 0;
    y1 = 1;
  }
  if (y1 <= y0) {
    y0 -= 1;
    y1 += 1;
  }
  const padY = (y1 - y0) * 0.05;
  y0 -= padY;
  y1 += padY;
  const x = (t: number): string => fmt(PAD.l + ((t - t0) / (t1 - t0)) * (W - PAD.l - PAD.r), 1);
  const y = (v: number): string => fmt(PAD.t + (1 - (v - y0) / (y1 - y0)) * (H - PAD.t - PAD.b), 1);
  const parts: string[] = [];
  let n = 0;
  for (let k = 0; k <= 4; k++) {
    const v = y0 + ((y1 - y0) * k) / 4;
    parts.push(`<line x1="${PAD.l}" x2="${W - PAD.r}" y1="${y(v)}" y2="${y(v)}" stroke="#e5e7eb"/>`);
    parts.push(`<text x="${PAD.l - 6}" y="${y(v)}" text-anchor="end" dominant-baseline="middle">${fmt(v, digits)}</text>`);
  }
  parts.push(`<text x="${PAD.l}" y="${H - 8}">${esc(timeLabel(t0))}</text>`);
  parts.push(`<text x="${W - PAD.r}" y="${H - 8}" text-anchor="end">${esc(timeLabel(t1))}</text>`);
  for (const l of lines) {
    if (l.band) {
      let d = '';
      for (const p of l.points) if (Number.isFinite(p.min) && p.max > p.min) d += `M${x(p.t)} ${y(p.min)}V${y(p.max)}`;
      if (d) parts.push(`<path d="${d}" stroke="${l.color}" stroke-opacity="0.25" fill="none"/>`);
    }
    let d = '';
    let open = false;
    for (const p of l.points) {
      if (!Number.isFinite(p.v)) {
        open = false;
        continue;
      }
      n++;
      const px = x(p.t);
      const py = y(p.v);
      if (!open) d += `M${px} ${py}`;
      else d += l.step ? `H${px}V${py}` : `L${px} ${py}`;
      open = true;
    }
    parts.push(`<path class="series" data-label="${esc(l.label)}" d="${d}" stroke="${l.color}" stroke-width="1.4" fill="none"/>`);
  }
  for (const m of marks) {
    n++;
    const c = m.side === 'BUY' ? '#16a34a' : '#dc2626';
    parts.push(
      `<circle class="fill" cx="${x(m.t)}" cy="${y(m.price)}" r="3.5" fill="${c}" stroke="#111" stroke-width="0.5">` +
        `<title>${m.side} ${fmt(m.size, 2)} @ ${fmt(m.price, 4)} ${esc(timeLabel(m.t))}</title></circle>`,
    );
  }
  const legend = lines.map((l) => `<span style="color:${l.color}">&#9632; ${esc(l.label)}</span>`).join(' ');
  return (
    `<figure><figcaption>${esc(title)} <small>${legend}</small></figcaption>` +
    `<svg id="${esc(id)}" class="chart" data-points="${n}" viewBox="0 0 ${W} ${H}" width="100%" xmlns="http://www.w3.org/2000/svg" font-size="11" font-family="sans-serif">` +
    parts.join('') +
    `</svg></figure>`
  );
}

function row(cells: string[], head = false): string {
  const tag = head ? 'th' : 'td';
  return `<tr>${cells.map((c) => `<${tag}>${esc(c)}</${tag}>`).join('')}</tr>`;
}

function pct(x: number): string {
  return `${fmt(x * 100, 1)}%`;
}

function tokenRows(ts: TokenResult[]): string {
  const head = row(['token', 'PnL', 'realized', 'unrealized', 'fees', 'volume', 'fills', 'maker', 'inv mean', 'inv max', 'inv |tw|', 'max DD', 'uptime', 'orders', 'cancels'], true);
  const body = ts.map((t) =>
    row([
      short(t.tokenId),
      fmt(t.pnl.total, 4),
      fmt(t.pnl.realized, 4),
      fmt(t.pnl.unrealized, 4),
      fmt(t.pnl.fees, 4),
      fmt(t.volume.shares, 2),
      String(t.fills),
      pct(t.makerShare),
      fmt(t.inventory.mean, 2),
      fmt(t.inventory.max, 2),
      fmt(t.inventory.timeWeightedAbs, 2),
      fmt(t.maxDrawdown, 4),
      t.quoteUptime === null ? '-' : pct(t.quoteUptime),
      String(t.orders),
      String(t.cancels),
    ]),
  );
  return `<table>${head}${body.join('')}</table>`;
}

export function short(id: string): string {
  return id.length > 14 ? `${id.slice(0, 6)}…${id.slice(-6)}` : id;
}

export function renderReport(r: ReportInput): string {
  const s = r.stats.total;
  const totals: Array<[string, string]> = [
    ['total PnL ($)', fmt(s.pnl.total, 6)],
    ['realized / unrealized / fees ($)', `${fmt(s.pnl.realized, 6)} / ${fmt(s.pnl.unrealized, 6)} / ${fmt(s.pnl.fees, 6)}`],
    ['volume (shares / $)', `${fmt(s.volume.shares, 2)} / ${fmt(s.volume.notional, 2)}`],
    ['fills (maker share)', `${s.fills} (${pct(s.makerShare)})`],
    ['fill edge vs mid ($/share)', s.fillEdge === null ? 'n/a' : fmt(s.fillEdge, 4)],
    ['max drawdown ($)', fmt(s.maxDrawdown, 6)],
    ['max inventory notional ($)', fmt(s.maxInventoryNotional, 2)],
    ['PnL / max inventory notional', s.pnlPerMaxInventory === null ? 'n/a' : fmt(s.pnlPerMaxInventory, 4)],
    [`Sharpe-like (per ${s.ratioIntervalMs / 1000}s, not annualised)`, s.intervalSharpe === null ? 'n/a' : fmt(s.intervalSharpe, 4)],
    ['quote uptime (both sides)', pct(s.quoteUptime)],
    ['orders / cancels', `${s.orders} / ${s.cancels}`],
  ];
  const c = r.charts;
  const equity = svgChart('chart-equity', 'Equity (PnL marked to mid, after fees, $)', [{ label: 'equity', color: COLORS[0], points: c.equity, band: true }], [], 4);
  const inventory = svgChart(
    'chart-inventory',
    'Inventory (shares)',
    c.inventory.map((s, i) => ({ label: short(s.tokenId), color: COLORS[i % COLORS.length], points: s.points, step: true })),
  );
  const prices = c.prices
    .map((p, i) =>
      svgChart(
        i === 0 ? 'chart-price' : `chart-price-${i}`,
        `Token ${short(p.tokenId)}: mid, our bid and ask, fills`,
        [
          { label: 'mid', color: '#6b7280', points: p.mid, band: true },
          { label: 'our bid', color: '#16a34a', points: p.bid, step: true },
          { label: 'our ask', color: '#dc2626', points: p.ask, step: true },
        ],
        c.fills.filter((f) => f.tokenId === p.tokenId),
        4,
      ),
    )
    .join('');
  const fillNote = c.fillsTotal > c.fills.length ? `<p class="note">${c.fills.length} of ${c.fillsTotal} fills marked (evenly thinned).</p>` : '';
  const rateRows = (r.rateLimits ?? []).map((x) => row([x.scope, String(x.peakUsed), String(x.limit), `${x.windowMs / 1000}s`, pct(x.peakShare)]));
  const rateTable = rateRows.length
    ? `<h2>Rate limits (peak use, windows sampled each virtual second)</h2><table>${row(['scope', 'peak requests', 'limit', 'window', 'peak use'], true)}${rateRows.join('')}</table>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(r.title)}</title>
<style>
body{font-family:system-ui,sans-serif;margin:24px;color:#111;max-width:1100px}
table{border-collapse:collapse;margin:8px 0 16px;font-size:13px}
td,th{border:1px solid #d1d5db;padding:3px 8px;text-align:right}
th{background:#f3f4f6}td:first-child,th:first-child{text-align:left}
figure{margin:16px 0}figcaption{font-weight:600;margin-bottom:4px}
small{font-weight:400;margin-left:8px}.note{color:#6b7280;font-size:12px}
</style></head><body>
<h1>${esc(r.title)}</h1>
<table>${r.inputs.map(([k, v]) => row([k, v])).join('')}</table>
<h2>Summary</h2>
<table>${totals.map(([k, v]) => row([k, v])).join('')}</table>
<h2>Per token</h2>
${tokenRows(r.stats.tokens)}
${rateTable}
<h2>Charts</h2>
${equity}
${inventory}
${prices || svgChart('chart-price', 'Price (no market data)', [])}
${fillNote}
</body></html>
`;
}
