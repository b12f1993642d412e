// The core folder is the vocabulary every other folder shares (units, events, clock, rng,
// accounting, errors, the logger) and imports nothing above it. This file: integer units shared by
// every layer: a price is a whole number of 1e-4 (0..10000), a size a whole
// number of 1e-2 shares, money in micro-dollars. Parsers are hand-written for the per-frame
// path: they never throw and return -1 for anything that is not a plain non-negative decimal.

export const PRICE_SCALE = 10_000;
export const SIZE_SCALE = 100;
/** Millionths of a share (a 6-decimal wire size) in one size unit (0.01 share). */
export const MICROS_PER_UNIT = 1_000_000 / SIZE_SCALE;
export const PRICE_DECIMALS = 4;
export const SIZE_DECIMALS = 2;

/**
 * Parses a non-negative decimal string to an integer number of 10^-decimals units.
 * Digits past `decimals` must be zeros when `exact`, else they round half up.
 * Returns -1 for an empty, signed, exponent or otherwise malformed string.
 */
export function parseFixed(s: string, decimals: number, exact: boolean): number {
  const n = s.length;
  if (n === 0 || n > 32) return -1;
  let whole = 0;
  let frac = 0;
  let fracDigits = 0;
  let i = 0;
  let sawDigit = false;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 46 /* . */) break;
    if (c < 48 || c > 57) return -1;
    whole = whole * 10 + (c - 48);
    sawDigit = true;
  }
  if (i < n) {
    i++; // skip '.'
    if (i === n && !sawDigit) return -1;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 48 || c > 57) return -1;
      sawDigit = true;
      if (fracDigits < decimals) {
        frac = frac * 10 + (c - 48);
        fracDigits++;
      } else if (c !== 48) {
        if (exact) return -1;
        // round half up on the first dropped digit, ignore the rest
        if (fracDigits === decimals && c >= 53) frac += 1;
        fracDigits = decimals + 1;
        // consume remaining digits for validation only
        for (i++; i < n; i++) {
          const d = s.charCodeAt(i);
          if (d < 48 || d > 57) return -1;
        }
        break;
      } else if (fracDigits === decimals) {
        fracDigits = decimals + 1; // a zero first dropped digit: no rounding
      }
    }
  }
  if (!sawDigit) return -1;
  const usedDigits = fracDigits > decimals ? decimals : fracDigits;
  let scale = 1;
  for (let k = 0; k < decimals; k++) scale *= 10;
  let fracScale = 1;
  for (let k = usedDigits; k < decimals; k++) fracScale *= 10;
  const v = whole * scale + frac * fracScale;
  return Number.isSafeInteger(v) ? v : -1;
}

/** "0.55" -> 5500; -1 when malformed, off the 1e-4 grid, or above 1. */
export function parsePrice(s: string): number {
  const v = parseFixed(s, PRICE_DECIMALS, true);
  return v > PRICE_SCALE ? -1 : v;
}

/**
 * A price the venue computed in floating point, such as a complement maker's 1 - p in a real trade
 * ("0.4300000444600143"): rounded half up to 1e-4 instead of refused; -1 when malformed or above 1.
 */
export function parsePriceRounded(s: string): number {
  const v = parseFixed(s, PRICE_DECIMALS, false);
  return v > PRICE_SCALE ? -1 : v;
}

/**
 * A wire size's exact amount in millionths of a share (the venue's on-chain unit), when it says
 * more than the 0.01-share grid does ("9.996" -> 9996000); undefined for a size of at most two
 * decimals (or their zeros after: "9.990"), and for anything but 1..6 decimals of plain digits.
 */
export function sizeMicrosIfFiner(s: string): number | undefined {
  const v = parseFixed(s, 6, true);
  return v >= 0 && v % 10_000 !== 0 && Number.isSafeInteger(v) ? v : undefined;
}

/** "39183.01" -> 3918301 (hundredths of a share, rounded half up past two decimals); -1 when malformed. */
export function parseSize(s: string): number {
  return parseFixed(s, SIZE_DECIMALS, false);
}

/**
 * A size the venue sent for a book level or trade: parseSize, except that a size above zero but
 * under half a unit ("0.004", a remainder of a 6-decimal fill) is 1 unit, not 0: a level the venue
 * shows must stay in the book (its text is hashed, and a size of 0 removes it: the hash could then
 * never verify), and a trade that happened is not one of size 0.
 */
export function parseWireSize(s: string): number {
  const v = parseSize(s);
  return v === 0 && NONZERO_DIGIT.test(s) ? 1 : v;
}
const NONZERO_DIGIT = /[1-9]/;

/** A JSON number price such as the tick-size endpoint's 0.01 -> 100; -1 when not a finite price. */
export function priceFromNumber(x: number): number {
  if (!Number.isFinite(x) || x < 0 || x > 1) return -1;
  return Math.round(x * PRICE_SCALE);
}

export function sizeFromNumber(x: number): number {
  if (!Number.isFinite(x) || x < 0) return -1;
  return Math.round(x * SIZE_SCALE);
}

function formatFixed(units: number, decimals: number, minDecimals: number): string {
  const neg = units < 0;
  let u = neg ? -units : units;
  let scale = 1;
  for (let k = 0; k < decimals; k++) scale *= 10;
  const whole = Math.floor(u / scale);
  u -= whole * scale;
  let frac = u === 0 ? '' : String(u).padStart(decimals, '0');
  while (frac.length > minDecimals && frac.endsWith('0')) frac = frac.slice(0, -1);
  if (frac.length < minDecimals) frac = frac.padEnd(minDecimals, '0');
  return (neg ? '-' : '') + String(whole) + (frac.length ? '.' + frac : '');
}

/** 5500 -> "0.55"; with `decimals` (the tick's price decimals) -> "0.550" style fixed width. */
export function formatPrice(units: number, decimals = 0): string {
  return formatFixed(units, PRICE_DECIMALS, decimals);
}

/** 500 -> "5", 3918301 -> "39183.01". */
export function formatSize(units: number): string {
  return formatFixed(units, SIZE_DECIMALS, 0);
}

/** Price decimals of a tick in price units: 100 (0.01) -> 2, 25 (0.0025) -> 4. */
export function tickDecimals(tick: number): number {
  if (tick >= 1000) return 1;
  if (tick >= 100) return 2;
  if (tick === 50 || tick === 10) return 3;
  return 4;
}

/** The complement token's price: a BUY at p on one token is a SELL at 1-p on the other. */
export function complementPrice(p: number): number {
  return PRICE_SCALE - p;
}

/**
 * A Unix time in seconds, milliseconds or microseconds (the venue uses all three across its
 * messages) as milliseconds; NaN when it is not a non-negative decimal number.
 */
export function unixToMs(v: unknown): number {
  const n = typeof v === 'string' ? (v.length > 0 && v.length < 20 && /^\d+(\.\d+)?$/.test(v) ? Number(v) : NaN) : typeof v === 'number' ? v : NaN;
  if (!Number.isFinite(n) || n < 0) return NaN;
  if (n < 1e11) return Math.round(n * 1000); // seconds (until year 5138)
  if (n > 1e14) return Math.round(n / 1000); // microseconds
  return Math.round(n);
}

/** Ten billion shares in size units: above any real order or fill, and price x size stays below 2^53. */
export const MAX_SIZE_UNITS = 1e12;

/** Fee in micro-dollars for a fill: notional (price x size units = 1e-6 $) times the rate in bps. */
export function feeMicros(price: number, size: number, feeRateBps: number): number {
  return Math.round((price * size * feeRateBps) / 10_000);
}

/** Micro-dollars to dollars (for logs and status). */
export function microsToDollars(micros: number): number {
  return micros / (PRICE_SCALE * SIZE_SCALE);
}
