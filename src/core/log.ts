// The one logger: pino JSON to stdout (pretty when stdout is a terminal). Secrets are scrubbed
// wherever they appear: by key name at any depth, and by value (the API key from the
// environment) inside any string, including the message. No line holds a key twice (pino
// concatenates its own keys, every binding of a logger's ancestry and the line's fields as they
// come): a child's "part" joins its parent's ("engine/risk"), a child re-binding another key
// replaces it, and a line's field that repeats a bound key or one of pino's (level, time, msg,
// pid, name) is dropped when it says the same, else written under the next free name ("market2").
import { ConfigError, MakerdError } from './errors.js';
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

/** Longer than any secret or Bearer token a text may carry across the cut. */
const SCRUB_MARGIN = 4096;
/** `t` with every secret scrubbed, then cut to `n` characters (a secret cut in half is not the whole value the logger scrubs). */
export function keptText(t: string, n: number, more = ''): string {
  // scrubbed over the kept part and a margin past it that holds any secret crossing the cut, not over a 32 MB page
  const clean = scrubLine(t.length > n + SCRUB_MARGIN ? t.slice(0, n + SCRUB_MARGIN) : t);
  return clean.length > n ? `${clean.slice(0, n)}${more}` : clean;
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

/** pino's level names, the values log.level and MAKERD_LOG_LEVEL take. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

/** MAKERD_LOG_LEVEL (demo, emulator) or `fallback`; another value is a ConfigError naming it (pino would throw with a stack). */
export function envLogLevel(env: NodeJS.ProcessEnv, fallback: (typeof LOG_LEVELS)[number]): string {
  const v = env.MAKERD_LOG_LEVEL;
  if (v === undefined || v === '') return fallback;
  if ((LOG_LEVELS as readonly string[]).includes(v)) return v;
  throw new ConfigError('MAKERD_LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}, got '${v}'`);
}

export interface LoggerOptions {
  level?: string;
  /** Where lines go; tests pass a capturing stream. Default: stdout, pretty on a TTY. */
  destination?: DestinationStream;
  name?: string;
}

/** Log lines stdout could not take (a full disk under `> file`), and the last error: /metrics and /health. */
export const logWriteErrors = { count: 0, last: '', atMs: 0 };

/** Buffered log output held at most, bytes: past it lines are dropped, not kept in memory while stdout cannot take them. */
const MAX_LOG_BUFFER = 16 * 1024 * 1024;

/**
 * stdout as pino's asynchronous destination (`logDestination(1)`). A write error other than a
 * closed pipe (ENOSPC when stdout is a file on a full disk) would be re-emitted by pino as an
 * uncaught error: a crash of a daemon that trades fine. It is counted instead (logWriteErrors), and
 * the daemon goes on. Past `maxLength` bytes held, sonic-boom drops each new line and, with its
 * write failed, never tries again (it retries only from a line it takes): every drop is counted
 * too and starts that retry, so the log resumes once the disk has room.
 */
export function logDestination(fd: number, maxLength = MAX_LOG_BUFFER): DestinationStream {
  const d = pino.destination({ dest: fd, sync: false, maxLength });
  let seen: Error | undefined;
  const failed = (message: string): void => {
    logWriteErrors.count++;
    logWriteErrors.last = message;
    logWriteErrors.atMs = Date.now();
  };
  d.on('error', (e: Error & { code?: string }) => {
    // a closed pipe is pino's to drop (its reader went away); pino re-emits what it does not filter
    if (e.code === 'EPIPE' || e === seen) return;
    seen = e;
    failed(e.message);
  });
  d.on('drop', () => {
    failed(`${seen?.message ?? 'stdout too slow'} (${maxLength} bytes held: lines dropped)`);
    // an empty write is taken (the buffer is at most maxLength) and, no write being in flight, retries the held bytes
    d.write('');
  });
  // pino flushes synchronously at exit, and sonic-boom's flushSync retries a write that keeps
  // failing (ENOSPC) forever: the process would never exit. Unless a write went through since the
  // last failed one (the disk has room again), the tail is dropped instead.
  let wroteAfterError = true;
  d.on('write', () => (wroteAfterError = true));
  d.on('error', () => (wroteAfterError = false)); // a closed pipe too: its flushSync would spin as well
  const flushSync = d.flushSync.bind(d);
  d.flushSync = () => {
    if (wroteAfterError) flushSync();
  };
  return d;
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
          const first: unknown = clean[0];
          if (first !== null && typeof first === 'object' && !Array.isArray(first)) {
            // pino writes `msg` itself only when a message argument follows the object
            (clean as unknown[])[0] = distinctFields(first as Record<string, unknown>, boundOf(this), clean.length > 1);
          }
          method.apply(this, clean);
        },
      },
    },
    dest ?? logDestination(1),
  );
  const root = logger;
  (root as Bound)[BOUND] = opts.name === undefined ? { pid: process.pid } : { pid: process.pid, name: opts.name };
  // child bindings bypass `formatters` and the logMethod hook (pino resets the bindings formatter
  // for children); scrub them on the way in. Children inherit this override from the root.
  const pinoChild = logger.child as unknown as (this: Logger, bindings: pino.Bindings, options?: pino.ChildLoggerOptions) => Logger;
  logger.child = function (this: Logger, bindings: pino.Bindings, options?: pino.ChildLoggerOptions): Logger {
    const parent = boundOf(this);
    const own = scrub(bindings) as Record<string, unknown>;
    const merged: Record<string, unknown> = { ...parent };
    let clash = false;
    const rootBound = boundOf(root);
    for (const [k, v] of Object.entries(own)) {
      if (v === undefined) continue;
      if (CORE_KEYS.has(k) || k in rootBound) merged[freeKey(k, merged, own)] = v;
      else if (!(k in merged)) merged[k] = v;
      else if (k === 'part') {
        merged.part = `${String(merged.part)}/${String(v)}`;
        clash = true;
      } else if (merged[k] !== v) {
        merged[k] = v;
        clash = true;
      }
    }
    let child: Logger;
    if (!clash) child = pinoChild.call(this, added(merged, parent), options);
    else {
      // pino appends a child's bindings to its parent's serialized ones and cannot take one back:
      // the child gets the serialized bindings a direct child of the root with `merged` has.
      const flat = pinoChild.call(root, added(merged, rootBound));
      child = pinoChild.call(this, {}, options);
      (child as unknown as Record<symbol, unknown>)[CHINDINGS] = (flat as unknown as Record<symbol, unknown>)[CHINDINGS];
    }
    (child as Bound)[BOUND] = merged;
    return child;
  } as unknown as typeof logger.child;
  return logger;
}

/** What a logger of ours has bound: the root's pid (and name) and every ancestor's bindings, merged. */
const BOUND = Symbol('makerd.bound');
type Bound = Logger & { [BOUND]?: Record<string, unknown> };
const CHINDINGS = pino.symbols.chindingsSym;
/** Keys pino writes on every line itself (besides the root's bindings). */
const CORE_KEYS: ReadonlySet<string> = new Set(['level', 'time', 'msg']);

function boundOf(l: unknown): Record<string, unknown> {
  return (l as Bound)[BOUND] ?? {};
}

/** The bindings of `merged` that `base` (a parent, or the root) does not already write. */
function added(merged: Record<string, unknown>, base: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(merged)) if (!(k in base && base[k] === v)) out[k] = v;
  return out;
}

/** `key2`, `key3`, ...: the first name taken by neither object. */
function freeKey(key: string, a: Record<string, unknown>, b: Record<string, unknown>): string {
  for (let n = 2; ; n++) {
    const k = `${key}${n}`;
    if (!(k in a) && !(k in b) && !CORE_KEYS.has(k)) return k;
  }
}

/** A line's fields without a key pino or a binding already writes (see the header). */
function distinctFields(obj: Record<string, unknown>, bound: Record<string, unknown>, hasMsg: boolean): Record<string, unknown> {
  const taken = (k: string): boolean => k === 'level' || k === 'time' || (k === 'msg' && hasMsg) || k in bound;
  let out: Record<string, unknown> | undefined;
  for (const k of Object.keys(obj)) {
    if (!taken(k)) continue;
    out ??= { ...obj };
    const v = out[k];
    delete out[k];
    if (v === undefined || (k in bound && bound[k] === v)) continue;
    const all = { ...bound, ...out, level: 1, time: 1, msg: 1 };
    out[freeKey(k, all, obj)] = v;
  }
  return out ?? obj;
}

import { createRequire } from 'node:module';
function prettyStream(): DestinationStream {
  const require = createRequire(import.meta.url);
  const pretty = require('pino-pretty') as (o: object) => DestinationStream;
  return pretty({ sync: true, colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
}

/** A logger that writes nothing (tests, benchmarks). */
export const silentLogger: Logger = pino({ level: 'silent' });
