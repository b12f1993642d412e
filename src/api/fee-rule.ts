// The fee rule of a market from the CLOB's market info, GET /clob-markets/{condition_id}, read as
// the official client reads it (src/core/fees.ts has the facts): the response's `fd` holds `r` (the
// rate, a fraction) and `e` (the exponent), numbers; a missing `fd`, or a missing r or e inside
// it, counts as 0, so a market without `fd` charges no fee. The response must carry its token
// list `t` (the client refuses the response without it).
import type { FeeRule } from '../core/fees.js';

export type { FeeRule };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A field of `fd`: absent or null is 0; otherwise a finite non-negative number, else undefined. */
function part(v: unknown): number | undefined {
  if (v === undefined || v === null) return 0;
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
}

/**
 * The fee rule of a /clob-markets/{condition_id} response body, or undefined when the body is not
 * such a response (no `t` array) or its `fd` is malformed (not an object; r or e not a finite
 * non-negative number: NaN, Infinity, negative, a string). Undefined means "not known": the
 * simulated venue then charges its configured flat rates.
 */
export function feeRuleOf(json: unknown): FeeRule | undefined {
  if (!isObject(json) || !Array.isArray(json.t)) return undefined;
  const fd = json.fd;
  if (fd === undefined || fd === null) return { rate: 0, exponent: 0 };
  if (!isObject(fd)) return undefined;
  const rate = part(fd.r);
  const exponent = part(fd.e);
  return rate === undefined || exponent === undefined ? undefined : { rate, exponent };
}
