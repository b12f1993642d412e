// The rule-based fee (src/core/fees.ts) against the OFFICIAL client's own fee code: the expected
// amounts come from @polymarket/clob-client-v2's adjustBuyAmountForFees (a devDependency), not
// from our formula. With the balance equal to the amount, it returns amount - fee, so its platform
// fee of spending `amount` USDC at `price` is amount - result.
import { describe, expect, it } from 'vitest';
import { adjustBuyAmountForFees } from '@polymarket/clob-client-v2';
import { effectiveFeeRateBps, isFeeRule, ruleFeeMicros, type FeeRule } from '../../src/core/fees.js';
import { feeMicros } from '../../src/core/units.js';

/**
 * The official client's fee in dollars for `shares` bought at `price` (a float, as the client
 * works); undefined when the fee is above the amount itself (the client then returns 0, clamped).
 */
function officialFee(price: number, shares: number, rule: FeeRule): number | undefined {
  const amount = shares * price;
  const left = adjustBuyAmountForFees(amount, price, amount, rule.rate, rule.exponent, 0, 0);
  return left > 0 ? amount - left : undefined;
}

const RULES: FeeRule[] = [
  { rate: 0.25, exponent: 2 },
  { rate: 0.07, exponent: 1 },
  { rate: 0.03, exponent: 1 },
  { rate: 0.0175, exponent: 1 },
  { rate: 1, exponent: 3 },
  { rate: 0.1, exponent: 0.5 },
  { rate: 0.002, exponent: 0 },
  { rate: 0, exponent: 2 },
];
/** Size units (1e-2 share). */
const SIZES = [1, 500, 1050, 10_000, 123_456, 9_999_999];
/** Price units (1e-4): ticks 0.01 and 0.001 across (0, 1). */
const PRICES = [...Array.from({ length: 99 }, (_, i) => (i + 1) * 100), ...Array.from({ length: 999 }, (_, i) => (i + 1) * 10).filter((p) => p % 100 !== 0)];

describe('ruleFeeMicros against the official client (adjustBuyAmountForFees)', () => {
  it('matches shares x rate x (p(1-p))^exponent to the micro-dollar for every tick 0.01/0.001 price, size and rule', () => {
    let compared = 0;
    let boundary = 0;
    let clamped = 0;
    const bad: string[] = [];
    for (const rule of RULES) {
      for (const size of SIZES) {
        for (const price of PRICES) {
          const dollars = officialFee(price / 10_000, size / 100, rule);
          if (dollars === undefined) {
            clamped++;
            continue;
          }
          const official = dollars * 1e6;
          const ours = ruleFeeMicros(price, size, rule);
          // the client's doubles carry ~1e-16 relative error: a value within that of a half micro
          // can round either way, so there the check is only that ours is one of the two neighbours
          const frac = official - Math.floor(official);
          if (Math.abs(frac - 0.5) < 1e-6 + Math.abs(official) * 1e-12) {
            boundary++;
            if (ours !== Math.floor(official) && ours !== Math.ceil(official)) bad.push(`${price} ${size} ${JSON.stringify(rule)}: ours ${ours}, official ${official}`);
            continue;
          }
          compared++;
          if (ours !== Math.round(official)) bad.push(`${price} ${size} ${JSON.stringify(rule)}: ours ${ours}, official ${official}`);
        }
      }
    }
    expect(bad.slice(0, 10)).toEqual([]);
    expect(compared).toBeGreaterThan(RULES.length * SIZES.length * PRICES.length * 0.9);
    expect(boundary).toBeLessThan(compared / 50);
    // only the exponent 0.5 rule at the lowest prices costs more than the shares themselves
    expect(clamped).toBeLessThan(compared / 50);
  });

  it('agrees with the client on the values it is used for: 100 shares at 0.50, 0.30, 0.10 under rate 0.25, exponent 2', () => {
    const rule = { rate: 0.25, exponent: 2 };
    // 100 x 0.25 x 0.0625 = 1.5625 $; 100 x 0.25 x 0.0441 = 1.1025 $; 100 x 0.25 x 0.0081 = 0.2025 $
    expect(ruleFeeMicros(5000, 10_000, rule)).toBe(1_562_500);
    expect(ruleFeeMicros(3000, 10_000, rule)).toBe(1_102_500);
    expect(ruleFeeMicros(1000, 10_000, rule)).toBe(202_500);
    for (const p of [5000, 3000, 1000]) expect(ruleFeeMicros(p, 10_000, rule)).toBe(Math.round((officialFee(p / 10_000, 100, rule) ?? NaN) * 1e6));
  });

  it('is symmetric in p and 1 - p, zero for no size or a zero rate, and rounds half up', () => {
    const rule = { rate: 0.25, exponent: 2 };
    for (const p of PRICES) expect(ruleFeeMicros(p, 12_345, rule)).toBe(ruleFeeMicros(10_000 - p, 12_345, rule));
    expect(ruleFeeMicros(5000, 0, rule)).toBe(0);
    expect(ruleFeeMicros(5000, 10_000, { rate: 0, exponent: 0 })).toBe(0);
    // 0.01 share at 0.50, rate 0.02, exponent 1: 0.01 x 0.02 x 0.25 = 0.00005 $ = 50 micros; rate 0.0002: 0.5 micro -> 1
    expect(ruleFeeMicros(5000, 1, { rate: 0.02, exponent: 1 })).toBe(50);
    expect(ruleFeeMicros(5000, 1, { rate: 0.0002, exponent: 1 })).toBe(1);
    expect(ruleFeeMicros(5000, 1, { rate: 0.00019, exponent: 1 })).toBe(0);
  });

  it('refuses a rule or units out of range', () => {
    for (const r of [
      { rate: NaN, exponent: 1 },
      { rate: Infinity, exponent: 1 },
      { rate: -0.1, exponent: 1 },
      { rate: 0.1, exponent: -1 },
      { rate: 0.1, exponent: NaN },
    ]) {
      expect(isFeeRule(r)).toBe(false);
      expect(() => ruleFeeMicros(5000, 100, r)).toThrow(RangeError);
    }
    expect(() => ruleFeeMicros(0, 100, { rate: 0.1, exponent: 1 })).toThrow(RangeError);
    expect(() => ruleFeeMicros(10_000, 100, { rate: 0.1, exponent: 1 })).toThrow(RangeError);
    expect(() => ruleFeeMicros(5000, 1.5, { rate: 0.1, exponent: 1 })).toThrow(RangeError);
  });
});

describe('effectiveFeeRateBps', () => {
  it('gives back the same micro-dollars through feeMicros (the engine books a fill by its feeRateBps)', () => {
    let n = 0;
    for (const rule of RULES) {
      for (const size of SIZES) {
        for (const price of PRICES) {
          const fee = ruleFeeMicros(price, size, rule);
          const bps = effectiveFeeRateBps(price, size, fee);
          expect(Number.isFinite(bps) && bps >= 0).toBe(true);
          if (feeMicros(price, size, bps) !== fee) throw new Error(`price ${price} size ${size} ${JSON.stringify(rule)}: ${feeMicros(price, size, bps)} != ${fee}`);
          n++;
        }
      }
    }
    expect(n).toBe(RULES.length * SIZES.length * PRICES.length);
  });

  it('is the rule rate per dollar of notional: rate x (1-p) x (p(1-p))^(e-1) x 1e4', () => {
    // 100 shares at 0.50, rate 0.25, exponent 2: 1.5625 $ on 50 $ = 312.5 bps
    expect(effectiveFeeRateBps(5000, 10_000, ruleFeeMicros(5000, 10_000, { rate: 0.25, exponent: 2 }))).toBe(312.5);
    expect(effectiveFeeRateBps(5000, 0, 0)).toBe(0);
  });
});
