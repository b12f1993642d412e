// Decoded market events across a thread boundary (the backtest's reader thread): a batch of them
// as one Float64Array of numbers and one array of strings, both moved in a single postMessage,
// instead of a structured clone object by object. Strings that repeat (asset ids, markets, price
// texts) cross once and are named by number after. A decoded event equals the original field for
// field, optional keys included, so a backtest over either gives the same result.
import type { BookEvent, LastTradePriceEvent, MarketEvent, MarketLifecycleEvent, PriceChangeEntry, PriceChangeEvent, Side, WireLevel } from '../core/events.js';

/** One batch on the wire: the numbers, the strings in the order they are read, and the repeating strings first seen in it. */
export interface EncodedEvents {
  nums: Float64Array;
  strs: string[];
  fresh: string[];
}

const BOOK = 0;
const PRICE_CHANGE = 1;
const LAST_TRADE = 2;
const TICK_SIZE = 3;
const BEST_BID_ASK = 4;
const NEW_MARKET = 5;
const MARKET_RESOLVED = 6;
const FORMATS = ['current', 'changes', 'flat'] as const;
/** Prices are integers 0..PRICE_SCALE: a price's usual text is kept by price on both sides. */
const PRICE_SLOTS = 10_001;
/** The price's usual text (the one it came with first). */
const SAME_TEXT = -3;
/** The first text of this price: it follows, and becomes the usual one. */
const FIRST_TEXT = -4;
/** Repeating strings kept on both sides at most (a recording of odd price texts cannot grow them without bound). */
const MAX_NAMED = 200_000;

export class EventEncoder {
  private nums = new Float64Array(1 << 15);
  private n = 0;
  private strs: string[] = [];
  private fresh: string[] = [];
  private readonly named = new Map<string, number>();
  private readonly priceText: Array<string | undefined> = new Array<string | undefined>(PRICE_SLOTS);
  private last0: string | undefined;
  private lastK0 = 0;
  private last1: string | undefined;
  private lastK1 = 0;

  num(v: number): void {
    if (this.n === this.nums.length) {
      const bigger = new Float64Array(this.nums.length * 2);
      bigger.set(this.nums);
      this.nums = bigger;
    }
    this.nums[this.n++] = v;
  }

  str(v: string): void {
    this.strs.push(v);
  }

  /** A string that repeats: its number once known (-1 and the string itself past MAX_NAMED). */
  name(v: string): void {
    // the last two named (a binary market's two tokens alternate) before the map
    if (v === this.last0) return this.num(this.lastK0);
    if (v === this.last1) {
      const k1 = this.lastK1;
      this.last1 = this.last0;
      this.lastK1 = this.lastK0;
      this.last0 = v;
      this.lastK0 = k1;
      return this.num(k1);
    }
    let k = this.named.get(v);
    if (k === undefined) {
      if (this.named.size >= MAX_NAMED) {
        this.num(-1);
        this.str(v);
        return;
      }
      k = this.named.size;
      this.named.set(v, k);
      this.fresh.push(v);
    }
    this.last1 = this.last0;
    this.lastK1 = this.lastK0;
    this.last0 = v;
    this.lastK0 = k;
    this.num(k);
  }

  private optName(v: string | undefined): void {
    if (v === undefined) this.num(-2);
    else this.name(v);
  }

  /** The text of `price`: nearly always the price's usual one (no lookup of the text itself). */
  private priceStr(price: number, v: string): void {
    if (price >= 0 && price < PRICE_SLOTS && price === Math.floor(price)) {
      const usual = this.priceText[price];
      if (usual === v) return this.num(SAME_TEXT);
      if (usual === undefined) {
        this.priceText[price] = v;
        this.num(FIRST_TEXT);
        return this.str(v);
      }
    }
    this.name(v);
  }

  event(e: MarketEvent): void {
    switch (e.type) {
      case 'book':
        return this.book(e);
      case 'price_change':
        return this.priceChange(e);
      case 'last_trade_price':
        return this.lastTrade(e);
      case 'tick_size_change':
        this.num(TICK_SIZE);
        this.name(e.market);
        this.name(e.assetId);
        this.num(e.oldTickSize);
        this.num(e.newTickSize);
        this.name(e.newTickSizeStr);
        this.num(e.timestampMs);
        return;
      case 'best_bid_ask':
        this.num(BEST_BID_ASK);
        this.name(e.market);
        this.name(e.assetId);
        this.num(e.bestBid);
        this.num(e.bestAsk);
        this.num(e.spread);
        this.num(e.timestampMs);
        return;
      case 'new_market':
      case 'market_resolved':
        return this.lifecycle(e);
    }
  }

  private levels(ls: readonly WireLevel[]): void {
    this.num(ls.length);
    for (let i = 0; i < ls.length; i++) {
      const l = ls[i];
      this.num(l.price);
      this.num(l.size);
      this.priceStr(l.price, l.priceStr);
      this.str(l.sizeStr);
    }
  }

  private book(e: BookEvent): void {
    this.num(BOOK);
    this.name(e.market);
    this.name(e.assetId);
    this.num(e.timestampMs);
    this.str(e.timestampStr);
    this.str(e.hash);
    this.levels(e.bids);
    this.levels(e.asks);
    const flags = ('tickSize' in e ? 1 : 0) | ('minOrderSizeStr' in e ? 2 : 0) | ('negRisk' in e ? 4 : 0) | ('lastTradePriceStr' in e ? 8 : 0) | ('tickSizeStr' in e ? 16 : 0);
    this.num(flags);
    if (flags & 1) this.num(e.tickSize ?? NaN);
    if (flags & 16) this.optName(e.tickSizeStr);
    if (flags & 2) this.optName(e.minOrderSizeStr);
    if (flags & 4) this.num(e.negRisk === undefined ? -1 : e.negRisk ? 1 : 0);
    if (flags & 8) this.optName(e.lastTradePriceStr);
  }

  private priceChange(e: PriceChangeEvent): void {
    this.num(PRICE_CHANGE);
    this.name(e.market);
    this.num(e.timestampMs);
    this.str(e.timestampStr);
    this.num(FORMATS.indexOf(e.format));
    const cs = e.changes;
    this.num(cs.length);
    for (let i = 0; i < cs.length; i++) {
      const c = cs[i];
      this.name(c.assetId);
      this.num(c.side === 'BUY' ? 0 : 1);
      this.num(c.price);
      this.num(c.size);
      this.priceStr(c.price, c.priceStr);
      this.str(c.sizeStr);
      // an absent hash and best prices are NaN / an empty string flag; the keys are always there
      if (c.hash === undefined) this.num(0);
      else {
        this.num(1);
        this.str(c.hash);
      }
      this.num(c.bestBid === undefined ? NaN : c.bestBid);
      this.num(c.bestAsk === undefined ? NaN : c.bestAsk);
    }
  }

  private lastTrade(e: LastTradePriceEvent): void {
    this.num(LAST_TRADE);
    this.name(e.market);
    this.name(e.assetId);
    this.num(e.price);
    this.num(e.size);
    this.num(e.side === 'BUY' ? 0 : 1);
    this.num(e.feeRateBps);
    this.num(e.timestampMs);
    const flags = ('transactionHash' in e ? 1 : 0) | ('priceStr' in e ? 2 : 0);
    this.num(flags);
    if (flags & 1) {
      this.num(e.transactionHash === undefined ? 0 : 1);
      if (e.transactionHash !== undefined) this.str(e.transactionHash);
    }
    if (flags & 2) this.optName(e.priceStr);
  }

  private lifecycle(e: MarketLifecycleEvent): void {
    this.num(e.type === 'new_market' ? NEW_MARKET : MARKET_RESOLVED);
    this.name(e.market);
    this.str(e.question);
    this.str(e.slug);
    this.num(e.assetIds.length);
    for (const a of e.assetIds) this.name(a);
    this.num(e.outcomes.length);
    for (const o of e.outcomes) this.str(o);
    this.num(e.timestampMs);
    const flags = ('winningAssetId' in e ? 1 : 0) | ('winningOutcome' in e ? 2 : 0);
    this.num(flags);
    if (flags & 1) this.optName(e.winningAssetId);
    if (flags & 2) {
      this.num(e.winningOutcome === undefined ? 0 : 1);
      if (e.winningOutcome !== undefined) this.str(e.winningOutcome);
    }
  }

  /** The batch so far (its numbers copied out, trimmed); the encoder starts a new one, keeping its names. */
  take(): EncodedEvents {
    const out: EncodedEvents = { nums: this.nums.slice(0, this.n), strs: this.strs, fresh: this.fresh };
    this.n = 0;
    this.strs = [];
    this.fresh = [];
    return out;
  }
}

export class EventDecoder {
  private readonly named: string[] = [];
  private readonly priceText: string[] = new Array<string>(PRICE_SLOTS);
  private nums: Float64Array = new Float64Array(0);
  private i = 0;
  private strs: string[] = [];
  private j = 0;

  /** Starts reading a batch (batches must come in the order they were taken). */
  load(b: EncodedEvents): void {
    for (let k = 0; k < b.fresh.length; k++) this.named.push(b.fresh[k]);
    this.nums = b.nums;
    this.strs = b.strs;
    this.i = 0;
    this.j = 0;
  }

  /** Whether numbers remain in the batch. */
  more(): boolean {
    return this.i < this.nums.length;
  }

  num(): number {
    return this.nums[this.i++];
  }

  str(): string {
    return this.strs[this.j++];
  }

  name(): string {
    const k = this.nums[this.i++];
    return k >= 0 ? this.named[k] : this.strs[this.j++];
  }

  private optName(): string | undefined {
    return this.nums[this.i] === -2 ? (this.i++, undefined) : this.name();
  }

  private priceStr(price: number): string {
    const k = this.nums[this.i];
    if (k === SAME_TEXT) {
      this.i++;
      return this.priceText[price];
    }
    if (k === FIRST_TEXT) {
      this.i++;
      return (this.priceText[price] = this.strs[this.j++]);
    }
    return this.name();
  }

  private side(): Side {
    return this.nums[this.i++] === 0 ? 'BUY' : 'SELL';
  }

  event(): MarketEvent {
    const type = this.num();
    switch (type) {
      case BOOK:
        return this.book();
      case PRICE_CHANGE:
        return this.priceChange();
      case LAST_TRADE:
        return this.lastTrade();
      case TICK_SIZE:
        return { type: 'tick_size_change', market: this.name(), assetId: this.name(), oldTickSize: this.num(), newTickSize: this.num(), newTickSizeStr: this.name(), timestampMs: this.num() };
      case BEST_BID_ASK:
        return { type: 'best_bid_ask', market: this.name(), assetId: this.name(), bestBid: this.num(), bestAsk: this.num(), spread: this.num(), timestampMs: this.num() };
      case NEW_MARKET:
      case MARKET_RESOLVED:
        return this.lifecycle(type === NEW_MARKET ? 'new_market' : 'market_resolved');
      default:
        throw new Error(`event codec: unknown event type ${type}`);
    }
  }

  private levels(): WireLevel[] {
    const n = this.num();
    const out = new Array<WireLevel>(n);
    for (let k = 0; k < n; k++) {
      const price = this.num();
      const size = this.num();
      out[k] = { price, size, priceStr: this.priceStr(price), sizeStr: this.str() };
    }
    return out;
  }

  private book(): BookEvent {
    const market = this.name();
    const assetId = this.name();
    const timestampMs = this.num();
    const timestampStr = this.str();
    const hash = this.str();
    const bids = this.levels();
    const asks = this.levels();
    const ev: BookEvent = { type: 'book', market, assetId, timestampMs, timestampStr, hash, bids, asks };
    const flags = this.num();
    if (flags & 1) {
      const t = this.num();
      ev.tickSize = t === t ? t : undefined;
    }
    if (flags & 16) ev.tickSizeStr = this.optName();
    if (flags & 2) ev.minOrderSizeStr = this.optName();
    if (flags & 4) {
      const r = this.num();
      ev.negRisk = r < 0 ? undefined : r === 1;
    }
    if (flags & 8) ev.lastTradePriceStr = this.optName();
    return ev;
  }

  private priceChange(): PriceChangeEvent {
    const market = this.name();
    const timestampMs = this.num();
    const timestampStr = this.str();
    const format = FORMATS[this.num()];
    const n = this.num();
    const changes = new Array<PriceChangeEntry>(n);
    for (let k = 0; k < n; k++) {
      const assetId = this.name();
      const side = this.side();
      const price = this.num();
      const size = this.num();
      const priceStr = this.priceStr(price);
      const sizeStr = this.str();
      const hash = this.num() === 1 ? this.str() : undefined;
      const bb = this.num();
      const ba = this.num();
      changes[k] = { assetId, side, price, size, priceStr, sizeStr, hash, bestBid: bb === bb ? bb : undefined, bestAsk: ba === ba ? ba : undefined };
    }
    return { type: 'price_change', market, timestampMs, timestampStr, changes, format };
  }

  private lastTrade(): LastTradePriceEvent {
    const ev: LastTradePriceEvent = {
      type: 'last_trade_price',
      market: this.name(),
      assetId: this.name(),
      price: this.num(),
      size: this.num(),
      side: this.side(),
      feeRateBps: this.num(),
      timestampMs: this.num(),
    };
    const flags = this.num();
    if (flags & 1) ev.transactionHash = this.num() === 1 ? this.str() : undefined;
    if (flags & 2) ev.priceStr = this.optName();
    return ev;
  }

  private lifecycle(type: 'new_market' | 'market_resolved'): MarketLifecycleEvent {
    const market = this.name();
    const question = this.str();
    const slug = this.str();
    const assetIds = new Array<string>(this.num());
    for (let k = 0; k < assetIds.length; k++) assetIds[k] = this.name();
    const outcomes = new Array<string>(this.num());
    for (let k = 0; k < outcomes.length; k++) outcomes[k] = this.str();
    const ev: MarketLifecycleEvent = { type, market, question, slug, assetIds, outcomes, timestampMs: this.num() };
    const flags = this.num();
    if (flags & 1) ev.winningAssetId = this.optName();
    if (flags & 2) ev.winningOutcome = this.num() === 1 ? this.str() : undefined;
    return ev;
  }
}
