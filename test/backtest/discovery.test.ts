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

  it('a market both of whose snapshots come at once hands over the first alone', () => {
    const d = new MarketDiscovery();
    const a = book(A, 1);
    expect(d.see(a)).toBeUndefined();
    expect(d.see(book(B, 1))?.backlog).toEqual([a]);
  });
});
