// Small HTTP helpers shared by the emulator's route files: the request shape routes see, the
// response envelope of spec section 7, and cursor/offset pagination.

export interface EmuRequest {
  method: string;
  /** Path below the API prefix, e.g. '/book'. */
  path: string;
  query: URLSearchParams;
  body: unknown;
  /** The Bearer key, when one was sent. */
  apiKey?: string;
  /** The request headers (lower-case names) and the body text as sent: the polymarket profile signs both. */
  headers?: Record<string, string | string[] | undefined>;
  raw?: string;
}

export interface EmuReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export function ok(data: unknown, status = 200): EmuReply {
  return { status, body: { success: true, data } };
}

export function fail(status: number, code: string, message: string, headers?: Record<string, string>): EmuReply {
  return { status, body: { success: false, error: { code, message } }, headers };
}

export const notFound = (what = 'not found'): EmuReply => fail(404, 'NOT_FOUND', what);
export const badRequest = (message: string): EmuReply => fail(400, 'BAD_REQUEST', message);

export const END_CURSOR = 'LTE=';

/** Non-negative integer query parameter, or the default; NaN when malformed. */
export function intParam(q: URLSearchParams, name: string, dflt: number): number {
  const v = q.get(name);
  if (v === null || v === '') return dflt;
  return /^\d{1,9}$/.test(v) ? Number(v) : NaN;
}

/** A cursor page (wire-formats.md 4.3): next_cursor is the base64 offset, "LTE=" at the end. */
export function cursorPage<T>(items: readonly T[], q: URLSearchParams, dfltLimit = 10): EmuReply {
  const limit = Math.min(intParam(q, 'limit', dfltLimit), 1000);
  const cur = q.get('next_cursor');
  let offset = intParam(q, 'offset', 0);
  if (cur && cur !== 'MA==') {
    if (cur === END_CURSOR) return ok({ data: [], next_cursor: END_CURSOR, limit, count: 0 });
    const n = Number(Buffer.from(cur, 'base64').toString('utf8'));
    offset = Number.isInteger(n) && n >= 0 ? n : NaN;
  }
  if (!Number.isFinite(limit) || limit < 1 || !Number.isFinite(offset)) return badRequest('invalid limit, offset or next_cursor');
  const data = items.slice(offset, offset + limit);
  const end = offset + data.length;
  const next = end >= items.length ? END_CURSOR : Buffer.from(String(end)).toString('base64');
  return ok({ data, next_cursor: next, limit, count: data.length });
}

/** An offset list (Gamma, Data, Content): a bare array slice. */
export function offsetList<T>(items: readonly T[], q: URLSearchParams, dfltLimit = 10): EmuReply {
  const limit = intParam(q, 'limit', dfltLimit);
  const offset = intParam(q, 'offset', 0);
  if (!Number.isFinite(limit) || !Number.isFinite(offset)) return badRequest('invalid limit or offset');
  return ok(items.slice(offset, offset + limit));
}
