// The polymarket profile's request authentication, as the venue checks it. L1 (creating or deriving
// API credentials): the wallet's EIP-712 ClobAuth signature, recovered with viem, must name
// POLY_ADDRESS. L2 (every private route): the HMAC-SHA256 of timestamp + method + path + body under
// the credential's secret (src/api/polymarket-auth.ts l2Signature, the official client's bytes).
import { timingSafeEqual } from 'node:crypto';
import { recoverTypedDataAddress } from 'viem';
import { CLOB_AUTH_MESSAGE, CLOB_AUTH_STRUCT, POLYGON_CHAIN_ID, l2Signature } from '../api/polymarket-auth.js';
import type { PolyCredential, PolymarketAccounts } from './polymarket-accounts.js';

/** Allowed distance between POLY_TIMESTAMP and the emulator's clock, seconds (our choice; the venue does not document its window). */
export const AUTH_SKEW_SEC = 30;

export const L1_ERROR = 'Invalid L1 Request headers';
export const L2_ERROR = 'Unauthorized/Invalid api key';

export type Headers = Record<string, string | string[] | undefined>;

const header = (h: Headers, name: string): string | undefined => {
  const v = h[name.toLowerCase()];
  return typeof v === 'string' ? v : Array.isArray(v) ? v[0] : undefined;
};

const isAddress = (s: string | undefined): s is `0x${string}` => s !== undefined && /^0x[0-9a-fA-F]{40}$/.test(s);

function fresh(ts: string | undefined, nowSec: number, skewSec: number): number | undefined {
  if (ts === undefined || !/^\d{1,12}$/.test(ts)) return undefined;
  const t = Number(ts);
  return Math.abs(t - nowSec) <= skewSec ? t : undefined;
}

/** The signer's address and nonce of a valid L1 request, or undefined (answer 401 L1_ERROR). */
export async function checkL1(h: Headers, nowSec: number, skewSec = AUTH_SKEW_SEC): Promise<{ address: string; nonce: number } | undefined> {
  const address = header(h, 'POLY_ADDRESS');
  const signature = header(h, 'POLY_SIGNATURE');
  const ts = header(h, 'POLY_TIMESTAMP');
  const nonceText = header(h, 'POLY_NONCE') ?? '0';
  if (!isAddress(address) || !signature || !/^0x[0-9a-fA-F]{130}$/.test(signature) || !/^\d{1,18}$/.test(nonceText)) return undefined;
  if (fresh(ts, nowSec, skewSec) === undefined) return undefined;
  let signer: string;
  try {
    signer = await recoverTypedDataAddress({
      domain: { name: 'ClobAuthDomain', version: '1', chainId: POLYGON_CHAIN_ID },
      types: { ClobAuth: CLOB_AUTH_STRUCT },
      primaryType: 'ClobAuth',
      message: { address, timestamp: ts as string, nonce: BigInt(nonceText), message: CLOB_AUTH_MESSAGE },
      signature: signature as `0x${string}`,
    });
  } catch {
    return undefined;
  }
  return signer.toLowerCase() === address.toLowerCase() ? { address: signer, nonce: Number(nonceText) } : undefined;
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The credential of a valid L2 request, or undefined (answer 401 L2_ERROR). `requestPath` is what
 * the official client signs: the endpoint path without the host's prefix and without the query
 * string; `rawBody` the body text exactly as sent (empty = no body).
 */
export function checkL2(accounts: PolymarketAccounts, h: Headers, method: string, requestPath: string, rawBody: string, nowSec: number, skewSec = AUTH_SKEW_SEC): PolyCredential | undefined {
  const c = accounts.credential(header(h, 'POLY_API_KEY'));
  if (!c) return undefined;
  const address = header(h, 'POLY_ADDRESS');
  const passphrase = header(h, 'POLY_PASSPHRASE');
  const signature = header(h, 'POLY_SIGNATURE');
  const ts = header(h, 'POLY_TIMESTAMP');
  if (!address || address.toLowerCase() !== c.address.toLowerCase()) return undefined;
  if (passphrase === undefined || !sameText(passphrase, c.passphrase)) return undefined;
  const t = fresh(ts, nowSec, skewSec);
  if (t === undefined || signature === undefined) return undefined;
  const expected = l2Signature(c.secret, t, method, requestPath, rawBody === '' ? undefined : rawBody);
  return sameText(signature, expected) ? c : undefined;
}
