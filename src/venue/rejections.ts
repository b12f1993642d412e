// The venue's reasons for refusing an order, as one typed code (wire-formats.md 4.4). The only
// place that reads the venue's error text: the engine compares codes, never messages.
import { ApiError } from '../core/errors.js';

export const REJECT_CODES = [
  'INVALID_ORDER_MIN_TICK_SIZE',
  'INVALID_ORDER_MIN_SIZE',
  'INVALID_ORDER_DUPLICATED',
  'INVALID_ORDER_NOT_ENOUGH_BALANCE',
  'INVALID_ORDER_EXPIRATION',
  'INVALID_ORDER_ERROR',
  'INVALID_POST_ONLY_ORDER_TYPE',
  'INVALID_POST_ONLY_ORDER',
  'EXECUTION_ERROR',
  'ORDER_DELAYED',
  'DELAYING_ORDER_ERROR',
  'FOK_ORDER_NOT_FILLED_ERROR',
  'MARKET_NOT_READY',
  // orders signed for exchanges the venue no longer takes (its GET /version moved on): every order is refused
  'ORDER_VERSION_MISMATCH',
] as const;

/** A refusal's code; UNKNOWN when the venue's text names none of them. */
export type RejectCode = (typeof REJECT_CODES)[number] | 'UNKNOWN';

// longest first: INVALID_POST_ONLY_ORDER_TYPE must not read as INVALID_POST_ONLY_ORDER
const BY_LENGTH = [...REJECT_CODES].sort((a, b) => b.length - a.length);

/**
 * The real venue's sentences for the same refusals, where its answer names no code: 400
 * {"error":"order 0x.. crosses the book"} (public reports: Polymarket/clob-client issue 305,
 * py-clob-client issue 231); the others as the emulator's polymarket profile words them
 * (src/emulator/polymarket-orders.ts, from public issue threads).
 */
const SENTENCES: ReadonlyArray<[RegExp, RejectCode]> = [
  [/crosses the book/i, 'INVALID_POST_ONLY_ORDER'],
  [/breaks minimum tick size/i, 'INVALID_ORDER_MIN_TICK_SIZE'],
  [/lower than the minimum/i, 'INVALID_ORDER_MIN_SIZE'],
  [/not enough balance/i, 'INVALID_ORDER_NOT_ENOUGH_BALANCE'],
  [/is invalid\. duplicated/i, 'INVALID_ORDER_DUPLICATED'],
  [/expiration/i, 'INVALID_ORDER_EXPIRATION'],
  [/fully filled or killed/i, 'FOK_ORDER_NOT_FILLED_ERROR'],
];

/**
 * The venue's word for a version mismatch, lower case (400 {"error":"order_version_mismatch"});
 * the official client looks for it anywhere in the error (client.js _isOrderVersionMismatch).
 */
const VERSION_MISMATCH = /order_version_mismatch/i;

/** The code a venue's error text carries: the text itself, a code named inside it, or a known sentence. */
export function rejectCodeOf(text: string | undefined): RejectCode {
  if (!text) return 'UNKNOWN';
  const t = text.trim();
  // first: whatever else such an answer names, no order of ours can pass until we sign another version
  if (VERSION_MISMATCH.test(t)) return 'ORDER_VERSION_MISMATCH';
  if ((REJECT_CODES as readonly string[]).includes(t)) return t as RejectCode;
  for (const c of BY_LENGTH) if (t.includes(c)) return c;
  for (const [re, c] of SENTENCES) if (re.test(t)) return c;
  return 'UNKNOWN';
}

/**
 * A place the venue answered with a client error (4xx, not 429 or 425), or with an error envelope
 * ({"success":false,"error":{code}}) under a 2xx status: a clear refusal, with its code, or
 * undefined for anything else (an unclear outcome stays an error for the caller).
 */
export function refusalOf(err: unknown): { code: RejectCode; message: string } | undefined {
  // 429 and 425 (the matching engine restarting) were not judged at all: not refusals
  if (!(err instanceof ApiError) || err.status < 200 || (err.status >= 300 && err.status < 400) || err.status >= 500 || err.status === 429 || err.status === 425) return undefined;
  const code = rejectCodeOf(err.code) !== 'UNKNOWN' ? rejectCodeOf(err.code) : rejectCodeOf(err.apiMessage);
  // under a 2xx only a refusal it names is one: another failure there ("timeout") is unclear, as a 5xx is
  if (err.status < 300 && code === 'UNKNOWN') return undefined;
  return { code, message: err.apiMessage };
}
