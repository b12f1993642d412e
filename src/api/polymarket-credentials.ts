// The Polymarket profile's credentials, from the environment only (never a config file, never a
// log line): the wallet's private key (L1), the API key, secret and passphrase (L2), the funder
// (the proxy wallet holding the funds when it is not the signer) and the signature type.
import { createRequire } from 'node:module';
import { ConfigError } from '../core/errors.js';
import type { SignatureType } from './polymarket-order.js';

export interface PolymarketCredentials {
  privateKey?: `0x${string}`;
  apiKey?: string;
  apiSecret?: string;
  apiPassphrase?: string;
  funder?: `0x${string}`;
  signatureType: SignatureType;
}

const set = (v: string | undefined): string | undefined => (v !== undefined && v !== '' ? v : undefined);

/** The order of secp256k1's group (SEC 2): a private key is an integer from 1 to this less 1. */
const SECP256K1_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** Reads and checks MAKERD_PRIVATE_KEY, _API_KEY, _API_SECRET, _API_PASSPHRASE, _FUNDER, _SIGNATURE_TYPE (a bad one: ConfigError naming it, never its value). */
export function polymarketCredentialsFromEnv(env: NodeJS.ProcessEnv): PolymarketCredentials {
  const pk = set(env.MAKERD_PRIVATE_KEY);
  if (pk !== undefined && !/^0x[0-9a-fA-F]{64}$/.test(pk)) throw new ConfigError('MAKERD_PRIVATE_KEY', 'must be 0x followed by 64 hex digits');
  // a key of the curve: viem's refusal of another is a plain Error holding the value (in decimal)
  if (pk !== undefined && !(BigInt(pk) > 0n && BigInt(pk) < SECP256K1_ORDER)) {
    throw new ConfigError('MAKERD_PRIVATE_KEY', 'is not a secp256k1 private key (it must be above 0 and below the curve order)');
  }
  const funder = funderAddress(set(env.MAKERD_FUNDER));
  const st = set(env.MAKERD_SIGNATURE_TYPE) ?? '0';
  if (!/^[0123]$/.test(st)) throw new ConfigError('MAKERD_SIGNATURE_TYPE', 'must be 0 (EOA), 1 (email/magic proxy), 2 (browser proxy) or 3 (deposit wallet, ERC-1271)');
  const signatureType = Number(st) as SignatureType;
  if (signatureType !== 0 && funder === undefined) throw new ConfigError('MAKERD_FUNDER', `signature type ${signatureType} signs for a wallet: give its address`);
  // type 0 signs with maker = signer = the key's address: any other funder makes every order an invalid signature
  if (signatureType === 0 && funder !== undefined && (pk === undefined || keyAddress(pk as `0x${string}`).toLowerCase() !== funder.toLowerCase())) {
    throw new ConfigError(
      'MAKERD_FUNDER',
      "with MAKERD_SIGNATURE_TYPE 0 (EOA) it can only be MAKERD_PRIVATE_KEY's own address: a funder (proxy/safe wallet) needs MAKERD_SIGNATURE_TYPE 1, 2 or 3 (1 POLY_PROXY, 2 POLY_GNOSIS_SAFE, 3 POLY_1271 deposit wallet)",
    );
  }
  // types 1-3 sign for a wallet the key controls (a proxy, a safe, a deposit wallet): never the key's own address
  if (signatureType !== 0 && funder !== undefined && pk !== undefined && keyAddress(pk as `0x${string}`).toLowerCase() === funder.toLowerCase()) {
    throw new ConfigError(
      'MAKERD_FUNDER',
      `with MAKERD_SIGNATURE_TYPE ${signatureType} it is the proxy, safe or deposit wallet the key signs for, not MAKERD_PRIVATE_KEY's own address (that is type 0, EOA): every order would be refused as an invalid signature`,
    );
  }
  const apiSecret = set(env.MAKERD_API_SECRET);
  if (apiSecret !== undefined && !decodableSecret(apiSecret)) {
    throw new ConfigError('MAKERD_API_SECRET', 'is not base64 (standard or URL-safe): every private request would be refused as unauthorized (401)');
  }
  return {
    privateKey: pk as `0x${string}` | undefined,
    apiKey: set(env.MAKERD_API_KEY),
    apiSecret,
    apiPassphrase: set(env.MAKERD_API_PASSPHRASE),
    funder,
    signatureType,
  };
}

/**
 * Whether the venue's client could decode the API secret: URL-safe letters made standard, padded to
 * whole quads, then atob, which refuses what Buffer's decoder would silently skip (a stray
 * character gives another HMAC key, and every private request a 401 long after start).
 */
function decodableSecret(secret: string): boolean {
  const normal = secret.replace(/-/g, '+').replace(/_/g, '/');
  try {
    atob(normal + '='.repeat((4 - (normal.length % 4)) % 4));
    return true;
  } catch {
    return false;
  }
}

/**
 * MAKERD_FUNDER in its EIP-55 checksummed form: viem refuses to sign for an address in mixed case
 * whose checksum is wrong, or in capitals, so taken as written it passed start-up and every order
 * then failed. One case is taken as meant; a mixed case that fails its checksum is a typo, refused.
 */
function funderAddress(raw: string | undefined): `0x${string}` | undefined {
  if (raw === undefined) return undefined;
  if (!/^0x[0-9a-fA-F]{40}$/.test(raw)) throw new ConfigError('MAKERD_FUNDER', 'must be an address: 0x followed by 40 hex digits');
  const hex = raw.slice(2);
  const { getAddress } = createRequire(import.meta.url)('viem') as typeof import('viem');
  const checksummed = getAddress(`0x${hex.toLowerCase()}`);
  if (hex !== hex.toLowerCase() && hex !== hex.toUpperCase() && raw !== checksummed) {
    throw new ConfigError('MAKERD_FUNDER', 'fails its EIP-55 checksum (its mixed case says a letter or digit is mistyped): check the wallet address, or give it in lower case');
  }
  return checksummed;
}

/** The key's address. viem loads only here, on this rare path: reading credentials stays cheap for commands that never sign. */
function keyAddress(pk: `0x${string}`): string {
  const { privateKeyToAddress } = createRequire(import.meta.url)('viem/accounts') as typeof import('viem/accounts');
  return privateKeyToAddress(pk);
}
