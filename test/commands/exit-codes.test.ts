// Issue 13, items 1 and 6 ("Fail loudly, speak plainly"): every failure to start prints ONE line
// naming the cause on stderr, no stack trace, and exits non-zero within seconds; exit codes keep
// the README's contract (0 ok, 1 a failed run or request, 2 a usage or configuration error).
// Real processes (`node dist/cli.js`, built by npm test) against an emulator and servers on
// 127.0.0.1, port 0; every wait is bounded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../../src/cli.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { assertBuilt, ROOT, runCli } from '../e2e/harness.js';
import { urlsEnv } from '../../src/emulator/server.js';

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stderr's non-empty lines */
  errLines: string[];
  ms: number;
}

/** Runs `node dist/cli.js ...args` in the test folder; kills it and fails past `boundMs`. */
function makerd(args: string[], env: Record<string, string> = {}, boundMs = 20_000): Promise<Result> {
  return runCli(args, { env, cwd: dir, boundMs });
}

/** One line on stderr matching `re`, and no stack trace anywhere. */
function oneLine(r: Result, re: RegExp): void {
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.stdout).not.toMatch(/\n\s+at /);
  expect(r.errLines, r.stderr).toHaveLength(1);
  expect(r.errLines[0]).toMatch(re);
}

let dir: string;
let emu: RunningEmulator;
let busy: Server;
let busyPort: number;
let closedPort: number;
let token: string;
let emuEnv: Record<string, string>;

beforeAll(async () => {
  assertBuilt();
  dir = mkdtempSync(join(tmpdir(), 'makerd-exit-'));
  emu = await startEmulator({ seed: 7 });
  token = emu.markets[0].facts.tokens[0];
  const u = emu.urls;
  emuEnv = urlsEnv(u);
  busy = createServer();
  await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
  busyPort = (busy.address() as { port: number }).port;
  // a port nothing listens on: bound, then released
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  closedPort = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
});
afterAll(async () => {
  await emu?.close();
  await new Promise<void>((r) => (busy ? busy.close(() => r()) : r()));
  rmSync(dir, { recursive: true, force: true });
});

describe('makerd run: a failure to start is one line and a non-zero exit within seconds', () => {
  const paper = () => ['run', '--mode', 'paper', '--markets', token];
  const env = (over: Record<string, string> = {}) => ({ ...emuEnv, MAKERD_DB: join(dir, 'run.sqlite'), MAKERD_STATUS_PORT: '0', ...over });

  it('the status port is taken: exit 2 naming the port and the key, after stopping cleanly', async () => {
    const r = await makerd(paper(), env({ MAKERD_STATUS_PORT: String(busyPort) }));
    expect(r.code).toBe(2);
    oneLine(r, new RegExp(`^makerd: invalid config: status\\.port: 127\\.0\\.0\\.1:${busyPort} is already in use .*MAKERD_STATUS_PORT`));
    expect(r.stdout).toContain('"msg":"stopped"');
    expect(r.ms).toBeLessThan(10_000);
  });

  it('the SQLite file cannot be opened: exit 2 naming store.path', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'not a directory');
    const r = await makerd(paper(), env({ MAKERD_DB: join(file, 'x.sqlite') }));
    expect(r.code).toBe(2);
    oneLine(r, /^makerd: invalid config: store\.path: cannot open .*a-file\/x-paper\.sqlite: /);
    const notDb = join(dir, 'garbage');
    writeFileSync(`${notDb}-paper.sqlite`, 'this is not a database\n'.repeat(200));
    const g = await makerd(paper(), env({ MAKERD_DB: notDb }));
    expect(g.code).toBe(2);
    oneLine(g, /^makerd: invalid config: store\.path: cannot open .*garbage-paper\.sqlite: file is not a database/);
  });

  it('the SQLite file is locked by another program (a backup holding it): exit 1, a failure to retry, not a config error pm2 leaves down', async () => {
    const locked = join(dir, 'locked');
    const db = new Database(`${locked}-paper.sqlite`);
    db.pragma('journal_mode = DELETE');
    db.exec('CREATE TABLE t (x); BEGIN EXCLUSIVE; INSERT INTO t VALUES (1)');
    try {
      const r = await makerd(paper(), env({ MAKERD_DB: locked }));
      expect(r.code).toBe(1);
      oneLine(r, /^makerd run: cannot open .*locked-paper\.sqlite: database is locked/);
      expect(r.errLines[0]).not.toMatch(/invalid config/);
    } finally {
      db.exec('ROLLBACK');
      db.close();
    }
  });

  it('the config file is unreadable (a directory): exit 2', async () => {
    const d = join(dir, 'cfgdir.json');
    mkdirSync(d, { recursive: true });
    const r = await makerd([...paper(), '--config', d], env());
    expect(r.code).toBe(2);
    oneLine(r, /^makerd: invalid config: --config: /);
  });

  it('the venue is unreachable at start-up: exit 1 naming the request, within seconds', async () => {
    const r = await makerd(paper(), env({ MAKERD_CLOB_URL: `http://127.0.0.1:${closedPort}/clob` }));
    expect(r.code).toBe(1);
    oneLine(r, /^makerd run: GET \/book: .*ECONNREFUSED/);
    expect(r.ms).toBeLessThan(15_000);
  });

  it('no markets is a configuration error: exit 2', async () => {
    const r = await makerd(['run', '--mode', 'paper'], env());
    expect(r.code).toBe(2);
    oneLine(r, /^makerd: invalid config: markets: none to quote: give --markets, config\.markets, or enable config\.marketQuery$/);
  });

  it('the market query finds no market at start-up: exit 1, not 2 (pm2 stops for good on 2; a venue between two answers gets another start)', async () => {
    const cfg = join(dir, 'query-none.json');
    writeFileSync(cfg, JSON.stringify({ marketQuery: { enabled: true, active: true, minVolume: 1e15, minLiquidity: 0, order: 'volume', limit: 5 } }));
    const r = await makerd(['run', '--mode', 'paper', '--config', cfg], env());
    expect(r.code).toBe(1);
    oneLine(r, /^makerd run: the market query \(config\.marketQuery\) found no market to quote/);
  });

  it('live mode without MAKERD_API_KEY: exit 2', async () => {
    const r = await makerd(['run', '--mode', 'live', '--markets', token], env());
    expect(r.code).toBe(2);
    oneLine(r, /^makerd: invalid config: mode: live mode needs MAKERD_API_KEY in the environment/);
  });

  it("the polymarket profile's missing credentials: exit 2", async () => {
    const r = await makerd(['run', '--mode', 'live', '--markets', token], env({ MAKERD_VENUE: 'polymarket' }));
    expect(r.code).toBe(2);
    oneLine(r, /^makerd: invalid config: mode: live mode on the polymarket profile needs MAKERD_PRIVATE_KEY, MAKERD_API_KEY, MAKERD_API_SECRET, MAKERD_API_PASSPHRASE/);
  });

  it('a strategy given as TypeScript source says to compile it or use the .js under dist/', async () => {
    const cfg = join(dir, 'ts-strategy.json');
    writeFileSync(cfg, JSON.stringify({ strategy: { name: join(ROOT, 'strategies', 'bands.ts') } }));
    const r = await makerd([...paper(), '--config', cfg], env(), 20_000);
    expect(r.code).toBe(2);
    oneLine(r, /^makerd: invalid config: strategy\.name: .*bands\.ts is TypeScript source: .*compile it .*dist\/strategies\/bands\.js/);
  });
});

describe('makerd demo', () => {
  it('the status port is taken: exit 2 in one line, the emulator stopped', async () => {
    const r = await makerd(['demo', '--duration', '5'], { MAKERD_STATUS_PORT: String(busyPort), MAKERD_DB: join(dir, 'demo.sqlite') });
    expect(r.code).toBe(2);
    oneLine(r, new RegExp(`^makerd: invalid config: status\\.port: 127\\.0\\.0\\.1:${busyPort} is already in use`));
    expect(r.stdout).toContain('demo: stopped; orders left at the emulator: 0');
  });
});

describe('makerd demo: bad configuration before anything runs', () => {
  it('an invalid MAKERD_STATUS_PORT or MAKERD_LOG_LEVEL: exit 2 in one line, at once, no demo folder left', async () => {
    for (const [k, v, key] of [
      ['MAKERD_STATUS_PORT', 'abc', 'MAKERD_STATUS_PORT'],
      ['MAKERD_LOG_LEVEL', 'verbose', 'MAKERD_LOG_LEVEL'],
    ]) {
      const tmp = mkdtempSync(join(tmpdir(), 'makerd-demo-cfg-'));
      const r = await makerd(['demo', '--duration', '30'], { [k]: v, TMPDIR: tmp }, 15_000);
      expect(r.code).toBe(2);
      oneLine(r, new RegExp(`^makerd: invalid config: ${key.replace('.', '\\.')}`));
      expect(readdirSync(tmp).filter((f) => f.startsWith('makerd-demo'))).toEqual([]);
    }
  });
});

describe('makerd record and demo: durations past what a timer can hold', () => {
  it('a --duration of 2^31 ms or more is refused (exit 2), not run for 1 ms', async () => {
    const r = await makerd(['record', '--markets', token, '--out', join(dir, 'long.jsonl'), '--duration', '2147484']);
    expect(r.code).toBe(2);
    // a usage error: the line naming the flag, then the command's usage
    expect(r.errLines[0]).toMatch(/^makerd record: --duration must be at most 2000000, got '2147484'/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const d = await makerd(['demo', '--interval', '2147484', '--duration', '5']);
    expect(d.code).toBe(2);
    expect(d.errLines[0]).toMatch(/^makerd demo: --interval must be at most 2000000/);
    expect(d.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('makerd keys', () => {
  it('derive without MAKERD_PRIVATE_KEY is a configuration error: exit 2', async () => {
    const r = await makerd(['keys', 'derive'], { MAKERD_VENUE: 'polymarket' });
    expect(r.code).toBe(2);
    oneLine(r, /^makerd: invalid config: MAKERD_PRIVATE_KEY: keys derive needs it in the environment/);
  });
});

describe('makerd emulator', () => {
  it('--port taken: exit 2, one line naming the port', async () => {
    const r = await makerd(['emulator', '--port', String(busyPort)]);
    expect(r.code).toBe(2);
    oneLine(r, new RegExp(`^makerd: invalid config: --port: 127\\.0\\.0\\.1:${busyPort} is already in use`));
  });

  it('--write into a missing directory: exit 1, one line naming the file', async () => {
    const r = await makerd(['emulator', '--synthetic', '1', '--write', '/nonexistent/dir/x.gz', '--duration', '5']);
    expect(r.code).toBe(1);
    oneLine(r, /^makerd emulator: cannot write \/nonexistent\/dir\/x\.gz: ENOENT/);
  });
});

describe('dispatch', () => {
  it('bare makerd prints the help on stderr and exits 2', async () => {
    const r = await makerd([]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^usage: makerd <command>/);
    expect(r.stdout).toBe('');
  });

  it('makerd help run shows the help of run; help and --help the general help; help of nothing known exits 2', async () => {
    const io = () => {
      const out: string[] = [];
      const err: string[] = [];
      return { out, err, io: { out: (l: string) => void out.push(l), err: (l: string) => void err.push(l), env: {} } };
    };
    const a = io();
    expect(await cli(['help', 'run'], a.io)).toBe(0);
    expect(a.out.join('\n')).toMatch(/^usage: makerd run /);
    const b = io();
    expect(await cli(['help'], b.io)).toBe(0);
    expect(b.out.join('\n')).toMatch(/^usage: makerd <command>/);
    const c = io();
    expect(await cli(['help', 'nonsense'], c.io)).toBe(2);
    expect(c.err.join('\n')).toContain("unknown command 'nonsense'");
  });

  it('--version reads package.json', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const r = await makerd(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(`makerd ${pkg.version}`);
  });
});

describe('source comments', () => {
  it('point only to files the repository has (no DESIGN.md)', () => {
    const hits: string[] = [];
    const walk = (d: string): void => {
      for (const n of readdirSync(d)) {
        const p = join(d, n);
        if (statSync(p).isDirectory()) walk(p);
        else if (/\.(ts|js|cjs)$/.test(n) && !p.endsWith('exit-codes.test.ts') && readFileSync(p, 'utf8').includes('DESIGN' + '.md')) hits.push(p);
      }
    };
    for (const d of ['src', 'test', 'strategies']) walk(join(ROOT, d));
    expect(existsSync(join(ROOT, 'DESIGN' + '.md'))).toBe(false);
    expect(hits).toEqual([]);
  });
});
