// makerd command dispatch. Commands load lazily so `makerd verify` does not pay for SQLite or
// the emulator. Typed errors become one line on stderr: config errors exit 2, API errors exit 1.
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { ApiError, ConfigError, MakerdError } from './core/errors.js';
import { scrubLine } from './core/log.js';
import { UsageError, type CommandIO, type CommandModule } from './commands/command.js';

const commands: Record<string, () => Promise<CommandModule>> = {
  run: async () => (await import('./commands/run.js')).command,
  demo: async () => (await import('./commands/demo.js')).command,
  backtest: async () => (await import('./commands/backtest.js')).command,
  record: async () => (await import('./commands/record.js')).command,
  verify: async () => (await import('./commands/verify.js')).command,
  emulator: async () => (await import('./commands/emulator.js')).command,
  markets: async () => (await import('./commands/markets.js')).command,
  keys: async () => (await import('./commands/keys.js')).command,
  doctor: async () => (await import('./commands/doctor.js')).command,
  strategies: async () => (await import('./commands/strategies.js')).command,
};

async function usage(): Promise<string> {
  const lines = ['usage: makerd <command> [options]', '', 'commands:'];
  for (const [name, load] of Object.entries(commands)) {
    const mod = await load();
    lines.push(`  ${name.padEnd(10)} ${mod.summary}`);
  }
  lines.push('', 'makerd <command> --help shows the options of a command.');
  return lines.join('\n');
}

/** The package's version, from package.json (the package names itself through its exports). */
function version(): string {
  return (createRequire(import.meta.url)('makerd/package.json') as { version: string }).version;
}

export async function cli(argv: string[], given: CommandIO): Promise<number> {
  // every line the CLI prints passes the logs' redaction: a venue's error message may repeat the key;
  // secret() alone is exempt, for the lines that exist to print credentials (keys derive)
  const io: CommandIO = {
    env: given.env,
    out: (l) => given.out(scrubLine(l, given.env)),
    err: (l) => given.err(scrubLine(l, given.env)),
    secret: given.secret ?? given.out,
  };
  const [name, ...rest] = argv;
  // no command at all is a usage error: the help goes to stderr, exit 2
  if (name === undefined) {
    io.err(await usage());
    return 2;
  }
  if (name === '--help' || name === '-h' || (name === 'help' && rest.length === 0)) {
    io.out(await usage());
    return 0;
  }
  if (name === '--version' || name === '-V') {
    io.out(`makerd ${version()}`);
    return 0;
  }
  // `makerd help run` = `makerd run --help`
  const topic = name === 'help' ? rest[0] : name;
  const load = Object.hasOwn(commands, topic) ? commands[topic] : undefined;
  if (!load) {
    io.err(`makerd: unknown command '${topic}'\n\n${await usage()}`);
    return 2;
  }
  const mod = await load();
  if (name === 'help' || rest.includes('--help') || rest.includes('-h')) {
    io.out(mod.help);
    return 0;
  }
  try {
    return await mod.main(rest, io);
  } catch (e) {
    if (e instanceof UsageError || (e instanceof TypeError && (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))) {
      io.err(`makerd ${name}: ${e.message}\n\n${mod.help}`);
      return 2;
    }
    if (e instanceof ConfigError) {
      io.err(`makerd: invalid config: ${e.key}: ${e.reason}`);
      return 2;
    }
    if (e instanceof ApiError) {
      io.err(`makerd ${name}: ${e.method} ${e.path} failed: HTTP ${e.status} ${e.code}: ${e.apiMessage}`);
      return 1;
    }
    if (e instanceof MakerdError) {
      io.err(`makerd ${name}: ${e.message}`);
      return 1;
    }
    throw e;
  }
}

export { parseArgs };

/**
 * Runs the CLI on this process's arguments and sets the exit code. dist/cli.js (the bin) calls it
 * explicitly: detecting "am I main" from argv[1] fails under pm2, whose fork container is argv[1].
 */
export function runMain(): void {
  const io: CommandIO = {
    out: (l) => process.stdout.write(l + '\n'),
    err: (l) => process.stderr.write(l + '\n'),
    env: process.env,
  };
  cli(process.argv.slice(2), io).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(scrubLine(`makerd: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`) + '\n');
      process.exitCode = 1;
    },
  );
}
