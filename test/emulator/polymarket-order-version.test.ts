// The venue's order version (GET /version): the polymarket emulator answers 2 unless a test sets
// another; at another version it refuses every order as the real venue refused orders signed for
// the exchanges it had left, 400 {"error":"order_version_mismatch"} (a public report's capture),
// and makerd's own client and venue read that as what it is: ORDER_VERSION_MISMATCH, not UNKNOWN.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { setOrderVersion } from '../../src/emulator/polymarket-markets.js';
import { ORDER_VERSION } from '../../src/api/polymarket-contracts.js';
import { bestPrices, makerdVenueFor, officialClient } from './polymarket-helpers.js';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ profile: 'polymarket', seed: 31 });
});
afterAll(async () => {
  await emu.close();
});

async function versionAnswer(): Promise<unknown> {
  const r = await fetch(`${emu.urls.clob}/version`, { signal: AbortSignal.timeout(5000) });
  return r.json();
}

describe('polymarket emulator: the venue order version', () => {
  it('answers version 2 by default, the version makerd signs; makerd and the official client both read it', async () => {
    expect(ORDER_VERSION).toBe(2);
    expect(await versionAnswer()).toEqual({ version: 2 });
    expect(await officialClient(emu, emu.accounts[0]).getVersion()).toBe(2);
    const { clients } = makerdVenueFor(emu, emu.accounts[0]);
    try {
      expect(await clients.clob.getOrderVersion()).toBe(2);
    } finally {
      await clients.close();
    }
  });

  it('at version 3 answers 3 and refuses every order, one or a batch, with order_version_mismatch: ORDER_VERSION_MISMATCH to makerd', async () => {
    const { clients, venue, market, tick } = makerdVenueFor(emu, emu.accounts[0]);
    const token = market.tokens[0];
    const { bid } = await bestPrices(emu, token);
    // well below the best bid: it would rest at version 2
    const price = Math.max(tick, Math.round((bid * 10_000) / tick) * tick - 5 * tick);
    const order = (clientId: string) => ({ clientId, tokenId: token, side: 'BUY' as const, price, size: market.facts.minSize, orderType: 'GTC' as const, postOnly: true });
    setOrderVersion(emu.exchange, 3);
    try {
      expect(await versionAnswer()).toEqual({ version: 3 });
      expect(await officialClient(emu, emu.accounts[0]).getVersion()).toBe(3);
      expect(await clients.clob.getOrderVersion()).toBe(3);
      const one = await venue.placeOrder(order('v3-one'));
      expect(one).toEqual({ clientId: 'v3-one', ok: false, error: 'ORDER_VERSION_MISMATCH', message: 'order_version_mismatch' });
      const batch = await venue.placeOrders([order('v3-a'), order('v3-b')]);
      expect(batch.map((r) => [r.clientId, r.ok, r.error])).toEqual([
        ['v3-a', false, 'ORDER_VERSION_MISMATCH'],
        ['v3-b', false, 'ORDER_VERSION_MISMATCH'],
      ]);
      expect(emu.exchange.openOrders(emu.accounts[0].apiKey)).toHaveLength(0);
    } finally {
      setOrderVersion(emu.exchange, 2);
    }
    // back at version 2 the same order rests
    try {
      const back = await venue.placeOrder(order('v2-again'));
      expect(back).toMatchObject({ clientId: 'v2-again', ok: true });
    } finally {
      await venue.cancelAll();
      await clients.close();
    }
  });
});
