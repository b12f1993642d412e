// Order signing on the polymarket profile: what signing a batch of 15 quotes costs before it can
// leave, against a floor of viem's bare EIP-712 signature of the same orders (the cryptography).
import { privateKeyToAccount } from 'viem/accounts';
import { polymarketProfile } from '../api/polymarket-profile.js';
import { ORDER_STRUCT } from '../api/polymarket-order.js';
import { EXCHANGE_V2 } from '../api/polymarket-contracts.js';
import type { NewOrder } from '../api/clob-profile.js';

const PK = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d' as const;
const TOKEN = '71321045679252212594626385532706912750332728571942532289631379312455583992563';
const ZERO = `0x${'0'.repeat(64)}` as const;

export async function run(): Promise<Record<string, unknown>> {
  const BATCHES = 40;
  const orders: NewOrder[] = Array.from({ length: 15 }, (_, i) => ({ tokenId: TOKEN, price: 4000 + 100 * i, size: 1000 + i, side: i % 2 ? 'SELL' : 'BUY', postOnly: true, orderType: 'GTC' }));
  const account = privateKeyToAccount(PK);
  const floorOnce = async (): Promise<void> => {
    for (const o of orders) {
      await account.signTypedData({
        domain: { name: 'Polymarket CTF Exchange', version: '2', chainId: 137, verifyingContract: EXCHANGE_V2 },
        types: { Order: ORDER_STRUCT },
        primaryType: 'Order',
        message: {
          salt: 1n,
          maker: account.address,
          signer: account.address,
          tokenId: BigInt(o.tokenId),
          makerAmount: BigInt(o.size * o.price),
          takerAmount: BigInt(o.size * 10_000),
          side: 0,
          signatureType: 0,
          timestamp: 1n,
          metadata: ZERO,
          builder: ZERO,
        },
      });
    }
  };
  const profile = polymarketProfile({ privateKey: PK, apiKey: 'k', apiSecret: 'c2VjcmV0', apiPassphrase: 'p', signatureType: 0 });
  const oursOnce = async (): Promise<void> => {
    await profile.orderBodies(orders);
  };
  await floorOnce();
  await oursOnce();
  let t0 = performance.now();
  for (let i = 0; i < BATCHES; i++) await floorOnce();
  const floorMs = (performance.now() - t0) / BATCHES;
  t0 = performance.now();
  for (let i = 0; i < BATCHES; i++) await oursOnce();
  const oursMs = (performance.now() - t0) / BATCHES;
  return {
    bench: 'order_signing',
    batch: orders.length,
    floor_viem_sign_ms_per_batch: +floorMs.toFixed(2),
    ours_signed_bodies_ms_per_batch: +oursMs.toFixed(2),
    ratio_to_floor: +(oursMs / floorMs).toFixed(2),
  };
}
