// Bad command-line input to the long-running commands (emulator, demo, run) is refused before
// anything starts: exit 2, the flag (or variable) named on the first line of stderr, no stack
// trace, and the process gone at once: never a server left listening with nobody to stop it, nor
// a delay past what Node's timers hold (2^31 ms) that fires at once. Real processes
// (`node dist/cli.js`, built first); every wait is bounded.
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../e2e/harness.js';

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stderr's non-empty lines */
  errLines: string[];
}

let dir = '';
beforeAll(() => {
  assertBuilt();
  dir = mkdtempSync(join(tmpdir(), 'makerd-cli-input-'));
});

/** Runs `node dist/cli.js ...args` in the test folder; kills it and fails past `boundMs`. */
function makerd(args: string[], env: Record<string, string> = {}, boundMs = 10_000): Promise<Result> {
  return runCli(args, { env: { TMPDIR: dir, MAKERD_STATUS_PORT: '0', ...env }, cwd: dir, boundMs });
}

/** Exit 2, no stack trace, the first line of stderr matching `first`. */
function refused(r: Result, first: RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  // a stack frame, not the usage text's words
  expect(r.stderr).not.toMatch(/^\s+at .*:\d+:\d+\)?$/m);
  expect(r.stderr).not.toMatch(/internal error/);
  expect(r.errLines[0]).toMatch(first);
}

describe('makerd emulator: bad input is refused before the server starts', () => {
  it('an unwritable --urls-out: one line naming it, exit 2, nothing printed as listening', async () => {
    const r = await makerd(['emulator', '--urls-out', '/nonexistent/u.json']);
    refused(r, /^makerd emulator: --urls-out \/nonexistent\/u\.json: no such folder/);
    expect(r.errLines).toHaveLength(1);
    expect(r.stdout).toBe('');
  });

  it('delays past what a timer holds: --fault-tick-size @S, --fault-latency-ms, the trickles', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--fault-tick-size', '0.01@3000000'], /^makerd emulator: --fault-tick-size @S must be at most 2000000, got '3000000'/],
      [['--fault-latency-ms', '3000000000'], /^makerd emulator: --fault-latency-ms must be at most 2000000000, got '3000000000'/],
      [['--fault-cancel-trickle-ms', '3000000000'], /^makerd emulator: --fault-cancel-trickle-ms must be at most 2000000000/],
      [['--fault-read-trickle-ms', '3000000000'], /^makerd emulator: --fault-read-trickle-ms must be at most 2000000000/],
    ];
    const results = await Promise.all(cases.map(([args]) => makerd(['emulator', ...args])));
    results.forEach((r, i) => refused(r, cases[i][1]));
    // the largest a timer holds is still taken (and the emulator starts): checked with --urls-out missing its folder
    const ok = await makerd(['emulator', '--fault-tick-size', '0.01@2000000', '--fault-latency-ms', '2000000000', '--urls-out', '/nonexistent/u.json']);
    refused(ok, /^makerd emulator: --urls-out/);
  });

  it('fractional counts, seeds and ports are refused, not truncated', async () => {
    const out = join(dir, 'w.jsonl');
    const cases: Array<[string[], RegExp]> = [
      [['--port', '80.5'], /^makerd emulator: --port must be a non-negative integer, got '80\.5'/],
      [['--port', '65536'], /^makerd emulator: --port must be at most 65535, got '65536'/],
      [['--synthetic', '1.5'], /^makerd emulator: --synthetic must be a non-negative integer, got '1\.5'/],
      [['--markets', '2.7'], /^makerd emulator: --markets must be an integer >= 1, got '2\.7'/],
      [['--fault-corrupt-group-hash', '1.5'], /^makerd emulator: --fault-corrupt-group-hash must be a non-negative integer, got '1\.5'/],
      [['--write', out, '--duration', '1', '--markets', '2.7'], /^makerd emulator: --markets must be an integer >= 1, got '2\.7'/],
      [['--write', out, '--duration', '1', '--synthetic', '9007199254740993'], /^makerd emulator: --synthetic must be a non-negative integer/],
    ];
    const results = await Promise.all(cases.map(([args]) => makerd(['emulator', ...args])));
    results.forEach((r, i) => refused(r, cases[i][1]));
    expect(existsSync(out)).toBe(false);
  });
});

describe('makerd demo: bad input is refused with nothing left running', () => {
  it('TMPDIR that does not exist (no MAKERD_DB): one line naming TMPDIR, exit 2, at once', async () => {
    const r = await makerd(['demo', '--duration', '30'], { TMPDIR: '/nonexistent' });
    refused(r, /^makerd: invalid config: TMPDIR: cannot create the demo's temporary folder in \/nonexistent/);
    expect(r.errLines).toHaveLength(1);
  });

  it('a fractional or unsafe --seed: exit 2 naming it, no demo folder made', async () => {
    const tmp = mkdtempSync(join(dir, 'demo-seed-'));
    for (const seed of ['1.5', '1e21']) {
      const r = await makerd(['demo', '--duration', '3', '--seed', seed], { TMPDIR: tmp });
      refused(r, new RegExp(`^makerd demo: --seed must be a positive integer, got '${seed.replace('.', '\\.')}'`));
    }
    expect(readdirSync(tmp)).toEqual([]);
  });
});

describe('makerd run: --markets that names no market', () => {
  it('"," or "" is a usage error (exit 2), not the config\'s markets', async () => {
    for (const markets of [',', '', ' , ']) {
      const r = await makerd(['run', '--mode', 'paper', '--markets', markets], { MAKERD_DB: join(dir, 'run.sqlite'), MAKERD_GAMMA_URL: 'http://127.0.0.1:9', MAKERD_CLOB_URL: 'http://127.0.0.1:9' });
      refused(r, /^makerd run: --markets names no token id/);
    }
  });
});
