// The one logger: pino JSON to stdout (pretty when stdout is a terminal). Secrets are scrubbed
// wherever they appear: by key name at any depth, and by value (the API key from the
// environment) inside any string, including the message.
import { MakerdError } from './errors.js';
import pino, { type Logger, type DestinationStream } from 'pino';

export type { Logger };

const SECRET_KEY = /^(authorization|api[-_]?key|apikey|secret|passphrase|password|private[-_]?key|x-api-key|poly[-_]api[-_]key|poly[-_]passphrase)$/i;
export const REDACTED = '[redacted]';

/** The environment variables whose values are secrets (never printed, whatever carries them). */
const SECRET_ENV = ['MAKERD_API_KEY', 'MAKERD_API_SECRET', 'MAKERD_API_PASSPHRASE', 'MAKERD_PRIVATE_KEY'];

function secretValues(env: NodeJS.ProcessEnv = process.env): string[] {
  const out: string[] = [];
  for (const name of SECRET_ENV) {
    const v = env[name];
    if (v && v.length >= 4) out.push(v);
  }
  return out;
}

/** One printed line with every secret of `env` (and any Bearer token) replaced: the CLI's own lines. */
export function scrubLine(line: string, env: NodeJS.ProcessEnv = process.env): string {
  return scrubString(line, secretValues(env));
}

function scrubString(s: string, secrets: string[]): string {
  let out = s;
  for (const v of secrets) if (out.includes(v)) out = out.split(v).join(REDACTED);
  return out.replace(/(Bearer\s+)[^\s"',]+/gi, `$1${REDACTED}`);
}

export function scrub(value: unknown, secrets: string[] = secretValues(), depth = 0): unknown {
  if (typeof value === 'string') return scrubString(value, secrets);
  if (value === null || typeof value !== 'object') return value;
  // past the depth limit nothing is inspected, so nothing is printed (a secret could hide there)
  if (depth > 8) return '[too deep]';
  // our typed errors say all in their message (a venue error, a deadline): no stack, no cause chain
  if (value instanceof MakerdError) {
    const { cause: _cause, ...fields } = value as MakerdError & { cause?: unknown };
    return { type: value.name, message: scrubString(value.message, secrets), ...(scrub(fields, secrets, depth + 1) as object) };
  }
  if (value instanceof Error) {
    return {
      type: value.name,
      message: scrubString(value.message, secrets),
      stack: value.stack ? scrubString(value.stack, secrets) : undefined,
      ...(scrub({ ...value }, secrets, depth + 1) as object),
    };
  }
  if (Array.isArray(value)) return value.map((v) => scrub(v, secrets, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = SECRET_KEY.test(k) ? REDACTED : scrub(v, secrets, depth + 1);
  }
  return out;
}

export interface LoggerOptions {
  level?: string;
  /** Where lines go; tests pass a capturing stream. Default: stdout, pretty on a TTY. */
  destination?: DestinationStream;
  name?: string;
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  let dest = opts.destination;
  if (!dest && process.stdout.isTTY) {
    try {
      // pino-pretty as a synchronous stream: no worker thread, nothing lost on exit
      dest = prettyStream();
    } catch {
      dest = undefined;
    }
  }
  const logger = pino(
    {
      level: opts.level ?? 'info',
      name: opts.name,
      base: { pid: process.pid },
      formatters: { log: (obj) => scrub(obj) as Record<string, unknown>, bindings: (b) => scrub(b) as Record<string, unknown> },
      hooks: {
        logMethod(args, method) {
          const secrets = secretValues();
          const clean = args.map((a) => scrub(a, secrets)) as Parameters<typeof method>;
          method.apply(this, clean);
        },
      },
    },
    dest ?? pino.destination({ dest: 1, sync: false }),
  );
  // child bindings bypass `formatters` and the logMethod hook (pino resets the bindings formatter
  // for children); scrub them on the way in. Children inherit this override from the root.
  const pinoChild = logger.child;
  logger.child = function (this: Logger, bindings, options) {
    return pinoChild.call(this, scrub(bindings) as typeof bindings, options);
  } as typeof logger.child;
  return logger;
}

import { createRequire } from 'node:module';
function prettyStream(): DestinationStream {
  const require = createRequire(import.meta.url);
  const pretty = require('pino-pretty') as (o: object) => DestinationStream;
  return pretty({ sync: true, colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
}

/** A logger that writes nothing (tests, benchmarks). */
export const silentLogger: Logger = pino({ level: 'silent' });
