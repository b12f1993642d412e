// The simulated venue's fees (issue 12, item 6): a market with a fee rule charges our taker fills
// by the rule, as the official client computes it (expected amounts from its own
// adjustBuyAmountForFees), and our maker fills nothing; a market without one keeps the flat
// maker/taker bps on notional, exactly as before.
import { describe, expect, it } from 'vitest';
import { adjustBuyAmountForFees } from '@polymarket/clob-client-v2';
import { VirtualClock } from '../../src/core/clock.js';
import { feeMicros } from '../../src/core/units.js';
import type { FeeRule } from '../../src/core/fees.js';
import { SimulatedVenue, simMarketOf, type SimMarket } from '../../src/venue/simulated-venue.js';
import { M, NO, YES, book, req, trade, venueWithBook } from './sim-helpers.js';

const RULE: FeeRule = { rate: 0.25, exponent: 2 };

/** The official client's fee, in micro-dollars, of `size` units at `price` units (see test/core/fees.test.ts). */
function officialMicros(price: number, size: number, rule: FeeRule): number {
  const p = price / 10_000;
  const amount = (size / 100) * p;
  return Math.round((amount - adjustBuyAmountForFees(amount, p, amount, rule.rate, rule.exponent, 0, 0)) * 1e6);
}

const setup = (market: Partial<SimMarket>, fees = { makerFeeBps: 10, takerFeeBps: 20 }) => venueWithBook(fees, market);

describe('SimulatedVenue fees under a market fee rule', () => {
  it('charges a taker BUY by the rule at each level walked, as the official client computes it', async () => {
    const { venue, trades } = setup({ feeRule: RULE });
    const res = await venue.placeOrder(req({ side: 'BUY', price: 5300, size: 12345 }));
    expect(res).toMatchObject({ ok: true, status: 'matched' });
    const fills = venue.fills();
    expect(fills.map((f) => [f.liquidity, f.price, f.size])).toEqual([
      ['TAKER', 5200, 5000],
      ['TAKER', 5300, 7345],
    ]);
    // 50 x 0.25 x (0.52 x 0.48)^2 = 0.778752 $; 73.45 x 0.25 x (0.53 x 0.47)^2 = 1.139408 $
    expect(fills.map((f) => f.feeMicros)).toEqual([officialMicros(5200, 5000, RULE), officialMicros(5300, 7345, RULE)]);
    expect(fills.map((f) => f.feeMicros)).toEqual([778_752, 1_139_408]);
    expect(venue.stats().feesMicros).toBe(fills[0].feeMicros + fills[1].feeMicros);
    // what the engine books (engine/fills.ts: feeMicros(price, size, feeRateBps)) is the same amount
    for (const [i, t] of trades().entries()) {
      expect(t.traderSide).toBe('TAKER');
      expect(feeMicros(t.price, t.size, t.feeRateBps)).toBe(fills[i].feeMicros);
      expect(t.feeRateBps).toBeCloseTo(0.25 * (1 - t.price / 1e4) * (t.price / 1e4) * (1 - t.price / 1e4) * 1e4, 6);
      // the external maker pays nothing under the rule
      expect(t.makerOrders[0].feeRateBps).toBe(0);
    }
    // the venue's trade list (restart reconciliation) carries the same rate
    const listed = await venue.trades(0);
    for (const [i, t] of listed.entries()) expect(feeMicros(t.price, t.size, t.feeRateBps)).toBe(fills[i].feeMicros);
  });

  it('charges a taker SELL on the second token by the same rule at its own price', async () => {
    const { venue } = setup({ feeRule: { rate: 0.07, exponent: 1 } });
    venue.holdShares(NO, 3333);
    await venue.placeOrder(req({ tokenId: NO, side: 'SELL', price: 4800, size: 3333, orderType: 'FAK' }));
    const [f] = venue.fills();
    expect([f.tokenId, f.liquidity, f.price, f.size]).toEqual([NO, 'TAKER', 4800, 3333]);
    expect(f.feeMicros).toBe(officialMicros(4800, 3333, { rate: 0.07, exponent: 1 }));
    expect(f.feeMicros).toBe(582_342); // 33.33 x 0.07 x (0.48 x 0.52) = 0.58234176 $
  });

  it('charges a maker fill nothing, and reports the taker its rule rate', async () => {
    const { venue, trades } = setup({ feeRule: RULE }, { makerFeeBps: 10, takerFeeBps: 20 });
    await venue.placeOrder(req({ side: 'BUY', price: 5100, size: 1000, postOnly: true }));
    venue.onMarketEvent(trade(YES, 'SELL', 5000, 5000)); // a trade through our bid fills it
    const [f] = venue.fills();
    expect([f.liquidity, f.price, f.size, f.feeRateBps, f.feeMicros]).toEqual(['MAKER', 5100, 1000, 0, 0]);
    expect(venue.stats()).toMatchObject({ makerFills: 1, feesMicros: 0 });
    const [t] = trades();
    expect(t).toMatchObject({ traderSide: 'MAKER', feeRateBps: 0 });
    expect(t.makerOrders[0].feeRateBps).toBe(0);
  });

  it('a rule of rate 0 charges nothing (a market whose metadata has no fd)', async () => {
    const { venue } = setup({ feeRule: { rate: 0, exponent: 0 } });
    await venue.placeOrder(req({ side: 'BUY', price: 5300, size: 6000 }));
    expect(venue.fills().map((f) => [f.feeRateBps, f.feeMicros])).toEqual([
      [0, 0],
      [0, 0],
    ]);
  });

  it('refuses a market whose rule is not finite and non-negative', () => {
    for (const feeRule of [
      { rate: NaN, exponent: 1 },
      { rate: 0.1, exponent: -1 },
      { rate: Infinity, exponent: 2 },
    ]) {
      expect(() => setup({ feeRule })).toThrow(RangeError);
    }
  });
});

describe('SimulatedVenue fees without a rule (the flat fallback, unchanged)', () => {
  it('charges the configured maker and taker bps on notional', async () => {
    const { venue, trades } = setup({});
    await venue.placeOrder(req({ side: 'BUY', price: 5300, size: 12345 }));
    await venue.placeOrder(req({ side: 'SELL', price: 5500, size: 1000, postOnly: true }));
    venue.onMarketEvent(trade(YES, 'BUY', 5600, 5000));
    const fills = venue.fills();
    expect(fills.map((f) => [f.liquidity, f.price, f.size, f.feeRateBps, f.feeMicros])).toEqual([
      ['TAKER', 5200, 5000, 20, 52_000], // $26 x 0.2%
      ['TAKER', 5300, 7345, 20, 77_857], // $38.9285 x 0.2% = 0.077857
      ['MAKER', 5500, 1000, 10, 5_500], // $5.5 x 0.1%
    ]);
    for (const f of fills) expect(f.feeMicros).toBe(feeMicros(f.price, f.size, f.feeRateBps));
    // the counterparty's rate is the other flat rate
    expect(trades().map((t) => t.makerOrders[0].feeRateBps)).toEqual([10, 10, 10]);
  });

  it('a rule on one market leaves another market of the same venue on the flat rates', async () => {
    const venue = new SimulatedVenue({
      clock: new VirtualClock(0),
      markets: [
        { conditionId: M, tokens: [YES, NO], tick: 100, minSize: 500, feeRule: RULE },
        { conditionId: 'm2', tokens: ['a', 'b'], tick: 100, minSize: 500 },
      ],
      orderLatencyMs: 0,
      cancelLatencyMs: 0,
      makerFeeBps: 0,
      takerFeeBps: 50,
    });
    venue.onMarketEvent({ ...book('a', [[4000, 10000]], [[6000, 10000]]), market: 'm2' });
    venue.onMarketEvent(book(YES, [[4000, 10000]], [[6000, 10000]]));
    await venue.placeOrder(req({ tokenId: 'a', side: 'BUY', price: 6000, size: 1000 }));
    await venue.placeOrder(req({ tokenId: YES, side: 'BUY', price: 6000, size: 1000 }));
    expect(venue.fills().map((f) => f.feeMicros)).toEqual([30_000, officialMicros(6000, 1000, RULE)]);
  });
});

describe('simMarketOf', () => {
  it('carries the fee rule of the market metadata, and no key at all without one', () => {
    const meta = { conditionId: M, tokenId: YES, complementId: NO, tick: 100, minSize: 500, negRisk: false };
    expect(simMarketOf(meta)).toEqual({ conditionId: M, tokens: [YES, NO], tick: 100, minSize: 500 });
    expect('feeRule' in simMarketOf(meta)).toBe(false);
    expect(simMarketOf({ ...meta, feeRule: RULE })).toEqual({ conditionId: M, tokens: [YES, NO], tick: 100, minSize: 500, feeRule: RULE });
  });
});
