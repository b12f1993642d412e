// Command-line input that was taken without a check and failed later (or never): each is refused
// up front, exit 2, one line naming the option or key, no stack trace, before any request is sent
// or any file is touched. In-process through cli() where that shows it; the compiled CLI
// (`node dist/cli.js`, built first) where the process's own exit and output are the point. Loopback
// only, every wait bounded.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../../src/cli.js';
import { tokenIdsFlag, UsageError } from '../../src/commands/command.js';
import { HEARTBEAT_TIMEOUT_MS } from '../../src/emulator/polymarket-heartbeats.js';
import { send, startServer, type TestServer } from '../api/http-server.js';
import { assertBuilt, ROOT, runCli } from '../e2e/harness.js';

const SAMPLE = join(ROOT, 'data', 'sample-synthetic.jsonl.gz');
let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'makerd-cli-refusals-'));
});

async function run(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await cli(argv, { out: (l) => void out.push(l), err: (l) => void err.push(l), env });
  return { code, out: out.join('\n'), err, errText: err.join('\n') };
}

interface Spawned {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `node dist/cli.js ...args` in `cwd`; killed and failed past `boundMs`. */
function makerd(args: string[], cwd: string, env: Record<string, string>, boundMs = 15_000): Promise<Spawned> {
  return runCli(args, { env: { TMPDIR: dir, ...env }, cwd, boundMs });
}

/** A stack frame line ("    at f (file:1:2)"), as an internal error prints. */
const STACK = /^\s+at .*:\d+:\d+\)?$/m;

describe('a base URL of the wrong scheme (compiled CLI)', () => {
  beforeAll(assertBuilt);
  it('markets with MAKERD_GAMMA_URL=localhost:8080/gamma: exit 2 naming the variable, no stack trace', async () => {
    const r = await makerd(['markets'], dir, { MAKERD_GAMMA_URL: 'localhost:8080/gamma' });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).not.toMatch(STACK);
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^makerd: invalid config: MAKERD_GAMMA_URL: must start with http:\/\/ or https:\/\//)]);
  });
});

describe('--markets: one parser for run and doctor', () => {
  let srv: TestServer;
  beforeAll(async () => {
    // a CLOB that knows no token: doctor's markets check fails, after asking
    srv = await startServer((_r, res) => send(res, 404, { error: 'not found' }));
  });
  afterAll(async () => {
    await srv.close();
  });

  it('tokenIdsFlag trims, refuses non-numeric ids and a list naming nothing', () => {
    expect(tokenIdsFlag(undefined, '--markets')).toBeUndefined();
    expect(tokenIdsFlag('111, 222 ,', '--markets')).toEqual(['111', '222']);
    expect(() => tokenIdsFlag('abc', '--markets')).toThrow(UsageError);
    expect(() => tokenIdsFlag('111,abc', '--markets')).toThrow(/--markets/);
    expect(() => tokenIdsFlag(' , ', '--markets')).toThrow(/--markets names no token id/);
  });
  it('doctor --markets abc: exit 2 naming --markets, no request sent', async () => {
    const before = srv.requests.length;
    const r = await run(['doctor', '--markets', 'abc'], { MAKERD_CLOB_URL: srv.url, MAKERD_API_KEY: 'k' });
    expect(r.code, r.errText).toBe(2);
    expect(r.err[0]).toMatch(/^makerd doctor: --markets /);
    expect(srv.requests.length).toBe(before);
  });
  it('doctor --markets "" names no token: exit 2, not the config\'s markets', async () => {
    const r = await run(['doctor', '--markets', ''], { MAKERD_CLOB_URL: srv.url, MAKERD_API_KEY: 'k' });
    expect(r.code, r.errText).toBe(2);
    expect(r.err[0]).toMatch(/^makerd doctor: --markets names no token id/);
  });
  it('doctor --markets " 111, 222" asks the venue for token 111, trimmed', async () => {
    const before = srv.requests.length;
    const r = await run(['doctor', '--markets', ' 111, 222'], { MAKERD_CLOB_URL: srv.url, MAKERD_API_KEY: 'k' });
    expect(r.code).toBe(1); // the venue knows neither token
    const asked = srv.requests.slice(before).flatMap((q) => [...q.query.values()]);
    expect(asked).toContain('111');
    expect(asked).not.toContain(' 111');
  });
  it('run --markets abc still exits 2 naming --markets', async () => {
    const r = await run(['run', '--markets', '111,abc'], {});
    expect(r.code).toBe(2);
    expect(r.err[0]).toMatch(/^makerd run: --markets /);
  });
});

describe('emulator --write: an option the write does not apply is refused', () => {
  for (const extra of [['--port', 'abc'], ['--feed-hash-per-message'], ['--profile', 'polymarket'], ['--urls-out', 'u.json'], ['--signer-tier', 'gold'], ['--fault-silent'], ['--speed', '2']]) {
    it(`${extra.join(' ')}: exit 2 naming ${extra[0]}, nothing written`, async () => {
      const f = join(dir, `w-${extra[0].slice(2)}.jsonl`);
      const r = await run(['emulator', '--synthetic', '1', '--write', f, '--duration', '5', ...extra]);
      expect(r.code, r.errText).toBe(2);
      expect(r.err[0]).toMatch(new RegExp(`^makerd emulator: ${extra[0]} `));
      expect(existsSync(f)).toBe(false);
    });
  }
  it('the options it applies still work (--markets, --activity)', async () => {
    const f = join(dir, 'w-ok.jsonl');
    const r = await run(['emulator', '--synthetic', '1', '--write', f, '--duration', '5', '--markets', '2', '--activity', '2']);
    expect(r.code, r.errText).toBe(0);
    expect(readFileSync(f, 'utf8').length).toBeGreaterThan(0);
  });
});

describe('emulator --help', () => {
  it('states the heartbeat timeout the emulator applies', async () => {
    const r = await run(['emulator', '--help']);
    expect(r.out).toContain(`default ${HEARTBEAT_TIMEOUT_MS}`);
    expect(r.out).not.toContain('default 15000');
  });
});

describe('seeds: 32-bit integers', () => {
  for (const seed of ['4294967297', '4294967296', '1e21', '-1', '1.5']) {
    it(`backtest --seed=${seed}: exit 2 naming --seed`, async () => {
      const r = await run(['backtest', '--data', SAMPLE, `--seed=${seed}`, '--out', join(dir, 'bt-seed')]);
      expect(r.code, r.errText).toBe(2);
      expect(r.err[0]).toMatch(/^makerd backtest: --seed /);
    });
  }
  it('emulator --synthetic 4294967297: exit 2 naming --synthetic', async () => {
    const e = await run(['emulator', '--synthetic', '4294967297', '--write', join(dir, 'seed.jsonl'), '--duration', '5']);
    expect(e.code).toBe(2);
    expect(e.err[0]).toMatch(/^makerd emulator: --synthetic /);
  });
  it('demo --seed 4294967297 (compiled CLI: a demo that starts ends its process): exit 2 naming --seed', async () => {
    assertBuilt();
    const d = await makerd(['demo', '--seed', '4294967297', '--duration', '1'], dir, { MAKERD_STATUS_PORT: '0' }, 25_000);
    expect(d.code, d.stderr + d.stdout).toBe(2);
    expect(d.stderr).toMatch(/^makerd demo: --seed /);
  });
});

describe('backtest --data naming no file', () => {
  it('--data , : exit 2 before the previous result is cleared', async () => {
    const out = join(dir, 'bt-prev');
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'result.json'), '{"previous":true}\n');
    writeFileSync(join(out, 'report.html'), '<p>previous</p>\n');
    const r = await run(['backtest', '--data', ',', '--out', out]);
    expect(r.code, r.errText).toBe(2);
    expect(r.err[0]).toMatch(/^makerd backtest: --data names no file/);
    expect(readFileSync(join(out, 'result.json'), 'utf8')).toBe('{"previous":true}\n');
    expect(existsSync(join(out, 'report.html'))).toBe(true);
  });
});

describe('demo: an empty MAKERD_DB or MAKERD_STATUS_PORT is unset (compiled CLI)', () => {
  beforeAll(assertBuilt);
  it("MAKERD_DB='' keeps the demo's temporary store: the daemon's data/makerd.sqlite is not created; MAKERD_STATUS_PORT='' a free port", async () => {
    // a project folder: its data/ holds the daemon's real store (store.path data/makerd.sqlite)
    const cwd = mkdtempSync(join(dir, 'demo-cwd-'));
    mkdirSync(join(cwd, 'data'));
    const r = await makerd(['demo', '--duration', '1', '--interval', '5'], cwd, { MAKERD_DB: '', MAKERD_STATUS_PORT: '' }, 25_000);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(existsSync(join(cwd, 'data', 'makerd.sqlite'))).toBe(false);
    const status = /status (http:\/\/[^ ]+)\/status/.exec(r.stdout);
    expect(status, r.stdout).not.toBeNull();
    expect(new URL(status?.[1] ?? '').port).not.toBe('9464');
  });
});
