// An approval to the exchanges smaller than the wallet (emulator --allowance): the venue refuses a
// BUY beyond the allowance left as beyond the cash ("not enough balance / allowance"), a BUY's fill
// uses the allowance up (an ERC-20 transferFrom), and GET /balance-allowance shows it per exchange.
// The answer is read by the official client; makerd's collateral read (LiveVenue.collateral) is
// the lower of the balance and the allowances of the exchanges its markets use.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { AssetType } from '@polymarket/clob-client-v2';
import { orderBodyV2, signOrderV2 } from '../../src/api/polymarket-order.js';
import { EXCHANGE_V2, NEG_RISK_EXCHANGE_V2 } from '../../src/api/polymarket-contracts.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { LiveVenue } from '../../src/venue/live-venue.js';
import { createLogger } from '../../src/core/log.js';
import { bestPrices, l2Call, makerdVenueFor, officialClient } from './polymarket-helpers.js';
import { waitFor } from './helpers.js';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ profile: 'polymarket', seed: 23, confirmDelayMs: 50, startCashMicros: 100_000_000, allowanceMicros: 6_000_000 });
});
afterAll(async () => {
  await emu.close();
});

describe('polymarket profile: an allowance below the balance', () => {
  it('refuses a BUY beyond the allowance left, fills use it up, and the balance answer shows it', async () => {
    const acct = emu.accounts[0];
    const yes = emu.markets[0].tokens[0];
    const c = officialClient(emu, acct);
    const read = () => c.getBalanceAllowance({ asset_type: AssetType.COLLATERAL });
    const first = await read();
    expect(first.balance).toBe('100000000');
    expect(first.allowances[EXCHANGE_V2]).toBe('6000000');
    expect(first.allowances[NEG_RISK_EXCHANGE_V2]).toBe('6000000');
    // shares' approval is not the collateral's: unlimited
    const conditional = await c.getBalanceAllowance({ asset_type: AssetType.CONDITIONAL, token_id: yes });
    expect(BigInt(conditional.allowances[EXCHANGE_V2])).toBe(2n ** 256n - 1n);

    const post = async (price: number, size: number, postOnly: boolean) => {
      const signed = await signOrderV2(acct.privateKey, {
        tokenId: yes,
        side: 'BUY',
        price,
        size,
        negRisk: false,
        salt: String(Math.floor(Math.random() * 1e12)),
        timestampMs: Date.now(),
        signatureType: 0,
      });
      return l2Call(emu, acct, 'POST', '/order', orderBodyV2(signed, acct.apiKey, 'GTC', postOnly));
    };
    const { bid } = await bestPrices(emu, yes);
    const resting = Math.min(2000, Math.max(100, Math.round(bid * 100) * 100 - 500));
    const shares = (usd: number): number => Math.ceil((usd * 1e6) / resting / 100) * 100;
    // $100 in the wallet, $6 approved: a BUY costing more than $6 is refused
    expect((await post(resting, shares(6.01), true)).json).toEqual({ error: 'not enough balance / allowance' });
    expect((await post(resting, 500, true)).status).toBe(200);
    // with the open BUY's cost, one for the rest of the $6 and a bit goes past it
    expect((await post(resting, shares(6.01 - (resting * 500) / 1e6), true)).json).toEqual({ error: 'not enough balance / allowance' });
    expect((await l2Call(emu, acct, 'DELETE', '/cancel-market-orders', { market: emu.markets[0].conditionId, asset_id: yes })).status).toBe(200);

    // a BUY that takes: its cost comes off the allowance as off the cash
    const askPrice = Math.round((await bestPrices(emu, yes)).ask * 100) * 100;
    const before = emu.exchange.account(acct.apiKey).allowanceMicros;
    const took = await post(askPrice, 500, false);
    expect(took.status).toBe(200);
    await waitFor(() => emu.exchange.tradesOf(acct.apiKey).some((t) => t.status === 'CONFIRMED'), 5000, 'the buy confirmed');
    const spent = emu.exchange.tradesOf(acct.apiKey).reduce((s, t) => s + t.price * t.size, 0);
    expect(spent).toBeGreaterThan(0);
    const after = await read();
    expect(Number(after.allowances[EXCHANGE_V2])).toBe(before - spent);
    expect(Number(after.balance)).toBe(100_000_000 - spent);
  });

  it("makerd's collateral read is the lower of the balance and the allowances of the exchanges in use, and says so once", async () => {
    const acct = emu.accounts[1];
    const { clients } = makerdVenueFor(emu, acct);
    const lines: string[] = [];
    const log = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(s) } });
    let inUse: string[] = [EXCHANGE_V2];
    const venue = new LiveVenue({ clob: clients.clob, subscribeUser: () => {}, tickOf: () => 100, exchangesInUse: () => inUse, log });
    try {
      expect(await venue.collateral?.()).toBe(6_000_000);
      expect(await venue.collateral?.()).toBe(6_000_000);
      const warned = lines.filter((l) => l.includes('allowance is below the balance'));
      expect(warned).toHaveLength(1);
      expect(JSON.parse(warned[0])).toMatchObject({ level: 40, exchange: EXCHANGE_V2, allowanceUsd: 6, balanceUsd: 100 });
      // the approval raised: the balance is the figure again, and the log says so
      emu.exchange.account(acct.apiKey).allowanceMicros = Infinity;
      expect(await venue.collateral?.()).toBe(100_000_000);
      expect(lines.filter((l) => l.includes('allowances cover the balance again'))).toHaveLength(1);
      // only the exchanges our markets use count (an unapproved neg-risk exchange does not cap plain markets)
      emu.exchange.account(acct.apiKey).allowanceMicros = 2_000_000;
      inUse = [];
      expect(await venue.collateral?.()).toBe(100_000_000);
      inUse = [EXCHANGE_V2, NEG_RISK_EXCHANGE_V2];
      expect(await venue.collateral?.()).toBe(2_000_000);
    } finally {
      await clients.close();
    }
  });
});
