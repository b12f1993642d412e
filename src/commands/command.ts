// The shape every command module has: its help text and a main that returns the exit code.
// The CLI (src/cli.ts) maps names to modules and turns typed errors into one-line messages.
import { MAX_SEED, MAX_TIMER_MS } from '../config.js';
import { ApiError } from '../core/errors.js';

export interface CommandIO {
  out: (line: string) => void;
  err: (line: string) => void;
  env: NodeJS.ProcessEnv;
  /**
   * Stdout, unscrubbed: only for a line whose purpose is to print a secret (keys derive's exports,
   * which `eval` would otherwise take as the literal [redacted]). The CLI always sets it; when a
   * caller of cli() gives none, out is used as given.
   */
  secret?: (line: string) => void;
}

export interface CommandModule {
  /** One line for `makerd --help`. */
  summary: string;
  /** Full text for `makerd <command> --help`. */
  help: string;
  main(argv: string[], io: CommandIO): Promise<number>;
}

/** Thrown for a bad flag or argument: the CLI prints it with the command's usage and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export interface NumberFlagRule {
  /** Smallest allowed value (inclusive). */
  min?: number;
  /** Greater than zero. */
  positive?: boolean;
  /** A safe integer (|n| < 2^53): a larger one is not the integer typed (1e21, 9007199254740993). */
  integer?: boolean;
  /** Largest allowed value (inclusive): a duration in seconds that becomes a timer is at most TIMER_S. */
  max?: number;
}

/** The longest a timer may wait, in seconds (Node fires one of 2^31 ms or more after 1 ms): config's MAX_TIMER_MS. */
export const TIMER_S = MAX_TIMER_MS / 1000;

/**
 * A numeric flag's value: undefined when the flag is absent, else a finite number that keeps the
 * rule; anything else is a UsageError naming the flag (the CLI prints it and exits 2).
 */
export function numberFlag(v: string | undefined, flag: string, rule: NumberFlagRule = {}): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  const ok = v.trim() !== '' && Number.isFinite(n) && (!rule.integer || Number.isSafeInteger(n)) && (rule.min === undefined || n >= rule.min) && (!rule.positive || n > 0);
  if (ok && (rule.max === undefined || n <= rule.max)) return n;
  if (ok) throw new UsageError(`${flag} must be at most ${rule.max}, got '${v}'`);
  const kind = rule.integer ? 'integer' : 'number';
  const article = (w: string) => (/^[aeiou]/.test(w) ? 'an' : 'a');
  const what = rule.positive ? `a positive ${kind}` : rule.min === 0 ? `a non-negative ${kind}` : rule.min !== undefined ? `${article(kind)} ${kind} >= ${rule.min}` : `${article(kind)} ${kind}`;
  throw new UsageError(`${flag} must be ${what}, got '${v}'`);
}

/**
 * A seed flag: an integer 0..MAX_SEED, as sim.seed. The seeded generator keeps 32 bits, so a larger
 * seed would silently replay a smaller one's run (4294967297 is 1).
 */
export function seedFlag(v: string | undefined, flag: string): number | undefined {
  return numberFlag(v, flag, { min: 0, integer: true, max: MAX_SEED });
}

/**
 * A list of token ids (--markets T1,T2): undefined when absent, else trimmed decimal strings; a
 * list naming nothing ("", ",") or a non-numeric id is a UsageError naming the flag, before any
 * request (never a silent fall back to the config's markets, nor " 222" sent to the venue).
 */
export function tokenIdsFlag(v: string | undefined, flag: string): string[] | undefined {
  if (v === undefined) return undefined;
  const tokens = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (tokens.length === 0) throw new UsageError(`${flag} names no token id, got '${v}' (T1,T2: token ids, comma-separated)`);
  const bad = tokens.find((t) => !/^\d+$/.test(t));
  if (bad !== undefined) throw new UsageError(`${flag} takes token ids (decimal strings), comma-separated, got '${bad}'`);
  return tokens;
}

const REGIONS = 'the venue refused the request (403): it is not offered in some regions (Belgium, France, Singapore, Thailand and mainland China are named) - check where this machine connects from';

/** One clear line for a failed venue call: a 403 explained as a region refusal, else what was asked and answered. */
export function venueFailure(err: unknown): string {
  if (err instanceof ApiError) return err.status === 403 ? REGIONS : `${err.method} ${err.path} answered ${err.status}: ${err.apiMessage}`;
  return err instanceof Error ? err.message : String(err);
}
