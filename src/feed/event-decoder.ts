// The backtest's side of the event codec (event-codec.ts): the events of each batch rebuilt, equal
// to the encoded ones field for field, optional keys included.
import type { BookEvent, LastTradePriceEvent, MarketEvent, MarketLifecycleEvent, PriceChangeEntry, PriceChangeEvent, Side, WireLevel } from '../core/events.js';
import { BOOK, PRICE_CHANGE, LAST_TRADE, TICK_SIZE, BEST_BID_ASK, NEW_MARKET, MARKET_RESOLVED, FORMATS, PRICE_SLOTS, SAME_TEXT, FIRST_TEXT, type EncodedEvents } from './event-codec.js';

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
