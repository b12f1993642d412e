// Configuration: config/default.json holds every setting; a user file merges over it; MAKERD_*
// environment variables override both. One strict zod schema validates the result, and a bad
// value becomes a ConfigError naming the dotted key (the CLI prints it and exits 2).
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ConfigError } from './core/errors.js';
import { LOG_LEVELS } from './core/log.js';
import { duplicateKey, jsonProblem } from './core/json-problem.js';
import cron from 'node-cron';

/**
 * A base URL of one of `schemes`. zod's url() takes any scheme URL.canParse does (`localhost:8080/x`
 * parses with the scheme "localhost:"), which undici (http) or ws (WebSocket) later throws on far
 * from the key that caused it. Credentials in it are refused: the transports use the origin only
 * (they would never be sent), and doctor prints the URL. No message echoes the value, which may
 * hold a password.
 */
function baseUrl(...schemes: string[]) {
  const want = schemes.map((s) => `${s}//`).join(' or ');
  return z.string().superRefine((s, ctx) => {
    if (!URL.canParse(s)) return void ctx.addIssue({ code: 'custom', message: `not a URL: a base URL starting with ${want}` });
    const u = new URL(s);
    if (!schemes.includes(u.protocol)) return void ctx.addIssue({ code: 'custom', message: `must start with ${want}, not ${u.protocol}` });
    if (u.username !== '' || u.password !== '') {
      ctx.addIssue({ code: 'custom', message: 'must not hold a user name or password (they would never be sent: credentials come from the environment, MAKERD_API_KEY and the like)' });
    }
  });
}
const httpUrl = baseUrl('http:', 'https:');
const wsUrl = baseUrl('ws:', 'wss:');
/** The seeded generator (core/rng.ts) keeps 32 bits: a larger seed would replay a smaller one's run. */
export const MAX_SEED = 4_294_967_295;
const posInt = z.number().int().positive();
const nonNegInt = z.number().int().nonnegative();
const nonNeg = z.number().nonnegative();
const pos = z.number().positive();
/**
 * A delay or bound in ms that becomes a timer: Node fires a timer of 2^31 ms or more after 1 ms
 * (a shutdown bound meant as "as long as it takes" would exit before the cancel-all), so at most
 * MAX_TIMER_MS, which leaves room for the bounds added on top (the stop's 5 s guard).
 */
export const MAX_TIMER_MS = 2_000_000_000;
/** limits.windowScale at most (the emulator's --window-scale too): windows are for rehearsals, a week at most. */
export const MAX_WINDOW_SCALE = 1000;
const timerMs = z.number().int().positive().max(MAX_TIMER_MS, `at most ${MAX_TIMER_MS} ms (23 days): Node's timers hold no longer`);
const timerMs0 = z.number().int().nonnegative().max(MAX_TIMER_MS, `at most ${MAX_TIMER_MS} ms (23 days): Node's timers hold no longer`);
const timerMsF = z.number().nonnegative().max(MAX_TIMER_MS, `at most ${MAX_TIMER_MS} ms (23 days): Node's timers hold no longer`);

/** Polymarket's per-signer volume tiers, tightest first (their rates: api/limit-table.ts SIGNER_TIERS). */
export const SIGNER_TIER_NAMES = ['standard', 'copper', 'bronze', 'silver', 'gold', 'platinum', 'diamond', 'elite'] as const;
export type SignerTier = (typeof SIGNER_TIER_NAMES)[number];

/** A node-cron expression (5 or 6 fields), checked at load: a bad one found at scheduling came after start-up had acted. */
const cronExpr = z.string().refine((x) => cron.validate(x), { message: 'not a cron expression (5 or 6 fields, as node-cron reads them)' });

export const configSchema = z.strictObject({
  mode: z.enum(['live', 'paper']),
  markets: z.array(z.string().regex(/^\d+$/, 'token ids are decimal strings')),
  marketQuery: z.strictObject({
    enabled: z.boolean(),
    active: z.boolean(),
    minVolume: nonNeg,
    minLiquidity: nonNeg,
    order: z.enum(['volume', 'liquidity']),
    limit: posInt,
  }),
  urls: z.strictObject({ clob: httpUrl, gamma: httpUrl, data: httpUrl, content: httpUrl, ws: wsUrl, priceFeed: wsUrl }),
  http: z.strictObject({
    connectTimeoutMs: timerMs,
    headersTimeoutMs: timerMs,
    bodyTimeoutMs: timerMs,
    keepAliveTimeoutMs: timerMs,
    connectionsPerOrigin: posInt,
    /** Overall deadline of one call (its retries included) by kind: a place past it is ambiguous. */
    placeDeadlineMs: timerMs,
    cancelDeadlineMs: timerMs,
    readDeadlineMs: timerMs,
  }),
  retry: z.strictObject({ baseMs: timerMs, maxMs: timerMs, attempts: posInt }),
  limits: z.strictObject({ scale: pos, windowScale: pos.max(MAX_WINDOW_SCALE, `at most ${MAX_WINDOW_SCALE} (a 10-minute window that much longer is about a week)`) }),
  feed: z.strictObject({
    // the venue drops a client that sends no PING for about 10 s past its 10 s interval (wire-formats.md 1.2)
    pingIntervalMs: timerMs.max(10_000, 'at most 10000: the venue asks for a PING every 10 s and drops a client soon after one is missed'),
    pongTimeoutMs: timerMs,
    quietMs: timerMs,
    probeTimeoutMs: timerMs,
    reconnectBaseMs: timerMs,
    reconnectMaxMs: timerMs,
    /** The market channel is split over connections of at most this many assets each (a market's tokens kept together); the venue is reported to allow 500 (wire-formats.md 1.1). */
    maxAssetsPerConnection: posInt.max(500, 'at most 500: the venue is reported to allow no more per connection (wire-formats.md 1.1)'),
    priceFeedPingIntervalMs: timerMs,
    /** Crypto symbols of the price stream (urls.priceFeed) strategies read as ctx.referencePrice; [] = no stream. */
    priceSymbols: z.array(z.string().regex(/^[a-z0-9]+$/i, 'a symbol such as btcusdt')),
  }),
  book: z.strictObject({
    /** 1 = verify every snapshot and timestamp group; N = every Nth group; 0 = never. */
    verifyEvery: nonNegInt,
    /** Tried first on an out-of-sync book; the other method follows after resyncTimeoutMs. */
    resync: z.enum(['resubscribe', 'rest']),
    /** Deadline for a verified book after a resync request (doubles per retry up to 8x). */
    resyncTimeoutMs: timerMs,
    /** A timestamp group with no message for this long is complete: its hash and tops are checked. */
    groupIdleMs: timerMs,
  }),
  strategy: z.strictObject({ name: z.string().min(1), params: z.record(z.string(), z.unknown()) }),
  reconciler: z.strictObject({
    priceToleranceTicks: nonNegInt,
    sizeTolerance: z.number().min(0).max(1),
    debounceMs: timerMs0,
    maxOrdersPerSide: posInt,
  }),
  risk: z.strictObject({
    maxPositionPerToken: nonNeg,
    maxPositionPerMarket: nonNeg,
    maxTotalNotional: nonNeg,
    maxOrderSize: nonNeg,
    maxOpenOrders: nonNegInt,
    priceCollar: z.number().min(0).max(1),
    staleBookMs: timerMs,
    dailyLossLimit: nonNeg,
    errorRateWindowMs: timerMs,
    errorRateMax: z.number().min(0).max(1),
    errorRateMinSamples: posInt,
    /** A fill's fee rate above this is not believed (basis points; the venue's markets go to 1000). */
    maxFeeRateBps: nonNeg,
    /**
     * Polymarket: ms between reads of our collateral balance, which caps what open BUYs may cost
     * together (the venue refuses a BUY beyond it); 0 turns the cap off.
     */
    collateralReadMs: timerMs0,
  }),
  scheduler: z.strictObject({ maxBatch: z.number().int().min(1).max(15), singleOverflow: z.boolean() }),
  /** Which venue protocol: `spec` (service-interface.md, the default) or `polymarket` (the real CLOB V2: signed orders, L1/L2 auth). */
  venue: z.strictObject({
    profile: z.enum(['spec', 'polymarket']),
    /**
     * polymarket, live: ms between heartbeats (the venue cancels every order ~10 s after the last one).
     * At most 7 s: a beat that gets no answer must fail and be retried inside that window
     * (session/heartbeats.ts heartbeatDeadlineMs gives each 1 s at 7 s).
     */
    heartbeatIntervalMs: z.number().int().min(500).max(7000, "at most 7000: a failed heartbeat must be retried inside the venue's 10 s window"),
  }),
  store: z.strictObject({
    path: z.string().min(1),
    /** Orders ended without a fill are deleted this long after their last change (0 keeps them all); at least an hour, the start-up recovery window. */
    orderRetentionMs: z.union([z.literal(0), z.number().int().min(3_600_000)]),
  }),
  /** Bounds on the daemon's start (markets, reconciliation) and stop (cancel-all, final checks). */
  daemon: z.strictObject({
    startupTimeoutMs: timerMs,
    shutdownTimeoutMs: timerMs,
    /** How far back start-up reconciles trades; 0 = from an hour before the previous run began. */
    recoveryWindowMs: nonNegInt,
  }),
  /** The status server: port (0 = any free one) and host (127.0.0.1; another address is the user's choice, warned about in the log). */
  status: z.strictObject({ port: z.number().int().min(0).max(65535), host: z.string().min(1) }),
  sim: z.strictObject({
    seed: z.number().int().min(0).max(MAX_SEED, `at most ${MAX_SEED}: the seeded generator keeps 32 bits, a larger seed would replay a smaller one's run`),
    feedLatencyMs: timerMsF,
    orderLatencyMs: timerMsF,
    cancelLatencyMs: timerMsF,
    /** From a fill's MATCHED to its CONFIRMED: until then its shares are held but not sellable (the venue settles on chain). */
    settleMs: timerMsF,
    makerFeeBps: nonNeg,
    takerFeeBps: nonNeg,
    queueModel: z.boolean(),
    /** Our collateral at the start, dollars: BUYs beyond it are refused, as on the venue, and the engine caps BUYs at it (0: unlimited). */
    cashUsd: nonNeg,
    /** The simulated venue's orders and cancels (backtest, paper) also pass the venue's per-signer buckets at this tier; 'none': a backtest the spec's windows only, paper mode its profile's buckets. */
    signerTier: z.enum(['none', ...SIGNER_TIER_NAMES]),
  }),
  cron: z.strictObject({ refreshMarkets: cronExpr, reconcile: cronExpr, dailySummary: cronExpr }),
  log: z.strictObject({ level: z.enum(LOG_LEVELS) }),
});

export type Config = z.infer<typeof configSchema>;

/** Keys a config file may not hold at its top level: the credentials come from the environment only. */
const SECRET_CONFIG_KEYS = /^(private_?key|api_?secret|secret|api_?passphrase|passphrase)$/i;

/** The secret never lives in Config: it comes from MAKERD_API_KEY only. */
export function apiKeyFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const k = env.MAKERD_API_KEY;
  return k && k.length > 0 ? k : undefined;
}

// src/config.ts sits one level below the package root, dist/src/config.js two: take whichever exists.
const DEFAULT_PATH =
  ['../config/default.json', '../../config/default.json'].map((rel) => fileURLToPath(new URL(rel, import.meta.url))).find((p) => existsSync(p)) ??
  fileURLToPath(new URL('../../config/default.json', import.meta.url));

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function isObject(v: unknown): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Objects merge key by key; arrays and scalars replace. */
export function deepMerge(base: Json, over: Json): Json {
  if (!isObject(base) || !isObject(over)) return over;
  const out: Record<string, Json> = { ...base };
  // defineProperty: a "__proto__" key from a file stays an own key (the strict schema then names
  // it) instead of replacing the prototype; Object.hasOwn ignores inherited names like "constructor".
  for (const [k, v] of Object.entries(over)) {
    const value = Object.hasOwn(base, k) ? deepMerge(base[k], v) : v;
    Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function readJson(path: string, label: string): Json {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(label, `cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  let v: Json;
  try {
    v = JSON.parse(text) as Json;
  } catch {
    // never JSON.parse's message: V8 quotes the text around the error, and a config file may hold a key
    throw new ConfigError(label, `${path} is not valid JSON: ${jsonProblem(text)}`);
  }
  // JSON.parse keeps a repeated name's last value: a section written again would drop the first's settings in silence
  const dup = duplicateKey(text);
  if (dup) {
    throw new ConfigError(dup.path, `is written twice in ${path} (lines ${dup.firstLine} and ${dup.line}): only the last would count, the first dropped in silence; keep one`);
  }
  return v;
}

/** A plain decimal number (digits, one optional point, an optional leading minus): no blanks, hex, exponents or Infinity. */
const PLAIN_DECIMAL = /^-?(\d+\.?\d*|\.\d+)$/;

/**
 * A numeric MAKERD_* variable: unset or empty is undefined; else a plain decimal that `schema` (its
 * config key's) takes. Every refusal names the variable, not the key it sets.
 */
function envNumber(env: NodeJS.ProcessEnv, name: string, schema: z.ZodType<number>): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!PLAIN_DECIMAL.test(raw)) throw new ConfigError(name, `must be a number, got ${JSON.stringify(raw)}`);
  const r = schema.safeParse(Number(raw));
  if (!r.success) throw new ConfigError(name, `${r.error.issues[0]?.message ?? 'invalid'}, got ${JSON.stringify(raw)}`);
  return r.data;
}

/** A MAKERD_* text variable (set) that `schema` (its config key's) takes; a refusal names the variable, not the key. */
function envValue(env: NodeJS.ProcessEnv, name: string, schema: z.ZodType<string>): string {
  const r = schema.safeParse(env[name]);
  if (!r.success) throw new ConfigError(name, r.error.issues[0]?.message ?? 'invalid');
  return r.data;
}

/** Every MAKERD_* variable makerd reads (README, "Configuration"); MAKERD_BENCH_* are the benchmarks' own. */
const ENV_NAMES = [
  'MAKERD_VENUE',
  'MAKERD_CLOB_URL',
  'MAKERD_GAMMA_URL',
  'MAKERD_DATA_URL',
  'MAKERD_CONTENT_URL',
  'MAKERD_WS_URL',
  'MAKERD_PRICE_FEED_URL',
  'MAKERD_DB',
  'MAKERD_STATUS_PORT',
  'MAKERD_STATUS_HOST',
  'MAKERD_LIMIT_SCALE',
  'MAKERD_WINDOW_SCALE',
  'MAKERD_LOG_LEVEL',
  'MAKERD_API_KEY',
  'MAKERD_API_SECRET',
  'MAKERD_API_PASSPHRASE',
  'MAKERD_PRIVATE_KEY',
  'MAKERD_FUNDER',
  'MAKERD_SIGNATURE_TYPE',
];
/** The test suite's own switches (README, "Tests"): read by the tests, taken here too. */
const ENV_TEST_NAMES = ['MAKERD_CHROMIUM', 'MAKERD_MATRIX_SECONDS', 'MAKERD_MATRIX_ONLY', 'MAKERD_SOAK_KILLS'];
const ENV_NAME_SET = new Set([...ENV_NAMES, ...ENV_TEST_NAMES]);

/** A set MAKERD_* variable makerd does not read is refused: misspelt, it would be ignored in silence (MAKERD_LIMITS_SCALE). */
function checkEnvNames(env: NodeJS.ProcessEnv): void {
  for (const name of Object.keys(env)) {
    if (!name.startsWith('MAKERD_') || name.startsWith('MAKERD_BENCH_') || ENV_NAME_SET.has(name) || !env[name]) continue;
    const near = ENV_NAMES.map((k) => ({ k, d: editDistance(name, k) })).sort((a, b) => a.d - b.d)[0];
    throw new ConfigError(name, `not a variable makerd reads${near.d <= 3 ? ` (did you mean ${near.k}?)` : ''}; README, "Configuration", lists them`);
  }
}

/** Levenshtein distance (for a misspelt variable's suggestion). */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

/** MAKERD_* variables as a partial config (README, "Configuration": the environment table). */
export function envOverrides(env: NodeJS.ProcessEnv): Json {
  checkEnvNames(env);
  const o: Record<string, Record<string, Json>> = { urls: {}, limits: {}, store: {}, status: {}, venue: {} };
  if (env.MAKERD_VENUE) o.venue.profile = envValue(env, 'MAKERD_VENUE', configSchema.shape.venue.shape.profile);
  const urls: Array<[string, string]> = [
    ['MAKERD_CLOB_URL', 'clob'],
    ['MAKERD_GAMMA_URL', 'gamma'],
    ['MAKERD_DATA_URL', 'data'],
    ['MAKERD_CONTENT_URL', 'content'],
    ['MAKERD_WS_URL', 'ws'],
    ['MAKERD_PRICE_FEED_URL', 'priceFeed'],
  ];
  const urlShape = configSchema.shape.urls.shape;
  for (const [name, key] of urls) if (env[name]) o.urls[key] = envValue(env, name, urlShape[key as keyof typeof urlShape]);
  const limits = configSchema.shape.limits.shape;
  const scale = envNumber(env, 'MAKERD_LIMIT_SCALE', limits.scale);
  if (scale !== undefined) o.limits.scale = scale;
  const wscale = envNumber(env, 'MAKERD_WINDOW_SCALE', limits.windowScale);
  if (wscale !== undefined) o.limits.windowScale = wscale;
  if (env.MAKERD_DB) o.store.path = env.MAKERD_DB;
  const port = envNumber(env, 'MAKERD_STATUS_PORT', configSchema.shape.status.shape.port);
  if (port !== undefined) o.status.port = port;
  if (env.MAKERD_STATUS_HOST) o.status.host = env.MAKERD_STATUS_HOST;
  return o;
}

function firstIssue(err: z.ZodError, prefix: string): ConfigError {
  const issue = err.issues[0];
  if (!issue) return new ConfigError(prefix || '(root)', 'invalid');
  let path = issue.path.map(String).join('.');
  let reason = issue.message;
  if (issue.code === 'unrecognized_keys') {
    const keys = (issue as { keys: string[] }).keys;
    path = [path, keys[0]].filter(Boolean).join('.');
    reason = 'unknown key';
  }
  return new ConfigError([prefix, path].filter(Boolean).join('.') || '(root)', reason);
}

/** Validates any partial object against one section's schema (strategies reuse this for their params). */
export function parseWith<T>(schema: z.ZodType<T>, value: unknown, keyPrefix: string): T {
  const r = schema.safeParse(value);
  if (!r.success) throw firstIssue(r.error, keyPrefix);
  return r.data;
}

export interface LoadOptions {
  file?: string;
  env?: NodeJS.ProcessEnv;
  /** Extra overrides applied last (CLI flags such as --mode or --markets). */
  overrides?: Json;
}

export function loadConfig(opts: LoadOptions = {}): Config {
  const env = opts.env ?? process.env;
  let merged = readJson(DEFAULT_PATH, 'config/default.json');
  if (opts.file) {
    const user = readJson(opts.file, '--config');
    if (isObject(user) && ('apiKey' in user || 'api_key' in user)) {
      throw new ConfigError('apiKey', 'the API key is read only from MAKERD_API_KEY, never from a config file');
    }
    const secret = isObject(user) ? Object.keys(user).find((k) => SECRET_CONFIG_KEYS.test(k)) : undefined;
    if (secret !== undefined) {
      throw new ConfigError(secret, 'credentials are read only from the environment (MAKERD_PRIVATE_KEY, MAKERD_API_SECRET, MAKERD_API_PASSPHRASE), never from a config file');
    }
    merged = deepMerge(merged, user);
  }
  merged = deepMerge(merged, envOverrides(env));
  if (opts.overrides) merged = deepMerge(merged, opts.overrides);
  return checkTogether(parseWith(configSchema, merged, ''));
}

/** Settings each valid alone that do not work together: refused naming the key to change. */
function checkTogether(c: Config): Config {
  // the user channel has no data check (channels.ts): with PONGs no sooner than the pong timeout, every connection ends
  if (2 * c.feed.pingIntervalMs > c.feed.pongTimeoutMs) {
    throw new ConfigError('feed.pingIntervalMs', `must be at most half feed.pongTimeoutMs (${c.feed.pongTimeoutMs}): a connection answering every PING a little late would be ended as silent`);
  }
  if (c.feed.reconnectMaxMs < c.feed.reconnectBaseMs) {
    throw new ConfigError('feed.reconnectMaxMs', `must be at least feed.reconnectBaseMs (${c.feed.reconnectBaseMs}): a failing endpoint would be dialled again at the ceiling, every few milliseconds`);
  }
  return c;
}
