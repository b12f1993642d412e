// Finds the binary markets of a recording as it streams: a market is known once a book snapshot
// of one token and a second token of the same condition id have been seen, in a snapshot (the
// subscribe snapshot usually carries both) or in a price_change (which names both tokens; real
// captures may snapshot only one). The snapshotted token is the one the strategy prices.
// Recordings carry no fee rule: a market gets one only when the caller knows it (by condition id),
// and without one the simulated venue charges the configured flat rates (core/fees.ts).
import type { BookEvent, MarketEvent } from '../core/events.js';
import type { MarketMeta } from '../engine/strategy.js';
import type { FeeRule } from '../core/fees.js';
import { parseSize } from '../core/units.js';

/** 5 shares: the venue minimum on current markets, used when a snapshot does not say. */
const DEFAULT_MIN_SIZE = 500;
const DEFAULT_TICK = 100;

export interface Discovered {
  meta: MarketMeta;
  /** The priced token's first snapshot. */
  firstBook: BookEvent;
}

export class MarketDiscovery {
  private readonly pending = new Map<string, { tokenId: string; tick: number; minSize: number; negRisk: boolean; book: BookEvent }>();
  private readonly known = new Set<string>();
  private readonly tokens = new Set<string>();

  /** `feeRules`: fee rules known from market metadata, by condition id. */
  constructor(private readonly feeRules?: ReadonlyMap<string, FeeRule>) {}

  /** Looks at one event; returns the market it completes (with the first token's snapshot), if any. */
  see(e: MarketEvent): Discovered | undefined {
    if (e.type === 'price_change') {
      const first = this.pending.get(e.market);
      if (!first) return undefined;
      for (const c of e.changes) if (c.assetId !== first.tokenId) return this.complete(e.market, c.assetId);
      return undefined;
    }
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
    return this.complete(e.market, e.assetId);
  }

  private complete(market: string, complementId: string): Discovered {
    const first = this.pending.get(market) as { tokenId: string; tick: number; minSize: number; negRisk: boolean; book: BookEvent };
    this.pending.delete(market);
    this.known.add(market);
    this.tokens.add(complementId);
    const meta: MarketMeta = { conditionId: market, tokenId: first.tokenId, complementId, tick: first.tick, minSize: first.minSize, negRisk: first.negRisk };
    const feeRule = this.feeRules?.get(market);
    if (feeRule) meta.feeRule = feeRule;
    return { meta, firstBook: first.book };
  }
}
