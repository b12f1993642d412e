// Test helpers: real books (DenseBook) and a recording venue that answers like the REST API.
import { DenseBook } from '../../src/book/book.js';
import { formatPrice, formatSize } from '../../src/core/units.js';
import type { WireLevel, UserEvent } from '../../src/feed/events.js';
import type { Venue, OrderRequest, PlaceResult, CancelResult, VenueOrder, VenueTrade } from '../../src/venue/types.js';

export function lv(price: number, size: number): WireLevel {
  return { price, size, priceStr: formatPrice(price), sizeStr: formatSize(size) };
}

/** A synced book: bids and asks as [price, size] pairs (any order), tick in price units. */
export function makeBook(assetId: string, bids: Array<[number, number]>, asks: Array<[number, number]>, nowMs = 0, tick = 100): DenseBook {
  const b = new DenseBook(assetId);
  b.loadSnapshot(
    bids.sort((x, y) => x[0] - y[0]).map(([p, s]) => lv(p, s)),
    asks.sort((x, y) => y[0] - x[0]).map(([p, s]) => lv(p, s)),
    nowMs,
  );
  b.tick = tick;
  b.setInSync(true);
  return b;
}

/** Records every call; answers each order 'live' with a fresh id unless told otherwise. */
export class RecordingVenue implements Venue {
  /** Tests of the mark set this to play a real venue whose books show our orders. */
  booksIncludeOwnOrders = false;
  calls: Array<{ kind: string; t: number; n: number; ids?: string[]; reqs?: OrderRequest[] }> = [];
  private seq = 0;
  private listener: ((e: UserEvent) => void) | undefined;
  live = new Map<string, OrderRequest>();
  /** Override to reject or throw. */
  answer: (r: OrderRequest) => PlaceResult = (r) => ({ clientId: r.clientId, ok: true, orderId: `o${++this.seq}`, status: 'live' });
  throwOnPlace: Error | undefined;
  constructor(private readonly now: () => number = () => 0) {}
  async placeOrders(orders: OrderRequest[]): Promise<PlaceResult[]> {
    this.calls.push({ kind: 'placeOrders', t: this.now(), n: orders.length, reqs: orders });
    if (this.throwOnPlace) throw this.throwOnPlace;
    const res = orders.map((o) => this.answer(o));
    res.forEach((r, i) => r.ok && r.orderId && this.live.set(r.orderId, orders[i]));
    return res;
  }
  async placeOrder(order: OrderRequest): Promise<PlaceResult> {
    this.calls.push({ kind: 'placeOrder', t: this.now(), n: 1, reqs: [order] });
    if (this.throwOnPlace) throw this.throwOnPlace;
    const r = this.answer(order);
    if (r.ok && r.orderId) this.live.set(r.orderId, order);
    return r;
  }
  private cancel(ids: string[]): CancelResult {
    const res: CancelResult = { canceled: [], notCanceled: {} };
    for (const id of ids) {
      if (this.live.delete(id)) res.canceled.push(id);
      else res.notCanceled[id] = 'not found';
    }
    return res;
  }
  async cancelOrders(ids: string[]): Promise<CancelResult> {
    this.calls.push({ kind: 'cancelOrders', t: this.now(), n: ids.length, ids });
    return this.cancel(ids);
  }
  async cancelOrder(id: string): Promise<CancelResult> {
    this.calls.push({ kind: 'cancelOrder', t: this.now(), n: 1, ids: [id] });
    return this.cancel([id]);
  }
  async cancelAll(): Promise<CancelResult> {
    this.calls.push({ kind: 'cancelAll', t: this.now(), n: this.live.size });
    return this.cancel([...this.live.keys()]);
  }
  async cancelMarket(): Promise<CancelResult> {
    return { canceled: [], notCanceled: {} };
  }
  async openOrders(): Promise<VenueOrder[]> {
    return [];
  }
  async trades(): Promise<VenueTrade[]> {
    return [];
  }
  onUserEvent(l: (e: UserEvent) => void): void {
    this.listener = l;
  }
  emit(e: UserEvent): void {
    this.listener?.(e);
  }
  async close(): Promise<void> {}
}

/** Lets pending promise callbacks run. */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await Promise.resolve();
}
