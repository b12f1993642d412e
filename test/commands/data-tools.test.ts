// Issue 13, items 2 and 3: the data tools fail loudly and speak plainly. A backtest whose strategy
// throws says so (first error with its stack, the count) and exits 1 unless told to tolerate it,
// in a grid sweep per row; verify and backtest refuse input with nothing usable in it; record
// fails at once on an unwritable path, after --first-frame-timeout on a silent or unreachable
// feed, and whenever it recorded nothing; a missing input or a bad output path is one line, exit 2.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../../src/cli.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { tempDir } from '../backtest/helpers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SAMPLE = join(ROOT, 'data/sample-synthetic.jsonl.gz');
const README = join(ROOT, 'README.md');
const STACK = /^ {4}at /m;

interface Ran {
  code: number;
  out: string;
  err: string;
}

async function run(args: string[], env: Record<string, string> = {}): Promise<Ran> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await cli(args, { out: (l) => void out.push(l), err: (l) => void err.push(l), env });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** One line on stderr, no stack trace. */
function oneLine(r: Ran): string {
  expect(r.err).not.toMatch(STACK);
  expect(r.err.trim().split('\n')).toHaveLength(1);
  return r.err.trim();
}

const throwing = join(ROOT, 'test/fixtures/strategies/throwing.mjs');
const asyncQuote = join(ROOT, 'test/fixtures/strategies/async-quote.mjs');
let dir = '';
beforeAll(() => {
  dir = tempDir('data-tools');
});

describe('backtest: a strategy or params refused', () => {
  // found in review: the last run's result.json and report.html were deleted before the strategy
  // was loaded, so a misspelt --strategy exited 2 having lost them
  it('exits 2 naming it, and the last results in --out are still there', async () => {
    const out = join(dir, 'kept');
    const first = await run(['backtest', '--data', SAMPLE, '--out', out]);
    expect(first.code).toBe(0);
    const before = readFileSync(join(out, 'result.json'), 'utf8');
    for (const args of [
      ['--strategy', 'bnads'],
      ['--params', '{"bands":"wide"}'],
    ]) {
      const r = await run(['backtest', '--data', SAMPLE, '--out', out, ...args]);
      expect(r.code).toBe(2);
      expect(oneLine(r)).toMatch(/strategy/);
      expect(readFileSync(join(out, 'result.json'), 'utf8')).toBe(before);
      expect(existsSync(join(out, 'report.html'))).toBe(true);
    }
  }, 60_000);
});

describe('backtest: a strategy that throws', () => {
  it('prints the first error with its stack once, counts them in the summary, exits 1; --allow-strategy-errors exits 0', async () => {
    const out = join(dir, 'bt-throw');
    const r = await run(['backtest', '--data', SAMPLE, '--strategy', throwing, '--out', out]);
    expect(r.code).toBe(1);
    expect(r.err.match(/boom from the strategy/g)).toHaveLength(1);
    expect(r.err).toMatch(/makerd backtest: the strategy threw \d+ times; the first:/);
    expect(r.err).toMatch(/Error: boom from the strategy\n {4}at explode \(.*throwing\.mjs:\d+:\d+\)\n {4}at Object\.quote \(.*throwing\.mjs:\d+:\d+\)\nexit 1 /);
    expect(r.err).toMatch(/--allow-strategy-errors/);
    const errors = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')).engine.errors as number;
    expect(errors).toBeGreaterThan(100);
    expect(r.out).toContain(`strategy errors: ${errors}`);

    const allowed = await run(['backtest', '--data', SAMPLE, '--strategy', throwing, '--out', out, '--allow-strategy-errors']);
    expect(allowed.code).toBe(0);
    expect(allowed.err.match(/boom from the strategy/g)).toHaveLength(1);
    expect(allowed.out).toContain(`strategy errors: ${errors}`);
  }, 60_000);

  it('a quote() that returns no array (an async quote) is a strategy failure too: exit 1, counted in result.json', async () => {
    const out = join(dir, 'bt-async');
    const r = await run(['backtest', '--data', SAMPLE, '--strategy', asyncQuote, '--out', out]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/makerd backtest: the strategy threw \d+ times; the first:/);
    expect(r.err).toMatch(/quote\(\) returned a Promise \(quote\(\) must not be async\)/);
    const engine = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')).engine as { errors: number; strategyErrors?: { count: number } };
    expect(engine.strategyErrors?.count).toBe(engine.errors);
    expect(engine.errors).toBeGreaterThan(100);
  }, 60_000);

  it('a run without errors prints no error line and says 0 strategy errors', async () => {
    const r = await run(['backtest', '--data', SAMPLE, '--out', join(dir, 'bt-ok')]);
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(r.out).toContain('strategy errors: 0');
  }, 60_000);

  it('the compiled backtest reads in its reader thread, or on one thread with --one-thread: the same result.json (dist/cli.js)', () => {
    if (!existsSync(join(ROOT, 'dist/cli.js'))) throw new Error('run npm run build first');
    const outs = ['thread', 'one'].map((name) => {
      const out = join(dir, `threads-${name}`);
      const args = ['dist/cli.js', 'backtest', '--data', SAMPLE, '--out', out, '--seed', '5', ...(name === 'one' ? ['--one-thread'] : [])];
      const r = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
      expect(r.status, r.stderr).toBe(0);
      return readFileSync(join(out, 'result.json'), 'utf8');
    });
    expect(JSON.parse(outs[0]).total.orders).toBeGreaterThan(0);
    expect(outs[1]).toBe(outs[0]);
  }, 60_000);

  it('a grid sweep reports the errors in each row and exits 1 (dist/cli.js)', () => {
    if (!existsSync(join(ROOT, 'dist/cli.js'))) throw new Error('run npm run build first');
    const out = join(dir, 'grid');
    const args = ['dist/cli.js', 'backtest', '--data', SAMPLE, '--strategy', throwing, '--out', out, '--grid', 'x=1,2', '--workers', '2'];
    const r = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).not.toMatch(STACK);
    // the table keeps its shape: one row per combination, the error in the pnl column
    const rows = r.stdout.split('\n').filter((l) => /^\d+ +\d+ +\d+ /.test(l));
    expect(rows).toHaveLength(2);
    // rank, then the folder of the combination's report (grid/<n>, n in grid order: x=1 is 0), then x
    expect(rows.map((l) => l.split(/ +/).slice(1, 3).join(' ')).sort()).toEqual(['0 1', '1 2']);
    for (const row of rows) expect(row).toMatch(/error: the strategy threw \d+ times \(first: boom from the strategy\)/);
    expect(r.stderr).toMatch(/2 of 2 combinations failed/);
    const csv = readFileSync(join(out, 'grid.csv'), 'utf8');
    expect(csv).toMatch(/the strategy threw \d+ times/);

    const allowed = spawnSync(process.execPath, [...args, '--allow-strategy-errors'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(allowed.status).toBe(0);
    const okRows = allowed.stdout.split('\n').filter((l) => /^\d+ +\d+ +\d+ /.test(l));
    expect(okRows).toHaveLength(2);
    for (const row of okRows) expect(row).toMatch(/ 0\.0000 /);
    // named as its report is (grid #n, the folder grid/<n>), whatever its rank
    expect(allowed.stderr).toMatch(/^grid #0 \(x=1\): the strategy threw \d+ times \(first: boom from the strategy\); tolerated$/m);
    expect(allowed.stderr).toMatch(/^grid #1 \(x=2\): the strategy threw \d+ times/m);
  }, 120_000);
});

describe('verify and backtest: input with nothing usable', () => {
  it('verify README.md exits 1 with one line and does not claim OK', async () => {
    const r = await run(['verify', README]);
    expect(r.code).toBe(1);
    expect(r.out).not.toMatch(/OK/);
    expect(oneLine(r)).toMatch(/^makerd verify: .*README\.md: no valid market frame \(\d+ lines read, \d+ rejected\)$/);
    const j = await run(['verify', README, '--json']);
    expect(j.code).toBe(1);
    expect(JSON.parse(j.out).ok).toBe(false);
  });

  it('verify names rejected frames beside valid ones', async () => {
    const fixture = join(ROOT, 'test/fixtures/polymarket/polytope/market_39.jsonl');
    const mixed = join(dir, 'mixed.jsonl');
    writeFileSync(mixed, readFileSync(fixture, 'utf8') + 'not a frame\n{"event_type":"nonsense"}\n');
    const r = await run(['verify', mixed]);
    expect(r.code).toBe(0);
    expect(r.out.split('\n').at(-1)).toMatch(/^OK: every hash verified; 2 frames rejected by the decoder$/);
  });

  it('backtest --data README.md exits 1 with one line', async () => {
    const out = join(dir, 'bt-readme');
    const r = await run(['backtest', '--data', README, '--out', out]);
    expect(r.code).toBe(1);
    expect(oneLine(r)).toMatch(/^makerd backtest: no market events in .*README\.md \(\d+ frames, \d+ rejected\); nothing to backtest$/);
    expect(existsSync(join(out, 'result.json'))).toBe(false);
  });
});

describe('missing inputs and bad output paths: one line, exit 2', () => {
  it('verify of a missing file', async () => {
    const r = await run(['verify', '/nonexistent.gz']);
    expect(r.code).toBe(2);
    expect(oneLine(r)).toBe('makerd verify: no such file: /nonexistent.gz');
  });

  it('backtest of a missing file, and --out naming a file', async () => {
    const missing = await run(['backtest', '--data', '/nonexistent.jsonl']);
    expect(missing.code).toBe(2);
    expect(oneLine(missing)).toBe('makerd backtest: --data: no such file: /nonexistent.jsonl');
    const t0 = Date.now();
    const r = await run(['backtest', '--data', SAMPLE, '--out', README]);
    expect(r.code).toBe(2);
    expect(oneLine(r)).toBe(`makerd backtest: --out ${README}: not a directory`);
    expect(Date.now() - t0).toBeLessThan(5_000); // before the run, not after it
  });
});

describe('record: fails when it records nothing', () => {
  let emu: RunningEmulator;
  let cfg = '';
  beforeAll(async () => {
    emu = await startEmulator({ seed: 4 });
    cfg = join(dir, 'record.json');
    writeFileSync(cfg, JSON.stringify({ log: { level: 'silent' }, feed: { reconnectBaseMs: 50, reconnectMaxMs: 100 } }));
  });
  afterAll(async () => {
    await emu.close();
  });

  it("records the emulator and exits 0, the market's metadata first (from urls.clob)", async () => {
    const out = join(dir, 'ok.jsonl');
    const [yes, no] = emu.markets[0].facts.tokens;
    // the NO token named: the metadata still prices YES, the market's first outcome, as live does
    const r = await run(['record', '--markets', no, '--out', out, '--config', cfg, '--duration', '1'], { MAKERD_WS_URL: emu.urls.ws, MAKERD_CLOB_URL: emu.urls.clob });
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/frames=[1-9]/);
    expect(r.err).not.toMatch(/WARNING/);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    const first = JSON.parse(lines[0]) as { k: string; f: { event_type: string; tokenId: string; complementId: string; conditionId: string } };
    expect(first.k).toBe('meta');
    expect(first.f).toMatchObject({ event_type: 'makerd_market', tokenId: yes, complementId: no, conditionId: emu.markets[0].facts.conditionId });
    expect(JSON.parse(lines[1]).k).toBe('market');
    // both tokens of the market are recorded (the metadata names the other): its backtest prices
    // YES, whose book it holds (a recording of NO alone left YES bookless: the market quoted nothing)
    const books = lines.map((l) => JSON.parse(l) as { k: string; f: unknown }).filter((r) => r.k === 'market');
    const assets = new Set(books.flatMap((r) => (Array.isArray(r.f) ? r.f : [r.f]).map((e) => (e as { asset_id?: string }).asset_id).filter(Boolean)));
    expect([...assets].sort()).toEqual([yes, no].sort());
    const bt = await run(['backtest', '--data', out, '--out', join(dir, 'bt-meta')]);
    expect(bt.code, bt.err).toBe(0);
    const result = JSON.parse(readFileSync(join(dir, 'bt-meta', 'result.json'), 'utf8')) as { markets: Array<{ tokenId: string }> };
    expect(result.markets.map((m) => m.tokenId)).toEqual([yes]);
  }, 20_000);

  it('a metadata look-up that fails is a warning: the recording goes on without it', async () => {
    const out = join(dir, 'nometa.jsonl');
    const r = await run(['record', '--markets', emu.markets[0].facts.tokens[0], '--out', out, '--config', cfg, '--duration', '1'], {
      MAKERD_WS_URL: emu.urls.ws,
      MAKERD_CLOB_URL: `http://127.0.0.1:${await closedPort()}`,
    });
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/^makerd record: WARNING: market metadata not recorded \(.+\): a backtest of this recording prices the token whose book comes first/m);
    expect(readFileSync(out, 'utf8')).not.toMatch(/"k":"meta"/);
  }, 10_000);

  it('a metadata look-up the CLOB never answers is cut by the read deadline: a warning, and the recording goes on', async () => {
    // accepts the request, never answers
    const silent = createHttpServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const slowCfg = join(dir, 'record-slow.json');
    writeFileSync(
      slowCfg,
      JSON.stringify({ log: { level: 'silent' }, feed: { reconnectBaseMs: 50, reconnectMaxMs: 100 }, http: { readDeadlineMs: 300 }, retry: { baseMs: 10, maxMs: 20, attempts: 1 } }),
    );
    try {
      const out = join(dir, 'slow-meta.jsonl');
      const t0 = Date.now();
      const r = await run(['record', '--markets', emu.markets[0].facts.tokens[0], '--out', out, '--config', slowCfg, '--duration', '1'], {
        MAKERD_WS_URL: emu.urls.ws,
        MAKERD_CLOB_URL: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
      });
      expect(r.code).toBe(0);
      expect(r.err).toMatch(/^makerd record: WARNING: market metadata not recorded/m);
      expect(readFileSync(out, 'utf8')).toMatch(/"k":"market"/);
      expect(Date.now() - t0).toBeLessThan(8000);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  }, 15_000);

  it('more tokens than one connection carries (feed.maxAssetsPerConnection) is a usage error', async () => {
    const many = Array.from({ length: 201 }, (_, i) => String(1000 + i)).join(',');
    const r = await run(['record', '--markets', many, '--out', join(dir, 'many.jsonl'), '--config', cfg, '--duration', '1']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--markets names 201 tokens; record keeps them on one connection, which carries at most feed.maxAssetsPerConnection \(200\)/);
  });

  it('an unwritable --out fails at once with one line naming the path', async () => {
    for (const out of ['/nonexistent/dir/r.jsonl', dir]) {
      const t0 = Date.now();
      const r = await run(['record', '--markets', emu.markets[0].facts.tokens[0], '--out', out, '--config', cfg, '--duration', '5', '--no-market-meta'], { MAKERD_WS_URL: emu.urls.ws });
      expect(r.code, out).toBe(2);
      expect(oneLine(r)).toMatch(new RegExp(`^makerd record: --out ${out.replace(/[/.]/g, '\\$&')}: `));
      expect(Date.now() - t0).toBeLessThan(2_000);
    }
  }, 10_000);

  it('an unreachable feed fails after --first-frame-timeout', async () => {
    const port = await closedPort();
    const t0 = Date.now();
    const r = await run(['record', '--markets', '123', '--out', join(dir, 'unreachable.jsonl'), '--config', cfg, '--first-frame-timeout', '1', '--no-market-meta'], {
      MAKERD_WS_URL: `ws://127.0.0.1:${port}`,
    });
    expect(r.code).toBe(1);
    expect(Date.now() - t0).toBeLessThan(5_000);
    const last = r.err.trim().split('\n').at(-1)!;
    expect(r.err).not.toMatch(STACK);
    expect(last).toMatch(new RegExp(`^makerd record: no frame within 1 s: could not connect to ws://127\\.0\\.0\\.1:${port}/ws/market`));
  }, 10_000);

  it('an unknown token fails after --first-frame-timeout; a run that recorded nothing exits 1', async () => {
    const r = await run(['record', '--markets', '999999', '--out', join(dir, 'unknown.jsonl'), '--config', cfg, '--first-frame-timeout', '1', '--no-market-meta'], { MAKERD_WS_URL: emu.urls.ws });
    expect(r.code).toBe(1);
    expect(r.err).not.toMatch(STACK);
    expect(r.err.trim().split('\n').at(-1)).toMatch(/^makerd record: no frame within 1 s: connected to ws:\/\/127\.0\.0\.1:\d+\/ws\/market, but nothing came for 999999 \(unknown token ids\?\)$/);

    const short = await run(['record', '--markets', '999999', '--out', join(dir, 'none.jsonl'), '--config', cfg, '--duration', '1', '--no-market-meta'], { MAKERD_WS_URL: emu.urls.ws });
    expect(short.code).toBe(1);
    expect(short.err.trim().split('\n').at(-1)).toMatch(/^makerd record: recorded 0 frames in 1 s/);
  }, 10_000);

  it('bad --first-frame-timeout is a usage error', async () => {
    const r = await run(['record', '--markets', '1', '--out', join(dir, 'x.jsonl'), '--first-frame-timeout=-1']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--first-frame-timeout must be a non-negative number/);
  });
});

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((res) => s.listen(0, '127.0.0.1', res));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((res) => s.close(() => res()));
  return port;
}
