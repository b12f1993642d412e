// HTTP transport for one API: an undici Pool per base URL (keep-alive, explicit timeouts), the
// limiter before every attempt, the response envelope or a bare JSON body, typed errors, 429
// pauses and bounded exponential backoff. POST /order(s) is never re-sent after an unclear outcome.
// Every call has one overall deadline by kind (place, cancel, read; a heartbeat's is its own)
// covering its queueing, retries and a body that trickles in: undici's own timeouts only bound the
// gaps between chunks.
// POST /order(s) has its own pool, whose idle keep-alive sockets are validated ahead of time, so a
// submit is written in the caller's turn (see SubmitSockets).
import type { Socket } from 'node:net';
import { Client, Pool, buildConnector } from 'undici';
import { settleWithin } from '../core/clock.js';
import type { Config } from '../config.js';
import { AmbiguousSubmitError, ApiError, DeadlineError, OverBurstError, RateLimitError, TransportError, VenueNotReadyError, type CallKind } from '../core/errors.js';
import { keptText, silentLogger, type Logger } from '../core/log.js';
import { CLOB_GENERAL, GENERAL, scopesFor, signerTierOf, type ApiName, type Scope } from './limit-table.js';
import { PRIORITY, type Limiter } from './limiter.js';
import { decodeBody, resetAtMs, retryAfterAtMs } from './envelope.js';
import { exchange, type RawResponse } from './http-exchange.js';

/** The longest wait between tries while the venue answers 425 (its restart takes about 90 s). */
const NOT_READY_MAX_WAIT_MS = 8000;

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
  /** Orders the request counts in the venue's per-signer bucket (POST /orders: the batch; DELETE /orders: the ids); default 1. */
  cost?: number;
  /** This call's overall deadline instead of its kind's (a heartbeat's, which must fail in time for its retry). */
  deadlineMs?: number;
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

/**
 * Told of every attempt's outcome (the status layer's metrics): the HTTP status, or 'error' (no
 * answer) or 'timeout' (the call's deadline), and the attempt's duration in seconds.
 */
export type ExchangeObserver = (api: ApiName, method: Method, path: string, status: number | 'error' | 'timeout', seconds: number) => void;

/** Connections of their own for POST /order(s) (at most http.connectionsPerOrigin). */
const SUBMIT_CONNECTIONS = 4;
/**
 * Connections of their own for cancels, as many as the scheduler has requests in flight, and one
 * for the heartbeats: undici serves a pool's queue in arrival order, so in the pool of reads a
 * cancel waited behind every read sent before it (a resync's books) whatever the limiter's
 * priorities, and a heartbeat behind slow cancels would miss its 2 s deadline.
 */
const CANCEL_CONNECTIONS = 8;

/** The dead-man switch's heartbeats (their own connection). */
export function isHeartbeatPath(method: string, path: string): boolean {
  return method === 'POST' && path.endsWith('/heartbeats');
}

/** keepSubmitWarm: how often the submit connections are checked, and the idle time after which one carries a GET. */
const WARM_CHECK_MS = 1000;
const WARM_IDLE_MS = 10_000;
const WARM_PATH = '/time';

interface SubmitConn {
  client: Client;
  inFlight: number;
  connected: boolean;
  /** performance.now() of its last request (monotonic: a step of the system clock does not make it look idle or busy). */
  usedAt: number;
  warming: boolean;
  /** An answer ended on it since the last validation pass (undici would validate it before the next write). */
  answered: boolean;
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

/** Our hooks into undici's HTTP/1.1 client state on a socket, by symbol description (private API). */
interface SocketSymbols {
  used: symbol;
  validation: symbol;
  writing: symbol;
}

function socketSymbols(s: Socket): SocketSymbols | undefined {
  const by = new Map<string, symbol>();
  for (const sym of Object.getOwnPropertySymbols(s)) if (sym.description) by.set(sym.description, sym);
  const used = by.get('kSocketUsed');
  const validation = by.get('kIdleSocketValidation');
  const writing = by.get('writing');
  return used && validation && writing ? { used, validation, writing } : undefined;
}

/**
 * The sockets of the submit pool, validated ahead of time. undici (v7, client-h1.js
 * scheduleIdleSocketValidation) writes a request on a reused idle keep-alive socket only in the
 * check phase of the loop turn (setImmediate), so that bytes, FIN or RST already pending on the
 * socket are read first: a quote would wait for the rest of the turn (the other I/O callbacks of
 * the poll phase), 0.2 ms at p50 and milliseconds in the tail. Here the same check runs when the
 * socket goes idle: in the check phase after each submit's response, every idle socket of this
 * pool is marked validated (undici's "not reused yet" flag), so the next POST is written
 * synchronously. Data arriving while the socket is idle is read by undici's readable/end
 * listeners and destroys the socket as before (no request to match it). What remains unchecked
 * is data that arrives in the very poll phase in which the submit is written, before its own
 * callback runs. If undici's internals change (the symbols are not found), nothing is touched
 * and undici validates as usual.
 */
class SubmitSockets {
  private readonly sockets = new Set<Socket>();
  private sym: SocketSymbols | undefined | null = null;
  private pending = false;

  /** `checked` runs after each validation pass (the idle connections are then written to at once). */
  constructor(private readonly checked: () => void) {}

  /** Connections opened for submits (keepSubmitWarm's and any a submit had to open). */
  connects = 0;

  connector(timeout: number): buildConnector.connector {
    const base = buildConnector({ timeout });
    return (opts, cb) =>
      base(opts, (err, socket) => {
        if (socket) this.connects++;
        if (socket) {
          this.sockets.add(socket as Socket);
          socket.once('close', () => this.sockets.delete(socket as Socket));
        }
        (cb as (e: Error | null, s: unknown) => void)(err, socket);
      });
  }

  /** After a submit's response: validate the idle sockets in this turn's check phase. */
  afterResponse(): void {
    if (this.pending) return;
    this.pending = true;
    setImmediate(() => {
      this.pending = false;
      for (const s of this.sockets) {
        if (s.destroyed) continue;
        if (this.sym === null) this.sym = socketSymbols(s);
        const sym = this.sym;
        if (!sym) return;
        const rec = s as unknown as Record<symbol, unknown>;
        // idle (not writing, no validation of undici's own pending): reusable at once
        if (rec[sym.used] === true && rec[sym.validation] === 0 && rec[sym.writing] === false) rec[sym.used] = false;
      }
      this.checked();
    });
  }
}

export class Transport {
  readonly api: ApiName;
  private readonly pool: Pool;
  /** Cancels (every DELETE): never queued behind reads. */
  private readonly cancels: Pool;
  /** Heartbeats: never queued behind anything. */
  private readonly heartbeats: Client;
  /**
   * POST /order(s) only: connections of their own, chosen here rather than by a Pool (a Pool
   * takes a connection whose response just ended for busy until the next check phase and opens
   * another one: 2 to 7 new connections in an 8 s run). An idle connected one first.
   */
  private readonly submitClients: SubmitConn[] = [];
  private warmTimer: NodeJS.Timeout | undefined;
  private readonly submitSockets = new SubmitSockets(() => {
    for (const c of this.submitClients) if (c.inFlight === 0) c.answered = false;
  });
  private readonly prefix: string;
  private readonly headers: Record<string, string>;
  private readonly bodyHeaders: Record<string, string>;
  private readonly log: Logger;
  private readonly sleep: (ms: number) => Promise<void>;
  private closed = false;
  /** 425s (the venue's matching engine restarting): how many waits in a row, and until when the current one holds (limiter clock). */
  /** Order submits answered 429 in a row (a submit that goes through ends the run): each pauses longer. */
  private submit429s = 0;
  private notReadyWaits = 0;
  private notReadyUntil = -Infinity;
  /** Told of every attempt (undefined: nothing is measured). */
  observer: ExchangeObserver | undefined;

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
    this.cancels = new Pool(u.origin, {
      connections: Math.min(CANCEL_CONNECTIONS, opts.http.connectionsPerOrigin),
      connectTimeout: opts.http.connectTimeoutMs,
      headersTimeout: opts.http.headersTimeoutMs,
      bodyTimeout: opts.http.bodyTimeoutMs,
      keepAliveTimeout: opts.http.keepAliveTimeoutMs,
    });
    this.heartbeats = new Client(u.origin, {
      connectTimeout: opts.http.connectTimeoutMs,
      headersTimeout: opts.http.headersTimeoutMs,
      bodyTimeout: opts.http.bodyTimeoutMs,
      keepAliveTimeout: opts.http.keepAliveTimeoutMs,
    });
    for (let i = 0; i < Math.min(SUBMIT_CONNECTIONS, opts.http.connectionsPerOrigin); i++) {
      const client = new Client(u.origin, {
        connect: this.submitSockets.connector(opts.http.connectTimeoutMs),
        headersTimeout: opts.http.headersTimeoutMs,
        bodyTimeout: opts.http.bodyTimeoutMs,
        keepAliveTimeout: opts.http.keepAliveTimeoutMs,
        // a submit is never pipelined behind another request (undici's default, stated)
        pipelining: 1,
      });
      const c: SubmitConn = { client, inFlight: 0, connected: false, usedAt: 0, warming: false, answered: false };
      client.on('connect', () => (c.connected = true));
      client.on('disconnect', () => (c.connected = false));
      this.submitClients.push(c);
    }
    this.headers = { accept: 'application/json' };
    this.bodyHeaders = { ...this.headers, 'content-type': 'application/json' };
    this.log = (opts.logger ?? silentLogger).child({ api: opts.api });
    this.sleep = opts.sleep ?? realSleep;
  }

  /** The overall deadline of a call of `kind` (unless its RequestSpec names one). */
  deadlineOf(kind: CallKind): number {
    const http = this.opts.http;
    return kind === 'place' ? http.placeDeadlineMs : kind === 'cancel' ? http.cancelDeadlineMs : http.readDeadlineMs;
  }

  private backoffMs(attempt: number): number {
    const { baseMs, maxMs } = this.opts.retry;
    return Math.min(maxMs, baseMs * 2 ** (attempt - 1));
  }

  /** Sends the request under the limiter with retries, all within the call's deadline; returns the response data. */
  async request(spec: RequestSpec): Promise<unknown> {
    const { method, path } = spec;
    const limiter = this.opts.limiter;
    const scopes = limiter.scopesOf(this.api, method, path);
    const bucket = scopes.find((s) => s.bucket !== undefined);
    const cost = spec.cost ?? 1;
    // the venue refuses a batch dearer than its bucket can ever hold, whatever the wait
    const maxCost = limiter.maxCost(scopes); // Infinity without a bucket
    if (cost > maxCost) throw new OverBurstError(`${method} ${path}`, cost, maxCost, limiter.signerTier ?? 'standard');
    const submit = isSubmitPath(method, path);
    const idempotent = method === 'GET' || method === 'DELETE';
    const priority = spec.priority ?? (method === 'DELETE' ? PRIORITY.cancel : submit ? PRIORITY.place : PRIORITY.normal);
    const kind = callKind(method, path);
    const deadlineMs = spec.deadlineMs ?? this.deadlineOf(kind);
    const deadlineAt = performance.now() + deadlineMs;
    // serialized once: the bytes an L2 signature covers are the bytes sent, on every attempt
    const bodyText = spec.body !== undefined ? JSON.stringify(spec.body) : undefined;
    const overdue = () => new DeadlineError(method, path, kind, deadlineMs);
    /** Sleeps before a retry, or false when the retry could not start before the deadline. */
    const pause = async (ms: number): Promise<boolean> => {
      if (this.closed || performance.now() + ms >= deadlineAt) return false;
      if (ms > 0) await this.sleep(ms);
      return true;
    };
    const attempts = this.opts.retry.attempts;
    for (let attempt = 1; ; attempt++) {
      // granted at once: no await, so the request is dispatched in the caller's turn (a quote
      // leaves with the frame that caused it); otherwise wait in the limiter's queue (never sent
      // when the deadline comes first: the wait then leaves the queue, taking no slot later)
      // a per-signer bucket's tokens are held until the answer (Limiter.answered, below)
      if (!limiter.tryAcquire(scopes, cost, true)) {
        const giveUp = new AbortController();
        const waited = limiter.acquire(scopes, priority, cost, giveUp.signal, true).then(
          () => true,
          (e: unknown) => (giveUp.signal.aborted ? false : Promise.reject(e)),
        );
        const granted = await settleWithin(waited, deadlineAt - performance.now());
        if (granted !== true) {
          giveUp.abort();
          // granted as the deadline came: nothing is sent on it, and its tokens come back
          void waited.then(
            (ok) => ok && limiter.answered(scopes, cost, false),
            () => {},
          );
          throw overdue();
        }
      }
      const sent = await this.send(spec, bodyText, deadlineAt).then(
        (r): { res: RawResponse } => ({ res: r }),
        (e: unknown) => ({ failed: e }),
      );
      // answered or failed: the venue took the tokens by now, if it ever got the request
      limiter.answered(scopes, cost);
      if ('failed' in sent) {
        const e = sent.failed;
        const err = e === DEADLINE ? overdue() : e;
        if (submit) throw new AmbiguousSubmitError(method, path, err);
        if (err instanceof DeadlineError) throw err;
        if (idempotent && attempt < attempts && (await pause(this.backoffMs(attempt)))) {
          this.log.warn({ method, path, attempt, err: (e as Error).message }, 'network error, retrying');
          continue;
        }
        throw new TransportError(method, path, e);
      }
      const res = sent.res;
      if (bucket) this.signerHeaders(res, bucket);
      if (res.status === 429) {
        const now = limiter.clock.now();
        // Retry-After when the answer names one: relative, so the venue's clock does not matter (an
        // absolute reset read on ours moves by the skew, a few seconds that start-up lets pass, and
        // past a place's deadline); else the latest of the absolute ones (the spec's
        // X-RateLimit-Reset, the venue's per-signer Poly-RateLimit-Reset)
        // absolute times are epoch: read against Date.now(), placed on the limiter's (monotonic) clock
        const epochNow = Date.now();
        const retryAt = retryAfterAtMs(header(res.headers, 'retry-after'), now, epochNow);
        const times = [resetAtMs(header(res.headers, 'x-ratelimit-reset'), now, epochNow), resetAtMs(header(res.headers, 'poly-ratelimit-reset'), now, epochNow)].filter(
          (t): t is number => t !== undefined,
        );
        const named = retryAt ?? (times.length ? Math.max(...times) : undefined);
        const limitHeader = header(res.headers, 'x-ratelimit-limit');
        const scope = this.limitedScope(scopes, limitHeader);
        // a trading 429 that names no scope of ours is the venue's per-signer bucket: it holds every endpoint the bucket spans
        const held = limitHeader === undefined && bucket ? bucket : scope;
        // no longer than the held scope can be full (Limiter.pause bounds it)
        const resetAt = named !== undefined && held !== undefined ? limiter.pause(held.id, named) : named;
        // nothing remaining: the venue's window is full, whatever ours holds (another process on the key)
        if (resetAt !== undefined && scope !== undefined && header(res.headers, 'x-ratelimit-remaining')?.trim() === '0') limiter.saturate(scope, resetAt);
        this.log.warn(
          {
            method,
            path,
            attempt,
            scope: held?.id ?? null,
            resetAt,
            remaining: header(res.headers, 'x-ratelimit-remaining') ?? header(res.headers, 'poly-ratelimit-remaining'),
          },
          'rate limited (429)',
        );
        // a submit is not retried: the venue took nothing, and this signed quote would go out stale
        // after the wait; the scope's pause holds the caller's newest until then (as after a 425).
        // Always a pause, at least a backoff growing with the 429s in a row: a 429 naming no reset
        // (or no scope of ours) would otherwise have the newest quote resent at the debounce
        if (submit) {
          this.submit429s++;
          const target = held ?? bucket ?? scopes.find((s) => s !== CLOB_GENERAL && s !== GENERAL);
          const wanted = Math.max(resetAt ?? 0, now + this.backoffMs(Math.min(this.submit429s, 16)));
          const until = target ? limiter.pause(target.id, wanted) : wanted;
          throw new RateLimitError(method, path, until, true);
        }
        const pauseLeft = resetAt !== undefined ? resetAt - now : 0;
        // a paused scope makes the limiter's acquire wait out pauseLeft, so only the rest of the
        // backoff is slept here; with nothing paused this sleep is the only wait the venue's reset gets
        const wait = held !== undefined ? this.backoffMs(attempt) - pauseLeft : Math.max(this.backoffMs(attempt), pauseLeft);
        if (attempt < attempts && performance.now() + pauseLeft < deadlineAt && (await pause(wait))) continue;
        throw new RateLimitError(method, path, resetAt);
      }
      if (res.status === 425) throw this.notReady(method, path, scopes, bucket);
      if (res.status >= 500) {
        const err = this.errorOf(res, spec);
        if (submit) throw new AmbiguousSubmitError(method, path, err);
        if (idempotent && attempt < attempts && (await pause(this.backoffMs(attempt)))) {
          this.log.warn({ method, path, attempt, status: res.status }, 'server error, retrying');
          continue;
        }
        throw err;
      }
      if (submit && res.status < 300) this.submit429s = 0;
      // an order request gone through (a place or a cancel; a heartbeat's answer says nothing of the matching engine)
      if (this.notReadyWaits > 0 && res.status < 300 && kind !== 'read' && !path.endsWith('/heartbeats')) {
        this.notReadyWaits = 0;
        this.notReadyUntil = -Infinity;
      }
      return decodeBody(res.status, res.text, method, path);
    }
  }

  /**
   * A 425: the venue's matching engine is restarting (Polymarket's weekly restart, about 90 s) and
   * carried nothing out. Its docs ask clients to back off from 1-2 s, longer each time: the
   * request's scope (the per-signer bucket where there is one) is paused for 1, 2, 4, 8 s, then
   * every 8 s until an order request goes through. Not retried here: the caller's work (a requote)
   * is coalesced while it waits, and no 425 is a refusal or an error of ours.
   */
  private notReady(method: Method, path: string, scopes: Scope[], bucket: Scope | undefined): VenueNotReadyError {
    const limiter = this.opts.limiter;
    const now = limiter.clock.now();
    // requests answered together count as one wait
    if (now >= this.notReadyUntil) {
      this.notReadyWaits++;
      this.notReadyUntil = now + Math.min(NOT_READY_MAX_WAIT_MS, 1000 * 2 ** (this.notReadyWaits - 1));
      this.log.warn({ method, path, waits: this.notReadyWaits, waitMs: this.notReadyUntil - now }, 'venue not ready (425): its matching engine is restarting; order requests wait');
    }
    const held = bucket ?? this.limitedScope(scopes, undefined);
    if (held !== undefined) limiter.pause(held.id, this.notReadyUntil);
    return new VenueNotReadyError(method, path, this.notReadyUntil);
  }

  /** The most orders one request to `method path` may count (the per-signer bucket's burst; Infinity without one). */
  maxCost(method: Method, path: string): number {
    return this.opts.limiter.maxCost(this.opts.limiter.scopesOf(this.api, method, path));
  }

  /** The per-signer headers of a trading answer: the tier the venue applied, and the bucket's balance after this request. */
  private signerHeaders(res: RawResponse, bucket: Scope): void {
    const limiter = this.opts.limiter;
    const tier = signerTierOf(header(res.headers, 'poly-ratelimit-tier'));
    if (tier !== undefined && limiter.setSignerTier(tier)) this.log.info({ tier }, 'per-signer rate-limit tier');
    const left = header(res.headers, 'poly-ratelimit-remaining');
    if (left !== undefined && left.trim() !== '') limiter.signerRemaining(bucket, Number(left));
  }

  /**
   * The scope a 429 names: the one whose limit matches X-RateLimit-Limit, else the most specific;
   * none when that would be one every CLOB request shares (a request with no scope of its own, such
   * as the real venue's GET /data/orders): paused on a guess, it would hold every cancel for up to
   * the Retry-After. The request itself still waits that long before its retry.
   */
  private limitedScope(scopes: Scope[], limitHeader: string | undefined): Scope | undefined {
    const n = limitHeader !== undefined ? Number(limitHeader) : NaN;
    if (Number.isFinite(n)) {
      for (const s of scopes) if (this.opts.limiter.window(s).limit === n) return s;
      for (const s of scopes) if (s.limit === n) return s; // a server that does not share our scale
    }
    const s = scopes[0];
    return s === CLOB_GENERAL || s === GENERAL ? undefined : s;
  }

  private errorOf(res: RawResponse, spec: RequestSpec): ApiError {
    try {
      decodeBody(res.status, res.text, spec.method, spec.path);
    } catch (e) {
      if (e instanceof ApiError) return e;
    }
    return new ApiError(res.status, `HTTP_${res.status}`, keptText(res.text, 200), spec.method, spec.path);
  }

  /** One attempt, told to the observer when there is one. */
  private send(spec: RequestSpec, bodyText: string | undefined, deadlineAt: number): Promise<RawResponse> {
    const obs = this.observer;
    if (!obs) return this.sendOnce(spec, bodyText, deadlineAt);
    const t0 = performance.now();
    const done = (s: number | 'error' | 'timeout') => obs(this.api, spec.method, spec.path, s, (performance.now() - t0) / 1000);
    return this.sendOnce(spec, bodyText, deadlineAt).then(
      (r) => (done(r.status), r),
      (e: unknown) => {
        done(e === DEADLINE ? 'timeout' : 'error');
        throw e;
      },
    );
  }

  /** One attempt, abandoned at deadlineAt (rejects with DEADLINE; the socket is closed). */
  private async sendOnce(spec: RequestSpec, bodyText: string | undefined, deadlineAt: number): Promise<RawResponse> {
    let path = this.prefix + spec.path;
    if (spec.query) {
      const qs = new URLSearchParams();
      for (const [k, v] of Object.entries(spec.query)) if (v !== undefined) qs.append(k, String(v));
      const s = qs.toString();
      if (s) path += '?' + s;
    }
    const left = deadlineAt - performance.now();
    if (left <= 0) throw DEADLINE;
    let headers = bodyText !== undefined ? this.bodyHeaders : this.headers;
    // signed per attempt: a retry carries a fresh timestamp
    const auth = spec.headers ?? this.opts.auth?.(spec.method, spec.path, bodyText);
    if (auth) headers = { ...headers, ...auth };
    const submit = isSubmitPath(spec.method, spec.path) ? this.submitClient() : undefined;
    if (!submit) {
      const via = spec.method === 'DELETE' ? this.cancels : isHeartbeatPath(spec.method, spec.path) ? this.heartbeats : this.pool;
      return exchange(via, { method: spec.method, path, headers, body: bodyText }, left, DEADLINE);
    }
    submit.inFlight++;
    submit.usedAt = performance.now();
    try {
      return await exchange(submit.client, { method: spec.method, path, headers, body: bodyText }, left, DEADLINE);
    } finally {
      submit.inFlight--;
      submit.answered = true;
      this.submitSockets.afterResponse();
    }
  }

  /**
   * The submit connection to use: an idle connected one already validated since its last answer
   * (written at once), else an idle connected one (undici validates it in the check phase first:
   * the rest of the loop's I/O callbacks), else the least loaded connected one (a wait for one
   * answer on a warm connection beats a new TCP and TLS handshake), else (none is connected yet)
   * an idle one.
   */
  private submitClient(): SubmitConn {
    let idle: SubmitConn | undefined;
    let best: SubmitConn | undefined;
    for (const c of this.submitClients) {
      if (!c.connected) continue;
      if (c.inFlight === 0) {
        if (!c.answered) return c;
        idle ??= c;
      } else if (!best || c.inFlight < best.inFlight) best = c;
    }
    if (idle ?? best) return (idle ?? best) as SubmitConn;
    for (const c of this.submitClients) if (c.inFlight === 0) return c;
    return this.submitClients[0];
  }

  /** Connections opened for POST /order(s) so far. */
  get submitConnects(): number {
    return this.submitSockets.connects;
  }

  /**
   * Opens the submit connections now and keeps them open, so no order waits for a connection:
   * every WARM_CHECK_MS, a connection that is closed, or idle for WARM_IDLE_MS, carries a GET
   * /time (under the limiter; skipped when its window is full). Stopped by close().
   */
  keepSubmitWarm(): void {
    if (this.warmTimer || this.closed) return;
    this.warmSubmit();
    this.warmTimer = setInterval(() => this.warmSubmit(), WARM_CHECK_MS);
    this.warmTimer.unref();
  }

  private warmSubmit(): void {
    const now = performance.now();
    const scopes = scopesFor(this.api, 'GET', WARM_PATH);
    for (const c of this.submitClients) {
      if (this.closed || c.warming || c.inFlight > 0 || (c.connected && now - c.usedAt < WARM_IDLE_MS)) continue;
      if (!this.opts.limiter.tryAcquire(scopes)) return;
      c.warming = true;
      c.usedAt = now;
      // after its answer, the socket is validated as after a submit's (the next POST is written at once)
      exchange(c.client, { method: 'GET', path: this.prefix + WARM_PATH, headers: this.headers, body: undefined }, this.opts.http.readDeadlineMs, DEADLINE).then(
        () => {
          c.warming = false;
          c.answered = true;
          this.submitSockets.afterResponse();
        },
        (err: unknown) => {
          c.warming = false;
          if (!this.closed) this.log.debug({ err: err === DEADLINE ? 'deadline' : (err as Error).message }, 'submit connection warm-up failed');
        },
      );
    }
  }

  /** Closes the pool; a call still in flight is abandoned (it rejects), never waited for. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.warmTimer);
    await Promise.all([this.pool.destroy(), this.cancels.destroy(), this.heartbeats.destroy(), ...this.submitClients.map((c) => c.client.destroy())]);
  }
}
