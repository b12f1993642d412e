// A stale balance cache at the venue (emulator fault balanceLagMs): shares of a confirmed buy are
// not in the CONDITIONAL balance until the cache catches up, or until GET /balance-allowance/update
// asks it to re-read (Polymarket's advice in py-clob-client issue 290). makerd's request (LiveVenue
// refreshBalance, polymarket profile) is checked against the official client's updateBalanceAllowance:
// both make the emulator re-read, so both name the route and parameters the same way.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { AssetType, OrderType, Side } from '@polymarket/clob-client-v2';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { bestPrices, makerdVenueFor, officialClient } from './polymarket-helpers.js';
import { waitFor } from './helpers.js';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ profile: 'polymarket', seed: 14, confirmDelayMs: 50, faults: { balanceLagMs: 600_000 } });
});
afterAll(async () => {
  await emu.close();
});

describe('polymarket profile: a stale balance cache and its refresh', () => {
  it('bought shares count in the balance only after a refresh, by makerd or by the official client', async () => {
    const acct = emu.accounts[0];
    const c = officialClient(emu, acct);
    const [yes] = emu.markets[0].tokens;
    const shares = async () => Number((await c.getBalanceAllowance({ asset_type: AssetType.CONDITIONAL, token_id: yes })).balance);
    const buy = async (): Promise<void> => {
      const { ask } = await bestPrices(emu, yes);
      const took = await c.createAndPostOrder({ tokenID: yes, price: ask, size: 5, side: Side.BUY }, { tickSize: '0.01' }, OrderType.GTC);
      expect(took.success).toBe(true);
      await waitFor(() => emu.exchange.tradesOf(acct.apiKey).every((t) => t.status === 'CONFIRMED'), 5000, 'the buy confirmed');
    };
    const start = await shares();
    await buy();
    // confirmed, but the cache has not caught up (10 minutes of lag)
    await new Promise((r) => setTimeout(r, 100));
    expect(await shares()).toBe(start);
    const { venue } = makerdVenueFor(emu, acct);
    await venue.refreshBalance(yes);
    const afterOurs = await shares();
    expect(afterOurs).toBe(start + 5_000_000);
    await buy();
    expect(await shares()).toBe(afterOurs);
    await c.updateBalanceAllowance({ asset_type: AssetType.CONDITIONAL, token_id: yes });
    expect(await shares()).toBe(afterOurs + 5_000_000);
  });

  it("makerd's collateral read (Venue.collateral) and its collateral refresh name the route as the official client does: the same balance", async () => {
    const acct = emu.accounts[0];
    const c = officialClient(emu, acct);
    const { venue } = makerdVenueFor(emu, acct);
    const official = async () => Number((await c.getBalanceAllowance({ asset_type: AssetType.COLLATERAL })).balance);
    expect(venue.collateral).toBeDefined();
    const before = await venue.collateral!();
    expect(before).toBe(await official());
    expect(before).toBe(emu.exchange.account(acct.apiKey).cashMicros);
    // the venue answers the COLLATERAL refresh of both clients (no token)
    await venue.refreshBalance();
    await c.updateBalanceAllowance({ asset_type: AssetType.COLLATERAL });
    expect(await venue.collateral!()).toBe(before);
  });
});
