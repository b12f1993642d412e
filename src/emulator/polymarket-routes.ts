// The CLOB API of the polymarket profile: the venue's paths and plain JSON bodies (errors as
// {"error": message}), L1 auth for creating/deriving API credentials, L2 auth on every private
// route, signed V2 orders, heartbeats. Orders, cancels, trades and user frames are the Exchange's.
import { EXCHANGE_V2, NEG_RISK_EXCHANGE_V2 } from '../api/polymarket-contracts.js';
import type { Exchange, UserOrder } from './exchange.js';
import { cursorPage, type EmuReply, type EmuRequest } from './http-util.js';
import type { KeyRegistry } from './keys.js';
import type { PolyCredential, PolymarketAccounts } from './polymarket-accounts.js';
import { checkL1, checkL2, L1_ERROR, L2_ERROR } from './polymarket-auth-check.js';
import type { Heartbeats } from './polymarket-heartbeats.js';
import { ORDER_VERSION_MISMATCH, orderVersionOf, plain, plainError, plainReply, publicRoute } from './polymarket-markets.js';
import { INVALID_PAYLOAD, placeSigned, type OrderIntake } from './polymarket-orders.js';
import { tradesPage } from './clob-routes.js';
import { MAX_BATCH, MAX_CANCEL_IDS } from '../api/limit-table.js';

/** Shares of every token an API key's account starts with (size units), so it can sell as well as buy. */
export const START_SHARES_UNITS = 10_000 * 100;
/** The neg-risk adapter (the official client's contract config for chain 137): a third spender of allowances. */
const NEG_RISK_ADAPTER = '0xd91E80cF2E7be2e162c6513ceD06f1dD0dA35296';
const MAX_UINT256 = (2n ** 256n - 1n).toString();

export interface PolymarketContext {
  exchange: Exchange;
  keys: KeyRegistry;
  accounts: PolymarketAccounts;
  heartbeats: Heartbeats;
  intake: OrderIntake;
  /** API keys whose accounts got their starting shares. */
  funded: Set<string>;
  nowMs(): number;
}

export function polymarketIntake(exchange: Exchange, accounts: PolymarketAccounts): OrderIntake {
  return { exchange, accounts, seen: new Set() };
}

function fund(ctx: PolymarketContext, key: string): void {
  if (ctx.funded.has(key)) return;
  ctx.funded.add(key);
  const a = ctx.exchange.account(key);
  for (const t of ctx.exchange.byToken.keys()) a.positions.set(t, (a.positions.get(t) ?? 0) + START_SHARES_UNITS);
}

const bodyObject = (b: unknown): Record<string, unknown> => (typeof b === 'object' && b !== null && !Array.isArray(b) ? (b as Record<string, unknown>) : {});

export async function polymarketRoute(ctx: PolymarketContext, req: EmuRequest): Promise<EmuReply> {
  const pub = await publicRoute(ctx, req, ctx.nowMs());
  if (pub) return pub;
  const sig = `${req.method} ${req.path}`;
  const headers = req.headers ?? {};
  const nowSec = Math.floor(ctx.nowMs() / 1000);
  if (sig === 'POST /auth/api-key' || sig === 'GET /auth/derive-api-key') {
    const l1 = await checkL1(headers, nowSec);
    if (!l1) return plainError(401, L1_ERROR);
    if (sig === 'POST /auth/api-key') return plain(apiKeyJson(ctx.accounts.issue(l1.address, l1.nonce)));
    const c = ctx.accounts.derive(l1.address, l1.nonce);
    return c ? plain(apiKeyJson(c)) : plainError(400, 'Could not derive api key!');
  }
  const cred = checkL2(ctx.accounts, headers, req.method, req.path, req.raw ?? '', nowSec);
  if (!cred) return plainError(401, L2_ERROR);
  fund(ctx, cred.apiKey);
  const r = await privateRoute(ctx, cred, req);
  return r ?? plainError(404, `no route ${sig}`);
}

const apiKeyJson = (c: PolyCredential): Record<string, string> => ({ apiKey: c.apiKey, secret: c.secret, passphrase: c.passphrase });

async function privateRoute(ctx: PolymarketContext, cred: PolyCredential, req: EmuRequest): Promise<EmuReply | undefined> {
  const ex = ctx.exchange;
  const key = cred.apiKey;
  const q = req.query;
  const sig = `${req.method} ${req.path}`;
  // a venue at another order version refuses our V2 orders, the whole request; for a batch that is
  // our choice (the official client looks for the error at the top of either answer)
  if ((sig === 'POST /order' || sig === 'POST /orders') && orderVersionOf(ex) !== 2) return plainError(400, ORDER_VERSION_MISMATCH);
  switch (sig) {
    case 'POST /order': {
      const r = await placeSigned(ctx.intake, cred, req.body);
      return r.ok ? plain(r.res) : plainError(r.status, r.error);
    }
    case 'POST /orders': {
      if (!Array.isArray(req.body)) return plainError(400, INVALID_PAYLOAD);
      if (req.body.length > MAX_BATCH) return plainError(400, `Too many orders in payload: ${req.body.length}, max allowed: ${MAX_BATCH}`);
      const out: unknown[] = [];
      for (const b of req.body) {
        const r = await placeSigned(ctx.intake, cred, b);
        out.push(r.ok ? r.res : { success: false, errorMsg: r.error, orderID: '', transactionsHashes: [], status: '', takingAmount: '', makingAmount: '' });
      }
      return plain(out);
    }
    case 'DELETE /order': {
      const id = bodyObject(req.body).orderID;
      if (typeof id !== 'string' || !id) return plainError(400, 'Invalid order payload: orderID is required');
      return plain(await ex.cancel(key, [id]));
    }
    case 'DELETE /orders': {
      const ids = req.body;
      if (!Array.isArray(ids) || !ids.every((x) => typeof x === 'string')) return plainError(400, 'Invalid order payload: an array of order ids is required');
      if (ids.length > MAX_CANCEL_IDS) return plainError(400, `Too many order ids: ${ids.length}, max allowed: ${MAX_CANCEL_IDS}`);
      return plain(await ex.cancel(key, ids as string[]));
    }
    case 'DELETE /cancel-all':
      return plain(await ex.cancelWhere(key, () => true));
    case 'DELETE /cancel-market-orders': {
      const b = bodyObject(req.body);
      const market = typeof b.market === 'string' ? b.market : '';
      const asset = typeof b.asset_id === 'string' ? b.asset_id : '';
      return plain(await ex.cancelWhere(key, (o) => (!market || o.market.conditionId === market) && (!asset || o.assetId === asset)));
    }
    case 'GET /data/orders': {
      const id = q.get('id');
      const market = q.get('market');
      const asset = q.get('asset_id');
      const os = ex.openOrders(key).filter((o: UserOrder) => (!id || o.id === id) && (!market || o.market.conditionId === market) && (!asset || o.assetId === asset));
      return plainReply(
        cursorPage(
          os.map((o) => ex.orderJson(o)),
          q,
          100,
        ),
      );
    }
    case 'GET /data/trades':
      return plainReply(tradesPage(ex, key, q));
    case 'GET /balance-allowance':
    case 'GET /balance-allowance/update':
      return balanceAllowance(ex, key, q, sig.endsWith('/update'));
    case 'POST /v1/heartbeats': {
      const a = ctx.heartbeats.beat(key, bodyObject(req.body).heartbeat_id);
      return a.ok ? plain({ heartbeat_id: a.heartbeatId }) : plainError(400, a.error, { heartbeat_id: a.heartbeatId });
    }
    case 'GET /auth/api-keys':
      return plain({ apiKeys: ctx.accounts.keysOf(cred.address) });
    case 'DELETE /auth/api-key':
      await ex.forget(key);
      ctx.accounts.revoke(key);
      return plain('OK');
    case 'GET /auth/ban-status/closed-only':
      return plain({ closed_only: false });
  }
  if (req.method === 'GET' && req.path.startsWith('/data/order/')) {
    const o = ex.orders.get(decodeURIComponent(req.path.slice('/data/order/'.length)));
    return o && o.owner === key ? plain(ex.orderJson(o)) : plainError(404, 'order not found');
  }
  return undefined;
}

/**
 * Balance in 1e-6 units (pUSD for COLLATERAL, confirmed shares of token_id for CONDITIONAL). The
 * exchanges' allowance: of collateral the account's; of shares unlimited when the account approved
 * them (setApprovalForAll), else 0 (the adapter's the same); the adapter's collateral one unlimited.
 */
function balanceAllowance(ex: Exchange, key: string, q: URLSearchParams, update: boolean): EmuReply {
  const type = q.get('asset_type');
  if (type !== 'COLLATERAL' && type !== 'CONDITIONAL') return plainError(400, 'Invalid asset_type: COLLATERAL or CONDITIONAL');
  const token = q.get('token_id') ?? '';
  if (type === 'CONDITIONAL' && !ex.byToken.has(token)) return plainError(400, 'Invalid token id');
  if (update) {
    if (type === 'CONDITIONAL') ex.refreshBalance(key, token);
    return plain({});
  }
  const a = ex.account(key);
  // shares as the balance check counts them: those of trades not yet confirmed are not there yet
  const balance = type === 'COLLATERAL' ? a.cashMicros : ex.sellableShares(key, token) * 10_000;
  // never below zero, as on chain: a BUY that rested past a withdrawal (a test's) and then filled takes cash below it here
  const shares = a.sharesApproved ? MAX_UINT256 : '0';
  const allowance = type === 'CONDITIONAL' ? shares : a.allowanceMicros === Infinity ? MAX_UINT256 : String(Math.round(a.allowanceMicros));
  const adapter = type === 'CONDITIONAL' ? shares : MAX_UINT256;
  return plain({ balance: String(Math.max(0, Math.round(balance))), allowances: { [EXCHANGE_V2]: allowance, [NEG_RISK_EXCHANGE_V2]: allowance, [NEG_RISK_ADAPTER]: adapter } });
}
