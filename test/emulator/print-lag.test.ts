// The emulator's print lag (FeedShape.printLagMs, --feed-print-lag-ms): as the real feed does
// (py-clob-client-v2 issue #117: a trade printed 67 ms after the book that shows it, by its
// timestamp), each trade's last_trade_price comes that long after its batch, stamped then. The same
// seed gives the same trades either way; the lagged recording verifies (every hash, through the
// CLI); and a backtest over it meets prints of trades made before our orders joined, which the
// simulated venue takes as such (venue.madeBeforeJoin), far more than over the same market printed at once.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeSyntheticRecording } from '../../src/emulator/recording-writer.js';
import { stressSyntheticParams } from '../../src/emulator/agents.js';
import { runBacktest } from '../../src/backtest/runner.js';
import { cli } from '../../src/cli.js';
import { parseFaultPatch } from '../../src/emulator/faults.js';
import { config, tempDir } from '../backtest/helpers.js';

interface Print {
  t: number;
  ts: number;
  key: string;
}

function prints(file: string): Print[] {
  const out: Print[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.includes('"event_type":"last_trade_price"')) continue;
    const r = JSON.parse(line) as { t: number; f: { asset_id: string; price: string; size: string; side: string; timestamp: string } };
    out.push({ t: r.t, ts: Number(r.f.timestamp), key: `${r.f.asset_id}/${r.f.side}/${r.f.price}/${r.f.size}` });
  }
  return out;
}

describe('emulator: trades printed late (printLagMs)', () => {
  it('prints the same trades 150 ms after their batch, stamped then; the recording verifies; a backtest meets prints made before its orders joined', async () => {
    const dir = tempDir('print-lag');
    const now = join(dir, 'now.jsonl');
    const late = join(dir, 'late.jsonl');
    await writeSyntheticRecording({ file: now, seed: 31, durationS: 600, params: stressSyntheticParams });
    await writeSyntheticRecording({ file: late, seed: 31, durationS: 600, params: stressSyntheticParams, printLagMs: 150 });
    const a = prints(now);
    const b = prints(late);
    expect(a.length).toBeGreaterThan(100);
    // the same trades (those due within the duration), each printed at least 150 ms later by both times
    expect(b.length).toBeGreaterThan(a.length - 20);
    expect(b.map((p) => p.key)).toEqual(a.slice(0, b.length).map((p) => p.key));
    for (let i = 0; i < b.length; i++) {
      expect(b[i].ts - a[i].ts).toBeGreaterThanOrEqual(150);
      expect(b[i].ts - a[i].ts).toBeLessThanOrEqual(155);
    }
    // the book's hash still covers a trade not yet printed (ltpLeads): every hash verifies
    const lines: string[] = [];
    const code = await cli(['verify', late], { out: (l) => lines.push(l), err: (l) => lines.push(l), env: {} });
    expect(lines.at(-1)).toBe('OK: every hash verified');
    expect(code).toBe(0);
    const cfg = config({ strategy: { name: 'bands', params: {} }, sim: { queueModel: true, orderLatencyMs: 20 }, log: { level: 'silent' } });
    const printedAtOnce = await runBacktest({ data: [now], config: cfg, readerThread: false });
    const printedLate = await runBacktest({ data: [late], config: cfg, readerThread: false });
    expect(printedAtOnce.result.total.orders).toBeGreaterThan(100);
    // printed at once, only a fall before an order joined that a new trade in the window is taken as
    // (pessimistic: a cancellation then); printed late, the trades' own falls too: more than twice as much
    expect(printedLate.result.venue.madeBeforeJoin).toBeGreaterThan(2 * printedAtOnce.result.venue.madeBeforeJoin);
  }, 120_000);

  it('makerd emulator --write --feed-print-lag-ms 50: each print 50 ms after its batch, even when the next agent event is later', async () => {
    const dir = tempDir('print-lag-cli');
    const write = async (file: string, lag?: string): Promise<number> =>
      cli(['emulator', '--write', file, '--duration', '600', '--synthetic', '7', '--activity', '10', ...(lag ? ['--feed-print-lag-ms', lag] : [])], { out: () => {}, err: () => {}, env: {} });
    const now = join(dir, 'now.jsonl');
    const late = join(dir, 'late.jsonl');
    expect(await write(now)).toBe(0);
    expect(await write(late, '50')).toBe(0);
    const a = prints(now);
    const b = prints(late);
    expect(b.length).toBeGreaterThan(50);
    expect(b.map((p) => p.key)).toEqual(a.slice(0, b.length).map((p) => p.key));
    // due 50 ms later, printed then: not held until the next agent event (~100 ms apart)
    expect(Math.min(...b.map((p, i) => p.ts - a[i].ts))).toBeGreaterThanOrEqual(50);
    expect(Math.max(...b.map((p, i) => p.ts - a[i].ts))).toBeLessThanOrEqual(55);
    // an admin patch is bounded as the flag is
    expect(parseFaultPatch({ printLagMs: 1e309 })).toBe('printLagMs must be at most 60000');
    expect(parseFaultPatch({ printLagMs: 100 })).toEqual({ printLagMs: 100 });
  }, 120_000);
});
