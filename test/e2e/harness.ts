// End-to-end harness: an in-test emulator on loopback and `node dist/cli.js run` spawned against
// it (npm test builds dist first). Every wait is bounded.
import { accountEnv } from '../emulator/polymarket-helpers.js';
import { afterEach, beforeAll } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/server.js';
import { stressSyntheticParams } from '../../src/emulator/agents.js';
import { urlsEnv } from '../../src/emulator/server.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CLI = join(ROOT, 'dist', 'cli.js');
export const KEY = 'e2e-test-key';

export function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" (npm test does it first)`);
}

export async function until<T>(what: string, fn: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs: number, everyMs = 50): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Polls `url`/health until one of its reasons matches `re`; its HTTP status and reasons then. */
export async function untilHealthReason(url: string, re: RegExp, timeoutMs: number): Promise<{ status: number; reasons: string[] }> {
  return until(
    `a /health reason matching ${String(re)}`,
    async () => {
      const r = await fetch(`${url}/health`);
      const body = (await r.json()) as { reasons: string[] };
      return body.reasons.some((x) => re.test(x)) ? { status: r.status, reasons: body.reasons } : undefined;
    },
    timeoutMs,
    100,
  );
}

export interface Env {
  emu: RunningEmulator;
  dir: string;
  db: string;
  token: string;
  /** Whose orders and trades are the daemon's at the venue: KEY, or the polymarket account's API key. */
  owner: string;
  /** The venue profile and credentials the daemon runs with (environment variables). */
  venueEnv: Record<string, string>;
  close(): Promise<void>;
}

/** What the running test made (setup, spawnDaemon), for useTestScope to end after it. */
const created: { envs: Env[]; daemons: Daemon[] } = { envs: [], daemons: [] };

/** `account`: which seeded test account trades in the polymarket profile (0: an EOA, 1: a proxy wallet with its funder). */
export async function setup(opts: EmulatorOptions & { account?: number } = {}): Promise<Env> {
  // the stress rates: these runs need fills in seconds (the default is the real feed's calm)
  const emu = await startEmulator({ seed: 5, speed: 4, keys: [KEY], ...opts, params: { ...stressSyntheticParams, ...opts.params } });
  const dir = mkdtempSync(join(tmpdir(), 'makerd-e2e-'));
  const a = emu.profile === 'polymarket' ? emu.accounts[opts.account ?? 0] : undefined;
  const venueEnv: Record<string, string> = a ? accountEnv(a) : { MAKERD_API_KEY: KEY };
  let closed: Promise<void> | undefined;
  const env: Env = {
    emu,
    dir,
    db: join(dir, 'makerd.sqlite'),
    token: emu.markets[0].facts.tokens[0],
    owner: a ? a.apiKey : KEY,
    venueEnv,
    close: () =>
      (closed ??= (async () => {
        await emu.close();
        rmSync(dir, { recursive: true, force: true });
      })()),
  };
  created.envs.push(env);
  return env;
}

export interface Daemon {
  proc: ChildProcess;
  ready: Promise<void>;
  exited: Promise<number | null>;
  output: string[];
  statusUrl: () => string | undefined;
}

/** Spawns the daemon; `config` is merged over config/default.json through --config. */
export function spawnDaemon(env: Env, config: Record<string, unknown> = {}, mode: 'live' | 'paper' = 'live'): Daemon {
  const cfgPath = join(env.dir, `config-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(cfgPath, JSON.stringify({ log: { level: 'info' }, ...config }));
  const u = env.emu.urls;
  const proc = spawn(process.execPath, [CLI, 'run', '--mode', mode, '--config', cfgPath, '--markets', env.token], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      ...urlsEnv(u),
      ...env.venueEnv,
      MAKERD_DB: env.db,
      MAKERD_STATUS_PORT: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const output: string[] = [];
  let statusUrl: string | undefined;
  const onData = (b: Buffer) => {
    for (const line of b.toString('utf8').split('\n')) {
      if (!line) continue;
      output.push(line);
      const m = /"msg":"status server listening"/.test(line) ? /"url":"([^"]+)"/.exec(line) : null;
      if (m) statusUrl = m[1];
    }
  };
  proc.stdout?.on('data', onData);
  proc.stderr?.on('data', onData);
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const ready = new Promise<void>((resolve, reject) => {
    proc.on('message', (m) => m === 'ready' && resolve());
    void exited.then((code) => reject(new Error(`daemon exited (${code}) before ready:\n${output.slice(-20).join('\n')}`)));
  });
  const d: Daemon = { proc, ready, exited, output, statusUrl: () => statusUrl };
  created.daemons.push(d);
  return d;
}

/** What a run of the compiled CLI left: its exit code, output, stderr's non-empty lines and how long it took. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  errLines: string[];
  ms: number;
}

/**
 * `node dist/cli.js ...args` as its own process, with only PATH and `env` in its environment (and
 * `cwd`); killed, and the promise failed, past `boundMs`.
 */
export function runCli(args: string[], o: { env?: Record<string, string>; cwd?: string; boundMs?: number } = {}): Promise<CliRun> {
  const started = Date.now();
  const boundMs = o.boundMs ?? 15_000;
  const proc = spawn(process.execPath, [CLI, ...args], { cwd: o.cwd, env: { PATH: process.env.PATH ?? '', ...o.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (b: Buffer) => (stdout += b.toString('utf8')));
  proc.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`makerd ${args.join(' ')} still running after ${boundMs} ms:\n${stderr.slice(-2000)}\n${stdout.slice(-2000)}`));
    }, boundMs);
    proc.once('close', (code) => {
      clearTimeout(t);
      resolve({ code, stdout, stderr, errLines: stderr.split('\n').filter((l) => l.trim() !== ''), ms: Date.now() - started });
    });
  });
}

export async function bounded<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, rej) => (t = setTimeout(() => rej(new Error(`timed out after ${ms} ms: ${what}`)), ms)));
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(t);
  }
}

/** Our fills as the emulator knows them: one (trade id, order id) per order of ours in a trade. */
export function venueFills(emu: RunningEmulator, owner = KEY): string[] {
  const out: string[] = [];
  for (const t of emu.exchange.tradesOf(owner)) {
    if (t.traderSide === 'TAKER') out.push(`${t.id}|${t.takerOrderId}`);
    else for (const m of t.makerOrders) if (m.owner === owner) out.push(`${t.id}|${m.order_id}`);
  }
  return out.sort();
}

export function storedFills(db: string): string[] {
  const d = new Database(db, { readonly: true });
  try {
    return (d.prepare('SELECT trade_id, order_id FROM fills').all() as Array<{ trade_id: string; order_id: string }>).map((r) => `${r.trade_id}|${r.order_id}`).sort();
  } finally {
    d.close();
  }
}

export function kill(d: Daemon, sig: NodeJS.Signals): void {
  if (d.proc.exitCode === null && d.proc.signalCode === null) d.proc.kill(sig);
}

/**
 * What every e2e file does around its tests: the build must exist first; after each test every
 * daemon it spawned is killed (its last log lines printed when the test failed) and every
 * emulator it set up closed.
 */
export function useTestScope(): void {
  beforeAll(assertBuilt);
  afterEach(async (ctx) => {
    for (const d of created.daemons.splice(0)) {
      if (ctx.task.result?.state === 'fail') console.error(d.output.slice(-40).join('\n'));
      kill(d, 'SIGKILL');
    }
    for (const e of created.envs.splice(0)) await e.close();
  });
}
