// makerd run: the daemon. Quotes the configured markets live (orders over REST) or paper (fills
// simulated on the live feed), serves /health /status /metrics on loopback, and on SIGINT or
// SIGTERM stops quoting, cancels every order, flushes the store and exits 0.
import { parseArgs } from 'node:util';
import { apiKeyFromEnv, loadConfig } from '../config.js';
import { createLogger } from '../core/log.js';
import { Daemon } from '../engine/daemon.js';
import { UsageError, type CommandModule } from './command.js';

const help = `usage: makerd run [--config F] [--mode live|paper] [--markets T1,T2]

  --config F        JSON config merged over config/default.json
  --mode M          live (orders sent to the venue) or paper (simulated fills on the live feed)
  --markets T1,T2   token ids to quote (either token of a market selects the market)

Environment: MAKERD_API_KEY (live), MAKERD_*_URL, MAKERD_DB, MAKERD_STATUS_PORT,
MAKERD_LIMIT_SCALE, MAKERD_WINDOW_SCALE. Signals: SIGINT/SIGTERM cancel all orders and exit 0.
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
    const tokens = values.markets ? values.markets.split(',').map((s) => s.trim()).filter(Boolean) : undefined;
    if (tokens && tokens.some((t) => !/^\d+$/.test(t))) throw new UsageError('--markets takes token ids (decimal strings), comma-separated');
    const config = loadConfig({ file: values.config, env: io.env, overrides: values.mode ? { mode: values.mode } : undefined });
    const log = createLogger({ level: config.log.level, name: 'makerd' });
    const daemon = new Daemon({ config, apiKey: apiKeyFromEnv(io.env), log, tokens });
    let stopping: Promise<void> | undefined;
    const stop = (why: string) => (stopping ??= daemon.stop(why));
    const starting = daemon.start();
    const onSignal = (sig: NodeJS.Signals) => {
      log.info({ signal: sig }, 'signal received');
      // A signal during startup stops once startup has settled (never half-way through it).
      starting.then(
        () => void stop(sig),
        () => void stop(sig),
      );
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    // A bug must not leave orders working at the venue: log it, cancel everything, exit 1.
    const onCrash = (err: unknown) => {
      log.fatal({ err }, 'uncaught exception: cancelling all orders and exiting');
      process.exitCode = 1;
      void stop('crash').finally(() => process.exit(1));
    };
    const onRejection = (err: unknown) => log.error({ err }, 'unhandled promise rejection');
    process.on('uncaughtException', onCrash);
    process.on('unhandledRejection', onRejection);
    try {
      await starting;
    } catch (e) {
      await stop('startup failed');
      throw e;
    }
    if (!stopping) process.send?.('ready');
    await new Promise<void>((resolve) => {
      const check = () => (stopping ? stopping.then(resolve, resolve) : setTimeout(check, 200));
      check();
    });
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onRejection);
    log.flush?.();
    // Anything left holding the loop (a stray socket) must not keep a stopped daemon alive.
    setTimeout(() => process.exit(process.exitCode ?? 0), 2000).unref();
    return process.exitCode === 1 ? 1 : 0;
  },
};
