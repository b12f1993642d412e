// Wire frames of one binary market built from the matching engine's books (wire-formats.md
// 1.3-1.6, 5.4): the book snapshot (WS and REST shapes), price_change in the current format,
// last_trade_price and tick_size_change. As the real feed (polytope, glmbotpoly, polytrader
// captures): one price_change message per changed level holding the token's entry and its
// complement's, messages of a batch sharing the timestamp and the hash after the batch, prices in
// their shortest form ("0.5", "0.54"), sizes trimmed ("63.96", "33"). FeedShape switches each
// variant of section 5.4 a client must also accept.
// Each token's levels are kept in a DenseBook fed by the engine's level changes, so a hash costs
// the changed side's text and one SHA-1, not a scan of the engine's ladders.
import { BookHasher } from '../book/hash.js';
import { DenseBook } from '../book/book.js';
import { complementPrice, formatPrice, formatSize, PRICE_SCALE } from '../core/units.js';
import type { Side } from '../core/events.js';
import type { LevelChange, MatchingEngineApi } from '../venue/matching-api.js';

/** Static facts of a market that the hash covers but the WS book frame does not carry. */
export interface MarketFacts {
  conditionId: string;
  tokens: [string, string];
  tick: number;
  minSize: number;
  negRisk: boolean;
  /** The token that won, once the market resolved (set by a test: GET /markets/{id} says closed, `winner` on its token). */
  winner?: string;
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
  /** On the first snapshot of a subscription; later book frames omit it (the hash still covers it). */
  last_trade_price?: string;
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

/** The variants of wire-formats.md 5.4 (defaults: what the real captures show). */
export interface FeedShape {
  /** Every entry of a batch carries the top after the whole batch (default: after its own message). */
  topsAfterBatch: boolean;
  /** Every entry carries the hash after its own message, as glmbotpoly shows (default: after the batch, as polytope). */
  hashPerMessage: boolean;
  /** One message per batch holding every change (default: one message per level and its complement). */
  oneMessagePerBatch: boolean;
  /** A trade's price is hashed as last_trade_price in the batch sent before its last_trade_price event (polytrader). */
  ltpLeads: boolean;
  /** A trade moves the complement's hashed last_trade_price to 1 - p (polytrader); off: only its own token's. */
  complementLtp: boolean;
  /**
   * A trade's last_trade_price (and the book frames after it) comes this many ms after the batch that
   * shows it, stamped then: the real feed prints a trade ~70-200 ms after its update (py-clob-client-v2
   * issue #117: 67 ms later by its timestamp). 0 (the default): printed with its batch, same timestamp.
   */
  printLagMs: number;
}

export const realFeedShape: FeedShape = { topsAfterBatch: false, hashPerMessage: false, oneMessagePerBatch: false, ltpLeads: true, complementLtp: true, printLagMs: 0 };

/** Shortest decimal form of every price ("0.5", "0.54", "0.545"), as the venue prints them. */
const PRICE_STR: string[] = [];
for (let p = 0; p <= PRICE_SCALE; p++) PRICE_STR.push(formatPrice(p));

/** Formats prices and hashes books for one market; caches the price strings of the tick grid. */
export class FrameBuilder {
  /** The tick as the venue writes it ("0.01"); changes with setTick. */
  tickStr: string;
  readonly minSizeStr: string;
  private readonly books: Map<string, DenseBook>;
  private readonly hashers = new Map<string, BookHasher>();

  constructor(
    readonly facts: MarketFacts,
    private readonly engine: MatchingEngineApi,
  ) {
    this.tickStr = formatPrice(facts.tick);
    this.minSizeStr = formatSize(facts.minSize);
    this.books = new Map(facts.tokens.map((t) => [t, new DenseBook(t)]));
    this.resync();
  }

  /** A tick size change (facts.tick already holds the new tick): the fresh books and later hashes carry it. */
  setTick(): void {
    this.tickStr = formatPrice(this.facts.tick);
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
    return PRICE_STR[p] ?? formatPrice(p);
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
    const f = this.facts;
    let h = this.hashers.get(tokenId);
    if (!h) this.hashers.set(tokenId, (h = new BookHasher()));
    return h.hash({ market: f.conditionId, assetId: tokenId, timestamp, minOrderSize: this.minSizeStr, tickSize: this.tickStr, negRisk: f.negRisk, lastTradePrice: ltp }, this.book(tokenId));
  }

  bookObject(tokenId: string, ts: number, ltp: string, withLtp = true): BookObject {
    const timestamp = String(ts);
    const bids = this.pairs(tokenId, 'BUY');
    const asks = this.pairs(tokenId, 'SELL');
    const b: BookObject = {
      market: this.facts.conditionId,
      asset_id: tokenId,
      timestamp,
      hash: this.hashOf(tokenId, timestamp, ltp),
      bids: bids.map(([price, size]) => ({ price, size })),
      asks: asks.map(([price, size]) => ({ price, size })),
      tick_size: this.tickStr,
      event_type: 'book',
    };
    if (withLtp) b.last_trade_price = ltp;
    return b;
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
   * The price_change messages of one batch of level changes sharing `ts` (repeated changes of a
   * level collapse to the final total). By default one message per level: the change and its
   * complement's mirror (other token, 1 - p, other side), each entry carrying the hash of its
   * token's book after the whole batch and the top after its own message (`shape` switches each).
   */
  priceChanges(changes: readonly LevelChange[], ts: number, ltpOf: (tokenId: string) => string, shape: FeedShape): string[] {
    const timestamp = String(ts);
    const last = new Map<string, LevelChange>();
    for (const c of changes) last.set(`${c.tokenId}|${c.side}|${c.price}`, c);
    const merged = [...last.values()];
    // group into messages: a level and its complement's mirror, or everything at once
    const msgs: LevelChange[][] = [];
    if (shape.oneMessagePerBatch) msgs.push(merged);
    else {
      const used = new Set<LevelChange>();
      for (const c of merged) {
        if (used.has(c)) continue;
        used.add(c);
        const mate = merged.find((d) => !used.has(d) && d.tokenId !== c.tokenId && d.price === complementPrice(c.price) && d.side !== c.side && d.size === c.size);
        if (mate) used.add(mate);
        msgs.push(mate ? [c, mate] : [c]);
      }
    }
    // apply message by message, noting each entry's top and (per-message variant) hash
    const tops: string[][] = [];
    const ownHash: string[][] = [];
    for (const msg of msgs) {
      const t: string[] = [];
      for (const c of msg) {
        this.book(c.tokenId).set(c.side, c.price, c.size, this.price(c.price), formatSize(c.size));
        if (shape.oneMessagePerBatch && !shape.topsAfterBatch) t.push(this.topText(c.tokenId)); // after its own entry
      }
      if (!(shape.oneMessagePerBatch && !shape.topsAfterBatch)) for (const c of msg) t.push(this.topText(c.tokenId));
      tops.push(t);
      ownHash.push(shape.hashPerMessage ? msg.map((c) => this.hashOf(c.tokenId, timestamp, ltpOf(c.tokenId))) : []);
    }
    const batchHash = new Map<string, string>();
    const batchTop = new Map<string, string>();
    for (const c of merged) {
      if (!shape.hashPerMessage && !batchHash.has(c.tokenId)) batchHash.set(c.tokenId, this.hashOf(c.tokenId, timestamp, ltpOf(c.tokenId)));
      if (shape.topsAfterBatch && !batchTop.has(c.tokenId)) batchTop.set(c.tokenId, this.topText(c.tokenId));
    }
    return msgs.map((msg, i) => {
      let entries = '';
      for (let k = 0; k < msg.length; k++) {
        const c = msg[k];
        const h = shape.hashPerMessage ? ownHash[i][k] : (batchHash.get(c.tokenId) as string);
        const top = shape.topsAfterBatch ? (batchTop.get(c.tokenId) as string) : tops[i][k];
        if (entries) entries += ',';
        entries += `{"asset_id":"${c.tokenId}","price":"${this.price(c.price)}","size":"${formatSize(c.size)}","side":"${c.side}","hash":"${h}",${top}}`;
      }
      return `{"market":"${this.facts.conditionId}","price_changes":[${entries}],"timestamp":"${timestamp}","event_type":"price_change"}`;
    });
  }

  private topText(tokenId: string): string {
    const b = this.book(tokenId);
    const bid = b.bestBid();
    const ask = b.bestAsk();
    return `"best_bid":"${bid >= 0 ? this.price(bid) : '0'}","best_ask":"${ask >= 0 ? this.price(ask) : '1'}"`;
  }

  lastTradePrice(tokenId: string, price: number, size: number, takerSide: Side, ts: number): string {
    return (
      `{"asset_id":"${tokenId}","event_type":"last_trade_price","fee_rate_bps":"0","market":"${this.facts.conditionId}",` +
      `"price":"${this.price(price)}","side":"${takerSide}","size":"${formatSize(size)}","timestamp":"${ts}"}`
    );
  }
}
