// HTTP transport for one API: an undici Pool per base URL (keep-alive, explicit timeouts), the
// limiter before every attempt, the response envelope or a bare JSON body, typed errors, 429
// pauses and bounded exponential backoff. POST /order(s) is never re-sent after an unclear outcome.
// Every call has one overall deadline by kind (place, cancel, read) covering its queueing, retries
// and a body that trickles in: undici's own timeouts only bound the gaps between chunks.
import { Pool } from 'undici';
import { settleWithin } from '../core/clock.js';
import type { Config } from '../config.js';
import { AmbiguousSubmitError, ApiError, DeadlineError, RateLimitError, TransportError, type CallKind } from '../core/errors.js';
import { silentLogger, type Logger } from '../core/log.js';
import { scopesFor, type ApiName, type Scope } from './limit-table.js';
import { PRIORITY, type Limiter } from './limiter.js';
import { decodeBody, resetAtMs } from './envelope.js';

export type Method = 'GET' | 'POST' | 'DELETE';
export type QueryValue = string | number | boolean | undefined;

export interface RequestSpec {
  method: Method;
  /** Path without query string, e.g. '/book'. */
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** Limiter priority; default: DELETE -> cancel, POST /order(s) -> place, else normal. */
  priority?: number;
  /** Headers of this request alone (L1 headers of a key request), instead of the transport's auth; never logged. */
  headers?: Record<string, string>;
}

export interface TransportOptions {
  api: ApiName;
  baseUrl: string;
  http: Config['http'];
  retry: Config['retry'];
  limiter: Limiter;
  /** The auth headers of each attempt over its exact body (a venue profile's: a Bearer key, L2 HMAC); never logged. */
  auth?: (method: Method, path: string, bodyText: string | undefined) => Record<string, string> | undefined;
  logger?: Logger;
  /** Real-time sleep used between retries (tests may shorten nothing; config.retry does). */
  sleep?: (ms: number) => Promise<void>;
}

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** The abort reason of an attempt cut by its call's deadline. */
const DEADLINE = Symbol('deadline');

const realSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function header(h: RawResponse['headers'], name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

export function isSubmitPath(method: string, path: string): boolean {
  return method === 'POST' && (path === '/order' || path === '/orders');
}

/** Which deadline a call runs under. */
export function callKind(method: string, path: string): CallKind {
  return isSubmitPath(method, path) ? 'place' : method === 'DELETE' ? 'cancel' : 'read';
}

export class Transport {
  readonly api: ApiName;
  private readonly pool: Pool;
  private readonly prefix: string;
  private readonly headers: Record<string, string>;
  private readonly log: Logger;
  private readonly sleep: (ms: number) => Promise<void>;
  private closed = false;

  constructor(private readonly opts: TransportOptions) {
    this.api = opts.api;
    const u = new URL(opts.baseUrl);
    this.prefix = u.pathname.replace(/\/+$/, '');
    this.pool = new Pool(u.origin, {
      connections: opts.http.connectionsPerOrigin,
      connectTimeout: opts.http.connectTimeoutMs,
      headersTimeout: opts.http.headersTimeoutMs,
      bodyTimeout: opts.http.bodyTimeoutMs,
      keepAliveTimeout: opts.http.keepAliveTimeoutMs,
    });
    this.headers = { accept: 'application/json' };
    this.log = (opts.logger ?? silentLogger).child({ api: opts.api });
    this.sleep = opts.sleep ?? realSleep;
  }

  private backoffMs(attempt: number): number {
    const { baseMs, maxMs } = this.opts.retry;
    return Math.min(maxMs, baseMs * 2 ** (attempt - 1));
  }

  /** Sends the request under the limiter with retries, all within the call's deadline; returns the response data. */
  async request(spec: RequestSpec): Promise<unknown> {
    const { method, path } = spec;
    const scopes = scopesFor(this.api, method, path);
    const submit = isSubmitPath(method, path);
    const idempotent = method === 'GET' || method === 'DELETE';
    const priority = spec.priority ?? (method === 'DELETE' ? PRIORITY.cancel : submit ? PRIORITY.place : PRIORITY.normal);
    const kind = callKind(method, path);
    const http = this.opts.http;
    const deadlineMs = kind === 'place' ? http.placeDeadlineMs : kind === 'cancel' ? http.cancelDeadlineMs : http.readDeadlineMs;
    const deadlineAt = Date.now() + deadlineMs;
    // serialized once: the bytes an L2 signature covers are the bytes sent, on every attempt
    const bodyText = spec.body !== undefined ? JSON.stringify(spec.body) : undefined;
    const overdue = () => new DeadlineError(method, path, kind, deadlineMs);
    /** Sleeps before a retry, or false when the retry could not start before the deadline. */
    const pause = async (ms: number): Promise<boolean> => {
      if (this.closed || Date.now() + ms >= deadlineAt) return false;
      if (ms > 0) await this.sleep(ms);
      return true;
    };
    const attempts = this.opts.retry.attempts;
    const limiter = this.opts.limiter;
    for (let attempt = 1; ; attempt++) {
      // granted at once: no await, so the request is dispatched in the caller's turn (a quote
      // leaves with the frame that caused it); otherwise wait in the limiter's queue (never sent
      // when the deadline comes first: the slot it is granted later goes unused)
      if (
        !limiter.tryAcquire(scopes) &&
        (await settleWithin(
          limiter.acquire(scopes, priority).then(() => true),
          deadlineAt - Date.now(),
        )) !== true
      )
        throw overdue();
      let res: RawResponse;
      try {
        res = await this.send(spec, bodyText, deadlineAt);
      } catch (e) {
        const err = e === DEADLINE ? overdue() : e;
        if (submit) throw new AmbiguousSubmitError(method, path, err);
        if (err instanceof DeadlineError) throw err;
        if (idempotent && attempt < attempts && (await pause(this.backoffMs(attempt)))) {
          this.log.warn({ method, path, attempt, err: (e as Error).message }, 'network error, retrying');
          continue;
        }
        throw new TransportError(method, path, e);
      }
      if (res.status === 429) {
        const now = limiter.clock.now();
        const resetAt = resetAtMs(header(res.headers, 'x-ratelimit-reset'), now);
        const scope = this.limitedScope(scopes, header(res.headers, 'x-ratelimit-limit'));
        if (resetAt !== undefined) limiter.pause(scope.id, resetAt);
        this.log.warn({ method, path, attempt, scope: scope.id, resetAt, remaining: header(res.headers, 'x-ratelimit-remaining') }, 'rate limited (429)');
        const pauseLeft = resetAt !== undefined ? resetAt - now : 0;
        if (attempt < attempts && Date.now() + pauseLeft < deadlineAt && (await pause(this.backoffMs(attempt) - pauseLeft))) continue;
        throw new RateLimitError(method, path, resetAt);
      }
      if (res.status >= 500) {
        const err = this.errorOf(res, spec);
        if (submit) throw new AmbiguousSubmitError(method, path, err);
        if (idempotent && attempt < attempts && (await pause(this.backoffMs(attempt)))) {
          this.log.warn({ method, path, attempt, status: res.status }, 'server error, retrying');
          continue;
        }
        throw err;
      }
      return decodeBody(res.status, res.text, method, path);
    }
  }

  /** The scope a 429 names: the one whose limit matches X-RateLimit-Limit, else the most specific. */
  private limitedScope(scopes: Scope[], limitHeader: string | undefined): Scope {
    const n = limitHeader !== undefined ? Number(limitHeader) : NaN;
    if (Number.isFinite(n)) {
      for (const s of scopes) if (this.opts.limiter.window(s).limit === n) return s;
      for (const s of scopes) if (s.limit === n) return s; // a server that does not share our scale
    }
    return scopes[0];
  }

  private errorOf(res: RawResponse, spec: RequestSpec): ApiError {
    try {
      decodeBody(res.status, res.text, spec.method, spec.path);
    } catch (e) {
      if (e instanceof ApiError) return e;
    }
    return new ApiError(res.status, `HTTP_${res.status}`, res.text.slice(0, 200), spec.method, spec.path);
  }

  /** One attempt, abandoned at deadlineAt (rejects with DEADLINE; the socket is closed). */
  private async send(spec: RequestSpec, bodyText: string | undefined, deadlineAt: number): Promise<RawResponse> {
    let path = this.prefix + spec.path;
    if (spec.query) {
      const qs = new URLSearchParams();
      for (const [k, v] of Object.entries(spec.query)) if (v !== undefined) qs.append(k, String(v));
      const s = qs.toString();
      if (s) path += '?' + s;
    }
    const left = deadlineAt - Date.now();
    if (left <= 0) throw DEADLINE;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(DEADLINE), left);
    try {
      return await this.attempt(spec, path, bodyText, abort.signal);
    } catch (e) {
      throw abort.signal.aborted ? DEADLINE : e;
    } finally {
      clearTimeout(timer);
    }
  }

  private async attempt(spec: RequestSpec, path: string, bodyText: string | undefined, signal: AbortSignal): Promise<RawResponse> {
    let headers = bodyText !== undefined ? { ...this.headers, 'content-type': 'application/json' } : this.headers;
    // signed per attempt: a retry carries a fresh timestamp
    const auth = spec.headers ?? this.opts.auth?.(spec.method, spec.path, bodyText);
    if (auth) headers = { ...headers, ...auth };
    const res = await this.pool.request({
      signal,
      method: spec.method,
      path,
      headers,
      body: bodyText,
      // undici closes the socket after a body on a method that "expects none" (DELETE); the CLOB
      // defines DELETE bodies, so keep the connection instead of reconnecting after every cancel
      reset: false,
    });
    // always consume the body, also on errors, so the keep-alive socket is released
    const text = await res.body.text();
    return { status: res.statusCode, headers: res.headers, text };
  }

  /** Closes the pool; a call still in flight is abandoned (it rejects), never waited for. */
  async close(): Promise<void> {
    this.closed = true;
    await this.pool.destroy();
  }
}
