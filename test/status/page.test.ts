// The live page (GET / of the status server) in a real headless browser: Debian's chromium driven
// by puppeteer-core, against a daemon running in process, live against the emulator. The page
// loads from the daemon alone (no other origin), shows both markets with their books and our
// quotes marked, the fill, health and rate limits, and updates itself every second. Skipped, with
// a message, where /usr/bin/chromium is missing (`.ci/run` installs it). A screenshot is left in
// the temp folder (makerd-live.png) for a person to look at.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { startDaemon, takeOneBid, type Running } from './daemon-fixture.js';

const CHROMIUM = process.env.MAKERD_CHROMIUM ?? '/usr/bin/chromium';
const hasBrowser = existsSync(CHROMIUM);
if (!hasBrowser) console.warn(`live page test skipped: no browser at ${CHROMIUM} (apt-get install chromium, or set MAKERD_CHROMIUM)`);

describe.skipIf(!hasBrowser)('GET / (live page) in headless chromium', () => {
  let run: Running;
  let browser: Browser;
  let page: Page;
  const requests: string[] = [];

  beforeAll(async () => {
    run = await startDaemon(2, { seed: 9 });
    await takeOneBid(run);
    browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 1000 });
    page.on('request', (r) => requests.push(r.url()));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await run?.close();
  });

  it('loads, shows the markets, their books with our quotes, the fill and the limits, and updates', async () => {
    const res = await page.goto(`${run.url}/`, { waitUntil: 'load' });
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-type']).toMatch(/^text\/html/);
    // both markets drawn from the first answer of /status
    await page.waitForFunction(`document.querySelectorAll('section.market').length === 2`, { timeout: 10_000 });
    const text = async (sel: string) => page.$eval(sel, (el) => el.textContent ?? '');
    expect(await text('#health')).toBe('healthy');
    expect(await text('#quoting')).toBe('quoting 2/2');
    expect(await text('#mode')).toBe('live');
    const markets = await page.$$eval('section.market', (els) => els.map((e) => e.textContent ?? ''));
    for (const m of markets) {
      expect(m).toMatch(/quoting/);
      expect(m).toMatch(/our bid \d\.\d+ \(top \d\.\d+\) · our ask \d\.\d+/);
    }
    // each market's two books; our resting orders marked on their levels
    expect(await page.$$eval('section.market table', (els) => els.length)).toBe(4);
    expect(await page.$$eval('section.market tr.ours', (els) => els.length)).toBeGreaterThanOrEqual(2);
    // the fill taken by the other account, and a position of ours
    expect(await page.$$eval('#lastfills tr', (els) => els.length)).toBe(2);
    expect(await text('#lastfills')).toMatch(/BUY/);
    expect(await text('#fills')).toBe('1');
    expect(await text('#limits')).toMatch(/clob:POST \/orders:burst/);
    // it updates itself: the connection badge's time and the uptime move within ~2 s
    const before = { conn: await text('#conn'), up: await text('#uptime') };
    expect(before.conn).toMatch(/^updated /);
    // (expressions as text: they run in the page, and the tests compile without the DOM's types)
    const moved = `document.getElementById('conn').textContent !== ${JSON.stringify(before.conn)} && document.getElementById('uptime').textContent !== ${JSON.stringify(before.up)}`;
    await page.waitForFunction(moved, { timeout: 5000 });
    // the session's PnL samples (one a second) reach the chart
    await page.waitForFunction(`document.querySelector('#pnlchart polyline') !== null`, { timeout: 5000 });
    // self-contained: every request went to the daemon
    expect(requests.length).toBeGreaterThan(2);
    for (const u of requests) expect(u.startsWith(run.url)).toBe(true);
    await page.screenshot({ path: join(tmpdir(), 'makerd-live.png'), fullPage: true });
  }, 30_000);

  it('says so when the daemon stops answering', async () => {
    await run.daemon.status.close();
    await page.waitForFunction(`document.getElementById('conn').classList.contains('bad')`, { timeout: 5000 });
    expect(await page.$eval('#conn', (el) => el.textContent)).toMatch(/^no answer/);
  }, 15_000);
});
