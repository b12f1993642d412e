import { describe, it, expect, beforeAll } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBacktest } from '../../src/backtest/runner.js';
import { resultJson, writeReport, writeResultJson } from '../../src/backtest/output.js';
import { writeSyntheticRecording } from '../../src/emulator/recording-writer.js';
import { config, handConfig, sellerRecording, tempDir, T0, YES } from './helpers.js';
import { stressSyntheticParams } from '../../src/emulator/agents.js';

let dir = '';
let synthetic = '';

type Timed = Awaited<ReturnType<typeof runBacktest>> & { firstFillMs: number };

/** A backtest with the time of its first fill (NaN when none). */
async function timed(o: Parameters<typeof runBacktest>[0]): Promise<Timed> {
  let firstFillMs = NaN;
  const out = await runBacktest({ ...o, onFill: (f) => (firstFillMs = Number.isNaN(firstFillMs) ? f.timeMs : firstFillMs) });
  return { ...out, firstFillMs };
}

beforeAll(async () => {
  dir = tempDir('bt');
  synthetic = join(dir, 'synthetic.jsonl.gz');
  await writeSyntheticRecording({ file: synthetic, seed: 11, durationS: 90, params: stressSyntheticParams });
  await writeSyntheticRecording({ file: synthetic.replace(/\.gz$/, ''), seed: 11, durationS: 20, params: stressSyntheticParams });
}, 30_000);

describe('backtest runner', () => {
  it('is deterministic: two runs give byte-identical result.json', async () => {
    const cfg = config({ sim: { orderLatencyMs: 40, cancelLatencyMs: 30, feedLatencyMs: 20 } });
    const a = await runBacktest({ data: [synthetic], config: cfg });
    const b = await runBacktest({ data: [synthetic], config: cfg });
    const pa = await writeResultJson(join(dir, 'a'), a.result);
    const pb = await writeResultJson(join(dir, 'b'), b.result);
    expect(readFileSync(pa).equals(readFileSync(pb))).toBe(true);
    // a real run: the market was found, the strategy quoted and traded
    expect(a.result.markets).toHaveLength(1);
    expect(a.result.feed.events).toBeGreaterThan(500);
    expect(a.result.total.orders).toBeGreaterThan(10);
    expect(a.result.total.fills).toBeGreaterThan(0);
    expect(a.result.total.fills).toBe(a.result.engine.fills);
    expect(a.result.venue.fills).toBe(a.result.total.fills);
    expect(a.result.total.quoteUptime).toBeGreaterThan(0);
    // no wall-clock figure inside the result
    expect(resultJson(a.result)).not.toMatch(/wall|elapsed|perSec/i);
  }, 30_000);

  it('writes a report whose charts are filled from the run, every fill marked, byte-identical on a second run', async () => {
    const out = await runBacktest({ data: [synthetic], config: config() });
    const p = await writeReport(join(dir, 'r'), out);
    const html = readFileSync(p, 'utf8');
    const m = /<script type="application\/json" id="report-data">([^<]*)<\/script>/.exec(html);
    expect(m).not.toBeNull();
    const data = JSON.parse(m![1]) as { axis: { n: number }; equity: { last: unknown[] }; prices: Array<{ mid: { last: unknown[] }; fills: Array<{ buys: number; sells: number }> }> };
    expect(data.axis.n).toBeGreaterThan(100);
    expect(data.equity.last).toHaveLength(data.axis.n);
    expect(data.prices).toHaveLength(1);
    expect(data.prices[0].mid.last.filter((v) => v !== null).length).toBeGreaterThan(100);
    expect(data.prices[0].fills.reduce((a, f) => a + f.buys + f.sells, 0)).toBe(out.result.total.fills);
    const again = await writeReport(join(dir, 'r2'), await runBacktest({ data: [synthetic], config: config() }));
    expect(readFileSync(again).equals(readFileSync(p))).toBe(true);
  }, 30_000);

  it('counts and skips malformed lines and frames, and carries on', async () => {
    const good = readFileSync(synthetic.replace(/\.gz$/, ''), 'utf8').split('\n').slice(0, 200);
    const mixed = join(dir, 'mixed.jsonl');
    const lines = [
      ...good.slice(0, 50),
      'not json at all',
      '{"t":1767225600100,"e":1,"k":"market","f":"{\\"event_type\\":\\"book\\""}',
      '{"t":1767225600100,"e":1,"k":"user","f":"{}"}',
      ...good.slice(50),
    ];
    writeFileSync(mixed, lines.join('\n') + '\n');
    const out = await runBacktest({ data: [mixed], config: config() });
    expect(out.result.feed.rejected).toBe(2);
    expect(out.result.feed.otherChannels).toBe(1);
    expect(out.result.feed.events).toBeGreaterThan(150);
    expect(out.result.total.orders).toBeGreaterThan(0);
  });

  it('runs on a real capture that snapshots one token only (market found from its price_change)', async () => {
    const real = fileURLToPath(new URL('../fixtures/polymarket/polytope/market_39.jsonl', import.meta.url));
    const out = await runBacktest({ data: [real], config: config() });
    const r = out.result;
    expect(r.feed.rejected).toBe(0);
    expect(r.markets).toHaveLength(1);
    expect(r.total.orders).toBeGreaterThan(0);
    expect(r.venue.rejected).toBe(0);
    // quoting both sides for most of the 27 s capture (the hashes verify, the books stay in sync)
    expect(r.total.quoteUptime).toBeGreaterThan(0.5);
  });

  it('a raw capture that opens with a PONG (no timestamp yet) runs as the capture does, alone or after another file', async () => {
    const real = fileURLToPath(new URL('../fixtures/polymarket/polytope/market_39.jsonl', import.meta.url));
    const text = readFileSync(real, 'utf8');
    const whole = await runBacktest({ data: [real], config: config() });
    // the same capture opening with a PONG: its clock must not start at 0 and tick its way to the first timestamp
    const pongFirst = join(dir, 'pong-first.jsonl');
    writeFileSync(pongFirst, 'PONG\n' + text);
    const t0 = performance.now();
    const out = await runBacktest({ data: [pongFirst], config: config() });
    expect(performance.now() - t0).toBeLessThan(20_000);
    expect(out.result.total).toEqual(whole.result.total);
    // split at a PONG into two files: the second opens untimed, and is not shifted by decades
    const lines = text.split('\n');
    const at = lines.indexOf('PONG', Math.floor(lines.length / 2));
    expect(at).toBeGreaterThan(0);
    const a = join(dir, 'split-a.jsonl');
    const b = join(dir, 'split-b.jsonl');
    writeFileSync(a, lines.slice(0, at).join('\n') + '\n');
    writeFileSync(b, lines.slice(at).join('\n'));
    const t1 = performance.now();
    const split = await runBacktest({ data: [a, b], config: config() });
    expect(performance.now() - t1).toBeLessThan(20_000);
    expect(split.result.feed.shiftedFiles).toBe(0);
    expect(split.result.total).toEqual(whole.result.total);
  }, 60_000);

  it('longer order latency gives fewer and later fills (requotes miss the trades)', async () => {
    // queue model off so only latency matters: every trade at 0.49 fills whatever bid rests there.
    // Requotes at most once a second (debounce 1 s > both latencies, so no placement overlaps another).
    const rec = sellerRecording(dir, { queue: '50', tradeSize: '30', everyMs: 300, durationMs: 30_000 });
    const run = (latency: number): Promise<Timed> => {
      const cfg = handConfig({ orderLatencyMs: latency, cancelLatencyMs: latency, queueModel: false });
      cfg.reconciler.debounceMs = 1000;
      return timed({ data: [rec], config: cfg });
    };
    const fast = await run(20);
    const slow = await run(900);
    const f = fast.result.tokens.find((t) => t.tokenId === YES)!;
    const s = slow.result.tokens.find((t) => t.tokenId === YES)!;
    // one bid at a time, requoted once a second after each fill: about one fill a second
    expect(f.fills).toBeGreaterThan(25);
    expect(s.fills).toBeGreaterThan(10);
    expect(s.fills).toBeLessThan(f.fills * 0.8);
    // the first bid is live at 20 ms (fast) or 900 ms (slow): the first trade it meets is at 300 or 900 ms
    expect(fast.firstFillMs - T0).toBe(300);
    expect(slow.firstFillMs - T0).toBe(900);
  }, 30_000);

  it('on a synthetic market, longer latency gives worse fills (less edge against the mid) and less quote uptime', async () => {
    const run = (latency: number): ReturnType<typeof runBacktest> => runBacktest({ data: [synthetic], config: config({ sim: { orderLatencyMs: latency, cancelLatencyMs: latency } }) });
    const fast = (await run(0)).result.total;
    const slow = (await run(1000)).result.total;
    expect(fast.fills).toBeGreaterThan(3);
    expect(slow.fills).toBeGreaterThan(3);
    // quotes left stale for a second get picked off by informed takers
    expect(slow.fillEdge!).toBeLessThan(fast.fillEdge!);
    // and orders spend a second in flight after every requote
    expect(slow.quoteUptime).toBeLessThan(fast.quoteUptime);
  }, 30_000);

  it('feed latency: the strategy sees the book later, so it quotes and fills later', async () => {
    const rec = sellerRecording(dir, { queue: '50', tradeSize: '30', everyMs: 300, durationMs: 6_000 });
    const run = (feedLatencyMs: number): Promise<Timed> => timed({ data: [rec], config: handConfig({ feedLatencyMs, orderLatencyMs: 10, cancelLatencyMs: 10, queueModel: false }) });
    const now = await run(0);
    const late = await run(1000);
    expect(now.firstFillMs - T0).toBe(300);
    // book seen at 1000 ms, bid live at 1010 ms: the first trade it meets is at 1200 ms
    expect(late.firstFillMs - T0).toBe(1200);
    expect(late.result.total.fills).toBeLessThan(now.result.total.fills);
  }, 30_000);

  it('queue model: joining behind a large queue fills later and less than joining at the front', async () => {
    const rec = sellerRecording(dir, { queue: '200', tradeSize: '20', everyMs: 300, durationMs: 30_000 });
    const front = await timed({ data: [rec], config: handConfig({ orderLatencyMs: 10, cancelLatencyMs: 10, queueModel: false }) });
    const queued = await timed({ data: [rec], config: handConfig({ orderLatencyMs: 10, cancelLatencyMs: 10, queueModel: true }) });
    const f = front.result.tokens.find((t) => t.tokenId === YES)!;
    const q = queued.result.tokens.find((t) => t.tokenId === YES)!;
    expect(f.fills).toBeGreaterThan(50);
    expect(q.fills).toBeGreaterThan(0);
    // 200 shares ahead, 20 traded per print: about one fill per 10 trades
    expect(q.fills).toBeLessThan(f.fills / 4);
    // the first fill: at the first trade without a queue, after ~10 trades with one
    const firstFill = (o: Timed): number => o.firstFillMs - T0;
    expect(firstFill(front)).toBe(300);
    expect(firstFill(queued)).toBeGreaterThanOrEqual(3000);
  }, 30_000);

  it('sim.signerTier: the orders pass the venue per-signer bucket, so no more go than its burst and refill allow', async () => {
    // limits.scale 0.01 shrinks Standard to a burst of 1 order and 0.4 a second (less the 2% margin)
    const base = { limits: { scale: 0.01 } };
    const free = await runBacktest({ data: [synthetic], config: config(base) });
    const paced = await runBacktest({ data: [synthetic], config: config({ ...base, sim: { signerTier: 'standard' } }) });
    const seconds = (paced.result.period.endMs - paced.result.period.startMs) / 1000;
    expect(paced.result.total.orders).toBeLessThanOrEqual(1 + 0.4 * seconds);
    expect(paced.result.total.orders).toBeLessThan(free.result.total.orders);
    expect(paced.result.total.orders).toBeGreaterThan(10);
    const use = paced.result.engine.rateLimits.find((u) => u.scope === 'signer:orders');
    expect(use).toMatchObject({ limit: 1, peakShare: 1 });
    expect(free.result.engine.rateLimits.some((u) => u.scope.startsWith('signer:'))).toBe(false);
  }, 30_000);
});
