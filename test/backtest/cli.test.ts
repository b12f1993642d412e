import { describe, it, expect } from 'vitest';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cli } from '../../src/cli.js';
import { spawnSync } from 'node:child_process';
import { tempDir } from './helpers.js';

const SAMPLE = fileURLToPath(new URL('../../data/sample-synthetic.jsonl.gz', import.meta.url));
const ROOT_DIR = fileURLToPath(new URL('../..', import.meta.url));

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await cli(args, { out: (l) => out.push(l), err: (l) => err.push(l), env: {} });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('makerd backtest (CLI)', () => {
  it('backtests the bundled sample: summary on stdout, result.json and report.html written', async () => {
    const dir = tempDir('cli');
    const r = await run(['backtest', '--data', SAMPLE, '--out', dir, '--order-latency', '20', '--settle', '4000', '--params', '{"skewPerShare":0.0002}', '--seed', '3']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^token\s+pnl \$/m);
    expect(r.out).toMatch(/^TOTAL\s/m);
    expect(r.out).toMatch(/events\/s/);
    // no wallet given: no collateral line
    expect(r.out).not.toMatch(/^collateral:/m);
    const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8'));
    expect(result.kind).toBe('makerd-backtest');
    expect(result.inputs.sim.orderLatencyMs).toBe(20);
    expect(result.inputs.sim.settleMs).toBe(4000);
    expect(result.inputs.sim.seed).toBe(3);
    expect(result.inputs.params.skewPerShare).toBe(0.0002);
    expect(result.feed.events).toBeGreaterThan(1000);
    expect(result.total.orders).toBeGreaterThan(0);
    expect(existsSync(join(dir, 'report.html'))).toBe(true);
  }, 30_000);

  it('files replayed out of order (one starting before the one before it ended) are named on stderr, not only counted in result.json', async () => {
    const dir = tempDir('cli-shifted');
    // a rotated recording named by a shell glob comes out as rec.1, rec.10, rec.2: here, the same file twice
    const r = await run(['backtest', '--data', `${SAMPLE},${SAMPLE}`, '--out', dir]);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/WARNING: .*sample-synthetic\.jsonl\.gz \(file 2\) starts before .*sample-synthetic\.jsonl\.gz \(file 1\) ended: replayed [\d.]+ s later, to follow it/);
    expect(r.err).toMatch(/in the order given/);
    expect(JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')).feed.shiftedFiles).toBe(1);
    const once = await run(['backtest', '--data', SAMPLE, '--out', tempDir('cli-once')]);
    expect(once.err).toBe('');
    // a grid sweep over the same files says it too (once, not per combination)
    if (!existsSync(join(ROOT_DIR, 'dist/cli.js'))) throw new Error('run npm run build first');
    const g = spawnSync(process.execPath, ['dist/cli.js', 'backtest', '--data', `${SAMPLE},${SAMPLE}`, '--out', tempDir('cli-shifted-grid'), '--grid', 'skewPerShare=0,0.001', '--workers', '2'], {
      cwd: ROOT_DIR,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(g.status, g.stderr).toBe(0);
    expect(g.stderr.match(/WARNING: .*\(file 2\) starts before/g)).toHaveLength(1);
  }, 60_000);

  it('--cash USD: the simulated venue refuses BUYs beyond the collateral, as the venue does; the risk gate keeps BUYs within it, so none is refused', async () => {
    const backtest = async (extra: string[]) => {
      const dir = tempDir('cli-cash');
      const r = await run(['backtest', '--data', SAMPLE, '--out', dir, '--cash', '15', '--seed', '3', ...extra]);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      const summary = r.out.split('\n').find((l) => l.startsWith('collateral: '));
      const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as {
        inputs: { sim: { cashUsd: number } };
        engine: { halted: string | null; riskBlocks: Record<string, number> };
        venue: { rejectedForBalance: number; fills: number };
      };
      // the summary says what the wallet did, from the same figures
      expect(summary).toBe(
        `collateral: $15 (sim.cashUsd); BUYs held back by the risk gate: ${result.engine.riskBlocks.buy_exceeds_collateral ?? 0}; refused by the venue for balance: ${result.venue.rejectedForBalance}`,
      );
      return result;
    };
    const capped = await backtest([]);
    expect(capped.inputs.sim.cashUsd).toBe(15);
    expect(capped.venue.rejectedForBalance).toBe(0);
    expect(capped.engine.riskBlocks.buy_exceeds_collateral).toBeGreaterThan(0);
    expect(capped.venue.fills).toBeGreaterThan(0);
    expect(capped.engine.halted).toBeNull();
    // the gate's cap off (risk.collateralReadMs 0): the same wallet sees BUYs refused
    const cfg = join(tempDir('cli-cash-cfg'), 'config.json');
    writeFileSync(cfg, JSON.stringify({ risk: { collateralReadMs: 0 } }));
    const uncapped = await backtest(['--config', cfg]);
    expect(uncapped.venue.rejectedForBalance).toBeGreaterThan(0);
  }, 60_000);

  it('refuses a bad --grid before anything runs: exit 2, one line naming the parameter and the value, nothing written', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--grid', 'minSpread=abc,0.01'], /^makerd backtest: --grid: minSpread=abc: .*expected number/],
      [['--grid', 'gamma=0.05,0.1'], /^makerd backtest: --grid: 'gamma' is not a parameter of strategy bands/],
      [['--strategy', 'avellaneda', '--grid', 'spread=2,4'], /^makerd backtest: --grid: 'spread' is not a parameter of strategy avellaneda/],
      [['--grid', 'bands.3.distance=0.01'], /^makerd backtest: --grid: 'bands\.3\.distance': bands has 1 element/],
      [['--grid', 'gamma'], /^makerd backtest: --grid: 'gamma' is not name=v1,v2/],
    ];
    for (const [extra, msg] of cases) {
      const dir = tempDir('cli-grid-bad');
      const r = await run(['backtest', '--data', SAMPLE, '--out', dir, ...extra]);
      expect(r.code, extra.join(' ')).toBe(2);
      expect(r.err, extra.join(' ')).toMatch(msg);
      expect(r.err.split('\n'), extra.join(' ')).toHaveLength(1);
      expect(r.out, extra.join(' ')).toBe('');
      expect(existsSync(join(dir, 'grid.csv')), extra.join(' ')).toBe(false);
      expect(existsSync(join(dir, 'grid')), extra.join(' ')).toBe(false);
    }
  });

  it('refuses an --out holding files of those names makerd did not write (a run replaces its earlier output): exit 2, nothing deleted', async () => {
    // found in review: a grid deleted DIR/grid, DIR/index.html and DIR/grid.csv, a single run DIR/result.json
    // and DIR/report.html, whatever they were: a user's site folder lost its index and its grid folder
    const site = tempDir('cli-foreign-out');
    mkdirSync(join(site, 'grid'), { recursive: true });
    writeFileSync(join(site, 'grid', 'keep.txt'), 'mine');
    writeFileSync(join(site, 'index.html'), '<html>my site</html>');
    const g = await run(['backtest', '--data', SAMPLE, '--out', site, '--grid', 'skewPerShare=0,0.001', '--workers', '1']);
    expect(g.code).toBe(2);
    expect(g.err).toMatch(/not written by makerd backtest/);
    expect(readFileSync(join(site, 'grid', 'keep.txt'), 'utf8')).toBe('mine');
    expect(readFileSync(join(site, 'index.html'), 'utf8')).toBe('<html>my site</html>');
    const single = tempDir('cli-foreign-result');
    writeFileSync(join(single, 'result.json'), '{"mine": true}');
    const r = await run(['backtest', '--data', SAMPLE, '--out', single]);
    expect(r.code).toBe(2);
    expect(readFileSync(join(single, 'result.json'), 'utf8')).toBe('{"mine": true}');
    // an earlier version's report (no generator meta, its title names makerd) is makerd's: replaced
    const older = tempDir('cli-older-out');
    writeFileSync(join(older, 'report.html'), '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>makerd backtest: bands</title></head></html>');
    expect((await run(['backtest', '--data', SAMPLE, '--out', older])).code).toBe(0);
    expect(readFileSync(join(older, 'report.html'), 'utf8')).toMatch(/name="generator"/);
    // makerd's own output is replaced: a grid after a single run leaves no result.json or report.html of the earlier run
    const ours = tempDir('cli-own-out');
    expect((await run(['backtest', '--data', SAMPLE, '--out', ours])).code).toBe(0);
    expect(existsSync(join(ours, 'report.html'))).toBe(true);
    // (a grid's workers run the compiled tree)
    const grid = spawnSync(process.execPath, ['dist/cli.js', 'backtest', '--data', SAMPLE, '--out', ours, '--grid', 'skewPerShare=0,0.001', '--workers', '1'], {
      cwd: ROOT_DIR,
      encoding: 'utf8',
      timeout: 90_000,
    });
    expect(grid.status, grid.stderr).toBe(0);
    expect(existsSync(join(ours, 'index.html'))).toBe(true);
    expect(existsSync(join(ours, 'report.html'))).toBe(false);
    expect(existsSync(join(ours, 'result.json'))).toBe(false);
    expect((await run(['backtest', '--data', SAMPLE, '--out', ours])).code).toBe(0);
    expect(existsSync(join(ours, 'index.html'))).toBe(false);
    expect(existsSync(join(ours, 'grid'))).toBe(false);
  }, 120_000);

  it('a run the risk gate halted says so: in the summary, on stderr, in report.html, and per combination in a grid (found in review: only result.json held it)', async () => {
    const dir = tempDir('cli-halted');
    const cfg = join(dir, 'halt.json');
    writeFileSync(cfg, JSON.stringify({ risk: { dailyLossLimit: 0.01 } }));
    const r = await run(['backtest', '--data', SAMPLE, '--config', cfg, '--out', join(dir, 'one')]);
    const halted = (JSON.parse(readFileSync(join(dir, 'one', 'result.json'), 'utf8')) as { engine: { halted: string | null } }).engine.halted;
    expect(halted).toMatch(/daily loss/);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^HALTED: .*daily loss/m);
    expect(r.err).toMatch(/halted quoting/);
    expect(readFileSync(join(dir, 'one', 'report.html'), 'utf8')).toMatch(/HALTED/);
    const g = spawnSync(process.execPath, ['dist/cli.js', 'backtest', '--data', SAMPLE, '--config', cfg, '--out', join(dir, 'grid'), '--grid', 'skewPerShare=0,0.001', '--workers', '1'], {
      cwd: ROOT_DIR,
      encoding: 'utf8',
      timeout: 90_000,
    });
    expect(g.status, g.stderr).toBe(0);
    expect(g.stderr).toMatch(/grid #0: the risk gate halted quoting/);
    const csv = readFileSync(join(dir, 'grid', 'grid.csv'), 'utf8').split('\n');
    const col = csv[0].split(',').indexOf('halted');
    expect(col).toBeGreaterThan(0);
    expect(csv[1].split(',')[col]).toMatch(/daily loss/);
    expect(readFileSync(join(dir, 'grid', 'index.html'), 'utf8')).toMatch(/HALTED: /);
  }, 120_000);

  it('exits 2 with a clear message on bad input', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['backtest'], /--data is required/],
      [['backtest', '--data', '/nonexistent.jsonl'], /no such file/],
      [['backtest', '--data', SAMPLE, '--params', '{bad'], /--params is not valid JSON/],
      [['backtest', '--data', SAMPLE, '--params', '{"skewPerShare":0.0002,"skewPerShare":0.2}'], /--params names skewPerShare twice/],
      [['backtest', '--data', SAMPLE, '--order-latency=-1'], /--order-latency must be a non-negative number/],
      [['backtest', '--data', SAMPLE, '--settle=-5'], /--settle must be a non-negative number/],
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

  it('a recording with no market events: exit 1, and no result of an earlier run left behind', async () => {
    const notData = fileURLToPath(new URL('../../README.md', import.meta.url));
    const dir = tempDir('cli-no-events');
    // a result of an earlier run in --out: not to be taken for this run's
    writeFileSync(join(dir, 'result.json'), '{"kind":"makerd-backtest","stale":true}');
    const single = await run(['backtest', '--data', notData, '--out', dir]);
    expect(single.code).toBe(1);
    expect(single.err).toMatch(/no market events/);
    expect(existsSync(join(dir, 'result.json'))).toBe(false);
    // (a sweep's workers run the compiled build: its case is in read-errors.test.ts)
  }, 60_000);

  it('latencies past what a timer holds are refused (exit 2 naming the flag), as the config refuses them', async () => {
    for (const flag of ['--feed-latency', '--order-latency', '--cancel-latency', '--settle']) {
      const r = await run(['backtest', '--data', SAMPLE, '--out', tempDir('cli-latency'), flag, '1e12']);
      expect(r.code).toBe(2);
      expect(r.err).toContain(flag);
    }
  }, 30_000);
});
