// What a strategy (and the risk gate) may read of a token's book. Implemented by the dense book
// in this folder without copying; every price and size is in integer units.

export interface BookView {
  readonly assetId: string;
  /** Tick size in price units (100 = 0.01). 0 when unknown. */
  readonly tick: number;
  /** Best bid price, or -1 when the bid side is empty. */
  bestBid(): number;
  /** Best ask price, or -1 when the ask side is empty. */
  bestAsk(): number;
  /** Size resting at a price on a side (0 when none). */
  sizeAt(side: 'BUY' | 'SELL', price: number): number;
  /** Up to n levels from the best outward, written into `out` as [price, size, price, size, ...]; returns levels written. */
  depth(side: 'BUY' | 'SELL', n: number, out: number[]): number;
  /** (bid + ask) / 2 in price units (fractional), or NaN when a side is empty. */
  mid(): number;
  /** Size-weighted mid of the top levels, or NaN when a side is empty. */
  microprice(): number;
  /** ask - bid in price units, or NaN when a side is empty. */
  spread(): number;
  /** Time (ms, from the engine clock) of the last applied update. */
  updatedAt(): number;
  /** False while a snapshot is awaited after a gap, mismatch or tick-size change. */
  inSync(): boolean;
}

/** A book stamped this far ahead of now: the clock was stepped back since, and its age is unknown (risk's bookFreshness, the feed's quiet refresh). */
export const STAMPED_AHEAD_MS = 1000;
