// makerd demo (what `npm start` runs): the exchange emulator with a synthetic market and the
// daemon in live mode against it over loopback, in one process, with a status line every few
// seconds. Needs no config and no API key (the emulator accepts the demo key). Ctrl-C stops both.
import { parseArgs } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, MAX_SEED } from '../config.js';
import { ConfigError, MakerdError } from '../core/errors.js';
import { createLogger, envLogLevel } from '../core/log.js';
import { formatPrice, formatSize } from '../core/units.js';
import { Daemon } from '../session/daemon.js';
import { specProfile } from '../api/clob-profile.js';
import { microsToDollars } from '../core/units.js';
import { startEmulator } from '../emulator/server.js';
import { type CommandIO, type CommandModule, numberFlag, TIMER_S } from './command.js';
import { urlsEnv } from '../emulator/server.js';

const DEMO_ACTIVITY = 10;

const DEMO_KEY = 'makerd-demo-key';

const help = `usage: makerd demo [--duration S] [--seed N] [--interval S]

Starts the exchange emulator (one synthetic binary market) and the daemon in live mode against
it over loopback, and prints a status line every few seconds: mid (the market's, without our
own orders), our bid and ask, position, fills, PnL, orders per second and rate-limit use.
Ctrl-C (or --duration S) stops both cleanly: every order is cancelled at the emulator before exit. The store is a temporary SQLite file
unless MAKERD_DB is set; the status server listens on a free loopback port unless
MAKERD_STATUS_PORT is set.

  --duration S   stop by itself after S seconds (default: run until Ctrl-C)
  --seed N       seed of the synthetic market (default 1)
  --interval S   seconds between status lines (default 3)`;

/** The demo's temporary folder (its SQLite file), under TMPDIR; one it cannot make is a config error naming TMPDIR. */
function demoFolder(): string {
  const parent = tmpdir();
  try {
    return mkdtempSync(join(parent, 'makerd-demo-'));
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code ?? (e instanceof Error ? e.message : String(e));
    throw new ConfigError('TMPDIR', `cannot create the demo's temporary folder in ${parent} (${why}): set TMPDIR to a writable folder, or MAKERD_DB to the SQLite file to use`);
  }
}

function statusLine(d: Daemon, lastSent: { orders: number; t: number }): string {
  const e = d.engine;
  const m = d.markets[0];
  // The engine's mark: the market's mid without our own resting orders (the emulator's books
  // show them), else the complement's 1 - mid; the raw book's mid would partly be our own quotes.
  const mid = e.mark(m.tokenId);
  let bid = -1;
  let ask = -1;
  for (const o of e.orders.open()) {
    // our best bid and ask in the YES token's terms (a BUY of NO at q is an ask at 1 - q)
    if (o.tokenId === m.tokenId && o.side === 'BUY') bid = Math.max(bid, o.price);
    if (o.tokenId === m.complementId && o.side === 'SELL') bid = Math.max(bid, 10_000 - o.price);
    const a = o.tokenId === m.tokenId && o.side === 'SELL' ? o.price : o.tokenId === m.complementId && o.side === 'BUY' ? 10_000 - o.price : -1;
    if (a >= 0 && (ask < 0 || a < ask)) ask = a;
  }
  const r = e.results();
  const now = Date.now();
  const sent = r.scheduler.ordersSent + r.scheduler.cancelsSent;
  const rate = ((sent - lastSent.orders) * 1000) / Math.max(1, now - lastSent.t);
  lastSent.orders = sent;
  lastSent.t = now;
  const use = d.clients.limiter.usage().find((u) => u.scope === 'clob:POST /orders:burst');
  const p = (x: number) => (x >= 0 ? formatPrice(x, 2) : '-');
  return [
    `mid ${mid === mid ? (mid / 10_000).toFixed(3) : '-'}`,
    `bid ${p(bid)} ask ${p(ask)}`,
    `pos YES ${formatSize(e.positions.qty(m.tokenId))} NO ${formatSize(e.positions.qty(m.complementId))}`,
    `fills ${r.fills}`,
    `pnl ${microsToDollars(r.pnlMicros).toFixed(2)}`,
    `orders/s ${rate.toFixed(1)}`,
    `POST /orders ${use ? `${use.used}/${use.limit}` : '0'} per 10s`,
    r.halted ? `HALTED: ${r.halted}` : e.isQuoting ? 'quoting' : 'not quoting',
  ].join(' | ');
}

export const command: CommandModule = {
  summary: 'emulator + daemon over loopback with a live status line (npm start)',
  help,
  async main(argv: string[], io: CommandIO) {
    const { values } = parseArgs({
      args: argv,
      options: { duration: { type: 'string' }, seed: { type: 'string' }, interval: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    });
    const duration = numberFlag(values.duration, '--duration', { positive: true, max: TIMER_S });
    // positive, as ever; at most MAX_SEED: the generator keeps 32 bits (a larger seed replays a smaller one's market)
    const seed = numberFlag(values.seed, '--seed', { positive: true, integer: true, max: MAX_SEED }) ?? 1;
    const interval = numberFlag(values.interval, '--interval', { positive: true, max: TIMER_S }) ?? 3;
    // the configuration checked before anything starts: a bad one exits 2 with nothing left running
    const level = envLogLevel(io.env, 'warn');
    const overrides = (market: string) => ({ mode: 'live' as const, markets: [market] });
    // empty is unset, as loadConfig reads them: '' kept here would pass loadConfig by and leave the
    // daemon's defaults, its real store (data/makerd.sqlite, then owned by the demo's key) and port 9464
    const statusPort = io.env.MAKERD_STATUS_PORT || '0';
    const db = io.env.MAKERD_DB || undefined;
    loadConfig({ env: { ...io.env, MAKERD_STATUS_PORT: statusPort }, overrides: overrides('1') });
    // the store's folder made before the emulator starts: a TMPDIR that is not there is a config error with nothing to stop
    const tmp = db ? undefined : demoFolder();
    const removeTmp = (): void => {
      if (tmp) rmSync(tmp, { recursive: true, force: true });
    };
    // a livelier market than the real feed's calm (a trade every ~2.5 s), so the demo shows fills
    const emu = await startEmulator({ seed, keys: [DEMO_KEY], params: { activity: DEMO_ACTIVITY } }).catch((e: unknown) => {
      removeTmp();
      throw e;
    });
    const m = emu.markets[0].facts;
    let daemon: Daemon;
    let log: ReturnType<typeof createLogger>;
    try {
      const env: NodeJS.ProcessEnv = {
        ...io.env,
        ...urlsEnv(emu.urls),
        MAKERD_DB: db ?? join(tmp as string, 'demo.sqlite'),
        MAKERD_STATUS_PORT: statusPort,
      };
      const config = loadConfig({ env, overrides: overrides(m.tokens[0]) });
      log = createLogger({ level, name: 'makerd-demo' });
      daemon = new Daemon({ config, venue: specProfile(DEMO_KEY), log });
    } catch (e) {
      // nothing left running: the emulator stopped, the folder removed
      await emu.close();
      removeTmp();
      throw e;
    }
    let stopping: Promise<void> | undefined;
    let timer: NodeJS.Timeout | undefined;
    const stop = (why: string): Promise<void> =>
      (stopping ??= (async () => {
        if (timer) clearInterval(timer);
        io.out(`demo: stopping (${why}): cancelling all orders`);
        await daemon.stop(why);
        const left = emu.exchange.openOrders(DEMO_KEY).length;
        await emu.close();
        removeTmp();
        io.out(`demo: stopped; orders left at the emulator: ${left}`);
      })());
    let starting: Promise<void> | undefined;
    const onSignal = () => {
      // during startup: stop once it has settled
      const s = starting ?? Promise.resolve();
      s.then(
        () => void stop('signal'),
        () => void stop('signal'),
      );
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    try {
      starting = daemon.start();
      await starting;
      io.out(`demo: emulator at ${emu.urls.clob.replace(/\/clob$/, '')}, market ${m.conditionId.slice(0, 10)}..., status ${daemon.status.url}/status`);
      const last = { orders: 0, t: Date.now() };
      timer = setInterval(() => io.out(statusLine(daemon, last)), interval * 1000);
      if (duration !== undefined) setTimeout(() => void stop('duration reached'), duration * 1000);
      await new Promise<void>((resolve) => {
        const check = () => (stopping ? stopping.then(resolve, resolve) : setTimeout(check, 100));
        check();
      });
    } catch (e) {
      await stop('startup failed');
      // typed errors are one line from the CLI; anything else too, its stack left in the log
      if (e instanceof MakerdError) throw e;
      log.error({ err: e }, 'start-up failed');
      throw new MakerdError(`start-up failed: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
    setTimeout(() => process.exit(process.exitCode ?? 0), 2000).unref();
    return 0;
  },
};
