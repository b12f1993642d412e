// Response bodies: the envelope {success, data | error{code,message}} of spec section 7, or a bare
// JSON body (success by HTTP status; bare failures like {"error":"Invalid token id"}), and the
// X-RateLimit-Reset header, whose unit the spec leaves open.
import { ApiError, ResponseShapeError } from '../core/errors.js';
import { keptText } from '../core/log.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function isEnvelope(b: unknown): b is Obj {
  if (!isObj(b) || typeof b.success !== 'boolean') return false;
  return b.success ? 'data' in b : isObj(b.error);
}

/**
 * A venue's text as far as we keep it: it goes into logs, error lines and the store (an order's
 * refusal reason), so a 20 MB message must not.
 */
const MAX_VENUE_TEXT = 500;
/** The longest failure body kept whole on its error (ApiError.body). */
const MAX_BODY_KEPT = 4096;
const cut = (t: string): string => keptText(t, MAX_VENUE_TEXT, '...');

function bareMessage(body: unknown, text: string): string {
  if (isObj(body)) {
    for (const k of ['error', 'errorMsg', 'message']) {
      const v = body[k];
      if (typeof v === 'string' && v.length) return cut(v);
      if (isObj(v) && typeof v.message === 'string') return cut(v.message);
    }
  }
  if (typeof body === 'string') return keptText(body, 200);
  return keptText(text, 200) || '(empty body)';
}

/** The data of a response, or an ApiError for a failure (4xx, 5xx, or success:false). */
export function decodeBody(status: number, text: string, method: string, path: string): unknown {
  let body: unknown = null;
  let json = true;
  if (text.length) {
    try {
      body = JSON.parse(text);
    } catch {
      json = false;
      body = text;
    }
  }
  const ok = status >= 200 && status < 300;
  // a body that claims to be an envelope must be one: {"success":"yes","data":[]} is not "no orders"
  if (json && isObj(body) && 'success' in body && typeof body.success !== 'boolean') {
    throw new ResponseShapeError(method, path, `success must be a boolean, got ${JSON.stringify(body.success)?.slice(0, 40)}`);
  }
  if (json && isEnvelope(body)) {
    if (body.success === true && ok) return body.data;
    const err = isObj(body.error) ? body.error : {};
    const code = typeof err.code === 'string' && err.code ? cut(err.code) : `HTTP_${status}`;
    const message = typeof err.message === 'string' ? cut(err.message) : bareMessage(body, text);
    throw new ApiError(status, code, message, method, path);
  }
  if (ok) return body;
  const code = isObj(body) && typeof body.code === 'string' && body.code ? cut(body.code) : `HTTP_${status}`;
  // the parsed body rides on the error (a heartbeat refusal names the id to go on with) and is
  // logged with it: only while it is small
  throw new ApiError(status, code, bareMessage(body, text), method, path, text.length <= MAX_BODY_KEPT ? body : undefined);
}

const MAX_PAUSE_MS = 15 * 60_000;

/**
 * Retry-After as a time in ms on the caller's clock (`nowMs`): a delay in seconds (fractions taken)
 * or an HTTP date, read against `epochNowMs` (Date.now(): the caller's clock may be monotonic).
 * Clamped as resetAtMs is.
 */
export function retryAfterAtMs(raw: string | undefined, nowMs: number, epochNowMs = nowMs): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const v = Number(raw);
  const at = Number.isFinite(v) ? (v >= 0 ? nowMs + v * 1000 : NaN) : nowMs + (Date.parse(raw) - epochNowMs);
  if (!Number.isFinite(at)) return undefined;
  return Math.min(Math.max(at, nowMs), nowMs + MAX_PAUSE_MS);
}

/**
 * X-RateLimit-Reset as a time in ms on the caller's clock (`nowMs`). Accepts epoch milliseconds
 * (>= 1e12) and epoch seconds (>= 1e9), read against `epochNowMs` (Date.now(): the caller's clock
 * may be monotonic), a delta in seconds (<= 3600) or else a delta in milliseconds. Clamped to
 * [now, now + 15 min] so a wrong header cannot stall a scope for long.
 */
export function resetAtMs(raw: string | undefined, nowMs: number, epochNowMs = nowMs): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const v = Number(raw);
  if (!Number.isFinite(v) || v < 0) return undefined;
  let at: number;
  if (v >= 1e12) at = nowMs + (v - epochNowMs);
  else if (v >= 1e9) at = nowMs + (v * 1000 - epochNowMs);
  else if (v <= 3600) at = nowMs + v * 1000;
  else at = nowMs + v;
  return Math.min(Math.max(at, nowMs), nowMs + MAX_PAUSE_MS);
}
