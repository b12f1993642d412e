// The polymarket profile's order intake: a signed V2 order body (wire-formats.md 4.4) is checked as
// the venue checks it (owner = the API key, signer = the key's address, maker = the signer or its
// funder, the EIP-712 signature recovered with viem against the exchange or neg-risk exchange,
// price on the tick, size at least the minimum, balance), then enters the Exchange as in the spec profile.
// A deposit wallet's order (type 3, POLY_1271) is maker = signer = the wallet, and its signature is
// checked as the ERC-1271 wallet would check it (ERC-7739 nested typed data, see depositWalletSigner).
import { hashDomain, hashStruct, hashTypedData, recoverTypedDataAddress, toHex } from 'viem';
import { POLYGON_CHAIN_ID } from '../api/polymarket-auth.js';
import { ORDER_STRUCT, ORDER_TYPE, TYPED_DATA_SIGN, ZERO_BYTES32 } from '../api/polymarket-order.js';
import { exchangeOf } from '../api/polymarket-contracts.js';
import { formatPrice, formatSize, PRICE_SCALE } from '../core/units.js';
import type { Exchange } from './exchange.js';
import { hex64 } from './ids.js';
import type { PolyCredential, PolymarketAccounts } from './polymarket-accounts.js';

type Hex = `0x${string}`;

/** Shares and pUSD both count in 1e-6 units; a size unit is 1e-2 shares. */
const SHARE_UNITS_PER_SIZE = 10_000n;
/** Order hashes remembered for the duplicate check (the oldest are forgotten). */
const SEEN_MAX = 200_000;
const ORDER_TYPES: ReadonlySet<string> = new Set(['GTC', 'GTD', 'FOK', 'FAK']);

export const INVALID_PAYLOAD = 'Invalid order payload';
export const INVALID_SIGNATURE = 'invalid signature';
export const NOT_ENOUGH_BALANCE = 'not enough balance / allowance';
export const SIGNER_NOT_KEY = 'the order signer address has to be the address of the API KEY';
export const OWNER_NOT_KEY = 'the order owner has to be the owner of the API KEY';

export interface OrderIntake {
  exchange: Exchange;
  accounts: PolymarketAccounts;
  /** Order hashes seen so far (a second copy of a signed order is refused as duplicated). */
  seen: Set<string>;
}

export type PlaceAnswer = { ok: true; res: Record<string, unknown> } | { ok: false; status: number; error: string };

const refuse = (error: string, status = 400): PlaceAnswer => ({ ok: false, status, error });
const isHex = (v: unknown, bytes: number): v is `0x${string}` => typeof v === 'string' && new RegExp(`^0x[0-9a-fA-F]{${bytes * 2}}$`).test(v);
const isUint = (v: unknown): v is string => typeof v === 'string' && /^\d{1,78}$/.test(v);
const sameAddress = (a: string, b: string | undefined): boolean => b !== undefined && a.toLowerCase() === b.toLowerCase();

const EIP712_DOMAIN = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
] as const;
/** The deposit wallet's EIP-712 name and version (its domain salt is zero). */
const DEPOSIT_WALLET_NAME = 'DepositWallet';
const DEPOSIT_WALLET_VERSION = '1';

type ExchangeDomain = { name: string; version: string; chainId: number; verifyingContract: Hex };
type OrderMessage = {
  salt: bigint;
  maker: Hex;
  signer: Hex;
  tokenId: bigint;
  makerAmount: bigint;
  takerAmount: bigint;
  side: number;
  signatureType: number;
  timestamp: bigint;
  metadata: Hex;
  builder: Hex;
};

/**
 * The address a deposit wallet's signature is valid for, as the wallet (ERC-1271 with ERC-7739
 * nested typed data) would check it, or undefined. The signature is the 65-byte inner signature,
 * then the app's domain separator (32 bytes), the contents' struct hash (32 bytes), the contents
 * type string and its length (2 bytes, big-endian). The appended separator must be the exchange's,
 * the contents hash the order's, the type string the Order type; the inner signature is recovered
 * over TypedDataSign{contents: the order, the wallet's name, version, chain id, address, zero salt}
 * under the exchange's domain. The caller compares the address with the wallet's owner.
 */
export async function depositWalletSigner(signature: string, domain: ExchangeDomain, message: OrderMessage): Promise<string | undefined> {
  if (!/^0x([0-9a-fA-F]{2})+$/.test(signature)) return undefined;
  const body = signature.slice(2).toLowerCase();
  const bytes = body.length / 2;
  if (bytes < 65 + 64 + 2) return undefined;
  const typeLen = Number.parseInt(body.slice(-4), 16);
  // the inner signature is exactly 65 bytes (r, s, v): the length must account for every byte
  if (bytes !== 65 + 32 + 32 + typeLen + 2) return undefined;
  const inner = `0x${body.slice(0, 130)}` as const;
  const appSeparator = `0x${body.slice(130, 194)}`;
  const contentsHash = `0x${body.slice(194, 258)}`;
  const typeString = `0x${body.slice(258, 258 + typeLen * 2)}`;
  if (typeString !== toHex(ORDER_TYPE) || typeLen !== ORDER_TYPE.length) return undefined;
  if (appSeparator !== hashDomain({ domain: { ...domain, chainId: BigInt(domain.chainId) }, types: { EIP712Domain: EIP712_DOMAIN } })) return undefined;
  if (contentsHash !== hashStruct({ data: message, primaryType: 'Order', types: { Order: ORDER_STRUCT } })) return undefined;
  const recovered = await recoverTypedDataAddress({
    domain,
    types: { TypedDataSign: TYPED_DATA_SIGN, Order: ORDER_STRUCT },
    primaryType: 'TypedDataSign',
    message: { contents: message, name: DEPOSIT_WALLET_NAME, version: DEPOSIT_WALLET_VERSION, chainId: BigInt(domain.chainId), verifyingContract: message.signer, salt: ZERO_BYTES32 },
    signature: inner,
  });
  return recovered;
}

/** The venue's message for a rejection code of the matching engine. */
function venueMessage(code: string, hash: string): string {
  switch (code) {
    case 'INVALID_POST_ONLY_ORDER':
      return `order ${hash} crosses the book`;
    case 'FOK_ORDER_NOT_FILLED_ERROR':
      return `order ${hash} couldn't be fully filled. FOK orders are fully filled or killed.`;
    case 'INVALID_ORDER_DUPLICATED':
      return `order ${hash} is invalid. Duplicated.`;
    case 'INVALID_ORDER_EXPIRATION':
      return `order ${hash} is invalid. Expiration is in the past.`;
    case 'INVALID_ORDER_NOT_ENOUGH_BALANCE':
      return NOT_ENOUGH_BALANCE;
    default:
      return code;
  }
}

/** Checks one signed order body and places it for the credential's API key. */
export async function placeSigned(ctx: OrderIntake, cred: PolyCredential, body: unknown): Promise<PlaceAnswer> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return refuse(INVALID_PAYLOAD);
  const b = body as Record<string, unknown>;
  const o = (typeof b.order === 'object' && b.order !== null ? b.order : {}) as Record<string, unknown>;
  const salt = typeof o.salt === 'number' && Number.isSafeInteger(o.salt) && o.salt >= 0 ? String(o.salt) : o.salt;
  const sigType = o.signatureType;
  const orderType = b.orderType ?? 'GTC';
  if (
    !isUint(salt) ||
    !isHex(o.maker, 20) ||
    !isHex(o.signer, 20) ||
    !isUint(o.tokenId) ||
    !isUint(o.makerAmount) ||
    !isUint(o.takerAmount) ||
    (o.side !== 'BUY' && o.side !== 'SELL') ||
    !isUint(o.timestamp) ||
    !isHex(o.metadata, 32) ||
    !isHex(o.builder, 32) ||
    typeof o.signature !== 'string' ||
    (o.expiration !== undefined && !isUint(o.expiration)) ||
    typeof sigType !== 'number' ||
    typeof orderType !== 'string' ||
    !ORDER_TYPES.has(orderType)
  )
    return refuse(INVALID_PAYLOAD);
  if (b.owner !== cred.apiKey) return refuse(OWNER_NOT_KEY);
  // a deposit wallet signs as itself: its signer is checked with the signature below
  if (sigType !== 3 && !sameAddress(o.signer, cred.address)) return refuse(SIGNER_NOT_KEY);
  const market = ctx.exchange.byToken.get(o.tokenId)?.market;
  if (!market) return refuse('Invalid token id');
  const side = o.side;
  const typed = {
    domain: { name: 'Polymarket CTF Exchange', version: '2', chainId: POLYGON_CHAIN_ID, verifyingContract: exchangeOf(market.facts.negRisk) },
    types: { Order: ORDER_STRUCT },
    primaryType: 'Order' as const,
    message: {
      salt: BigInt(salt),
      maker: o.maker,
      signer: o.signer,
      tokenId: BigInt(o.tokenId),
      makerAmount: BigInt(o.makerAmount),
      takerAmount: BigInt(o.takerAmount),
      side: side === 'BUY' ? 0 : 1,
      signatureType: sigType,
      timestamp: BigInt(o.timestamp),
      metadata: o.metadata,
      builder: o.builder,
    },
  };
  // the wallet the key controls: a proxy (types 1, 2) or a deposit wallet (type 3)
  const wallet = ctx.accounts.walletOf(cred.address);
  let hash: string;
  let valid: boolean;
  try {
    hash = hashTypedData(typed);
    if (sigType === 3) {
      // maker = signer = the key's deposit wallet; the wallet's owner (the key) signed for it
      valid =
        wallet?.signatureType === 3 &&
        sameAddress(o.signer, wallet.address) &&
        sameAddress(o.maker, o.signer) &&
        sameAddress(wallet.owner, await depositWalletSigner(o.signature, typed.domain, typed.message));
    } else {
      const recovered = isHex(o.signature, 65) ? await recoverTypedDataAddress({ ...typed, signature: o.signature }) : undefined;
      // the maker: the signer itself (EOA), or the proxy wallet it controls (types 1 and 2)
      const makerOk =
        sigType === 0 ? sameAddress(o.maker, o.signer) : (sigType === 1 || sigType === 2) && (wallet?.signatureType === 1 || wallet?.signatureType === 2) && sameAddress(o.maker, wallet.address);
      valid = sameAddress(o.signer, recovered) && makerOk;
    }
  } catch {
    return refuse(INVALID_SIGNATURE);
  }
  if (!valid) return refuse(INVALID_SIGNATURE);
  if (ctx.seen.has(hash)) return refuse(venueMessage('INVALID_ORDER_DUPLICATED', hash));

  // price and size from the amounts (1e-6 units): BUY gives pUSD for shares, SELL shares for pUSD
  const makerAmt = BigInt(o.makerAmount);
  const takerAmt = BigInt(o.takerAmount);
  const usdc = side === 'BUY' ? makerAmt : takerAmt;
  const shares = side === 'BUY' ? takerAmt : makerAmt;
  if (shares <= 0n || usdc <= 0n) return refuse(INVALID_PAYLOAD);
  const marketable = orderType === 'FOK' || orderType === 'FAK';
  const tick = market.facts.tick;
  const scaled = usdc * BigInt(PRICE_SCALE);
  // a limit order's amounts are exact on the grid; a market order's are rounded by the client, its limit is the nearest tick
  const price = marketable ? Math.round(Number(scaled) / Number(shares) / tick) * tick : scaled % shares === 0n ? Number(scaled / shares) : NaN;
  if (!Number.isInteger(price) || price % tick !== 0 || price < tick || price > PRICE_SCALE - tick) {
    return refuse(`order ${hash} is invalid. Price (${Number(usdc) / Number(shares)}) breaks minimum tick size rule: ${formatPrice(tick)}`);
  }
  const size = Number(shares / SHARE_UNITS_PER_SIZE);
  if (!marketable && (shares % SHARE_UNITS_PER_SIZE !== 0n || size < market.facts.minSize)) {
    return refuse(`order ${hash} is invalid. Size (${Number(shares) / 1e6}) lower than the minimum: ${formatSize(market.facts.minSize)}`);
  }
  if (!ctx.exchange.hasFunds(cred.apiKey, o.tokenId, side, price, size)) return refuse(NOT_ENOUGH_BALANCE);

  ctx.seen.add(hash);
  if (ctx.seen.size > SEEN_MAX) ctx.seen.delete(ctx.seen.values().next().value as string);
  const res = await ctx.exchange.place(cred.apiKey, {
    tokenID: o.tokenId,
    price: formatPrice(price),
    size: formatSize(size),
    side,
    orderType,
    postOnly: b.postOnly === true,
    expiration: o.expiration ?? '0',
  });
  if (res.success !== true) return refuse(venueMessage(String(res.errorMsg), hash));
  const tradeIds = Array.isArray(res.tradeIDs) ? (res.tradeIDs as string[]) : [];
  return {
    ok: true,
    res: {
      success: true,
      errorMsg: '',
      orderID: res.orderID,
      transactionsHashes: tradeIds.map((id) => '0x' + hex64('tx:' + id)),
      tradeIDs: tradeIds,
      status: res.status,
      takingAmount: res.takingAmount ?? '',
      makingAmount: res.makingAmount ?? '',
    },
  };
}
