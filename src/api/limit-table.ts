// The rate-limit table of spec section 8 — the ONE place these numbers live. `scopesFor` names
// every scope a request counts against; the client limiter and the emulator both use it, each
// scope being one sliding window (a trading endpoint has two: 10 s burst and 10 min sustained).
// Polymarket's per-signer token buckets, by tier, are at the end.
import type { SignerTier } from '../config.js';

export type { SignerTier };
export type ApiName = 'clob' | 'gamma' | 'data' | 'content' | 'relayer';
export type HttpMethod = 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';

export interface Scope {
  /** Stable id, e.g. 'general', 'clob:GET /book', 'clob:POST /orders:sustained'. */
  readonly id: string;
  readonly limit: number;
  readonly windowMs: number;
  /** A per-signer token bucket (limit: its Standard burst; windowMs: its Standard refill time) rather than a window. */
  readonly bucket?: SignerBucket;
}

/** Orders one POST /orders carries at most, and ids one DELETE /orders (the spec's and Polymarket's caps: client and emulator). */
export const MAX_BATCH = 15;
export const MAX_CANCEL_IDS = 1000;

const S10 = 10_000;
const M1 = 60_000;
const M10 = 600_000;

const scope = (id: string, limit: number, windowMs: number): Scope => Object.freeze({ id, limit, windowMs });

export const GENERAL = scope('general', 15000, S10);
export const OK_ENDPOINTS = scope('ok', 100, S10);
export const DATA_API = scope('data', 50, S10);
export const GAMMA_API = scope('gamma', 50, S10);
export const CLOB_GENERAL = scope('clob', 15000, S10);
export const CLOB_API_KEY = scope('clob:api-key', 100, S10);
export const USER_PNL = scope('data:pnl', 200, S10);
export const RELAYER_SUBMIT = scope('relayer:submit', 25, M1);

/** CLOB endpoints limited to 100 requests / 10 s each. */
const CLOB_100: ReadonlyArray<string> = ['GET /markets', 'GET /book', 'GET /midpoint', 'GET /price', 'GET /spread', 'GET /balances', 'GET /tick-size', 'GET /neg-risk'];

/** CLOB trading endpoints: [burst per 10 s, sustained per 10 min]. */
const TRADING: ReadonlyArray<[string, number, number]> = [
  ['POST /order', 3500, 36000],
  ['DELETE /order', 3000, 30000],
  ['POST /orders', 1000, 15000],
  ['DELETE /orders', 1000, 15000],
  ['DELETE /cancel-all', 250, 6000],
  ['DELETE /cancel-market-orders', 1000, 1500],
];

const clobEndpoint = new Map<string, Scope[]>();
for (const ep of CLOB_100) clobEndpoint.set(ep, [scope(`clob:${ep}`, 100, S10)]);
for (const [ep, burst, sustained] of TRADING) {
  clobEndpoint.set(ep, [scope(`clob:${ep}:burst`, burst, S10), scope(`clob:${ep}:sustained`, sustained, M10)]);
}

/** Every scope in the table (for /metrics, the emulator, and tests). */
export const ALL_SCOPES: ReadonlyArray<Scope> = [GENERAL, OK_ENDPOINTS, DATA_API, GAMMA_API, CLOB_GENERAL, CLOB_API_KEY, USER_PNL, RELAYER_SUBMIT, ...[...clobEndpoint.values()].flat()];

const isOk = (path: string) => path === '/health' || path === '/ok' || path === '/';
const isPnl = (path: string) => /^\/users\/[^/]+\/pnl\/?$/.test(path);

function compute(api: ApiName, method: string, path: string): Scope[] {
  const out: Scope[] = [];
  if (api === 'clob') {
    // the real venue's GET /markets/{condition_id} counts as GET /markets
    const ep = clobEndpoint.get(`${method} ${path.startsWith('/markets/') ? '/markets' : path}`);
    if (ep) out.push(...ep);
    if (path === '/auth/api-key') out.push(CLOB_API_KEY);
    if (isOk(path)) out.push(OK_ENDPOINTS);
    out.push(CLOB_GENERAL);
  } else if (api === 'gamma') {
    if (isOk(path)) out.push(OK_ENDPOINTS);
    out.push(GAMMA_API);
  } else if (api === 'data') {
    if (isPnl(path)) out.push(USER_PNL);
    if (isOk(path)) out.push(OK_ENDPOINTS);
    out.push(DATA_API);
  } else if (api === 'relayer') {
    if (path === '/submit') out.push(RELAYER_SUBMIT);
  } else if (isOk(path)) {
    out.push(OK_ENDPOINTS); // content API: no limit of its own in the spec
  }
  out.push(GENERAL);
  return out;
}

const memo = new Map<string, Scope[]>();

/**
 * Every scope the request counts against, most specific first, `general` last. The path is
 * without query string (one is stripped if present). The result is shared: do not mutate it.
 */
export function scopesFor(api: ApiName, method: string, path: string): Scope[] {
  const q = path.indexOf('?');
  const p = q >= 0 ? path.slice(0, q) : path;
  const m = method.toUpperCase();
  const key = `${api} ${m} ${p}`;
  let s = memo.get(key);
  if (!s) {
    s = compute(api, m, p);
    if (memo.size < 10_000) memo.set(key, s); // paths carry ids; bound the memo
  }
  return s;
}

/**
 * The venue's per-signer token buckets (docs.polymarket.com/api-reference/trading-rate-limits,
 * live since the summer of 2026; fetched 2026-11-26): one for orders, one for cancels, each
 * counting orders rather than requests (POST /orders costs its orders, DELETE /orders its ids,
 * a cancel-all 1 and then 1 per order it cancelled) and spanning several endpoints. Rate (per
 * second) and burst depend on the account's 30-day volume tier, named in each answer's
 * Poly-RateLimit-Tier; Standard, the tightest, until one is seen. Only the polymarket profile has them.
 */
export type SignerBucket = 'orders' | 'cancels';
export interface SignerTierLimits {
  /** [rate per second, burst] */
  orders: readonly [number, number];
  cancels: readonly [number, number];
  /** A cancel-all's after-the-fact debit may take the cancel bucket below zero. */
  negative: boolean;
}
export const SIGNER_TIERS: Readonly<Record<SignerTier, SignerTierLimits>> = {
  standard: { orders: [40, 60], cancels: [80, 120], negative: true },
  copper: { orders: [60, 90], cancels: [120, 180], negative: true },
  bronze: { orders: [80, 120], cancels: [160, 240], negative: true },
  silver: { orders: [200, 300], cancels: [400, 600], negative: true },
  gold: { orders: [400, 600], cancels: [800, 1200], negative: true },
  platinum: { orders: [450, 675], cancels: [900, 1350], negative: false },
  diamond: { orders: [525, 787], cancels: [1050, 1575], negative: false },
  elite: { orders: [600, 900], cancels: [1200, 1800], negative: false },
};

/** A bucket's [burst, tokens per ms] at `tier` under the configured scales (what scaleScope is for a window). */
export function scaledBucket(tier: SignerTier, b: SignerBucket, scale: number, windowScale: number): [number, number] {
  const [rate, burst] = SIGNER_TIERS[tier][b];
  return [Math.max(1, Math.floor(burst * scale + 1e-9)), (rate * scale) / 1000 / windowScale];
}

/** The tier a Poly-RateLimit-Tier header names (any case), or undefined. */
export function signerTierOf(raw: string | undefined): SignerTier | undefined {
  const t = raw?.trim().toLowerCase();
  return t !== undefined && Object.hasOwn(SIGNER_TIERS, t) ? (t as SignerTier) : undefined;
}

const bucketScope = (b: SignerBucket): Scope => {
  const [rate, burst] = SIGNER_TIERS.standard[b];
  return Object.freeze({ id: `signer:${b}`, limit: burst, windowMs: (burst / rate) * 1000, bucket: b });
};
const SIGNER_ORDERS = bucketScope('orders');
const SIGNER_CANCELS = bucketScope('cancels');

const SIGNER_ENDPOINTS = new Map<string, Scope>([
  ['POST /order', SIGNER_ORDERS],
  ['POST /orders', SIGNER_ORDERS],
  ['DELETE /order', SIGNER_CANCELS],
  ['DELETE /orders', SIGNER_CANCELS],
  ['DELETE /cancel-all', SIGNER_CANCELS],
  ['DELETE /cancel-market-orders', SIGNER_CANCELS],
]);

/** The per-signer bucket scope a CLOB request draws from (none for other requests). */
export function signerScopeOf(api: ApiName, method: string, path: string): Scope | undefined {
  return api === 'clob' ? SIGNER_ENDPOINTS.get(`${method.toUpperCase()} ${path}`) : undefined;
}

/** A scope under the configured scales: limit floor(limit*scale) (min 1), window windowMs*windowScale. */
export function scaleScope(s: Scope, scale: number, windowScale: number): Scope {
  return {
    id: s.id,
    limit: Math.max(1, Math.floor(s.limit * scale + 1e-9)),
    windowMs: Math.max(1, Math.round(s.windowMs * windowScale)),
  };
}
