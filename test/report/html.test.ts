import { describe, it, expect } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import puppeteer from 'puppeteer-core';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StatsCollector } from '../../src/report/stats.js';
import { renderReport } from '../../src/report/html.js';
import { markoutBins, type PageData } from '../../src/report/page-data.js';
import { summaryTable } from '../../src/report/table.js';

const T0 = 1_767_225_600_000;

function run(): StatsCollector {
  const s = new StatsCollector({ maxPoints: 300 });
  s.market('111', '222', T0);
  for (let i = 0; i < 2000; i++) {
    const t = T0 + i * 250;
    const mid = 5000 + Math.round(200 * Math.sin(i / 100)) * 1;
    s.mark('111', t, mid - 100, mid + 100);
    s.mark('222', t, 10000 - mid - 100, 10000 - mid + 100);
    s.quotes('111', t, i % 50 < 40 ? mid - 200 : -1, mid + 200);
    if (i % 97 === 0) s.fill({ timeMs: t, tokenId: '111', side: i % 2 ? 'SELL' : 'BUY', price: mid, size: 500, fee: 10, liquidity: 'MAKER', tradeId: `t${i}`, orderId: `o${i}` });
    if (i % 131 === 0) s.fill({ timeMs: t, tokenId: '222', side: 'BUY', price: 10000 - mid - 100, size: 300, fee: 0, liquidity: 'MAKER', tradeId: `u${i}`, orderId: `p${i}` });
  }
  return s;
}

function report(s = run()): string {
  const stats = s.finish();
  return renderReport({ title: 'Backtest <test>', inputs: [['data', 'x.jsonl.gz']], stats, charts: s.charts() });
}

/** The JSON data blocks of a page, by id. */
function dataBlocks(html: string): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const m of html.matchAll(/<script type="application\/json" id="([^"]+)">([^<]*)<\/script>/g)) out.set(m[1], JSON.parse(m[2]));
  return out;
}

function uplotFile(rel: string): string {
  return readFileSync(createRequire(import.meta.url).resolve(`uplot/${rel}`), 'utf8');
}

describe('HTML report', () => {
  it('is one self-contained file: no external script, stylesheet, frame or URL to load; uPlot inlined', () => {
    const html = report();
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('Backtest &lt;test&gt;');
    // nothing is fetched: no src or href to another origin, no <link>, no CSS import or url()
    expect(html).not.toMatch(/<script[^>]*\ssrc\s*=/i);
    expect(html).not.toMatch(/<link\b/i);
    expect(html).not.toMatch(/<iframe\b|@import|url\(\s*['"]?https?:/i);
    expect(html).not.toMatch(/\s(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i);
    // uPlot's own minified script and stylesheet, as shipped, inside the page
    const js = uplotFile('dist/uPlot.iife.min.js');
    const css = uplotFile('dist/uPlot.min.css');
    expect(html).toContain(js.slice(js.indexOf('var uPlot='), js.indexOf('var uPlot=') + 2000));
    expect(html).toContain(css);
    expect(html).toMatch(/uPlot 1\.6\.\d+ \(MIT\)/);
    // small: the library (~53 kB) plus bounded data
    expect(html.length).toBeLessThan(250_000);
  });

  it('carries its chart data in one JSON block that parses, every column on the shared axis', () => {
    const s = run();
    const stats = s.finish();
    const html = renderReport({ title: 't', inputs: [], stats, charts: s.charts() });
    const blocks = dataBlocks(html);
    expect([...blocks.keys()]).toEqual(['report-data']);
    const d = blocks.get('report-data') as PageData;
    const n = d.axis.n;
    expect(n).toBeGreaterThan(100);
    expect(n).toBeLessThanOrEqual(300);
    expect(d.axis.startMs).toBe(T0);
    expect(d.axis.endMs).toBe(T0 + 1999 * 250);
    const cols = [d.equity.last, d.equity.min, d.equity.max, d.drawdown, d.spreadCapture, d.inventory, d.fees, ...d.exposure.map((e) => e.values)];
    for (const p of d.prices) cols.push(p.mid.last, p.mid.min, p.mid.max, p.bid, p.ask);
    for (const c of cols) expect(c).toHaveLength(n);
    // the PnL split adds up in every bucket: equity = spread capture + inventory - fees
    for (let k = 0; k < n; k++) {
      if (d.equity.last[k] === null) continue;
      expect((d.spreadCapture[k] as number) + (d.inventory[k] as number) - (d.fees[k] as number)).toBeCloseTo(d.equity.last[k] as number, 5);
    }
    // one market (the complement's fills mapped onto it), its every fill marked
    expect(d.prices.map((p) => p.tokenId)).toEqual(['111']);
    expect(d.prices[0].fills.reduce((a, f) => a + f.buys + f.sells, 0)).toBe(stats.total.fills);
    expect(d.exposure).toHaveLength(1);
    expect(d.prices[0].bid.some((v) => v !== null)).toBe(true);
    expect(d.markouts.map((m) => m.horizonMs)).toEqual([1000, 10_000, 60_000]);
    for (const m of d.markouts) expect(m.bins.reduce((a, b) => a + b[1], 0)).toBe(m.fills);
    // the sections the script fills
    for (const id of ['chart-equity', 'chart-drawdown', 'chart-pnl', 'chart-exposure', 'chart-price-0', 'chart-markout-0', 'chart-markout-1', 'chart-markout-2'])
      expect(html, id).toContain(`<section class="chart" id="${id}">`);
  });

  it('states the PnL split and the markouts in the summary, and they add up to the total', () => {
    const s = run();
    const stats = s.finish();
    const html = renderReport({ title: 't', inputs: [], stats, charts: s.charts() });
    const p = stats.total.pnl;
    const m = /total PnL = spread capture \+ inventory - fees \(\$\)<\/td><td>(-?[\d.]+) = (-?[\d.]+) \+ (-?[\d.]+) - (-?[\d.]+)</.exec(html);
    expect(m).not.toBeNull();
    const [total, spread, inv, fees] = m!.slice(1).map((x) => Math.round(Number(x) * 1e6));
    expect(spread + inv - fees).toBe(total);
    expect(total).toBe(Math.round(p.total * 1e6));
    expect(fees).toBeGreaterThan(0);
    expect(html).toContain('<h2>Markouts</h2>');
    expect(html).toContain('<dt>Spread capture</dt>');
  });

  it('is byte-identical for the same run', () => {
    expect(report()).toBe(report());
  });

  it('bins markouts around 0 with a round width; every fill counted once', () => {
    const moves: Array<[number, number]> = [
      [-0.03, 1],
      [-0.01, 10],
      [-0.005, 20],
      [0, 40],
      [0.005, 20],
      [0.01, 8],
      [0.5, 1],
    ];
    const b = markoutBins(moves);
    expect(b.bins.reduce((a, x) => a + x[1], 0)).toBe(100);
    expect(b.bins.some(([c]) => c === 0)).toBe(true);
    expect([0.0001, 0.0002, 0.00025, 0.0005, 0.001, 0.002, 0.0025, 0.005]).toContain(b.binWidth);
    expect(b.bins.length).toBeLessThanOrEqual(25);
    // the 0.5 outlier beyond the 99th percentile lands in the last bin
    expect(b.clipped).toBeGreaterThanOrEqual(1);
    expect(b.bins[b.bins.length - 1][1]).toBeGreaterThanOrEqual(1);
    expect(markoutBins([])).toEqual({ binWidth: 0, bins: [], clipped: 0 });
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

  it("a token id holding terminal escapes (a recording is anyone's text) reaches the table without them", () => {
    const s = new StatsCollector();
    s.mark('\u001b[2J\u001b]0;x\u0007', 0, 4900, 5100);
    const text = summaryTable(s.finish(1000));
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(text).toMatch(/\?\[2J\?\]0;x\?/);
  });
});

// The page's script run by a real browser: every chart is built (the script sets data-charts on
// <html> when done, after any error it would not). Debian's chromium; skipped without one.
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => existsSync(p));

describe.skipIf(!CHROMIUM)(`HTML report in headless chromium${CHROMIUM ? '' : ' (skipped: no chromium; apt-get install chromium)'}`, () => {
  it('draws every chart: 5 on the time axis (equity, drawdown, PnL split, exposure, one market) and 3 markout histograms', () => {
    const dir = mkdtempSync(join(tmpdir(), 'makerd-report-'));
    const file = join(dir, 'report.html');
    writeFileSync(file, report());
    const dom = execFileSync(CHROMIUM as string, ['--headless', '--no-sandbox', '--disable-gpu', '--virtual-time-budget=5000', '--dump-dom', `file://${file}`], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 60_000,
    });
    expect(dom).toMatch(/<html[^>]*data-charts="8"/);
    // uPlot made its canvases and legends in the sections
    expect((dom.match(/<canvas/g) ?? []).length).toBe(8);
    expect(dom).toContain('whole run: 2026-01-01 00:00:00Z');
    // the whole run on every time chart
    const whole = `${T0},${T0 + 1999 * 250}`;
    expect([...dom.matchAll(/<section class="chart" id="chart-(?:equity|drawdown|pnl|exposure|price-\d+)" data-x="([^"]*)"/g)].map((m) => m[1])).toEqual(Array(5).fill(whole));
  }, 60_000);

  it('zooms every time chart together: a window from the address applies to all of them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'makerd-report-'));
    const file = join(dir, 'report.html');
    writeFileSync(file, report());
    const win = `${T0 + 60_000},${T0 + 120_000}`;
    const dom = execFileSync(CHROMIUM as string, ['--headless', '--no-sandbox', '--disable-gpu', '--virtual-time-budget=5000', '--dump-dom', `file://${file}#t=${win}`], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 60_000,
    });
    expect([...dom.matchAll(/<section class="chart" id="chart-(?:equity|drawdown|pnl|exposure|price-\d+)" data-x="([^"]*)"/g)].map((m) => m[1])).toEqual(Array(5).fill(win));
    expect(dom).toContain('showing 2026-01-01 00:01:00Z .. 2026-01-01 00:02:00Z (60.0 s)');
  }, 60_000);

  it('mouse: a drag-select, the wheel, a shift-drag pan and a double-click move every time chart together', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'makerd-report-'));
    const file = join(dir, 'report.html');
    writeFileSync(file, report());
    const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    try {
      const page = await browser.newPage();
      await page.setViewport({ width: 1300, height: 900 });
      await page.goto(`file://${file}`);
      await page.waitForSelector('html[data-charts="8"]');
      /** Every time chart's x range; they must agree. */
      const ranges = async (): Promise<[number, number]> => {
        const xs = await page.$$eval('section.chart[data-x]', (els) => els.map((e) => e.getAttribute('data-x') as string));
        expect(xs).toHaveLength(5);
        expect(new Set(xs).size).toBe(1);
        return xs[0].split(',').map(Number) as [number, number];
      };
      const whole = await ranges();
      const box = (await (await page.$('#chart-equity .u-over'))!.boundingBox())!;
      const y = box.y + box.height / 2;
      // drag across the middle fifth of the equity chart: every chart zooms to it
      await page.mouse.move(box.x + box.width * 0.4, y);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width * 0.5, y, { steps: 5 });
      await page.mouse.move(box.x + box.width * 0.6, y, { steps: 5 });
      await page.mouse.up();
      const zoomed = await ranges();
      const span = whole[1] - whole[0];
      expect(zoomed[1] - zoomed[0]).toBeGreaterThan(span * 0.15);
      expect(zoomed[1] - zoomed[0]).toBeLessThan(span * 0.25);
      // the wheel on another chart zooms in further, all charts together
      const over = (await page.$('#chart-price-0 .u-over'))!;
      await over.scrollIntoView();
      const pbox = (await over.boundingBox())!;
      await page.mouse.move(pbox.x + pbox.width / 2, pbox.y + pbox.height / 2);
      await page.mouse.wheel({ deltaY: -100 });
      const wheeled = await ranges();
      expect(wheeled[1] - wheeled[0]).toBeLessThan(zoomed[1] - zoomed[0]);
      // shift+drag pans: the window moves, its width stays
      await page.keyboard.down('Shift');
      await page.mouse.move(pbox.x + pbox.width * 0.6, pbox.y + pbox.height / 2);
      await page.mouse.down();
      await page.mouse.move(pbox.x + pbox.width * 0.4, pbox.y + pbox.height / 2, { steps: 5 });
      await page.mouse.up();
      await page.keyboard.up('Shift');
      const panned = await ranges();
      expect(panned[1] - panned[0]).toBeCloseTo(wheeled[1] - wheeled[0], -1);
      expect(panned[0]).toBeGreaterThan(wheeled[0]);
      // a double-click shows the whole run again
      await page.mouse.click(pbox.x + pbox.width / 2, pbox.y + pbox.height / 2, { clickCount: 2 });
      expect(await ranges()).toEqual(whole);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
