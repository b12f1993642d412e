// What the report page's script draws (the JSON data block of report.html), made from the
// collector's chart data: the shared time axis, the lines, the markets to show, and the markout
// histograms. Deterministic: the same chart data gives the same block, byte for byte.
import type { BandColumns, ChartData, Column, FillMarks } from './types.js';
import { round6 } from './token-state.js';

/** Markets drawn one chart each; beyond this many, the busiest (most fills). */
export const MAX_PRICE_CHARTS = 20;
/** Markets drawn one line each on the exposure chart; the rest are summed into one line. */
export const MAX_EXPOSURE_LINES = 8;
/** Histogram bins per side of zero, at most. */
const HALF_BINS = 12;

export interface PageData {
  axis: { t0: number; stepMs: number; n: number; startMs: number; endMs: number };
  equity: BandColumns;
  drawdown: Column;
  spreadCapture: Column;
  inventory: Column;
  fees: Column;
  exposure: Array<{ label: string; values: Column }>;
  prices: Array<{ label: string; tokenId: string; mid: BandColumns; bid: Column; ask: Column; fills: FillMarks[] }>;
  /** Markets with no chart of their own (over MAX_PRICE_CHARTS). */
  pricesOmitted: number;
  markouts: Array<{ horizonMs: number; fills: number; binWidth: number; bins: Array<[number, number]>; clipped: number }>;
}

/** A token id shortened for a table or a label; control characters (a recording's id is anyone's text: terminal escapes) shown as '?'. */
export function shortId(id: string): string {
  const s = id.length > 14 ? `${id.slice(0, 6)}…${id.slice(-6)}` : id;
  return s.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
}

function fillCount(f: FillMarks[]): number {
  let n = 0;
  for (const x of f) n += x.buys + x.sells;
  return n;
}

function maxAbs(c: Column): number {
  let m = 0;
  for (const v of c) if (v !== null && Math.abs(v) > m) m = Math.abs(v);
  return m;
}

/** Step of a histogram: a round number (1, 2, 2.5 or 5 x 10^k dollars) at least half a price unit. */
function niceStep(x: number): number {
  if (!(x > 0)) return 0.0001;
  const p = Math.pow(10, Math.floor(Math.log10(x)));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= x - 1e-12) return Math.max(round6(m * p), 0.00005);
  return round6(10 * p);
}

/**
 * Bins [move, fills] (dollars per share) into at most 2 x HALF_BINS + 1 bins centred on 0, wide
 * enough to span the 1st to 99th percentile and no narrower than the smallest move; moves beyond
 * go into the outer bins (`clipped` counts them).
 */
export function markoutBins(moves: Array<[number, number]>): { binWidth: number; bins: Array<[number, number]>; clipped: number } {
  let n = 0;
  for (const [, c] of moves) n += c;
  if (n === 0) return { binWidth: 0, bins: [], clipped: 0 };
  const quantile = (q: number): number => {
    const rank = Math.floor(q * (n - 1));
    let seen = 0;
    for (const [v, c] of moves) {
      seen += c;
      if (seen > rank) return v;
    }
    return moves[moves.length - 1][0];
  };
  let smallest = Infinity;
  for (const [v] of moves) if (v !== 0 && Math.abs(v) < smallest) smallest = Math.abs(v);
  const reach = Math.max(Math.abs(quantile(0.01)), Math.abs(quantile(0.99)), Number.isFinite(smallest) ? smallest : 0.0001);
  // never finer than the smallest move seen (mids move by half ticks: finer bins would be empty)
  const w = niceStep(Math.max(reach / HALF_BINS, Number.isFinite(smallest) ? smallest : 0));
  const half = Math.max(1, Math.ceil(reach / w - 1e-9));
  const counts = new Array<number>(2 * half + 1).fill(0);
  let clipped = 0;
  for (const [v, c] of moves) {
    let j = Math.round(v / w);
    if (j < -half || j > half) {
      clipped += c;
      j = j < 0 ? -half : half;
    }
    counts[j + half] += c;
  }
  return { binWidth: w, bins: counts.map((c, i): [number, number] => [round6((i - half) * w), c]), clipped };
}

export function pageData(c: ChartData): PageData {
  // the busiest markets get a chart; shown in token order
  let prices = c.prices;
  if (prices.length > MAX_PRICE_CHARTS) {
    const keep = new Set(
      [...prices]
        .sort((a, b) => fillCount(b.fills) - fillCount(a.fills) || (a.tokenId < b.tokenId ? -1 : 1))
        .slice(0, MAX_PRICE_CHARTS)
        .map((p) => p.tokenId),
    );
    prices = prices.filter((p) => keep.has(p.tokenId));
  }
  let exposure = c.exposure.map((e) => ({ label: shortId(e.tokenId), values: e.values, peak: maxAbs(e.values), id: e.tokenId }));
  if (exposure.length > MAX_EXPOSURE_LINES) {
    const ranked = [...exposure].sort((a, b) => b.peak - a.peak || (a.id < b.id ? -1 : 1));
    const shown = new Set(ranked.slice(0, MAX_EXPOSURE_LINES - 1).map((e) => e.id));
    const rest = exposure.filter((e) => !shown.has(e.id));
    const sum: Column = new Array(c.n).fill(null);
    for (const e of rest)
      e.values.forEach((v, k) => {
        if (v !== null) sum[k] = round6((sum[k] ?? 0) + v);
      });
    exposure = [...exposure.filter((e) => shown.has(e.id)), { label: `${rest.length} other markets (sum)`, values: sum, peak: 0, id: '' }];
  }
  return {
    axis: { t0: c.t0, stepMs: c.stepMs, n: c.n, startMs: c.startMs, endMs: c.endMs },
    equity: c.equity,
    drawdown: c.drawdown,
    spreadCapture: c.spreadCapture,
    inventory: c.inventory,
    fees: c.fees,
    exposure: exposure.map((e) => ({ label: e.label, values: e.values })),
    prices: prices.map((p) => ({ label: shortId(p.tokenId), tokenId: p.tokenId, mid: p.mid, bid: p.bid, ask: p.ask, fills: p.fills })),
    pricesOmitted: c.prices.length - prices.length,
    markouts: c.markouts.map((m) => {
      let fills = 0;
      for (const [, n] of m.moves) fills += n;
      return { horizonMs: m.horizonMs, fills, ...markoutBins(m.moves) };
    }),
  };
}
