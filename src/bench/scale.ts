// {"bench":"scale"}: a thousand markets in one process (issue 14 item 4). For each market count N
// (1, 100, 1000; MAKERD_BENCH_SCALE_MARKETS="1,100,1000" overrides) the exchange emulator runs in a
// child process (`makerd emulator`, the real captures' per-market message rate, real time, real
// rate limits; niced, as the venue is not on our machine), so its CPU is not counted, and the real
// daemon in another (`makerd run`, live mode, the default `bands` strategy: a bid and an ask per
// market; the global risk caps scaled to N: 8 open orders and $50 of notional per market). Its
// markets come from the metadata query: the N of N + N/10 emulator markets with the most volume,
// re-read every MAKERD_BENCH_SCALE_REFRESH_S seconds (default 10; the refreshMarkets cron), so
// markets are added and removed while it runs (0: the default cron, by liquidity, a fixed set).
// Warm-up: until every market rests a bid and an ask (GET /status?brief=1, at most
// MAKERD_BENCH_SCALE_WARMUP_S, default 30 + N/10 s), then 3 s more. Then a window of
// MAKERD_BENCH_SCALE_SECONDS (default 30; 720 shows the 10-minute windows full) in which the daemon
// is asked only for a brief status every 10 s (~4 ms at 1,000 markets): its RSS (VmRSS every
// second: end and peak), markets resting a bid and an ask (quotingMin, quotingSeries), its CPU
// (utime + stime over the window, in cores), its event-loop lag (p50/p99/max ms over the window:
// /status process.loop, reset at the window's start; beside it machineLag*, this idle process's
// own lag over the window: the machine's share), rate-limit violations (HTTP 429 answers it
// received: its "rate limited (429)" log lines; the window's, the whole run's, their scopes),
// orders and requests sent, how full the 10-minute windows are at the end, market connections,
// feed reconnects, markets added and removed, market frames received per second. Goals (pass_N):
// RSS < 600 MB, CPU < 0.5 core, lag p99 < 5 ms, no 429. MAKERD_BENCH_SCALE_NODE_ARGS (e.g.
// "--cpu-prof --cpu-prof-dir=/tmp/prof") and MAKERD_BENCH_SCALE_LOG (a file for the daemon's log)
// help profiling. After the window, one GET /metrics: its time (metricsMs), the longest the
// daemon's loop was held meanwhile (metricsLoopMaxMs: one turn of the scrape) and its size (metricsKb);
// then one full GET /status the same way (statusMs, statusKb, statusLoopMaxMs: built in one turn).
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { setPriority, tmpdir } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { urlsEnv, type EmulatorUrls } from '../emulator/server.js';

const CLI = fileURLToPath(new URL('../../cli.js', import.meta.url));
const KEY = 'scale-bench-key';
const GOAL = { rssMb: 600, cpuCores: 0.5, lagP99Ms: 5, rateLimitViolations: 0 };
const QUOTING_EVERY_S = 10;

function envNumber(name: string, dflt: number): number {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : dflt;
}

function marketCounts(): number[] {
  const ns = (process.env.MAKERD_BENCH_SCALE_MARKETS ?? '1,100,1000')
    .split(',')
    .map((x) => Number(x.trim()))
    .filter((n) => Number.isInteger(n) && n > 0);
  return ns.length ? ns : [1, 100, 1000];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, fn: () => T | undefined | Promise<T | undefined>, timeoutMs: number, everyMs = 200): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

let clkTck = 0;
/** utime + stime of a process, in seconds (/proc/PID/stat). */
function cpuSeconds(pid: number): number {
  if (!clkTck) {
    try {
      clkTck = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clkTck = 100;
    }
  }
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // after the comm: state is field 3, utime 14 and stime 15 (1-based) => indexes 11 and 12 here
  return (Number(f[11]) + Number(f[12])) / clkTck;
}

/** A /proc/PID/status field in MB (VmRSS, VmHWM). */
function memMb(pid: number, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

interface Child {
  proc: ChildProcess;
  exited: Promise<number | null>;
  /** The last lines of its output (for an error message). */
  tail: string[];
}

function spawnChild(args: string[], env: NodeJS.ProcessEnv, onLine?: (line: string) => void, ipc = false, nodeArgs: string[] = []): Child {
  const proc = spawn(process.execPath, [...nodeArgs, CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe', ...(ipc ? (['ipc'] as const) : [])] });
  const tail: string[] = [];
  let rest = '';
  const onData = (b: Buffer) => {
    const lines = (rest + b.toString('utf8')).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      if (!line) continue;
      onLine?.(line);
      tail.push(line);
      if (tail.length > 30) tail.shift();
    }
  };
  proc.stdout?.on('data', onData);
  proc.stderr?.on('data', onData);
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  return { proc, exited, tail };
}

/** SIGTERM, then SIGKILL after boundMs; resolves once the process is gone. */
async function stopChild(c: Child | undefined, boundMs: number): Promise<void> {
  if (!c || c.proc.exitCode !== null || c.proc.signalCode !== null) return;
  c.proc.kill('SIGTERM');
  let t: NodeJS.Timeout | undefined;
  const killed = await Promise.race([c.exited.then(() => false), new Promise<boolean>((r) => (t = setTimeout(() => r(true), boundMs)))]);
  clearTimeout(t);
  if (killed) {
    c.proc.kill('SIGKILL');
    await Promise.race([c.exited, sleep(5000)]);
  }
}

interface Brief {
  feeds: { marketConnections: string[]; reconnects: { market: number; user: number }; frames: { market: number; user: number } };
  process: { rssMb: number; loop: { p50Ms: number; p99Ms: number; maxMs: number; samples: number; sinceMs: number } | null };
  counts: { markets: number; marketsQuoting: number; marketsQuotingBothSides: number; openOrders: number };
  orders: { ordersSent: number; cancelsSent: number; placeBatches: number; placeSingles: number; cancelBatches: number; cancelSingles: number; coalescedPlaces: number; coalescedCancels: number };
  rateLimits: Array<{ scope: string; used: number; limit: number }>;
  haltReason: string | null;
}

const reqs = (b: Brief) => b.orders.placeBatches + b.orders.placeSingles + b.orders.cancelBatches + b.orders.cancelSingles;

async function brief(url: string, reset = false): Promise<Brief> {
  const r = await fetch(`${url}/status?brief=1${reset ? '&loop=reset' : ''}`, { signal: AbortSignal.timeout(10_000) });
  if (!r.ok) throw new Error(`GET /status: HTTP ${r.status}`);
  return (await r.json()) as Brief;
}

export async function run(): Promise<Record<string, unknown>> {
  const windowS = envNumber('MAKERD_BENCH_SCALE_SECONDS', 30);
  const out: Record<string, unknown> = { bench: 'scale', goal: GOAL, windowS };
  for (const n of marketCounts()) {
    const r = await runMarkets(n, windowS);
    for (const [k, v] of Object.entries(r)) out[`${k}_${n}`] = v;
  }
  return out;
}

async function runMarkets(n: number, windowS: number): Promise<Record<string, unknown>> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build`);
  const dir = mkdtempSync(join(tmpdir(), 'makerd-scale-'));
  let emu: Child | undefined;
  let daemon: Child | undefined;
  try {
    const urlsFile = join(dir, 'urls.json');
    const t0 = performance.now();
    const refreshS = Math.max(0, Math.floor(Number(process.env.MAKERD_BENCH_SCALE_REFRESH_S ?? 10) || 0));
    const extra = refreshS > 0 ? Math.ceil(n / 10) : 0;
    emu = spawnChild(['emulator', '--markets', String(n + extra), '--synthetic', '1', '--keys', KEY, '--urls-out', urlsFile], { PATH: process.env.PATH });
    const e = emu;
    if (e.proc.pid !== undefined) setPriority(e.proc.pid, 19);
    const urls = await until(
      'the emulator to write its urls',
      () => {
        if (e.proc.exitCode !== null) throw new Error(`emulator exited (${e.proc.exitCode}):\n${e.tail.join('\n')}`);
        if (!existsSync(urlsFile)) return undefined;
        try {
          return JSON.parse(readFileSync(urlsFile, 'utf8')) as EmulatorUrls;
        } catch {
          return undefined; // written, not yet whole
        }
      },
      60_000,
      100,
    );
    const emuStartS = (performance.now() - t0) / 1000;
    const cfg = join(dir, 'config.json');
    writeFileSync(
      cfg,
      JSON.stringify({
        mode: 'live',
        // the top N by volume, re-read every refreshS (trades move it); else by liquidity (by index: fixed)
        marketQuery: { enabled: true, active: true, order: refreshS > 0 ? 'volume' : 'liquidity', limit: n },
        ...(refreshS > 0 ? { cron: { refreshMarkets: `*/${refreshS} * * * * *` } } : {}),
        risk: { maxOpenOrders: Math.max(40, 8 * n), maxTotalNotional: Math.max(5000, 50 * n), dailyLossLimit: Math.max(200, 50 * n) },
      }),
    );
    const port = await freePort();
    const statusUrl = `http://127.0.0.1:${port}`;
    let limited = 0;
    let limitedInWindow = 0;
    let logLines = 0;
    let inWindow = false;
    // which scopes answered 429, and what the daemon logs most while measured
    const scopes429: Record<string, number> = {};
    const msgs = new Map<string, number>();
    const churn = { window: { added: 0, removed: 0, changes: 0 }, run: { added: 0, removed: 0, changes: 0 } };
    const logFile = process.env.MAKERD_BENCH_SCALE_LOG; // the daemon's log lines go there too
    const onLine = (line: string) => {
      logLines++;
      if (logFile) appendFileSync(logFile, line + '\n');
      if (inWindow) {
        const m = /"msg":"([^"]{0,60})/.exec(line)?.[1] ?? line.slice(0, 60);
        msgs.set(m, (msgs.get(m) ?? 0) + 1);
      }
      if (line.includes('"market set changed"')) {
        try {
          const c = JSON.parse(line) as { added?: string[]; removed?: string[] };
          const k = inWindow ? 'window' : 'run';
          churn[k].added += c.added?.length ?? 0;
          churn[k].removed += c.removed?.length ?? 0;
          churn[k].changes++;
        } catch {
          // not a JSON line
        }
      }
      if (line.includes('rate limited (429)')) {
        limited++;
        if (inWindow) limitedInWindow++;
        const sc = /"scope":"([^"]+)"/.exec(line)?.[1] ?? '?';
        scopes429[sc] = (scopes429[sc] ?? 0) + 1;
      }
    };
    const t1 = performance.now();
    daemon = spawnChild(
      ['run', '--config', cfg],
      {
        PATH: process.env.PATH,
        ...urlsEnv(urls),
        MAKERD_API_KEY: KEY,
        MAKERD_DB: join(dir, 'makerd.sqlite'),
        MAKERD_STATUS_PORT: String(port),
      },
      onLine,
      true,
      // e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the daemon
      (process.env.MAKERD_BENCH_SCALE_NODE_ARGS ?? '').split(' ').filter(Boolean),
    );
    const d = daemon;
    const pid = d.proc.pid as number;
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`daemon not ready within 120 s:\n${d.tail.join('\n')}`)), 120_000);
      d.proc.on('message', (m) => m === 'ready' && (clearTimeout(t), resolve()));
      void d.exited.then((code) => (clearTimeout(t), reject(new Error(`daemon exited (${code}) before ready:\n${d.tail.join('\n')}`))));
    });
    const startupS = (performance.now() - t1) / 1000;
    // warm-up: every market rests a bid and an ask (bounded), then a few seconds for the start-up burst
    const warmBoundMs = envNumber('MAKERD_BENCH_SCALE_WARMUP_S', 30 + n / 10) * 1000;
    const warmEnd = Date.now() + warmBoundMs;
    let st = await brief(statusUrl);
    while (st.counts.marketsQuotingBothSides < n && Date.now() < warmEnd) {
      if (d.proc.exitCode !== null) throw new Error(`daemon exited (${d.proc.exitCode}):\n${d.tail.join('\n')}`);
      await sleep(1000);
      st = await brief(statusUrl);
    }
    const warmupS = (performance.now() - t1) / 1000 - startupS;
    const allQuotedInWarmup = st.counts.marketsQuotingBothSides >= n;
    await sleep(3000);
    // the window: nothing asked of the daemon but the reads at its two ends
    const epid = emu.proc.pid as number;
    const before = await brief(statusUrl, true);
    const cpu0 = cpuSeconds(pid);
    const ecpu0 = cpuSeconds(epid);
    const w0 = performance.now();
    const lines0 = logLines;
    inWindow = true;
    // the machine's own noise: the lag of this process, idle but for the sampling, over the window
    const idleLag = monitorEventLoopDelay({ resolution: 10 });
    idleLag.enable();
    let rssPeak = 0;
    const rss: number[] = [];
    // markets resting a bid and an ask, every QUOTING_EVERY_S (a brief read: ~4 ms at 1,000 markets)
    const quotingSeries: number[] = [];
    let nextQuoting = w0 + QUOTING_EVERY_S * 1000;
    while (performance.now() - w0 < windowS * 1000) {
      await sleep(Math.min(1000, windowS * 1000 - (performance.now() - w0)));
      if (d.proc.exitCode !== null) throw new Error(`daemon exited (${d.proc.exitCode}) while measured:\n${d.tail.join('\n')}`);
      const r = memMb(pid, 'VmRSS');
      rss.push(r);
      rssPeak = Math.max(rssPeak, r);
      if (performance.now() >= nextQuoting && performance.now() - w0 < windowS * 1000 - 500) {
        nextQuoting += QUOTING_EVERY_S * 1000;
        quotingSeries.push((await brief(statusUrl)).counts.marketsQuotingBothSides);
      }
    }
    const cpu1 = cpuSeconds(pid);
    const ecpu1 = cpuSeconds(epid);
    const wallS = (performance.now() - w0) / 1000;
    inWindow = false;
    idleLag.disable();
    const idleMs = (ns: number) => Math.max(0, Math.round((ns / 1e6 - 10) * 100) / 100);
    // read and reset: the loop's figures after this cover the scrape alone
    const after = await brief(statusUrl, true);
    const loop = after.process.loop;
    // one Prometheus scrape after the window: how long the daemon takes to answer /metrics, and its size
    const m0 = performance.now();
    const metricsText = await (await fetch(`${statusUrl}/metrics`, { signal: AbortSignal.timeout(30_000) })).text();
    const metricsMs = performance.now() - m0;
    // the longest the daemon's loop was held while it answered (one turn of the scrape: status/families.ts)
    const metricsLoopMaxMs = (await brief(statusUrl, true)).process.loop?.maxMs ?? null;
    // one full GET /status (every token, order and position: what an operator's poller reads), likewise
    const s0 = performance.now();
    const statusText = await (await fetch(`${statusUrl}/status`, { signal: AbortSignal.timeout(30_000) })).text();
    const statusMs = performance.now() - s0;
    const statusLoopMaxMs = (await brief(statusUrl)).process.loop?.maxMs ?? null;
    const r2 = (x: number) => Math.round(x * 100) / 100;
    const res = {
      markets: n,
      resolved: after.counts.markets,
      quoting: after.counts.marketsQuotingBothSides,
      // the fewest seen while measured: rate windows full leave markets without quotes
      quotingMin: Math.min(after.counts.marketsQuotingBothSides, ...quotingSeries),
      quotingSeries,
      notBlocked: after.counts.marketsQuoting,
      openOrders: after.counts.openOrders,
      rssMb: rss[rss.length - 1],
      rssPeakMb: rssPeak,
      rssHwmMb: memMb(pid, 'VmHWM'),
      cpuCores: r2((cpu1 - cpu0) / wallS),
      lagP50Ms: loop ? r2(loop.p50Ms) : null,
      lagP99Ms: loop ? r2(loop.p99Ms) : null,
      lagMaxMs: loop ? r2(loop.maxMs) : null,
      lagSamples: loop?.samples ?? null,
      machineLagP99Ms: idleMs(idleLag.percentile(99)),
      machineLagMaxMs: idleMs(idleLag.max),
      violations429: limitedInWindow,
      violations429Run: limited,
      scopes429,
      ordersSent: after.orders.ordersSent - before.orders.ordersSent,
      cancelsSent: after.orders.cancelsSent - before.orders.cancelsSent,
      ordersPerS: r2((after.orders.ordersSent - before.orders.ordersSent) / wallS),
      coalesced: after.orders.coalescedPlaces + after.orders.coalescedCancels - before.orders.coalescedPlaces - before.orders.coalescedCancels,
      // the market set's changes while measured (refreshMarkets), and what it cost in connections
      marketsAdded: churn.window.added,
      marketsRemoved: churn.window.removed,
      setChanges: churn.window.changes,
      marketsAddedRun: churn.window.added + churn.run.added,
      marketsRemovedRun: churn.window.removed + churn.run.removed,
      connectionsBefore: before.feeds.marketConnections.length,
      connections: after.feeds.marketConnections.length,
      connectionsLive: after.feeds.marketConnections.filter((s) => s === 'live').length,
      reconnects: after.feeds.reconnects.market + after.feeds.reconnects.user - before.feeds.reconnects.market - before.feeds.reconnects.user,
      // trading requests per second, and how full the 10-minute windows are at the end (%)
      requestsPerS: r2((reqs(after) - reqs(before)) / wallS),
      sustainedUsePct: Object.fromEntries(
        after.rateLimits.filter((u) => u.scope.endsWith(':sustained') && u.used > 0).map((u) => [u.scope.replace(/^clob:|:sustained$/g, ''), Math.round((100 * u.used) / u.limit)]),
      ),
      framesPerS: r2((after.feeds.frames.market - before.feeds.frames.market) / wallS),
      logLinesPerS: r2((logLines - lines0) / wallS),
      topLogLines: Object.fromEntries([...msgs].sort((a, b) => b[1] - a[1]).slice(0, 5)),
      halted: after.haltReason,
      emuStartS: r2(emuStartS),
      startupS: r2(startupS),
      warmupS: r2(warmupS),
      allQuotedInWarmup,
      emuCpuCores: r2((ecpu1 - ecpu0) / wallS),
      metricsMs: r2(metricsMs),
      statusMs: r2(statusMs),
      statusKb: Math.round(statusText.length / 1024),
      statusLoopMaxMs,
      metricsLoopMaxMs: metricsLoopMaxMs === null ? null : r2(metricsLoopMaxMs),
      metricsKb: Math.round(Buffer.byteLength(metricsText) / 1024),
    };
    const pass = res.rssPeakMb < GOAL.rssMb && res.cpuCores < GOAL.cpuCores && res.lagP99Ms !== null && res.lagP99Ms < GOAL.lagP99Ms && res.violations429 === 0;
    return { ...res, pass };
  } finally {
    // the daemon first: its stop cancels every order at the emulator
    await stopChild(daemon, 30_000);
    await stopChild(emu, 10_000);
    rmSync(dir, { recursive: true, force: true });
  }
}
