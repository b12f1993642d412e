// The benchmarks' venue: answers every request at once (places live with a fresh id, cancels
// done), so a benchmark measures our side alone; `onRequest` sees each trading request's endpoint.
import type { CancelResult, OrderRequest, PlaceResult, Venue } from '../venue/types.js';

export type TradingEndpoint = 'POST /orders' | 'POST /order' | 'DELETE /orders' | 'DELETE /order' | 'DELETE /cancel-all';

export class InstantVenue implements Venue {
  readonly booksIncludeOwnOrders = false;
  readonly makersPayNoFee = false;
  private n = 0;
  constructor(private readonly onRequest: (endpoint: TradingEndpoint) => void = () => {}) {}
  private ok = (r: OrderRequest): PlaceResult => ({ clientId: r.clientId, ok: true, orderId: `o${this.n++}`, status: 'live' });
  async placeOrders(o: OrderRequest[]) {
    this.onRequest('POST /orders');
    return o.map(this.ok);
  }
  async placeOrder(o: OrderRequest) {
    this.onRequest('POST /order');
    return this.ok(o);
  }
  async cancelOrders(ids: string[]): Promise<CancelResult> {
    this.onRequest('DELETE /orders');
    return { canceled: ids, notCanceled: {} };
  }
  async cancelOrder(id: string): Promise<CancelResult> {
    this.onRequest('DELETE /order');
    return { canceled: [id], notCanceled: {} };
  }
  async cancelAll(): Promise<CancelResult> {
    this.onRequest('DELETE /cancel-all');
    return { canceled: [], notCanceled: {} };
  }
  async cancelMarket(): Promise<CancelResult> {
    return { canceled: [], notCanceled: {} };
  }
  async openOrders() {
    return [];
  }
  async trades() {
    return [];
  }
  onUserEvent(): void {}
  async close(): Promise<void> {}
}
