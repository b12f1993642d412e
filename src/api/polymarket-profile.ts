// The real venue's profile (Polymarket CLOB V2): L2 HMAC headers on every request, the /markets/{id}
// and /data/* paths, a plain array of ids to cancel, EIP-712 signed V2 orders owned by the API key,
// and heartbeats. Facts: wire-formats.md sections 2 and 4, the official client's client.js.
import { privateKeyToAccount } from 'viem/accounts';
import type { ClobProfile, NewOrder } from './clob-profile.js';
import { l2Headers, type ApiCredentials } from './polymarket-auth.js';
import type { PolymarketCredentials } from './polymarket-credentials.js';
import { orderBodyV2, orderSalt, signOrderV2 } from './polymarket-order.js';

export interface PolymarketProfileOptions {
  /** Wall time in ms (L2 timestamps in seconds, order timestamps in ms). */
  now?: () => number;
  /** Salt randomness (the official client's Math.random). */
  random?: () => number;
}

const MISSING: Array<[keyof PolymarketCredentials, string]> = [
  ['privateKey', 'MAKERD_PRIVATE_KEY'],
  ['apiKey', 'MAKERD_API_KEY'],
  ['apiSecret', 'MAKERD_API_SECRET'],
  ['apiPassphrase', 'MAKERD_API_PASSPHRASE'],
];

export function polymarketProfile(c: PolymarketCredentials, o: PolymarketProfileOptions = {}): ClobProfile {
  const now = o.now ?? Date.now;
  const random = o.random ?? Math.random;
  const missing = MISSING.filter(([k]) => !c[k]).map(([, name]) => name);
  const account = c.privateKey ? privateKeyToAccount(c.privateKey) : undefined;
  const address = account?.address;
  const creds: ApiCredentials | undefined = c.apiKey && c.apiSecret && c.apiPassphrase ? { key: c.apiKey, secret: c.apiSecret, passphrase: c.apiPassphrase } : undefined;

  const sign = async (x: NewOrder): Promise<unknown> => {
    if (!account || !creds) throw new Error('polymarket profile: orders need MAKERD_PRIVATE_KEY and the API credentials');
    const t = now();
    const signed = await signOrderV2(account, {
      tokenId: x.tokenId,
      side: x.side,
      price: x.price,
      size: x.size,
      negRisk: x.negRisk ?? false,
      salt: orderSalt(random, t),
      timestampMs: t,
      signatureType: c.signatureType,
      funder: c.funder,
      expirationSec: x.expirationSec,
    });
    return orderBodyV2(signed, creds.key, x.orderType ?? 'GTC', x.postOnly ?? false);
  };

  return {
    name: 'polymarket',
    // the official client signs the endpoint without its query string, the body as sent
    authHeaders: (method, path, bodyText) => (address && creds ? l2Headers(address, creds, Math.floor(now() / 1000), method, path, bodyText) : undefined),
    // ids from answers and the feed are encoded into the path: one holding '/', '..' or '?' must not
    // reach another resource (the official client puts them in as they are; hex ids are unchanged)
    market: (conditionId) => ({ path: `/markets/${segment(conditionId)}` }),
    marketInfo: (conditionId) => ({ path: `/clob-markets/${segment(conditionId)}` }),
    order: (orderId) => ({ path: `/data/order/${segment(orderId)}` }),
    openOrdersPath: '/data/orders',
    tradesPath: '/data/trades',
    cancelOrdersBody: (orderIds) => orderIds,
    // the official client's updateBalanceAllowance: asset_type and token_id, plus its signature type
    balanceRefresh: (tokenId) => ({
      path: '/balance-allowance/update',
      query: tokenId === undefined ? { asset_type: 'COLLATERAL', signature_type: c.signatureType } : { asset_type: 'CONDITIONAL', token_id: tokenId, signature_type: c.signatureType },
    }),
    collateralBalance: { path: '/balance-allowance', query: { asset_type: 'COLLATERAL', signature_type: c.signatureType } },
    sharesBalance: (tokenId) => ({ path: '/balance-allowance', query: { asset_type: 'CONDITIONAL', token_id: tokenId, signature_type: c.signatureType } }),
    orderBodies: (orders) => Promise.all(orders.map(sign)),
    userAuth: creds ? { apiKey: creds.key, secret: creds.secret, passphrase: creds.passphrase } : undefined,
    heartbeats: true,
    makersPayNoFee: true,
    signerBuckets: true,
    // the funder holds the shares and collateral when set (a proxy or deposit wallet), else the key's address
    account: (c.funder ?? address) ? `address:${(c.funder ?? address ?? '').toLowerCase()}` : undefined,
    makerAddress: (c.funder ?? address)?.toLowerCase(),
    cannotTrade: missing.length ? `live mode on the polymarket profile needs ${missing.join(', ')} in the environment (makerd keys derive prints the API lines)` : undefined,
  };
}

/** An id as one path segment, encoded; '.' and '..' are refused (a URL normalises them away, %2E too). */
function segment(id: string): string {
  if (id === '.' || id === '..' || id === '') throw new RangeError(`'${id}' is not an id: it cannot be one path segment`);
  return encodeURIComponent(id);
}
