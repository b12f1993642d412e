import { describe, it, expect, beforeAll } from 'vitest';
import { spawn } from 'node:child_process';
import { assertBuilt, bounded, CLI, ROOT } from './harness.js';
import { strictParse } from '../strict-json.js';

beforeAll(assertBuilt);

describe('makerd demo', () => {
  it('runs with no config and no API key, prints status lines, and stops by itself leaving no order', async () => {
    const proc = spawn(process.execPath, [CLI, 'demo', '--duration', '4', '--interval', '1'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH }, // a fresh environment: no MAKERD_* at all
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    proc.stdout.on('data', (b: Buffer) => (out += b.toString()));
    proc.stderr.on('data', (b: Buffer) => (out += b.toString()));
    const code = await bounded(new Promise<number | null>((r) => proc.once('exit', (c) => r(c))), 20_000, 'demo exit');
    expect(code).toBe(0);
    const lines = out.split('\n').filter((l) => l.startsWith('mid '));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    // it did quote: some line shows both our bid and our ask
    expect(lines.some((l) => /bid 0\.\d{2} ask 0\.\d{2}/.test(l))).toBe(true);
    expect(lines[lines.length - 1]).toMatch(
      /^mid (0\.\d{3}|-) \| bid (0\.\d{2}|-) ask (0\.\d{2}|-) \| pos YES [\d.]+ NO [\d.]+ \| fills \d+ \| pnl -?\d+\.\d{2} \| orders\/s [\d.]+ \| POST \/orders \d+\/1000 per 10s \| (quoting|not quoting)$/,
    );
    expect(out).toMatch(/demo: stopped; orders left at the emulator: 0/);
  }, 30_000);
});

describe('makerd demo: its log', () => {
  // Issue 13, item 5: a normal run WARNs about nothing, and every line is strict JSON (no key twice).
  // Seed 2 fills an order within the 20 s, so the fill line and the reconciliation after it run too.
  it('20 s at debug level: no line at WARN or above, every JSON line parses strictly, a fill is one info line in market units', async () => {
    const proc = spawn(process.execPath, [CLI, 'demo', '--duration', '20', '--seed', '2', '--interval', '5'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, MAKERD_LOG_LEVEL: 'debug' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    proc.stdout.on('data', (b: Buffer) => (out += b.toString()));
    proc.stderr.on('data', (b: Buffer) => (out += b.toString()));
    const code = await bounded(new Promise<number | null>((r) => proc.once('exit', (c) => r(c))), 32_000, 'demo exit');
    expect(code).toBe(0);
    const lines = out.split('\n').filter((l) => l.length > 0);
    const json = lines.filter((l) => l.startsWith('{'));
    // the demo's own lines are its status lines and start/stop notes; everything else is the log
    expect(lines.filter((l) => !l.startsWith('{') && !/^(mid |demo: )/.test(l))).toEqual([]);
    expect(json.length).toBeGreaterThan(5);
    const parsed = json.map((l) => {
      try {
        return strictParse(l) as { level: number; msg: string } & Record<string, unknown>;
      } catch (e) {
        throw new Error(`not strict JSON: ${(e as Error).message}\n${l}`);
      }
    });
    expect(parsed.filter((l) => l.level >= 40).map((l) => l.msg)).toEqual([]);
    expect(parsed.some((l) => l.msg === 'quoting started')).toBe(true);
    for (const f of parsed.filter((l) => l.msg === 'fill')) {
      expect(f).toMatchObject({ level: 30, part: 'engine', side: expect.stringMatching(/^(BUY|SELL)$/), price: expect.stringMatching(/^0\.\d+$/), shares: expect.stringMatching(/^\d+(\.\d+)?$/) });
    }
    expect(out).toMatch(/demo: stopped; orders left at the emulator: 0/);
  }, 40_000);
});
