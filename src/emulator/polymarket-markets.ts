// The polymarket profile's public CLOB routes, plain JSON as the venue answers: /ok, /time,
// /version, /markets (cursor pages), /markets/{id}, /clob-markets/{id} (the compact market info the
// official client caches: tick, neg risk, fee rule, tokens), /markets-by-token/{id}, /fee-rate;
// the book and quote routes are the spec profile's, unwrapped.
import { PRICE_SCALE } from '../core/units.js';
import { clobMarketJson, clobRoute, type ClobContext } from './clob-routes.js';
import type { Exchange } from './exchange.js';
import type { EmuMarket } from './market.js';
import { cursorPage, type EmuReply, type EmuRequest } from './http-util.js';

/** What the venue answers an order signed for an order version it no longer takes (a public report's capture). */
export const ORDER_VERSION_MISMATCH = 'order_version_mismatch';

// The venue's order version per emulator, by its Exchange: server.ts (not this profile's file)
// builds the routes' context, and the Exchange is what both the routes and a test hold.
const orderVersions = new WeakMap<Exchange, number>();

/**
 * Sets the order version this emulator's venue takes (default 2, the V2 exchanges): GET /version
 * answers it, and at any other version every order is refused with order_version_mismatch.
 */
export function setOrderVersion(exchange: Exchange, version: number): void {
  if (!Number.isInteger(version) || version < 1) throw new RangeError(`order version must be a positive integer, got ${version}`);
  orderVersions.set(exchange, version);
}

/** The order version this emulator's venue takes. */
export function orderVersionOf(exchange: Exchange): number {
  return orderVersions.get(exchange) ?? 2;
}

/** A plain answer (no envelope). */
export const plain = (body: unknown, status = 200): EmuReply => ({ status, body });
/** A venue error: `{"error": message}`. */
export const plainError = (status: number, error: string, extra?: Record<string, unknown>): EmuReply => ({ status, body: { error, ...extra } });

/** The spec profile's envelope turned into the venue's plain body: data as is, an error as {"error": message}. */
export function plainReply(r: EmuReply): EmuReply {
  const b = r.body as Record<string, unknown> | null;
  if (typeof b !== 'object' || b === null || Array.isArray(b) || typeof b.success !== 'boolean') return r;
  const keys = Object.keys(b);
  if (b.success === true && keys.length === 2 && 'data' in b) return { ...r, body: b.data };
  if (b.success === false && keys.length === 2 && typeof b.error === 'object' && b.error !== null) {
    return { ...r, body: { error: String((b.error as Record<string, unknown>).message ?? 'error') } };
  }
  return r;
}

/**
 * The fee rule a market advertises (`fd` of /clob-markets: rate r, exponent e; a taker pays about
 * shares x r x (p(1-p))^e). Our choice: markets of even index are fee-free, odd ones carry
 * r 0.25, e 2 (the shape of the venue's fee-enabled crypto markets). The emulator charges no fee.
 */
export function feeRule(ctx: ClobContext, m: EmuMarket): { r: number; e: number } {
  return ctx.exchange.markets.indexOf(m) % 2 === 1 ? { r: 0.25, e: 2 } : { r: 0, e: 0 };
}

export function clobMarketInfo(ctx: ClobContext, m: EmuMarket): Record<string, unknown> {
  return {
    c: m.conditionId,
    t: [
      { t: m.tokens[0], o: 'Yes' },
      { t: m.tokens[1], o: 'No' },
    ],
    mts: m.facts.tick / PRICE_SCALE,
    nr: m.facts.negRisk,
    fd: feeRule(ctx, m),
    mbf: 0,
    tbf: 0,
    r: null,
    ao: true,
    mos: m.facts.minSize / 100,
  };
}

/** Public routes; undefined when the path is not one of them (then it needs authentication). */
export async function publicRoute(ctx: ClobContext, req: EmuRequest, nowMs: number): Promise<EmuReply | undefined> {
  if (req.method !== 'GET') return undefined;
  const ex = ctx.exchange;
  const p = req.path;
  const tail = (prefix: string): string | undefined => (p.startsWith(prefix) && p.length > prefix.length ? decodeURIComponent(p.slice(prefix.length)) : undefined);
  switch (p) {
    case '/':
    case '/ok':
      return plain('OK');
    case '/time':
      return plain(Math.floor(nowMs / 1000));
    case '/version':
      return plain({ version: orderVersionOf(ex) });
    case '/markets':
      return plainReply(cursorPage(ex.markets.map(clobMarketJson), req.query, 100));
    case '/fee-rate': {
      const t = req.query.get('token_id');
      return t && ex.byToken.has(t) ? plain({ base_fee: 0 }) : plainError(400, 'Invalid token id');
    }
    case '/book':
    case '/midpoint':
    case '/price':
    case '/spread':
    case '/tick-size':
    case '/neg-risk':
    case '/sampling-markets':
    case '/sampling-simplified-markets':
      return plainReply(await clobRoute(ctx, req));
  }
  const cond = tail('/markets/') ?? tail('/clob-markets/');
  if (cond !== undefined) {
    const m = ex.byCondition.get(cond);
    if (!m) return plainError(404, 'market not found');
    return plain(p.startsWith('/markets/') ? clobMarketJson(m) : clobMarketInfo(ctx, m));
  }
  const token = tail('/markets-by-token/');
  if (token !== undefined) {
    const m = ex.byToken.get(token)?.market;
    return m ? plain({ condition_id: m.conditionId, primary_token_id: m.tokens[0], secondary_token_id: m.tokens[1] }) : plainError(404, 'market not found');
  }
  return undefined;
}
