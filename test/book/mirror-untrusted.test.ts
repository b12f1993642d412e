// Market frames checked before they touch a book (issue 10, item 5), as the daemon's feed sets the
// mirror up (requireHash, knownTokensOnly): a snapshot without a valid hash is refused, a bad
// frame's hashed fields are not adopted, and tokens nobody subscribed to get no book.
import { describe, expect, it } from 'vitest';
import { BookMirror, type OutOfSyncReason } from '../../src/book/mirror.js';
import { bookMsg, decode, h, BIDS, ASKS } from './helpers.js';

function strict() {
  const resyncs: Array<[string, OutOfSyncReason]> = [];
  const m = new BookMirror({ now: () => 0, requireHash: true, knownTokensOnly: true, onResync: (a, r) => resyncs.push([a, r]), complementSeeding: false });
  m.setMeta('A', { market: '0xm', minOrderSize: '5', tickSize: '0.01', negRisk: false, lastTradePrice: '0.5' });
  const feed = (o: unknown) => decode(o).forEach((e) => m.apply(e));
  return { m, resyncs, feed };
}

describe('untrusted market frames', () => {
  it.each([[''], ['not-a-hash'], ['ABCDEF'.repeat(7).slice(0, 40)]])('a snapshot with hash %j is refused: no book, a resync asked', (hash) => {
    const { m, resyncs, feed } = strict();
    feed([{ ...bookMsg('A', '20', BIDS, ASKS), hash }]);
    expect(m.book('A')!.inSync()).toBe(false);
    expect(m.book('A')!.bestBid()).toBe(-1);
    expect(m.rejectedSnapshots).toBe(1);
    expect(resyncs).toEqual([['A', 'hash_mismatch']]);
    // a proper one is taken
    feed([bookMsg('A', '21', BIDS, ASKS)]);
    expect(m.book('A')!.inSync()).toBe(true);
  });

  it("a failing frame's hashed fields are not adopted: the next good snapshot verifies", () => {
    const { m, feed } = strict();
    feed([bookMsg('A', '20', BIDS, ASKS)]);
    expect(m.book('A')!.inSync()).toBe(true);
    // min_order_size "" and a hash that does not match: before the fix, "" stuck and broke every later check
    feed([{ ...bookMsg('A', '21', BIDS, ASKS), min_order_size: '', hash: 'f'.repeat(40) }]);
    expect(m.book('A')!.inSync()).toBe(false);
    feed([bookMsg('A', '22', BIDS, ASKS, h('A', '22', BIDS, ASKS))]);
    expect(m.book('A')!.inSync()).toBe(true);
    expect(m.stats('A')).toMatchObject({ mismatches: 1, hashesVerified: 2 });
  });

  it('frames for tokens nobody subscribed to are counted and dropped without a book', () => {
    const { m, feed } = strict();
    for (let i = 0; i < 200; i++) feed([bookMsg(`X${i}`, '20', BIDS, ASKS)]);
    feed({ market: '0xm', price_changes: [{ asset_id: 'Y', price: '0.4', size: '1', side: 'BUY', hash: 'f'.repeat(40) }], timestamp: '30', event_type: 'price_change' });
    feed({ asset_id: 'Z', event_type: 'tick_size_change', market: '0xm', old_tick_size: '0.01', new_tick_size: '0.001', timestamp: '31' });
    expect(m.assetIds()).toEqual(['A']);
    expect(m.droppedUnknown).toBe(202);
  });
});
