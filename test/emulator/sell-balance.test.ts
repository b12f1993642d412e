// The emulator's balance check on SELLs, as the venue's: a SELL needs shares of CONFIRMED trades
// for itself and every open SELL of the token. Shares bought in a trade still MATCHED are held
// but not sellable yet (py-clob-client issues 287 and 290: "not enough balance / allowance" right
// after a buy that matched). Checked through the project's own CLOB client over HTTP.
import { describe, it, expect, afterAll, beforeAll } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { ApiError } from '../../src/core/errors.js';
import { clientsFor, waitFor } from './helpers.js';

/** The venue's error code of a refused order (the spec profile answers 400), or 'accepted'. */
const outcome = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'accepted',
    (e: unknown) => (e instanceof ApiError ? e.code : Promise.reject(e)),
  );

let emu: RunningEmulator;
let shorts: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ seed: 33, confirmDelayMs: 600, tickMs: 10 });
  shorts = await startEmulator({ seed: 33, confirmDelayMs: 600, tickMs: 10, checkSellBalance: false });
});
afterAll(async () => {
  await emu.close();
  await shorts.close();
});

describe('emulator SELL balance check', () => {
  it('refuses a SELL without shares, and of shares bought in a trade not yet CONFIRMED; accepts it once confirmed, up to the shares left', async () => {
    const a = clientsFor(emu.urls, 'key-a');
    const [yes] = emu.markets[0].tokens;
    const book = await a.clob.getBook(yes);
    const bestAsk = book.asks[book.asks.length - 1].price;
    const sellAt = 9900; // price units: 0.99

    const sellOf = (size: number) => a.clob.postOrder({ tokenId: yes, price: sellAt, size, side: 'SELL', orderType: 'GTC' });
    expect(await outcome(sellOf(500))).toBe('INVALID_ORDER_NOT_ENOUGH_BALANCE');

    // buy 5 shares as a taker: the trade is MATCHED now, CONFIRMED 600 ms later
    const bought = await a.clob.postOrder({ tokenId: yes, price: bestAsk, size: 500, side: 'BUY', orderType: 'FAK' });
    expect(bought.success).toBe(true);
    const mine = () => emu.exchange.tradesOf('key-a');
    expect(mine().length).toBeGreaterThan(0);
    const held = emu.exchange.account('key-a').positions.get(yes) ?? 0;
    expect(held).toBeGreaterThan(0);
    expect(emu.exchange.sellableShares('key-a', yes)).toBe(0);
    expect(await outcome(sellOf(held))).toBe('INVALID_ORDER_NOT_ENOUGH_BALANCE');
    expect(mine().every((t) => t.status === 'MATCHED')).toBe(true); // it was inside the confirm delay

    await waitFor(() => mine().every((t) => t.status === 'CONFIRMED'), 5000, 'the buy CONFIRMED');
    expect(emu.exchange.sellableShares('key-a', yes)).toBe(held);
    const sell = await sellOf(held);
    expect(sell.success).toBe(true);
    // the open SELL promises every share: one more is refused, until it is cancelled
    expect(await outcome(sellOf(500))).toBe('INVALID_ORDER_NOT_ENOUGH_BALANCE');
    expect(emu.exchange.rejectionsOf('key-a').INVALID_ORDER_NOT_ENOUGH_BALANCE).toBe(3);
    await a.clob.cancelOrders([sell.orderID as string]);
    expect(await outcome(sellOf(held))).toBe('accepted');
  });

  it('accepts a SELL without shares when started with checkSellBalance false (--allow-short-sells)', async () => {
    const b = clientsFor(shorts.urls, 'key-b');
    const [yes] = shorts.markets[0].tokens;
    const r = await b.clob.postOrder({ tokenId: yes, price: 9900, size: 500, side: 'SELL', orderType: 'GTC' });
    expect(r.success).toBe(true);
  });
});
