// Issue 11, item 6: the crypto price stream reaches strategies. `makerd record --prices` records
// it beside the market channel (from the emulator's price feed, a real WebSocket server), and the
// backtest hands it to the engine on the same clock: a strategy that quotes only while it knows
// the BTC reference price quotes over that recording, and quotes nothing over the same recording
// without the price lines.
import { describe, it, expect, afterAll } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { stressSyntheticParams } from '../../src/emulator/agents.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/core/log.js';
import { recordUntil } from '../../src/commands/record.js';
import { runBacktest } from '../../src/backtest/runner.js';
import { T0, sellerRecording, tempDir } from './helpers.js';
import { seen } from '../fixtures/strategies/reference-seen.js';

const STRATEGY = fileURLToPath(new URL('../fixtures/strategies/reference-gated.ts', import.meta.url));
const SEEN = fileURLToPath(new URL('../fixtures/strategies/reference-seen.ts', import.meta.url));
let emu: RunningEmulator | undefined;
afterAll(async () => {
  await emu?.close();
});

describe('the price stream in a backtest', () => {
  it('is recorded beside the market channel and reaches the strategy as ctx.referencePrice', async () => {
    emu = await startEmulator({ seed: 3, speed: 4, params: stressSyntheticParams });
    const dir = tempDir('prices');
    const withPrices = join(dir, 'with.jsonl');
    const u = emu.urls;
    const config = loadConfig({ env: { MAKERD_WS_URL: u.ws, MAKERD_PRICE_FEED_URL: u.price_feed } });
    const ac = new AbortController();
    const t = setTimeout(() => ac.abort(), 4000);
    const io = { out: () => undefined, err: () => undefined, env: {} };
    await recordUntil({ config, markets: [emu.markets[0].facts.tokens[0]], prices: ['btcusdt'], out: withPrices, log: silentLogger }, io, ac.signal);
    clearTimeout(t);
    const lines = readFileSync(withPrices, 'utf8').split('\n').filter(Boolean);
    const priceLines = lines.filter((l) => l.includes('"k":"prices"'));
    expect(priceLines.length).toBeGreaterThan(0);
    expect(lines.length - priceLines.length).toBeGreaterThan(10);
    const without = join(dir, 'without.jsonl');
    writeFileSync(without, lines.filter((l) => !l.includes('"k":"prices"')).join('\n') + '\n');
    const cfg = loadConfig({ env: {}, overrides: { strategy: { name: STRATEGY, params: {} } } as never });
    const a = await runBacktest({ data: [withPrices], config: cfg });
    const b = await runBacktest({ data: [without], config: cfg });
    expect(a.result.feed.priceEvents).toBeGreaterThan(0);
    expect(a.result.total.orders).toBeGreaterThan(0);
    expect(b.result.feed.priceEvents).toBeUndefined();
    expect(b.result.total.orders).toBe(0);
    // the market frames were the same
    expect(a.result.feed.events).toBe(b.result.feed.events);

    // the recording twice (the second is shifted to follow the first): its prices reach the
    // strategy in the second pass too (found in review: their source stamps were older than the
    // first pass's last, so every one was dropped and the reference froze)
    const watch = loadConfig({ env: {}, overrides: { strategy: { name: SEEN, params: {} } } as never });
    seen.length = 0;
    await runBacktest({ data: [withPrices], config: watch });
    const once = new Set(seen.map((x) => x.timestampMs)).size;
    expect(once).toBeGreaterThan(1);
    seen.length = 0;
    const twice = await runBacktest({ data: [withPrices, withPrices], config: watch });
    expect(twice.result.feed.shiftedFiles).toBe(1);
    expect(new Set(seen.map((x) => x.timestampMs)).size).toBeGreaterThanOrEqual(2 * once - 1);
    // stamps never go back: the second pass's are shifted as its receive times are
    for (let i = 1; i < seen.length; i++) expect(seen[i].timestampMs).toBeGreaterThanOrEqual(seen[i - 1].timestampMs);
  }, 30_000);

  it('waits sim.feedLatencyMs as the market frames do: a strategy never sees a price sooner after it was received than the books (found in review)', async () => {
    // the price stream went to the engine at its receive time while the books lagged: with a lag of
    // X, the reference led the book by X ms more than when recorded (a head start live never has)
    const dir = tempDir('prices-lag');
    const base = sellerRecording(dir, { queue: '5', tradeSize: '10', everyMs: 1000, durationMs: 10_000 });
    const price = (t: number, value: number) =>
      `{"t":${t},"e":1,"k":"prices","f":${JSON.stringify({ topic: 'crypto_prices', type: 'update', timestamp: t, payload: { symbol: 'btcusdt', timestamp: t, value } })}}`;
    const lines = readFileSync(base, 'utf8').split('\n').filter(Boolean);
    const withPrices = [...lines.slice(0, 2), price(T0 + 1200, 100), ...lines.slice(2, 6), price(T0 + 5200, 200), ...lines.slice(6)];
    const path = join(dir, 'lagged.jsonl');
    writeFileSync(path, withPrices.join('\n') + '\n');
    const watch = loadConfig({ env: {}, overrides: { strategy: { name: SEEN, params: {} }, sim: { feedLatencyMs: 500 } } as never });
    seen.length = 0;
    await runBacktest({ data: [path], config: watch });
    expect(new Set(seen.map((x) => x.value))).toEqual(new Set([100, 200]));
    for (const x of seen) expect(x.atMs - x.timestampMs, JSON.stringify(x)).toBeGreaterThanOrEqual(500);
  }, 30_000);
});
