// Polymarket CLOB authentication (issue 12, item 3, in part; not yet wired into a venue profile).
// L1: an EIP-712 "ClobAuth" signature of the wallet (creating or deriving API credentials);
// L2: an HMAC-SHA256 of timestamp + method + path + body with the API secret, on every private
// request. Facts from wire-formats.md section 2 and the official client; the elliptic-curve and
// Keccak work is viem's.
import { createHmac } from 'node:crypto';
import { privateKeyToAccount } from 'viem/accounts';

/** The text the wallet signs to prove it controls the address (the official client's constant). */
export const CLOB_AUTH_MESSAGE = 'This message attests that I control the given wallet';

/** The L1 typed data: the wallet attests to its address at a time, with a nonce. */
export const CLOB_AUTH_STRUCT = [
  { name: 'address', type: 'address' },
  { name: 'timestamp', type: 'string' },
  { name: 'nonce', type: 'uint256' },
  { name: 'message', type: 'string' },
] as const;

/** Polygon mainnet: the chain every Polymarket signature names. */
export const POLYGON_CHAIN_ID = 137;

export interface ApiCredentials {
  key: string;
  /** Base64 (URL-safe or standard), as the venue issues it. */
  secret: string;
  passphrase: string;
}

export type L1Headers = { POLY_ADDRESS: string; POLY_SIGNATURE: string; POLY_TIMESTAMP: string; POLY_NONCE: string };
export type L2Headers = { POLY_ADDRESS: string; POLY_SIGNATURE: string; POLY_TIMESTAMP: string; POLY_API_KEY: string; POLY_PASSPHRASE: string };

/** The L1 headers for creating or deriving API credentials: the wallet's ClobAuth signature. */
export async function l1Headers(privateKey: `0x${string}`, timestampSec: number, nonce = 0, chainId = POLYGON_CHAIN_ID): Promise<L1Headers> {
  const account = privateKeyToAccount(privateKey);
  const signature = await account.signTypedData({
    domain: { name: 'ClobAuthDomain', version: '1', chainId },
    types: { ClobAuth: CLOB_AUTH_STRUCT },
    primaryType: 'ClobAuth',
    message: { address: account.address, timestamp: String(timestampSec), nonce: BigInt(nonce), message: CLOB_AUTH_MESSAGE },
  });
  return { POLY_ADDRESS: account.address, POLY_SIGNATURE: signature, POLY_TIMESTAMP: String(timestampSec), POLY_NONCE: String(nonce) };
}

/** HMAC-SHA256 over timestamp + method + path (+ body), keyed by the decoded secret; URL-safe base64 out. */
export function l2Signature(secret: string, timestampSec: number, method: string, requestPath: string, body?: string): string {
  if (!secret) throw new Error('l2Signature: the API secret is empty');
  const key = Buffer.from(secret.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  let message = String(timestampSec) + method + requestPath;
  if (body !== undefined) message += body;
  return createHmac('sha256', key).update(message).digest('base64').replace(/\+/g, '-').replace(/\//g, '_');
}

/** The L2 headers of one private request. */
export function l2Headers(address: string, creds: ApiCredentials, timestampSec: number, method: string, requestPath: string, body?: string): L2Headers {
  return {
    POLY_ADDRESS: address,
    POLY_SIGNATURE: l2Signature(creds.secret, timestampSec, method, requestPath, body),
    POLY_TIMESTAMP: String(timestampSec),
    POLY_API_KEY: creds.key,
    POLY_PASSPHRASE: creds.passphrase,
  };
}
