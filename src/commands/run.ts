// makerd run: the daemon. Quotes the configured markets live (orders over REST) or paper (fills
// simulated on the live feed), serves /health /status /metrics on loopback, and on SIGINT or
// SIGTERM stops quoting, cancels every order, flushes the store and exits 0 (1, with the ids, when
// the venue did not confirm every cancel). Start-up and shutdown are bounded in time.
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { clobProfileFromEnv } from '../api/profile-from-env.js';
import { ConfigError, MakerdError } from '../core/errors.js';
import { createLogger } from '../core/log.js';
import { Daemon, StartAbortedError, type StopReport } from '../session/daemon.js';
import { tokenIdsFlag, UsageError, type CommandModule } from './command.js';

const help = `usage: makerd run [--config F] [--mode live|paper] [--markets T1,T2]

  --config F        JSON config merged over config/default.json
  --mode M          live (orders sent to the venue) or paper (simulated fills on the live feed)
  --markets T1,T2   token ids to quote (either token of a market selects the market)

Environment: MAKERD_VENUE, MAKERD_API_KEY (live), the polymarket profile's MAKERD_PRIVATE_KEY,
MAKERD_API_SECRET, MAKERD_API_PASSPHRASE, MAKERD_FUNDER, MAKERD_SIGNATURE_TYPE, MAKERD_*_URL,
MAKERD_DB, MAKERD_STATUS_PORT, MAKERD_STATUS_HOST, MAKERD_LIMIT_SCALE, MAKERD_WINDOW_SCALE (the
README's table). Signals (at any moment, start-up included): SIGINT/SIGTERM/SIGHUP cancel all
orders and exit 0 within daemon.shutdownTimeoutMs; exit 1 listing the orders the venue did not
confirm cancelled. A failure to start is one line on stderr: exit 2 for a configuration error (a
missing config file or credential, no markets given, the status port taken, the SQLite file), 1
otherwise (a venue unreachable; a market query that found no market now, which a restart may).
Under pm2 the process sends 'ready' once quoting starts (wait_ready).`;

export const command: CommandModule = {
  summary: 'run the market-making daemon (live or paper)',
  help,
  async main(argv, io) {
    const { values } = parseArgs({
      args: argv,
      options: { config: { type: 'string' }, mode: { type: 'string' }, markets: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    });
    if (values.mode !== undefined && values.mode !== 'live' && values.mode !== 'paper') throw new UsageError(`--mode must be live or paper, got ${values.mode}`);
    // the parser doctor uses too: trimmed, a list naming nothing or a non-numeric id refused (exit 2)
    const tokens = tokenIdsFlag(values.markets, '--markets');
    // pm2 runs `makerd run --config config/local.json`: a missing file is refused in one line (exit 2)
    if (values.config !== undefined && !existsSync(values.config)) {
      throw new ConfigError('--config', `${values.config} does not exist (copy config/default.json there and keep what you change; README "pm2")`);
    }
    const config = loadConfig({ file: values.config, env: io.env, overrides: values.mode ? { mode: values.mode } : undefined });
    const log = createLogger({ level: config.log.level, name: 'makerd' });
    // set below to stop and exit 1, for pm2 to start a clean run
    const restart = { wanted: (_why: string): void => undefined };
    const daemon = new Daemon({ config, venue: await clobProfileFromEnv(config, io.env), log, tokens, onRestartWanted: (why) => restart.wanted(why) });
    let stopping: Promise<StopReport> | undefined;
    let signalled = false;
    const stop = (why: string) => {
      if (!stopping) {
        // A stop must end in an exit code: were it to hang with nothing else holding the event loop,
        // Node would exit 0 in silence (pm2 would restart it for ever). Bounded and loud instead.
        const boundMs = config.daemon.shutdownTimeoutMs + 5000;
        const guard = setTimeout(() => {
          io.err(`makerd run: stopping (${why}) did not finish within ${boundMs} ms; exiting`);
          process.exit(1);
        }, boundMs);
        // a stop that throws still ends in an exit code (1) and tells the records the store never took
        stopping = daemon
          .stop(why)
          .catch((err: unknown): StopReport => {
            log.error({ err }, 'stopping failed');
            process.exitCode = 1;
            return { unconfirmed: [], unwritten: daemon.unwrittenRecords() };
          })
          .finally(() => clearTimeout(guard));
      }
      return stopping;
    };
    // Signals are obeyed at any moment, start-up included (the daemon abandons what it waits for).
    const onSignal = (sig: NodeJS.Signals) => {
      log.info({ signal: sig }, 'signal received');
      signalled = true;
      void stop(sig);
    };
    // SIGHUP too: a first live run from a terminal that closes (Node's default would kill it with its orders resting)
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    process.on('SIGHUP', onSignal);
    /** What the stop could not finish, on stderr (the unwritten records one JSON line each, for the operator); 1 when anything. */
    const tellUnfinished = (report: StopReport): number => {
      let code = 0;
      if (report.unconfirmed.length) {
        io.err(`makerd run: the venue did not confirm these orders cancelled: ${report.unconfirmed.join(' ')}`);
        code = 1;
      }
      if (report.unwritten.length) {
        io.err(`makerd run: ${report.unwritten.length} records could not be written to the store; they follow, one JSON line each`);
        for (const r of report.unwritten) io.err(JSON.stringify(r));
        code = 1;
      }
      return code;
    };
    // A bug must not leave orders working at the venue: log it, cancel everything, exit 1 (after
    // telling what the stop could not finish: the exit comes before the main path would)
    const onCrash = (err: unknown) => {
      log.fatal({ err }, 'uncaught exception: cancelling all orders and exiting');
      process.exitCode = 1;
      void stop('crash')
        .then(tellUnfinished)
        .finally(() => process.exit(1));
    };
    restart.wanted = (why) => {
      process.exitCode = 1;
      void stop(why);
    };
    const onRejection = (err: unknown) => log.error({ err }, 'unhandled promise rejection');
    process.on('uncaughtException', onCrash);
    process.on('unhandledRejection', onRejection);
    const startBound = setTimeout(() => {
      log.error({ boundMs: config.daemon.startupTimeoutMs }, 'start-up did not finish within its bound; stopping');
      void stop('startup timed out');
    }, config.daemon.startupTimeoutMs);
    let startError: unknown;
    try {
      await daemon.start();
    } catch (e) {
      startError = e;
      if (!(e instanceof MakerdError)) log.error({ err: e }, 'start-up failed');
      void stop('startup failed');
    } finally {
      clearTimeout(startBound);
    }
    if (!stopping) process.send?.('ready');
    await new Promise<void>((resolve) => {
      const check = () => (stopping ? stopping.then(() => resolve()) : setTimeout(check, 200));
      check();
    });
    const report = await (stopping as Promise<StopReport>);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onRejection);
    log.flush?.();
    // Anything left holding the loop (a stray socket) must not keep a stopped daemon alive.
    setTimeout(() => process.exit(process.exitCode ?? 0), 2000).unref();
    let code = process.exitCode === 1 ? 1 : 0;
    if (tellUnfinished(report)) code = 1;
    // a start-up interrupted by a signal is a normal stop; any other start-up failure is reported
    // in one line (the typed errors by the CLI; anything else here, its stack left in the log)
    if (startError !== undefined && !(signalled && startError instanceof StartAbortedError)) {
      if (startError instanceof MakerdError) throw startError;
      throw new MakerdError(`start-up failed: ${startError instanceof Error ? startError.message : String(startError)}`);
    }
    return code;
  },
};
