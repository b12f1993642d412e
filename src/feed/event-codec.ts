// Decoded market events across a thread boundary (the backtest's reader thread): a batch of them
// as one Float64Array of numbers and one array of strings, both moved in a single postMessage,
// instead of a structured clone object by object. Strings that repeat (asset ids, markets, price
// texts) cross once and are named by number after. A decoded event equals the original field for
// field, optional keys included, so a backtest over either gives the same result.
// The wire's shared pieces are here; the encoder (the reader thread's side) and the decoder (the
// backtest's) are in event-encoder.ts and event-decoder.ts.

/** One batch on the wire: the numbers, the strings in the order they are read, and the repeating strings first seen in it. */
export interface EncodedEvents {
  nums: Float64Array;
  strs: string[];
  fresh: string[];
}

export const BOOK = 0;
export const PRICE_CHANGE = 1;
export const LAST_TRADE = 2;
export const TICK_SIZE = 3;
export const BEST_BID_ASK = 4;
export const NEW_MARKET = 5;
export const MARKET_RESOLVED = 6;
export const FORMATS = ['current', 'changes', 'flat'] as const;
/** Prices are integers 0..PRICE_SCALE: a price's usual text is kept by price on both sides. */
export const PRICE_SLOTS = 10_001;
/** The price's usual text (the one it came with first). */
export const SAME_TEXT = -3;
/** The first text of this price: it follows, and becomes the usual one. */
export const FIRST_TEXT = -4;
/** Repeating strings kept on both sides at most (a recording of odd price texts cannot grow them without bound). */
export const MAX_NAMED = 200_000;
