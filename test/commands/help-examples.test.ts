// Issue 13, item 4: every example printed in a `--help` text runs as printed and succeeds.
// The commands come from `makerd --help`, each command's text from `makerd <command> --help` (the
// compiled CLI, as a user runs it). Examples are:
//   - the lines of an "examples:" section, and any other line outside the usage synopsis that
//     starts with "makerd " (or "$ makerd "), run as they are;
//   - an option's "e.g. VALUE" (quoted or a single word), run as `makerd <command> <minimal
//     arguments> --option VALUE`; the minimal arguments of each command are listed below, and a
//     command missing from the list fails the test rather than skipping the example.
// Each runs in a scratch folder holding links to the repository's data/, config/, dist/,
// strategies/ and test/ (so relative paths resolve as in the repository and outputs such as
// --out out/grid land in the scratch folder), with MAKERD_*_URL pointing at an in-test emulator,
// a scratch database and a free status port. Bounds: a command that ends by itself must exit 0
// within 60 s; a service (run, demo, emulator, record) must still be up or have exited 0 after
// 3 s, and exit 0 within 20 s of SIGINT.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { urlsEnv } from '../../src/emulator/server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'dist', 'cli.js');
const SERVICES = new Set(['run', 'demo', 'emulator', 'record']);
const SAMPLE = 'data/sample-synthetic.jsonl.gz';
/** The least each command needs beside an option given by an "e.g." (paths relative to the scratch folder). */
const MINIMAL: Record<string, (env: Env) => string[]> = {
  backtest: () => ['--data', SAMPLE, '--out', 'out/eg'],
  verify: () => [SAMPLE],
  markets: () => [],
  doctor: (e) => ['--markets', e.token],
  run: (e) => ['--mode', 'paper', '--markets', e.token],
  record: (e) => ['--markets', e.token, '--out', 'out/eg.jsonl', '--duration', '2'],
  emulator: () => [],
  demo: () => ['--duration', '2'],
  strategies: () => [],
};

interface Env {
  token: string;
  vars: NodeJS.ProcessEnv;
}

interface Example {
  command: string;
  argv: string[];
  source: string;
}

/** Shell words of one line: whitespace-separated, '...' and "..." quoted, a trailing # comment dropped. */
function words(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let has = false;
  let q: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (q) {
      if (c === q) q = null;
      else cur += c;
    } else if (c === "'" || c === '"') {
      q = c;
      has = true;
    } else if (c === '#' && !has && cur === '') {
      break;
    } else if (/\s/.test(c)) {
      if (has || cur) out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += c;
      has = true;
    }
  }
  if (q) throw new Error(`unbalanced quote in: ${line}`);
  if (has || cur) out.push(cur);
  return out;
}

function cliText(args: string[]): string {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0) throw new Error(`makerd ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

/** The examples of one command's help text. */
function examplesOf(command: string, help: string, env: Env): Example[] {
  const out: Example[] = [];
  const lines = help.split('\n');
  let inUsage = false;
  let inExamples = false;
  for (const raw of lines) {
    const t = raw.trim();
    if (/^usage:/.test(t)) inUsage = true;
    if (t === '') inUsage = false;
    if (/^examples?:$/i.test(t)) {
      inExamples = true;
      continue;
    }
    if (inExamples && (t === '' || !/^\s/.test(raw))) inExamples = false;
    const cmdLine = t.replace(/^\$\s+/, '');
    if (!inUsage && /^makerd\s/.test(cmdLine)) {
      const [, name, ...argv] = words(cmdLine);
      out.push({ command: name, argv, source: t });
    } else if (inExamples) {
      throw new Error(`makerd ${command} --help: an example line that is not a makerd command: ${t}`);
    }
    // an option's example value: "  --grid SPEC   sweep params, e.g. 'a=1,2;b=3' (...)"
    const eg = /^\s*(--[\w-]+)\b.*?\be\.g\.\s+('[^']*'|"[^"]*"|[^\s,;)]+)/.exec(raw);
    if (eg && !inUsage) {
      const minimal = MINIMAL[command];
      if (!minimal) throw new Error(`makerd ${command} --help shows an example for ${eg[1]} but this test knows no minimal invocation of ${command}: add it to MINIMAL`);
      out.push({ command, argv: [...minimal(env), eg[1], words(eg[2])[0]], source: t });
    }
  }
  return out;
}

function runExample(ex: Example, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; signal: string | null; out: string; err: string; ms: number }> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(process.execPath, [CLI, ex.command, ...ex.argv], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    const service = SERVICES.has(ex.command);
    const timers: NodeJS.Timeout[] = [];
    if (service) {
      timers.push(setTimeout(() => child.kill('SIGINT'), 3_000));
      timers.push(setTimeout(() => child.kill('SIGKILL'), 23_000));
    } else {
      timers.push(setTimeout(() => child.kill('SIGKILL'), 60_000));
    }
    child.on('exit', (code, signal) => {
      for (const t of timers) clearTimeout(t);
      resolve({ code, signal, out, err, ms: Date.now() - t0 });
    });
  });
}

let emu: RunningEmulator;
let env: Env;
let scratch = '';
const examples: Example[] = [];
let commands: string[] = [];

beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error('run "npm run build" first (npm test does)');
  emu = await startEmulator({ seed: 7 });
  scratch = mkdtempSync(join(tmpdir(), 'makerd-help-examples-'));
  for (const d of ['data', 'config', 'dist', 'strategies', 'test', 'node_modules']) symlinkSync(join(ROOT, d), join(scratch, d), 'dir');
  env = {
    token: emu.markets[0].facts.tokens[0],
    vars: {
      PATH: process.env.PATH,
      HOME: scratch,
      ...urlsEnv(emu.urls),
      MAKERD_API_KEY: 'help-examples-key',
      MAKERD_DB: join(scratch, 'makerd.sqlite'),
      MAKERD_STATUS_PORT: '0',
    },
  };
  commands = [...cliText(['--help']).matchAll(/^ {2}(\S+) /gm)].map((m) => m[1]);
  for (const c of commands) examples.push(...examplesOf(c, cliText([c, '--help']), env));
}, 60_000);

afterAll(async () => {
  await emu?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('the examples in every --help text', () => {
  it('finds every command and the examples of backtest and strategies', () => {
    expect(commands).toEqual(expect.arrayContaining(['run', 'demo', 'backtest', 'record', 'verify', 'emulator', 'markets', 'keys', 'doctor', 'strategies']));
    const grid = examples.filter((e) => e.command === 'backtest' && e.argv.includes('--grid'));
    expect(grid.length).toBeGreaterThanOrEqual(3);
    // the option's own e.g. is one of them
    expect(grid.some((e) => e.source.startsWith('--grid SPEC'))).toBe(true);
    expect(examples.filter((e) => e.command === 'strategies').length).toBeGreaterThanOrEqual(2);
    for (const e of examples) expect(commands, e.source).toContain(e.command);
  });

  it('runs each example as printed; each succeeds within its bound', async () => {
    const failures: string[] = [];
    for (const ex of examples) {
      const r = await runExample(ex, scratch, env.vars);
      const ok = r.code === 0;
      if (!ok)
        failures.push(`${ex.source}\n  -> makerd ${ex.command} ${ex.argv.join(' ')}: exit ${r.code ?? r.signal} after ${r.ms} ms\n  ${(r.err || r.out).trim().split('\n').slice(0, 5).join('\n  ')}`);
    }
    expect(failures, failures.join('\n')).toEqual([]);
  }, 300_000);
});
