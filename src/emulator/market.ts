// What the emulator's server, routes and exchange read of a market, whatever drives it: the
// synthetic market (its own matching engine) or a replayed recording (frames published as
// recorded). Books are the token views as the feed shows them, in integer units.
import type { DenseBook } from '../book/book.js';
import type { BookObject, MarketFacts, RestBook } from './book-frames.js';

export type FrameType = 'book' | 'price_change' | 'last_trade_price' | 'tick_size_change';

export interface MarketFrame {
  /** Message timestamp, ms. */
  ts: number;
  type: FrameType;
  conditionId: string;
  /** The one asset a book or last_trade_price frame is about; undefined when it covers the market. */
  assetId?: string;
  text: string;
}

/** A token's current book and the venue's price strings. */
export interface MarketBooks {
  book(tokenId: string): DenseBook;
  price(p: number): string;
}

export interface EmuMarket {
  readonly conditionId: string;
  readonly tokens: [string, string];
  readonly facts: MarketFacts;
  readonly question: string;
  readonly slug: string;
  readonly frames: MarketBooks;
  readonly stats: { trades: number };
  /** Current market time, ms. */
  time(): number;
  /** Runs the market up to `toMs` of market time, publishing frames. */
  advanceTo(toMs: number): void;
  onFrame(fn: (f: MarketFrame) => void): void;
  /** Book objects for a first subscribe (sent as one JSON array); empty when no book is known yet. */
  snapshot(tokenIds?: readonly string[]): BookObject[];
  /** GET /book; undefined when no book is known yet. */
  restBook(tokenId: string): RestBook | undefined;
  lastTradePriceUnits(tokenId: string): number | undefined;
}
