// Deposit-wallet orders (signature type 3, POLY_1271) on the polymarket profile: the seeded deposit
// wallet account trades through the OFFICIAL client (@polymarket/clob-client-v2) and through
// makerd's own LiveVenue; orders whose wrapped ERC-7739 signature is wrong in any one part (inner
// signature by another key, altered contents hash, another exchange's domain separator, another
// type string) or whose signer is not the key's deposit wallet are refused "invalid signature".
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { OrderType, Side } from '@polymarket/clob-client-v2';
import { getAddress, hashDomain, hashStruct, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ORDER_STRUCT, orderBodyV2, signOrderV2, type SignatureType } from '../../src/api/polymarket-order.js';
import { EXCHANGE_V2 } from '../../src/api/polymarket-contracts.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import type { PolyTestAccount } from '../../src/emulator/polymarket-accounts.js';
import { bestPrices, l2Call, makerdVenueFor, officialClient } from './polymarket-helpers.js';

const round2 = (x: number): number => Math.round(x * 100) / 100;

let emu: RunningEmulator;
let dw: PolyTestAccount;
let yes: string;
beforeAll(async () => {
  emu = await startEmulator({ profile: 'polymarket', seed: 31 });
  dw = emu.accounts[2];
  yes = emu.markets[0].tokens[0];
});
afterAll(async () => {
  await emu.close();
});

/** A resting BUY price (integer units, 1e-4) five ticks under the best bid. */
async function restingPrice(): Promise<number> {
  const { bid } = await bestPrices(emu, yes);
  return Math.max(100, Math.round(bid * 100) * 100 - 500);
}

/** A type-3 order signed with makerd's signer: `key` signs, `wallet` is maker and signer. */
async function signed(
  price: number,
  o: { key?: `0x${string}`; wallet?: string; owner?: string; negRisk?: boolean; signatureType?: SignatureType } = {},
): Promise<{ order: Record<string, unknown> } & Record<string, unknown>> {
  const s = await signOrderV2(o.key ?? dw.privateKey, {
    tokenId: yes,
    side: 'BUY',
    price,
    size: 500,
    negRisk: o.negRisk ?? false,
    salt: String(Math.floor(Math.random() * 1e12)),
    timestampMs: Date.now(),
    signatureType: o.signatureType ?? 3,
    funder: (o.wallet ?? dw.funder) as `0x${string}`,
  });
  return orderBodyV2(s, o.owner ?? dw.apiKey, 'GTC', true) as { order: Record<string, unknown> } & Record<string, unknown>;
}

/** The wrapped signature's parts (hex without 0x): inner (65 bytes), domain separator, contents hash, type string, length. */
function parts(sig: string): { inner: string; separator: string; contents: string; type: string; len: string } {
  const h = sig.slice(2);
  return { inner: h.slice(0, 130), separator: h.slice(130, 194), contents: h.slice(194, 258), type: h.slice(258, -4), len: h.slice(-4) };
}
/**
 * The order of a body re-signed by `key` as a deposit wallet's (the wrapping written here
 * independently with viem), whatever its maker and signer: to make a well-signed order that breaks
 * the maker rule.
 */
async function rewrap(b: { order: Record<string, unknown> }, key: `0x${string}`): Promise<void> {
  const o = b.order as Record<string, string | number>;
  const message = {
    salt: BigInt(o.salt),
    maker: o.maker as `0x${string}`,
    signer: o.signer as `0x${string}`,
    tokenId: BigInt(o.tokenId),
    makerAmount: BigInt(o.makerAmount),
    takerAmount: BigInt(o.takerAmount),
    side: o.side === 'BUY' ? 0 : 1,
    signatureType: Number(o.signatureType),
    timestamp: BigInt(o.timestamp),
    metadata: o.metadata as `0x${string}`,
    builder: o.builder as `0x${string}`,
  };
  const domain = { name: 'Polymarket CTF Exchange', version: '2', chainId: 137n, verifyingContract: EXCHANGE_V2 } as const;
  const typedDataSign = [
    { name: 'contents', type: 'Order' },
    { name: 'name', type: 'string' },
    { name: 'version', type: 'string' },
    { name: 'chainId', type: 'uint256' },
    { name: 'verifyingContract', type: 'address' },
    { name: 'salt', type: 'bytes32' },
  ] as const;
  const inner = await privateKeyToAccount(key).signTypedData({
    domain,
    types: { TypedDataSign: typedDataSign, Order: ORDER_STRUCT },
    primaryType: 'TypedDataSign',
    message: { contents: message, name: 'DepositWallet', version: '1', chainId: 137n, verifyingContract: message.signer, salt: `0x${'0'.repeat(64)}` },
  });
  const separator = hashDomain({
    domain,
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'version', type: 'string' },
        { name: 'chainId', type: 'uint256' },
        { name: 'verifyingContract', type: 'address' },
      ],
    },
  });
  const contents = hashStruct({ data: message, primaryType: 'Order', types: { Order: ORDER_STRUCT } });
  const type = toHex(`Order(${ORDER_STRUCT.map((f) => `${f.type} ${f.name}`).join(',')})`).slice(2);
  b.order.signature = join({ inner: inner.slice(2), separator: separator.slice(2), contents: contents.slice(2), type, len: (type.length / 2).toString(16).padStart(4, '0') });
}

const join = (p: ReturnType<typeof parts>): string => `0x${p.inner}${p.separator}${p.contents}${p.type}${p.len}`;

describe('polymarket profile: deposit-wallet (type 3) orders', () => {
  it('seeds a third account: type 3 with a deposit wallet as its funder, distinct from the key', () => {
    expect(emu.accounts.map((a) => a.signatureType)).toEqual([0, 2, 3]);
    expect(dw.funder).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(dw.funder).toBe(getAddress(dw.funder as string));
    expect(dw.funder?.toLowerCase()).not.toBe(dw.address.toLowerCase());
    expect(dw.funder).not.toBe(emu.accounts[1].funder);
  });

  it('the official client (signatureType 3, funder = the wallet) places a post-only GTC order that rests, lists it and cancels it', async () => {
    const c = officialClient(emu, dw);
    const { bid } = await bestPrices(emu, yes);
    const price = Math.max(0.01, round2(bid - 0.05));
    const placed = await c.createAndPostOrder({ tokenID: yes, price, size: 10, side: Side.BUY }, undefined, OrderType.GTC, true);
    expect(placed).toMatchObject({ success: true, errorMsg: '', status: 'live', orderID: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    const open = await c.getOpenOrders({ market: emu.markets[0].conditionId });
    expect(open).toHaveLength(1);
    expect(open[0]).toMatchObject({ id: placed.orderID, asset_id: yes, side: 'BUY', price: String(price), original_size: '10', status: 'LIVE' });
    expect(open[0].maker_address.toLowerCase()).toBe(dw.funder?.toLowerCase());
    expect(await c.cancelOrder({ orderID: placed.orderID })).toMatchObject({ canceled: [placed.orderID] });
    expect(await c.getOpenOrders()).toEqual([]);
  });

  it("makerd's LiveVenue with MAKERD_SIGNATURE_TYPE=3 and MAKERD_FUNDER = the wallet places an order that rests", async () => {
    const { clients, venue, market: m, tick } = makerdVenueFor(emu, dw);
    const token = m.facts.tokens[0];
    try {
      const book = await clients.clob.getBook(token);
      const bid = book.bids[book.bids.length - 1].price;
      const [res] = await venue.placeOrders([{ tokenId: token, orderType: 'GTC', postOnly: true, clientId: 'dw', side: 'BUY', price: bid - 2 * tick, size: m.facts.minSize }]);
      expect(res).toMatchObject({ clientId: 'dw', ok: true });
      const open = await venue.openOrders();
      expect(open.map((o) => o.orderId)).toEqual([res.orderId]);
      expect(open[0]).toMatchObject({ tokenId: token, side: 'BUY', price: bid - 2 * tick, originalSize: m.facts.minSize });
      expect((await venue.cancelOrders([res.orderId as string])).canceled).toEqual([res.orderId]);
    } finally {
      await clients.close();
    }
  });

  it('a good raw type-3 order is taken; the same order with any one part wrong is refused "invalid signature"', async () => {
    const price = await restingPrice();
    const refused = { status: 400, json: { error: 'invalid signature' } };
    const post = (b: unknown): ReturnType<typeof l2Call> => l2Call(emu, dw, 'POST', '/order', b);

    // the inner signature is another key's (the EOA account's), for the same wallet
    expect(await post(await signed(price, { key: emu.accounts[0].privateKey }))).toEqual(refused);

    // the appended contents hash altered (the order itself untouched)
    const altered = await signed(price);
    const p = parts(altered.order.signature as string);
    altered.order.signature = join({ ...p, contents: p.contents.slice(0, 63) + (p.contents[63] === '0' ? '1' : '0') });
    expect(await post(altered)).toEqual(refused);

    // the appended domain separator is the neg-risk exchange's (taken from a neg-risk signature)
    const wrongDomain = await signed(price);
    const w = parts(wrongDomain.order.signature as string);
    wrongDomain.order.signature = join({ ...w, separator: parts((await signed(price, { negRisk: true })).order.signature as string).separator });
    expect(await post(wrongDomain)).toEqual(refused);

    // another type string (same length), and a length that does not match the bytes
    const wrongType = await signed(price);
    const t = parts(wrongType.order.signature as string);
    wrongType.order.signature = join({ ...t, type: Buffer.from(Buffer.from(t.type, 'hex').toString().replace('Order(', 'Ordex(')).toString('hex') });
    expect(await post(wrongType)).toEqual(refused);
    const wrongLen = await signed(price);
    const l = parts(wrongLen.order.signature as string);
    wrongLen.order.signature = join({ ...l, len: (parseInt(l.len, 16) - 1).toString(16).padStart(4, '0') });
    expect(await post(wrongLen)).toEqual(refused);

    // signed by the wallet's owner, but for another wallet (maker = signer = the proxy account's funder)
    expect(await post(await signed(price, { wallet: emu.accounts[1].funder }))).toEqual(refused);
    // maker is the wallet, signer the key itself (a type-3 order must be signed by the wallet)
    const keySigner = await signed(price);
    keySigner.order.signer = dw.address;
    expect(await post(keySigner)).toEqual(refused);
    // the deposit wallet claimed as a proxy (type 2) of the key
    expect(await post(await signed(price, { signatureType: 2 }))).toEqual(refused);
    // the wallet's order sent with another key's credentials (the EOA account's, which has no deposit wallet)
    expect(await l2Call(emu, emu.accounts[0], 'POST', '/order', { ...(await signed(price)), owner: emu.accounts[0].apiKey })).toEqual(refused);

    // the proxy (type 2) account's key signs a type-3 order for its proxy: that wallet is no deposit wallet
    const proxy = emu.accounts[1];
    expect(await l2Call(emu, proxy, 'POST', '/order', await signed(price, { key: proxy.privateKey, wallet: proxy.funder, owner: proxy.apiKey }))).toEqual(refused);
    // well signed by the owner (our own wrapping, checked first on an untouched order), but the maker is not the wallet
    const rewrapped = await signed(price);
    const original = rewrapped.order.signature;
    await rewrap(rewrapped, dw.privateKey);
    expect(rewrapped.order.signature).toBe(original);
    rewrapped.order.maker = dw.address;
    await rewrap(rewrapped, dw.privateKey);
    expect(await post(rewrapped)).toEqual(refused);

    // nothing rested; the good one does
    expect((await l2Call(emu, dw, 'GET', '/data/orders')).json).toMatchObject({ count: 0 });
    const good = await post(await signed(price));
    expect(good).toMatchObject({ status: 200, json: { success: true, status: 'live' } });
    expect((await l2Call(emu, dw, 'DELETE', '/order', { orderID: good.json.orderID })).json).toMatchObject({ canceled: [good.json.orderID] });
  });
});
