// Plain-text tables for the terminal: the backtest summary and the grid ranking.
import type { StatsResult } from './stats.js';
import { shortId } from './page-data.js';

/** Left-aligns the first column, right-aligns the rest. */
export function textTable(rows: string[][]): string {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i])))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}

export function summaryTable(s: StatsResult): string {
  const head = ['token', 'pnl $', 'realized', 'unreal.', 'fees', 'volume', 'fills', 'maker', 'inv max', 'inv |tw|', 'max dd', 'uptime', 'orders', 'cancels'];
  const rows: string[][] = [head];
  for (const t of s.tokens) {
    rows.push([
      shortId(t.tokenId),
      t.pnl.total.toFixed(4),
      t.pnl.realized.toFixed(4),
      t.pnl.unrealized.toFixed(4),
      t.pnl.fees.toFixed(4),
      t.volume.shares.toFixed(2),
      String(t.fills),
      pct(t.makerShare),
      t.inventory.max.toFixed(2),
      t.inventory.timeWeightedAbs.toFixed(2),
      t.maxDrawdown.toFixed(4),
      t.quoteUptime === null ? '-' : pct(t.quoteUptime),
      String(t.orders),
      String(t.cancels),
    ]);
  }
  const T = s.total;
  rows.push([
    'TOTAL',
    T.pnl.total.toFixed(4),
    T.pnl.realized.toFixed(4),
    T.pnl.unrealized.toFixed(4),
    T.pnl.fees.toFixed(4),
    T.volume.shares.toFixed(2),
    String(T.fills),
    pct(T.makerShare),
    '',
    '',
    T.maxDrawdown.toFixed(4),
    pct(T.quoteUptime),
    String(T.orders),
    String(T.cancels),
  ]);
  const extra = [
    `fill edge vs mid: ${T.fillEdge === null ? 'n/a' : `$${T.fillEdge.toFixed(4)} per share`}`,
    `PnL / max inventory notional ($${T.maxInventoryNotional.toFixed(2)}): ${T.pnlPerMaxInventory === null ? 'n/a' : T.pnlPerMaxInventory.toFixed(4)}`,
    `Sharpe-like ratio per ${T.ratioIntervalMs / 1000}s interval (not annualised): ${T.intervalSharpe === null ? 'n/a' : T.intervalSharpe.toFixed(4)}`,
  ];
  return `${textTable(rows)}\n${extra.join('\n')}`;
}
