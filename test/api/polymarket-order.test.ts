// Issue 12, item 8 (b), in part: for fixed inputs (key, salt, timestamp, price, size, tick,
// neg-risk, signature type, funder), makerd's signed V2 order equals the one Polymarket's own client
// builds (OrderBuilder.buildOrder, version 2) byte for byte, over every tick size of its rounding
// table; and the contract addresses are the client's.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OrderBuilder, getContractConfig, orderToJsonV2 } from '@polymarket/clob-client-v2';
import { createWalletClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { polygon } from 'viem/chains';
import { orderAmounts, orderBodyV2, orderSalt, signOrderV2, type SignatureType } from '../../src/api/polymarket-order.js';
import { EXCHANGE_V2, NEG_RISK_EXCHANGE_V2 } from '../../src/api/polymarket-contracts.js';
import type { Side } from '../../src/core/events.js';
import { polymarketProfile } from '../../src/api/polymarket-profile.js';
import { SeededRng } from '../../src/core/rng.js';

const PK = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d' as const;
const account = privateKeyToAccount(PK);
const wallet = createWalletClient({ account, chain: polygon, transport: http('http://127.0.0.1:9') });
const FUNDER = '0x1111111111111111111111111111111111111111' as const;
const TOKEN = '71321045679252212594626385532706912750332728571942532289631379312455583992563';

afterEach(() => {
  vi.restoreAllMocks();
});

const TICKS: Array<[string, number]> = [
  ['0.1', 1000],
  ['0.01', 100],
  ['0.005', 50],
  ['0.0025', 25],
  ['0.001', 10],
  ['0.0001', 1],
];

describe('signed V2 orders equal the official client', () => {
  it('uses the official client contract addresses for chain 137', () => {
    const c = getContractConfig(137) as unknown as { exchangeV2: string; negRiskExchangeV2: string };
    expect(EXCHANGE_V2).toBe(c.exchangeV2);
    expect(NEG_RISK_EXCHANGE_V2).toBe(c.negRiskExchangeV2);
  });

  it('over every tick, both sides, neg-risk or not, EOA, proxy, safe and deposit-wallet (ERC-1271) signatures: the same order and signature', async () => {
    const rng = new SeededRng(12);
    let n = 0;
    for (const [tickStr, tick] of TICKS) {
      for (let k = 0; k < 8; k++) {
        const side: Side = k % 2 ? 'SELL' : 'BUY';
        // a price on the tick strictly inside (0, 1), a size of whole hundredths of a share
        const steps = Math.round(10_000 / tick);
        const price = tick * (1 + Math.floor(rng.next() * (steps - 1)));
        const size = 500 + Math.floor(rng.next() * 200_000);
        const negRisk = k % 4 >= 2;
        const signatureType = (k % 4) as SignatureType;
        const funder = signatureType === 0 ? undefined : FUNDER;
        const now = 1_764_000_000_000 + k;
        const random = rng.next();
        vi.spyOn(Date, 'now').mockReturnValue(now);
        vi.spyOn(Math, 'random').mockReturnValue(random);
        const builder = new OrderBuilder(wallet as never, 137, signatureType, funder);
        const theirs = await builder.buildOrder({ tokenID: TOKEN, price: price / 10_000, size: size / 100, side: side as never }, { tickSize: tickStr as never, negRisk }, 2);
        vi.restoreAllMocks();
        const ours = await signOrderV2(PK, { tokenId: TOKEN, side, price, size, negRisk, salt: orderSalt(() => random, now), timestampMs: now, signatureType, funder });
        expect(ours).toEqual({ ...(theirs as object) });
        // the POST /order body: the same JSON text
        const owner = '2f6b1c3a-0000-4000-8000-000000000001';
        expect(JSON.stringify(orderBodyV2(ours, owner, 'GTC', true))).toBe(JSON.stringify(orderToJsonV2(theirs as never, owner, 'GTC' as never, true)));
        n++;
      }
    }
    expect(n).toBe(48);
  });

  it("the profile's account is the maker the official client writes in our orders (the funder when set, else the key's address)", async () => {
    for (const funder of [undefined, FUNDER]) {
      const theirs = (await new OrderBuilder(wallet as never, 137, funder ? 1 : 0, funder).buildOrder(
        { tokenID: TOKEN, price: 0.5, size: 10, side: 'BUY' as never },
        { tickSize: '0.01' as never, negRisk: false },
        2,
      )) as { maker: string };
      const profile = polymarketProfile({ privateKey: PK, apiKey: 'k', apiSecret: 'c2VjcmV0', apiPassphrase: 'p', signatureType: funder ? 1 : 0, funder });
      expect(profile.account).toBe(`address:${theirs.maker.toLowerCase()}`);
    }
  });

  it('a GTD order: the same order, signature and body as the official client given the expiry', async () => {
    const now = 1_764_000_000_000;
    const expirationSec = now / 1000 + 3600;
    vi.spyOn(Date, 'now').mockReturnValue(now);
    vi.spyOn(Math, 'random').mockReturnValue(0.25);
    const theirs = await new OrderBuilder(wallet as never, 137, 1, FUNDER).buildOrder(
      { tokenID: TOKEN, price: 0.42, size: 12, side: 'SELL' as never, expiration: expirationSec },
      { tickSize: '0.01' as never, negRisk: false },
      2,
    );
    vi.restoreAllMocks();
    const ours = await signOrderV2(PK, {
      tokenId: TOKEN,
      side: 'SELL',
      price: 4200,
      size: 1200,
      negRisk: false,
      salt: orderSalt(() => 0.25, now),
      timestampMs: now,
      signatureType: 1,
      funder: FUNDER,
      expirationSec,
    });
    expect(ours).toEqual({ ...(theirs as object) });
    expect(ours.expiration).toBe(String(expirationSec));
    const owner = '2f6b1c3a-0000-4000-8000-000000000001';
    expect(JSON.stringify(orderBodyV2(ours, owner, 'GTD', true))).toBe(JSON.stringify(orderToJsonV2(theirs as never, owner, 'GTD' as never, true)));
  });

  it('amounts are exact integers of 1e-6: 10.01 shares at 0.57', () => {
    expect(orderAmounts('BUY', 5700, 1001)).toEqual({ makerAmount: '5705700', takerAmount: '10010000' });
    expect(orderAmounts('SELL', 5700, 1001)).toEqual({ makerAmount: '10010000', takerAmount: '5705700' });
  });
});
