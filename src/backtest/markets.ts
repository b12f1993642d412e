// Finds the binary markets of a recording as it streams: a market is known once book snapshots
// of two tokens with the same condition id have been seen (the subscribe snapshot carries both).
// The first token seen is the one the strategy prices; the second is its complement.
import type { BookEvent, MarketEvent } from '../feed/events.js';
import type { MarketMeta } from '../engine/strategy.js';
import { parseSize } from '../core/units.js';

/** 5 shares: the venue minimum on current markets, used when a snapshot does not say. */
const DEFAULT_MIN_SIZE = 500;
const DEFAULT_TICK = 100;

export class MarketDiscovery {
  private readonly pending = new Map<string, { tokenId: string; tick: number; minSize: number; negRisk: boolean; book: BookEvent }>();
  private readonly known = new Set<string>();
  private readonly tokens = new Set<string>();

  /** Looks at one event; returns the market it completes (with the first token's snapshot), if any. */
  see(e: MarketEvent): { meta: MarketMeta; firstBook: BookEvent } | undefined {
    if (e.type !== 'book' || this.tokens.has(e.assetId)) return undefined;
    const tick = e.tickSize && e.tickSize > 0 ? e.tickSize : DEFAULT_TICK;
    const mos = e.minOrderSizeStr !== undefined ? parseSize(e.minOrderSizeStr) : -1;
    const minSize = mos > 0 ? mos : DEFAULT_MIN_SIZE;
    const negRisk = e.negRisk ?? false;
    if (this.known.has(e.market)) return undefined;
    const first = this.pending.get(e.market);
    if (!first) {
      this.pending.set(e.market, { tokenId: e.assetId, tick, minSize, negRisk, book: e });
      this.tokens.add(e.assetId);
      return undefined;
    }
    this.pending.delete(e.market);
    this.known.add(e.market);
    this.tokens.add(e.assetId);
    return {
      meta: { conditionId: e.market, tokenId: first.tokenId, complementId: e.assetId, tick: first.tick, minSize: first.minSize, negRisk: first.negRisk },
      firstBook: first.book,
    };
  }
}
