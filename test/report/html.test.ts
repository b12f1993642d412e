import { describe, it, expect } from 'vitest';
import { StatsCollector } from '../../src/report/stats.js';
import { renderReport } from '../../src/report/html.js';
import { summaryTable } from '../../src/report/table.js';

/** The attributes of the element with the given id, or undefined. */
function elementById(html: string, id: string): { tag: string; attrs: Record<string, string>; inner: string } | undefined {
  const re = new RegExp(`<(\\w+)([^>]*\\sid="${id}"[^>]*)>`, 'g');
  const m = re.exec(html);
  if (!m) return undefined;
  const attrs: Record<string, string> = {};
  for (const a of m[2].matchAll(/([\w-]+)="([^"]*)"/g)) attrs[a[1]] = a[2];
  const close = html.indexOf(`</${m[1]}>`, m.index);
  return { tag: m[1], attrs, inner: html.slice(m.index + m[0].length, close) };
}

function pathPoints(d: string): number {
  return (d.match(/[MLH]/g) ?? []).length;
}

function run(): StatsCollector {
  const s = new StatsCollector({ maxPoints: 300 });
  for (let i = 0; i < 2000; i++) {
    const t = 1_767_225_600_000 + i * 250;
    const mid = 5000 + Math.round(200 * Math.sin(i / 100)) * 1;
    s.mark('111', t, mid - 100, mid + 100);
    s.mark('222', t, 10000 - mid - 100, 10000 - mid + 100);
    s.quotes('111', t, i % 50 < 40 ? mid - 200 : -1, mid + 200);
    if (i % 97 === 0) s.fill({ timeMs: t, tokenId: '111', side: i % 2 ? 'SELL' : 'BUY', price: mid, size: 500, fee: 0, liquidity: 'MAKER', tradeId: `t${i}`, orderId: `o${i}` });
  }
  return s;
}

describe('HTML report', () => {
  it('has the equity, inventory and price charts with data points and fill markers, no network', () => {
    const s = run();
    const html = renderReport({ title: 'Backtest <test>', inputs: [['data', 'x.jsonl.gz']], stats: s.finish(), charts: s.charts() });
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('Backtest &lt;test&gt;');
    // self-contained: no external resources of any kind
    expect(html).not.toMatch(/<script[^>]*\ssrc=|<link[^>]*href=|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    for (const id of ['chart-equity', 'chart-inventory', 'chart-price']) {
      const el = elementById(html, id);
      expect(el, id).toBeDefined();
      expect(el!.tag).toBe('svg');
      const n = Number(el!.attrs['data-points']);
      expect(n, id).toBeGreaterThan(10);
      const series = [...el!.inner.matchAll(/<path class="series"[^>]*\sd="([^"]*)"/g)].map((m) => pathPoints(m[1]));
      expect(
        series.reduce((a, b) => a + b, 0),
        id,
      ).toBeGreaterThan(10);
      // bounded by the point budget (300 per series, 3 series at most per chart, plus markers)
      expect(n).toBeLessThan(2000);
    }
    const price = elementById(html, 'chart-price')!;
    const fills = (price.inner.match(/<circle class="fill"/g) ?? []).length;
    expect(fills).toBe(Math.ceil(2000 / 97));
    // our bid has gaps (not quoted 20% of the time): the path restarts with M
    const bid = [...price.inner.matchAll(/<path class="series" data-label="our bid"[^>]*\sd="([^"]*)"/g)][0][1];
    expect((bid.match(/M/g) ?? []).length).toBeGreaterThan(1);
    expect(elementById(html, 'chart-price-1')).toBeDefined();
    expect(html.length).toBeLessThan(400_000);
  });

  it('summary table lists every token and the total', () => {
    const text = summaryTable(run().finish());
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^token\s+pnl \$/);
    expect(lines.some((l) => l.startsWith('111'))).toBe(true);
    expect(lines.some((l) => l.startsWith('222'))).toBe(true);
    expect(lines.some((l) => l.startsWith('TOTAL'))).toBe(true);
    expect(text).toMatch(/Sharpe-like ratio per 60s interval/);
  });
});
