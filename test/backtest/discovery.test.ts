// A recording's markets are found as it streams: the first token's snapshot waits until a second
// token of its market shows up. What came for the first token meanwhile (a newer snapshot, its
// deltas) is handed over with it, so the simulated venue, which knows no market before then, starts
// from the book the mirror holds, not from the first snapshot.
import { describe, expect, it } from 'vitest';
import { MarketDiscovery } from '../../src/backtest/markets.js';
import type { BookEvent, PriceChangeEvent } from '../../src/core/events.js';
import { M, book as bookOf } from '../venue/sim-helpers.js';

const A = '111';
const B = '222';

const book = (assetId: string, ts: number): BookEvent => bookOf(assetId, [[4000, 1000]], [[6000, 1000]], ts);
function change(assetIds: string[], ts: number): PriceChangeEvent {
  return {
    type: 'price_change',
    market: M,
    timestampMs: ts,
    timestampStr: String(ts),
    format: 'changes',
    changes: assetIds.map((assetId) => ({ assetId, side: 'BUY', price: 4000, size: 0, priceStr: '0.4', sizeStr: '0' })),
  };
}

describe('backtest: market discovery', () => {
  it("hands over the first token's events seen before its market was complete, from its latest snapshot on", () => {
    const d = new MarketDiscovery();
    const b1 = book(A, 1);
    const c1 = change([A], 2);
    const b2 = book(A, 3);
    const c2 = change([A], 4);
    expect(d.see(b1)).toBeUndefined();
    expect(d.see(c1)).toBeUndefined();
    expect(d.see(b2)).toBeUndefined();
    expect(d.see(c2)).toBeUndefined();
    const found = d.see(change([B], 5));
    expect(found?.meta).toMatchObject({ conditionId: M, tokenId: A, complementId: B });
    // a newer snapshot replaces what came before it
    expect(found?.backlog).toEqual([b2, c2]);
  });

  it('a first token that waits past the backlog bound hands over the book its events make (folded into one snapshot), its latest changes included', () => {
    const d = new MarketDiscovery();
    expect(d.see(book(A, 1))).toBeUndefined();
    const at = (ts: number, side: 'BUY' | 'SELL', price: number, size: number): PriceChangeEvent => ({
      ...change([A], ts),
      changes: [{ assetId: A, side, price, size, priceStr: String(price / 10_000), sizeStr: String(size / 100) }],
    });
    // 25,000 changes of A's 0.41 bid, the last one 25,000 units; then its 0.40 bid goes and a 0.59 ask comes
    const n = 25_000;
    for (let i = 1; i <= n; i++) expect(d.see(at(1 + i, 'BUY', 4100, i))).toBeUndefined();
    d.see(at(n + 2, 'BUY', 4000, 0));
    d.see(at(n + 3, 'SELL', 5900, 700));
    const found = d.see(change([B], n + 4));
    expect(found?.backlog.length).toBeLessThanOrEqual(10_001);
    // the book the backlog makes, applied in order as the simulated venue applies it
    const bids = new Map<number, number>();
    const asks = new Map<number, number>();
    for (const e of found?.backlog ?? []) {
      if (e.type === 'book') {
        bids.clear();
        asks.clear();
        for (const l of e.bids) bids.set(l.price, l.size);
        for (const l of e.asks) asks.set(l.price, l.size);
      } else if (e.type === 'price_change') {
        for (const c of e.changes) {
          const m = c.side === 'BUY' ? bids : asks;
          if (c.size > 0) m.set(c.price, c.size);
          else m.delete(c.price);
        }
      }
    }
    expect([...bids]).toEqual([[4100, n]]);
    expect([...asks].sort((x, y) => x[0] - y[0])).toEqual([
      [5900, 700],
      [6000, 1000],
    ]);
  });

  it('a market both of whose snapshots come at once hands over the first alone', () => {
    const d = new MarketDiscovery();
    const a = book(A, 1);
    expect(d.see(a)).toBeUndefined();
    expect(d.see(book(B, 1))?.backlog).toEqual([a]);
  });
});
