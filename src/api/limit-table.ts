// The rate-limit table of spec section 8 — the ONE place these numbers live. `scopesFor` names
// every scope a request counts against; the client limiter and the emulator both use it, each
// scope being one sliding window (a trading endpoint has two: 10 s burst and 10 min sustained).

export type ApiName = 'clob' | 'gamma' | 'data' | 'content' | 'relayer';
export type HttpMethod = 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';

export interface Scope {
  /** Stable id, e.g. 'general', 'clob:GET /book', 'clob:POST /orders:sustained'. */
  readonly id: string;
  readonly limit: number;
  readonly windowMs: number;
}

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
 * live since the summer of 2026): one for orders, one for cancels, each counting orders rather
 * than requests and spanning several endpoints. They are not modelled as windows here (their rates
 * depend on the account's volume tier); a 429 from one of them holds every endpoint it spans.
 */
const SIGNER_BUCKETS: ReadonlyArray<ReadonlyArray<string>> = [
  ['POST /order', 'POST /orders'],
  ['DELETE /order', 'DELETE /orders', 'DELETE /cancel-all', 'DELETE /cancel-market-orders'],
];

/** The burst scopes of every endpoint in the per-signer bucket of `method path` (none for other requests). */
export function signerBucketScopes(api: ApiName, method: string, path: string): Scope[] {
  if (api !== 'clob') return [];
  const ep = `${method.toUpperCase()} ${path}`;
  const bucket = SIGNER_BUCKETS.find((b) => b.includes(ep));
  return bucket ? bucket.map((e) => (clobEndpoint.get(e) as Scope[])[0]) : [];
}

/** A scope under the configured scales: limit floor(limit*scale) (min 1), window windowMs*windowScale. */
export function scaleScope(s: Scope, scale: number, windowScale: number): Scope {
  return {
    id: s.id,
    limit: Math.max(1, Math.floor(s.limit * scale + 1e-9)),
    windowMs: Math.max(1, Math.round(s.windowMs * windowScale)),
  };
}
