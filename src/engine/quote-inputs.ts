// What a requote read, remembered so the next one can be skipped when nothing it reads changed.
// Only for a strategy that declares what it reads (Strategy.reads): the top of its book, the
// market terms and our position; plus what the engine itself reads (ticks, our orders of the
// market). Recorded only after a requote that had nothing to do (no cancel, no place, no invalid
// quote, nothing blocked), so a skipped one would have had nothing to do either.
import type { BookView } from '../book/view.js';
import type { TrackedOrder } from './orders.js';
import type { MarketMeta, Strategy } from './strategy.js';

/** The market's position as a requote reads it, size units: held shares and those the venue lets us sell (PositionView.sellable). */
export interface Held {
  qty: number;
  complementQty: number;
  sellable: number;
  complementSellable: number;
}

export class QuoteInputs {
  private valid = false;
  private meta: MarketMeta | undefined;
  private book: BookView | undefined;
  private bid = 0;
  private ask = 0;
  private bidSize = 0;
  private askSize = 0;
  private tick = 0;
  private complementTick = 0;
  private readonly held: Held = { qty: 0, complementQty: 0, sellable: 0, complementSellable: 0 };
  /** Our open orders of the market then, and what of each the reconciler reads. */
  private readonly orders: TrackedOrder[] = [];
  private readonly states: string[] = [];
  private readonly filled: number[] = [];
  private readonly ids: Array<string | undefined> = [];

  constructor(private readonly reads: NonNullable<Strategy['reads']>) {}

  /** True when every input equals the recorded one (and one is recorded). */
  same(meta: MarketMeta, book: BookView, tick: number, complementTick: number, held: Held, orders: readonly TrackedOrder[]): boolean {
    if (!this.valid) return false;
    if (meta !== this.meta || book !== this.book || tick !== this.tick || complementTick !== this.complementTick) return false;
    const h = this.held;
    if (held.qty !== h.qty || held.complementQty !== h.complementQty || held.sellable !== h.sellable || held.complementSellable !== h.complementSellable) return false;
    const bid = book.bestBid();
    const ask = book.bestAsk();
    if (bid !== this.bid || ask !== this.ask) return false;
    if (this.reads === 'top' && (book.sizeAt('BUY', bid) !== this.bidSize || book.sizeAt('SELL', ask) !== this.askSize)) return false;
    const n = orders.length;
    if (n !== this.orders.length) return false;
    for (let i = 0; i < n; i++) {
      const o = orders[i];
      if (o !== this.orders[i] || o.state !== this.states[i] || o.filled !== this.filled[i] || o.orderId !== this.ids[i]) return false;
    }
    return true;
  }

  record(meta: MarketMeta, book: BookView, tick: number, complementTick: number, held: Held, orders: readonly TrackedOrder[]): void {
    this.valid = true;
    this.meta = meta;
    this.book = book;
    this.tick = tick;
    this.complementTick = complementTick;
    Object.assign(this.held, held);
    this.bid = book.bestBid();
    this.ask = book.bestAsk();
    this.bidSize = this.reads === 'top' ? book.sizeAt('BUY', this.bid) : 0;
    this.askSize = this.reads === 'top' ? book.sizeAt('SELL', this.ask) : 0;
    const n = orders.length;
    this.orders.length = n;
    this.states.length = n;
    this.filled.length = n;
    this.ids.length = n;
    for (let i = 0; i < n; i++) {
      const o = orders[i];
      this.orders[i] = o;
      this.states[i] = o.state;
      this.filled[i] = o.filled;
      this.ids[i] = o.orderId;
    }
  }

  /** Forgets the record (the next requote runs in full). */
  clear(): void {
    if (!this.valid) return;
    this.valid = false;
    this.meta = undefined;
    this.book = undefined;
    this.orders.length = 0;
    this.ids.length = 0;
  }
}
