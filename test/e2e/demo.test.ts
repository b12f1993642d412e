import { describe, it, expect, beforeAll } from 'vitest';
import { spawn } from 'node:child_process';
import { assertBuilt, bounded, CLI, ROOT } from './harness.js';

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
