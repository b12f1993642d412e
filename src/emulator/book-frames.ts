// Wire frames of one binary market built from the matching engine's books (wire-formats.md
// 1.3-1.6): the book snapshot (WS and REST shapes), price_change in the current format with the
// per-asset hash and best bid/ask, last_trade_price and tick_size_change. Level strings are
// formatted as the venue does: price at the tick's decimals ("0.54"), size trimmed ("63.96", "33").
// Each token's levels are kept in a DenseBook fed by the engine's level changes, so a hash costs
// the changed side's text and one SHA-1, not a scan of the engine's ladders.
import { bookHashPayloadFromText, sha1Hex } from '../book/hash.js';
import { DenseBook } from '../book/book.js';
import { formatPrice, formatSize, tickDecimals, PRICE_SCALE } from '../core/units.js';
import type { Side } from '../feed/events.js';
import type { LevelChange, MatchingEngineApi } from '../venue/matching-api.js';

/** Static facts of a market that the hash covers but the WS book frame does not carry. */
export interface MarketFacts {
  conditionId: string;
  tokens: [string, string];
  tick: number;
  minSize: number;
  negRisk: boolean;
}

export interface BookObject {
  market: string;
  asset_id: string;
  timestamp: string;
  hash: string;
  bids: Array<{ price: string; size: string }>;
  asks: Array<{ price: string; size: string }>;
  tick_size: string;
  event_type: 'book';
  last_trade_price: string;
}

/** The REST GET /book shape (wire-formats.md 4.1). */
export interface RestBook {
  market: string;
  asset_id: string;
  timestamp: string;
  hash: string;
  bids: Array<{ price: string; size: string }>;
  asks: Array<{ price: string; size: string }>;
  min_order_size: string;
  tick_size: string;
  neg_risk: boolean;
  last_trade_price: string;
}

type Pair = [string, string];

function priceStrings(decimals: number): string[] {
  const out: string[] = [];
  for (let p = 0; p <= PRICE_SCALE; p++) out.push(formatPrice(p, decimals));
  return out;
}

/** Formats prices and hashes books for one market; caches the price strings of the tick grid. */
export class FrameBuilder {
  private priceStr: string[] = [];
  /** The tick as the venue writes it ("0.01"); changes with setTick. */
  tickStr: string;
  readonly minSizeStr: string;
  private decimals: number;
  private readonly books: Map<string, DenseBook>;

  constructor(
    readonly facts: MarketFacts,
    private readonly engine: MatchingEngineApi,
  ) {
    this.decimals = tickDecimals(facts.tick);
    this.tickStr = formatPrice(facts.tick);
    this.priceStr = priceStrings(this.decimals);
    this.minSizeStr = formatSize(facts.minSize);
    this.books = new Map(facts.tokens.map((t) => [t, new DenseBook(t)]));
    this.resync();
  }

  /**
   * A tick size change (facts.tick already holds the new tick): prices are written at the new
   * tick's decimals from now on, resting levels included, so the fresh book frames that follow
   * the change and every later hash use the new strings.
   */
  setTick(): void {
    const d = tickDecimals(this.facts.tick);
    this.tickStr = formatPrice(this.facts.tick);
    if (d !== this.decimals) {
      this.decimals = d;
      this.priceStr = priceStrings(d);
    }
    this.resync();
  }

  /** tick_size_change (wire-formats.md 1.6) for one token. */
  tickSizeChange(tokenId: string, oldTickStr: string, ts: number): string {
    return JSON.stringify({
      event_type: 'tick_size_change',
      asset_id: tokenId,
      market: this.facts.conditionId,
      old_tick_size: oldTickStr,
      new_tick_size: this.tickStr,
      timestamp: String(ts),
    });
  }

  /** Reloads both token books from the engine (at start; later changes arrive through apply). */
  resync(): void {
    for (const [tokenId, book] of this.books) {
      book.clear();
      for (const side of ['BUY', 'SELL'] as const) {
        for (const l of this.engine.levels(tokenId, side)) book.set(side, l.price, l.size, this.price(l.price), formatSize(l.size));
      }
    }
  }

  /** Applies level changes drained from the engine. */
  apply(changes: readonly LevelChange[]): void {
    for (const c of changes) this.books.get(c.tokenId)?.set(c.side, c.price, c.size, this.price(c.price), formatSize(c.size));
  }

  price(p: number): string {
    return this.priceStr[p] ?? formatPrice(p, this.decimals);
  }

  book(tokenId: string): DenseBook {
    const b = this.books.get(tokenId);
    if (!b) throw new RangeError(`unknown token ${tokenId}`);
    return b;
  }

  pairs(tokenId: string, side: Side): Pair[] {
    return this.book(tokenId).wireLevels(side);
  }

  hashOf(tokenId: string, timestamp: string, ltp: string): string {
    const b = this.book(tokenId);
    return sha1Hex(
      bookHashPayloadFromText(
        {
          market: this.facts.conditionId,
          assetId: tokenId,
          timestamp,
          minOrderSize: this.minSizeStr,
          tickSize: this.tickStr,
          negRisk: this.facts.negRisk,
          lastTradePrice: ltp,
        },
        b.sideText('BUY'),
        b.sideText('SELL'),
      ),
    );
  }

  bookObject(tokenId: string, ts: number, ltp: string): BookObject {
    const timestamp = String(ts);
    const bids = this.pairs(tokenId, 'BUY');
    const asks = this.pairs(tokenId, 'SELL');
    return {
      market: this.facts.conditionId,
      asset_id: tokenId,
      timestamp,
      hash: this.hashOf(tokenId, timestamp, ltp),
      bids: bids.map(([price, size]) => ({ price, size })),
      asks: asks.map(([price, size]) => ({ price, size })),
      tick_size: this.tickStr,
      event_type: 'book',
      last_trade_price: ltp,
    };
  }

  restBook(tokenId: string, ts: number, ltp: string): RestBook {
    const b = this.bookObject(tokenId, ts, ltp);
    return {
      market: b.market,
      asset_id: b.asset_id,
      timestamp: b.timestamp,
      hash: b.hash,
      bids: b.bids,
      asks: b.asks,
      min_order_size: this.minSizeStr,
      tick_size: this.tickStr,
      neg_risk: this.facts.negRisk,
      last_trade_price: ltp,
    };
  }

  /**
   * One price_change message for a batch of level changes that share `ts`: every entry of an asset
   * carries the hash of that asset's book after the whole batch (wire-formats.md 5.3), and the
   * best bid/ask after applying the entries up to and including itself. Repeated changes of one
   * level in the batch collapse to the final total (at the level's first position).
   */
  priceChange(changes: LevelChange[], ts: number, ltpOf: (tokenId: string) => string): string {
    const timestamp = String(ts);
    const last = new Map<string, LevelChange>();
    for (const c of changes) last.set(`${c.tokenId}|${c.side}|${c.price}`, c);
    const merged = [...last.values()];
    const bests: string[] = new Array(merged.length);
    for (let i = 0; i < merged.length; i++) {
      const c = merged[i];
      const b = this.book(c.tokenId);
      b.set(c.side, c.price, c.size, this.price(c.price), formatSize(c.size));
      const bid = b.bestBid();
      const ask = b.bestAsk();
      bests[i] = `"best_bid":"${bid >= 0 ? this.price(bid) : '0'}","best_ask":"${ask >= 0 ? this.price(ask) : '1'}"`;
    }
    const hashes = new Map<string, string>();
    let entries = '';
    for (let i = 0; i < merged.length; i++) {
      const c = merged[i];
      let h = hashes.get(c.tokenId);
      if (h === undefined) hashes.set(c.tokenId, (h = this.hashOf(c.tokenId, timestamp, ltpOf(c.tokenId))));
      if (entries) entries += ',';
      entries += `{"asset_id":"${c.tokenId}","price":"${this.price(c.price)}","size":"${formatSize(c.size)}","side":"${c.side}","hash":"${h}",${bests[i]}}`;
    }
    return `{"market":"${this.facts.conditionId}","price_changes":[${entries}],"timestamp":"${timestamp}","event_type":"price_change"}`;
  }

  lastTradePrice(tokenId: string, price: number, size: number, takerSide: Side, ts: number): string {
    return (
      `{"asset_id":"${tokenId}","event_type":"last_trade_price","fee_rate_bps":"0","market":"${this.facts.conditionId}",` +
      `"price":"${this.price(price)}","side":"${takerSide}","size":"${formatSize(size)}","timestamp":"${ts}"}`
    );
  }
}
