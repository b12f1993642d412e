// The reader thread's side of the event codec (event-codec.ts): decoded market events appended to
// a batch of numbers and strings, repeating strings named by number once sent.
import type { BookEvent, LastTradePriceEvent, MarketEvent, MarketLifecycleEvent, PriceChangeEvent, WireLevel } from '../core/events.js';
import { BOOK, PRICE_CHANGE, LAST_TRADE, TICK_SIZE, BEST_BID_ASK, NEW_MARKET, MARKET_RESOLVED, FORMATS, PRICE_SLOTS, SAME_TEXT, FIRST_TEXT, MAX_NAMED, type EncodedEvents } from './event-codec.js';

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
