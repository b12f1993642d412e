// Finds the binary markets of a recording as it streams: a market is known once a book snapshot
// of one token and a second token of the same condition id have been seen, in a snapshot (the
// subscribe snapshot usually carries both) or in a price_change (which names both tokens; real
// captures may snapshot only one). What a recording's metadata line says of the market (`makerd
// record` writes one: backtest/market-meta-line.ts) decides the priced token (the first outcome, as
// live), the tick, minimum size, neg_risk, end time and fee rule; without one the snapshotted
// token is priced, and a market gets a fee rule only when the caller knows it (by condition id):
// without one the simulated venue charges the configured flat rates (core/fees.ts).
import type { BookEvent, MarketEvent, WireLevel } from '../core/events.js';
import type { MarketMeta } from '../engine/strategy.js';
import type { FeeRule } from '../core/fees.js';
import { parseSize } from '../core/units.js';

/** 5 shares: the venue minimum on current markets, used when a snapshot does not say. */
const DEFAULT_MIN_SIZE = 500;
const DEFAULT_TICK = 100;

export interface Discovered {
  meta: MarketMeta;
  /**
   * The priced token's latest snapshot and its events after it, seen before its market was
   * complete: the simulated venue, which takes no event of a market it does not know, starts from
   * the book they make (as the mirror holds it), not from the first snapshot.
   */
  backlog: MarketEvent[];
}

/**
 * Events of a pending market's first token kept at most (a newer snapshot starts over); past it
 * they are folded into the one snapshot they make (foldBacklog), so a market whose second token
 * shows up late still hands over its latest book.
 */
const MAX_BACKLOG = 10_000;

interface Pending {
  tokenId: string;
  tick: number;
  minSize: number;
  negRisk: boolean;
  backlog: MarketEvent[];
}

export class MarketDiscovery {
  private readonly pending = new Map<string, Pending>();
  private readonly known = new Set<string>();
  private readonly tokens = new Set<string>();
  /** Markets a metadata line described, by condition id. */
  private readonly declared = new Map<string, MarketMeta>();

  /** `feeRules`: fee rules known from market metadata, by condition id. */
  constructor(private readonly feeRules?: ReadonlyMap<string, FeeRule>) {}

  /** A recording's metadata of a market (backtest/market-meta-line.ts): used when its market completes, if its tokens are the market's. */
  declare(meta: MarketMeta): void {
    if (!this.known.has(meta.conditionId)) this.declared.set(meta.conditionId, meta);
  }

  /** Looks at one event; returns the market it completes (with the first token's snapshot), if any. */
  see(e: MarketEvent): Discovered | undefined {
    if (e.type === 'price_change') {
      const first = this.pending.get(e.market);
      if (!first) return undefined;
      for (const c of e.changes) if (c.assetId !== first.tokenId) return this.complete(e.market, c.assetId);
      if (first.backlog.length >= MAX_BACKLOG) first.backlog = [foldBacklog(first.backlog, first.tokenId)];
      first.backlog.push(e);
      return undefined;
    }
    if (e.type !== 'book') return undefined;
    if (this.tokens.has(e.assetId)) {
      // a newer snapshot of a pending market's first token: what came before it is superseded
      const first = this.pending.get(e.market);
      if (first?.tokenId === e.assetId) first.backlog = [e];
      return undefined;
    }
    const tick = e.tickSize && e.tickSize > 0 ? e.tickSize : DEFAULT_TICK;
    const mos = e.minOrderSizeStr !== undefined ? parseSize(e.minOrderSizeStr) : -1;
    const minSize = mos > 0 ? mos : DEFAULT_MIN_SIZE;
    const negRisk = e.negRisk ?? false;
    if (this.known.has(e.market)) return undefined;
    const first = this.pending.get(e.market);
    if (!first) {
      this.pending.set(e.market, { tokenId: e.assetId, tick, minSize, negRisk, backlog: [e] });
      this.tokens.add(e.assetId);
      return undefined;
    }
    return this.complete(e.market, e.assetId);
  }

  private complete(market: string, complementId: string): Discovered {
    const first = this.pending.get(market) as Pending;
    this.pending.delete(market);
    this.known.add(market);
    this.tokens.add(complementId);
    const said = this.declared.get(market);
    this.declared.delete(market);
    const same = said !== undefined && (said.tokenId === first.tokenId ? said.complementId === complementId : said.tokenId === complementId && said.complementId === first.tokenId);
    const meta: MarketMeta = same && said ? { ...said } : { conditionId: market, tokenId: first.tokenId, complementId, tick: first.tick, minSize: first.minSize, negRisk: first.negRisk };
    const feeRule = this.feeRules?.get(market);
    if (feeRule) meta.feeRule = feeRule;
    return { meta, backlog: first.backlog };
  }
}

/**
 * The book a backlog makes (its first event a snapshot of `tokenId`, then that token's changes),
 * as one snapshot at the last event's time: the events applied in order, as the simulated venue
 * applies them.
 */
function foldBacklog(backlog: readonly MarketEvent[], tokenId: string): BookEvent {
  const first = backlog[0] as BookEvent;
  const bids = new Map<number, WireLevel>();
  const asks = new Map<number, WireLevel>();
  for (const l of first.bids) bids.set(l.price, l);
  for (const l of first.asks) asks.set(l.price, l);
  let last: MarketEvent = first;
  for (let i = 1; i < backlog.length; i++) {
    const e = backlog[i];
    if (e.type !== 'price_change') continue;
    last = e;
    for (const c of e.changes) {
      if (c.assetId !== tokenId) continue;
      const side = c.side === 'BUY' ? bids : asks;
      if (c.size > 0) side.set(c.price, { price: c.price, size: c.size, priceStr: c.priceStr, sizeStr: c.sizeStr });
      else side.delete(c.price);
    }
  }
  // wire order: bids ascending, asks descending (the best last)
  const ts = last.type === 'price_change' ? { timestampMs: last.timestampMs, timestampStr: last.timestampStr } : {};
  // no hash: the venue's hash is of the first snapshot's book, not of this one
  return { ...first, ...ts, hash: '', bids: [...bids.values()].sort((a, b) => a.price - b.price), asks: [...asks.values()].sort((a, b) => b.price - a.price) };
}
