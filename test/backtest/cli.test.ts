import { describe, it, expect } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cli } from '../../src/cli.js';
import { tempDir } from './helpers.js';

const SAMPLE = fileURLToPath(new URL('../../data/sample-synthetic.jsonl.gz', import.meta.url));

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await cli(args, { out: (l) => out.push(l), err: (l) => err.push(l), env: {} });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('makerd backtest (CLI)', () => {
  it('backtests the bundled sample: summary on stdout, result.json and report.html written', async () => {
    const dir = tempDir('cli');
    const r = await run(['backtest', '--data', SAMPLE, '--out', dir, '--order-latency', '20', '--params', '{"skewPerShare":0.0002}', '--seed', '3']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^token\s+pnl \$/m);
    expect(r.out).toMatch(/^TOTAL\s/m);
    expect(r.out).toMatch(/events\/s/);
    const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8'));
    expect(result.kind).toBe('makerd-backtest');
    expect(result.inputs.sim.orderLatencyMs).toBe(20);
    expect(result.inputs.sim.seed).toBe(3);
    expect(result.inputs.params.skewPerShare).toBe(0.0002);
    expect(result.feed.events).toBeGreaterThan(1000);
    expect(result.total.orders).toBeGreaterThan(0);
    expect(existsSync(join(dir, 'report.html'))).toBe(true);
  }, 30_000);

  it('exits 2 with a clear message on bad input', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['backtest'], /--data is required/],
      [['backtest', '--data', '/nonexistent.jsonl'], /no such file/],
      [['backtest', '--data', SAMPLE, '--params', '{bad'], /--params is not valid JSON/],
      [['backtest', '--data', SAMPLE, '--order-latency=-1'], /--order-latency must be a non-negative number/],
      [['backtest', '--data', SAMPLE, '--grid', 'gamma'], /--grid: 'gamma' is not name=v1,v2/],
      [['backtest', '--data', SAMPLE, '--workers', '0', '--grid', 'a=1'], /--workers must be a positive integer/],
    ];
    for (const [args, msg] of cases) {
      const r = await run(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err, args.join(' ')).toMatch(msg);
    }
    const bad = await run(['backtest', '--data', SAMPLE, '--strategy', 'bands', '--params', '{"nope":1}', '--out', tempDir('cli-bad')]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/strategy\.params/);
  });
});
