// A market's fee rule as the venue charges it (issue 12, item 6), in integer micro-dollars like
// feeMicros (units.ts), beside the flat notional rate the simulated venue falls back to.
//
// Facts from the official client, @polymarket/clob-client-v2 1.1.0 (installed as a devDependency;
// nothing below is its code):
// - Where the rule comes from: client.js ClobClient.getClobMarketInfo(conditionID) reads
//   GET /clob-markets/{condition_id} (endpoints.js GET_CLOB_MARKET) and keeps, for each token of
//   the response's `t` array, `{ rate: fd?.r ?? 0, exponent: fd?.e ?? 0 }` (types/clob.d.ts
//   FeeDetails `{ r?: number; e?: number; to?: boolean }`, FeeInfo `{ rate; exponent }`). Both are
//   plain JSON numbers; `rate` is a fraction (0.25 means 25%), not basis points: nothing divides
//   it by 1e4. A missing `fd`, or a missing r/e inside it, counts as 0. `to` is declared but the
//   client never reads it.
// - The formula: fees/index.js adjustBuyAmountForFees(amount, price, userUSDCBalance, feeRate,
//   feeExponent, builderTakerFeeRate, feeSlippage) computes the platform fee of spending `amount`
//   USDC at `price` as (amount / price) x feeRate x (price x (1 - price)) ^ feeExponent, i.e.
//   shares x rate x (p(1-p))^exponent, in USDC (the same units as `amount`). Builder fees
//   (amount x builderTakerFeeRate, from GET /fees/builder-fees) and a fee slippage margin are
//   separate terms; we model neither.
// - Who pays: the client applies it only when buying as a taker-priced order: createMarketOrder
//   and createOrder (BUY with userUSDCBalance) through adjustBuyAmountForBalance, shrinking the
//   spend so amount + fee fits the balance. It computes no maker fee at all (the builder's
//   maker rate is fetched but unused for the platform fee).
// - Rounding: none. The client works in IEEE doubles (`**` for the power) and rounds only the
//   order's amounts later, by the tick's rounding config.
//
// What this module decides (not stated by the client):
// - The fee is charged in dollars on every TAKER fill, BUY or SELL, by the same formula (the
//   venue takes a BUY's fee in shares of equal value; we book it as cash like the flat fee).
//   MAKER fills pay nothing under a rule.
// - The amount is exact decimal math (decimal.js at 100 significant digits: exact for whole
//   exponents up to 8) rounded half up to a whole micro-dollar, as feeMicros rounds.
// - A fill's feeRateBps under a rule is the EFFECTIVE rate on the fill's notional
//   (effectiveFeeRateBps), so feeMicros(price, size, feeRateBps) gives back the same micro-dollars
//   and risk.maxFeeRateBps bounds what a fill really costs per dollar traded.
import { Decimal } from 'decimal.js';
import { PRICE_SCALE } from './units.js';

/** A market's fee rule: the fee per share is rate x (p(1-p))^exponent dollars at price p. */
export interface FeeRule {
  /** A fraction (0.25 = 25%), the market info's `fd.r`. */
  rate: number;
  /** The market info's `fd.e`. */
  exponent: number;
}

const D = Decimal.clone({ precision: 100, rounding: Decimal.ROUND_HALF_UP });
const SCALE = new D(PRICE_SCALE);
/** Size units (1e-2 share) times dollars per share, to micro-dollars: 1e6 / 1e2. */
const SIZE_TO_MICROS = new D(10_000);

/**
 * (p(1-p))^exponent by exponent and price: a fractional exponent costs ~0.6 ms at this precision,
 * and a market has few prices. Cleared when it grows past CURVE_MEMO entries (results never change).
 */
const curves = new Map<string, Decimal>();
const CURVE_MEMO = 100_000;

function curve(price: number, exponent: number): Decimal {
  const key = `${exponent}|${price}`;
  let c = curves.get(key);
  if (c === undefined) {
    const p = new D(price).div(SCALE);
    c = p.mul(new D(1).sub(p)).pow(exponent);
    if (curves.size >= CURVE_MEMO) curves.clear();
    curves.set(key, c);
  }
  return c;
}

/** True when both numbers are finite and non-negative. */
export function isFeeRule(r: FeeRule): boolean {
  return Number.isFinite(r.rate) && r.rate >= 0 && Number.isFinite(r.exponent) && r.exponent >= 0;
}

/**
 * The fee in micro-dollars the rule charges a taker for `size` (size units) at `price` (price
 * units, 0 < price < 10000): size x rate x (p(1-p))^exponent, rounded half up. Throws a
 * RangeError for a rule that is not finite and non-negative, or units out of range.
 */
export function ruleFeeMicros(price: number, size: number, rule: FeeRule): number {
  if (!isFeeRule(rule)) throw new RangeError(`fee rule ${JSON.stringify(rule)} is not finite and non-negative`);
  if (!Number.isSafeInteger(price) || price <= 0 || price >= PRICE_SCALE) throw new RangeError(`fee price ${price} is outside (0, ${PRICE_SCALE})`);
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`fee size ${size} is not a whole number of size units`);
  if (size === 0 || rule.rate === 0) return 0;
  return new D(size).mul(SIZE_TO_MICROS).mul(rule.rate).mul(curve(price, rule.exponent)).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();
}

/**
 * The flat rate on notional, in basis points, that charges `fee` micro-dollars on `size` at
 * `price`: what a rule-based fill reports as its feeRateBps. feeMicros(price, size, result)
 * returns `fee` again. 0 for a fill of no notional.
 */
export function effectiveFeeRateBps(price: number, size: number, fee: number): number {
  const notional = price * size;
  return notional > 0 ? (fee * 10_000) / notional : 0;
}
