// Polymarket CLOB V2 orders, signed (issue 12, item 3, in part; not yet wired into a venue
// profile): amounts from our integer units exactly as the official client rounds on-grid prices
// and sizes, and the EIP-712 signature of the V2 order struct for chain 137 against the exchange
// contract (the neg-risk exchange for neg-risk markets). Facts from wire-formats.md 4.4 and the
// official client; the signing is viem's.
import { encodeAbiParameters, keccak256, toHex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { OrderType, Side } from '../core/events.js';
import { POLYGON_CHAIN_ID } from './polymarket-auth.js';
import { ORDER_VERSION, exchangeOf } from './polymarket-contracts.js';

export const ZERO_BYTES32 = `0x${'0'.repeat(64)}` as const;

/**
 * 0: an EOA signs for itself; 1: an email/magic proxy wallet; 2: a browser (Gnosis safe) proxy;
 * 3: a deposit wallet (ERC-1271, the official client's POLY_1271): the wallet is maker and signer,
 * and the key's signature of the order is wrapped as ERC-7739 TypedDataSign.
 */
export type SignatureType = 0 | 1 | 2 | 3;

export interface OrderToSign {
  tokenId: string;
  side: Side;
  /** Price units (1e-4), on the market's tick. */
  price: number;
  /** Size units (1e-2 shares). */
  size: number;
  negRisk: boolean;
  /** A decimal string (orderSalt makes one as the official client does). */
  salt: string;
  timestampMs: number;
  signatureType: SignatureType;
  /** The proxy wallet holding the funds (MAKERD_FUNDER) when it is not the signer. */
  funder?: `0x${string}`;
  /** GTD: expiry, Unix seconds (outside the signed struct in V2, as the official client sends it); none: "0". */
  expirationSec?: number;
}

/** The signed order as the venue takes it inside `{order, owner, orderType, postOnly, deferExec}`. */
export interface SignedOrderV2 {
  salt: string;
  maker: string;
  signer: string;
  tokenId: string;
  makerAmount: string;
  takerAmount: string;
  side: Side;
  signatureType: SignatureType;
  metadata: string;
  builder: string;
  timestamp: string;
  expiration: string;
  signature: string;
}

/** The V2 order struct (the official client's CTF_EXCHANGE_V2_ORDER_STRUCT): signed here, recovered by the emulator. */
export const ORDER_STRUCT = [
  { name: 'salt', type: 'uint256' },
  { name: 'maker', type: 'address' },
  { name: 'signer', type: 'address' },
  { name: 'tokenId', type: 'uint256' },
  { name: 'makerAmount', type: 'uint256' },
  { name: 'takerAmount', type: 'uint256' },
  { name: 'side', type: 'uint8' },
  { name: 'signatureType', type: 'uint8' },
  { name: 'timestamp', type: 'uint256' },
  { name: 'metadata', type: 'bytes32' },
  { name: 'builder', type: 'bytes32' },
] as const;

/**
 * Maker and taker amounts in 1e-6 units (USDC and shares both have 6 decimals). With integer units
 * the product is exact: size (1e-2) x price (1e-4) is 1e-6 USDC, and for any price on a tick of
 * 0.1 to 0.0001 (0.005 and 0.0025 included) it has no more decimals than the tick's amount
 * rounding allows, so the official client's rounding never changes it.
 */
export function orderAmounts(side: Side, price: number, size: number): { makerAmount: string; takerAmount: string } {
  const usdc = BigInt(size) * BigInt(price);
  const shares = BigInt(size) * 10_000n;
  return side === 'BUY' ? { makerAmount: usdc.toString(), takerAmount: shares.toString() } : { makerAmount: shares.toString(), takerAmount: usdc.toString() };
}

/** A salt as the official client makes one: round(random x now). */
export function orderSalt(random: () => number = Math.random, nowMs: number = Date.now()): string {
  return String(Math.round(random() * nowMs));
}

/** The order's EIP-712 type string, from the struct. */
export const ORDER_TYPE = `Order(${ORDER_STRUCT.map((f) => `${f.type} ${f.name}`).join(',')})`;
/** ERC-7739's TypedDataSign: a deposit wallet's own domain fields around the order (signature type 3). */
export const TYPED_DATA_SIGN = [
  { name: 'contents', type: 'Order' },
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
  { name: 'salt', type: 'bytes32' },
] as const;

/** `key`: the private key, or its account made once (privateKeyToAccount derives the public key: a batch should not pay that per order). */
export async function signOrderV2(key: `0x${string}` | PrivateKeyAccount, o: OrderToSign): Promise<SignedOrderV2> {
  const account = typeof key === 'string' ? privateKeyToAccount(key) : key;
  const wallet = o.signatureType === 3;
  if (o.signatureType !== 0 && !o.funder) throw new Error(`signature type ${o.signatureType} signs for a wallet: its address (funder) is needed`);
  const maker = o.funder ?? account.address;
  // a deposit wallet signs as itself (ERC-1271); every other type signs with the key's address
  const signer = wallet ? maker : account.address;
  const { makerAmount, takerAmount } = orderAmounts(o.side, o.price, o.size);
  const timestamp = String(o.timestampMs);
  const domain = { name: 'Polymarket CTF Exchange', version: String(ORDER_VERSION), chainId: POLYGON_CHAIN_ID, verifyingContract: exchangeOf(o.negRisk) } as const;
  const message = {
    salt: BigInt(o.salt),
    maker,
    signer,
    tokenId: BigInt(o.tokenId),
    makerAmount: BigInt(makerAmount),
    takerAmount: BigInt(takerAmount),
    side: o.side === 'BUY' ? 0 : 1,
    signatureType: o.signatureType,
    timestamp: BigInt(timestamp),
    metadata: ZERO_BYTES32,
    builder: ZERO_BYTES32,
  } as const;
  const signature = wallet ? await walletSignature(account, domain, message) : await account.signTypedData({ domain, types: { Order: ORDER_STRUCT }, primaryType: 'Order', message });
  return {
    salt: o.salt,
    maker,
    signer,
    tokenId: o.tokenId,
    makerAmount,
    takerAmount,
    side: o.side,
    signatureType: o.signatureType,
    metadata: ZERO_BYTES32,
    builder: ZERO_BYTES32,
    timestamp,
    expiration: String(o.expirationSec ?? 0),
    signature,
  };
}

type Domain = { name: string; version: string; chainId: number; verifyingContract: `0x${string}` };
type OrderMessage = {
  salt: bigint;
  maker: `0x${string}`;
  signer: `0x${string}`;
  tokenId: bigint;
  makerAmount: bigint;
  takerAmount: bigint;
  side: number;
  signatureType: number;
  timestamp: bigint;
  metadata: `0x${string}`;
  builder: `0x${string}`;
};

/**
 * A deposit wallet's order signature (ERC-7739 nested typed data, as the official client builds
 * it): the key signs TypedDataSign{contents: order, the wallet's own domain fields} under the
 * exchange's domain; the exchange's domain separator, the order's struct hash, the order type
 * string and that string's length (2 bytes) follow the 65-byte signature.
 */
async function walletSignature(account: PrivateKeyAccount, domain: Domain, m: OrderMessage): Promise<`0x${string}`> {
  const inner = await account.signTypedData({
    domain,
    types: { TypedDataSign: TYPED_DATA_SIGN, Order: ORDER_STRUCT },
    primaryType: 'TypedDataSign',
    message: { contents: m, name: 'DepositWallet', version: '1', chainId: BigInt(domain.chainId), verifyingContract: m.signer, salt: ZERO_BYTES32 },
  });
  const domainSeparator = keccak256(
    encodeAbiParameters(
      [{ type: 'bytes32' }, { type: 'bytes32' }, { type: 'bytes32' }, { type: 'uint256' }, { type: 'address' }],
      [
        keccak256(toHex('EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)')),
        keccak256(toHex(domain.name)),
        keccak256(toHex(domain.version)),
        BigInt(domain.chainId),
        domain.verifyingContract,
      ],
    ),
  );
  const contents = keccak256(
    encodeAbiParameters(
      [{ type: 'bytes32' }, ...ORDER_STRUCT.map((f) => ({ type: f.type }))],
      [keccak256(toHex(ORDER_TYPE)), m.salt, m.maker, m.signer, m.tokenId, m.makerAmount, m.takerAmount, m.side, m.signatureType, m.timestamp, m.metadata, m.builder],
    ),
  );
  const typeHex = toHex(ORDER_TYPE).slice(2);
  return `0x${inner.slice(2)}${domainSeparator.slice(2)}${contents.slice(2)}${typeHex}${(typeHex.length / 2).toString(16).padStart(4, '0')}`;
}

/** The POST /order body of a signed V2 order (POST /orders takes an array of them), fields in the official client's order. */
export function orderBodyV2(o: SignedOrderV2, owner: string, orderType: OrderType, postOnly: boolean, deferExec = false): Record<string, unknown> {
  return {
    deferExec,
    postOnly,
    order: {
      // a JSON number, as the official client sends it (the salt stays below 2^53)
      salt: Number.parseInt(o.salt, 10),
      maker: o.maker,
      signer: o.signer,
      tokenId: o.tokenId,
      makerAmount: o.makerAmount,
      takerAmount: o.takerAmount,
      side: o.side,
      signatureType: o.signatureType,
      timestamp: o.timestamp,
      expiration: o.expiration,
      metadata: o.metadata,
      builder: o.builder,
      signature: o.signature,
    },
    owner,
    orderType,
  };
}
