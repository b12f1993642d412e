// The hashed last_trade_price across a tick change. The venue hashes a trade's price before it
// prints it (polytrader; wire-formats.md 5.4), and prints a trade ~70-200 ms after the book shows it
// (py-clob-client-v2 issue #117). A trade is what moves a price back across the tick rule's
// threshold, so the tick coarsens right after it: the book after the change hashes that trade's
// price on the old, finer grid, while its print has not come. The mirror's grid search must cover
// the grid the token just left.
import { describe, expect, it } from 'vitest';
import { bookHash } from '../../src/book/hash.js';
import { setup, type L } from './helpers.js';

const meta = (tickSize: string, lastTradePrice: string) => ({ minOrderSize: '5', tickSize, negRisk: false, lastTradePrice });
const lv = (x: L[]) => x.map(([price, size]) => ({ price, size }));

function book(ts: string, bids: L[], asks: L[], tickSize: string, hashedLtp: string, ltpKey?: string) {
  const hash = bookHash({ market: '0xm', assetId: 'A', timestamp: ts, bids, asks, ...meta(tickSize, hashedLtp) });
  return { market: '0xm', asset_id: 'A', timestamp: ts, hash, bids: lv(bids), asks: lv(asks), tick_size: tickSize, event_type: 'book', ...(ltpKey ? { last_trade_price: ltpKey } : {}) };
}

describe('mirror: the hashed last trade price across a tick change', () => {
  it('a book after the tick coarsened (0.001 -> 0.01) that hashes the unprinted trade at 0.951 verifies, and the last trade price is known', () => {
    const { m, feed } = setup();
    feed([
      book(
        '1000',
        [
          ['0.958', '100'],
          ['0.959', '50'],
        ],
        [
          ['0.962', '80'],
          ['0.961', '40'],
        ],
        '0.001',
        '0.960',
        '0.960',
      ),
    ]);
    expect(m.stats('A')).toMatchObject({ hashesVerified: 1, mismatches: 0 });
    // a sell through the bids down to 0.951, then the price rule's coarser tick; the print comes later
    feed({ event_type: 'tick_size_change', asset_id: 'A', market: '0xm', old_tick_size: '0.001', new_tick_size: '0.01', timestamp: '1050' });
    feed([
      book(
        '1051',
        [
          ['0.94', '100'],
          ['0.95', '20'],
        ],
        [
          ['0.97', '80'],
          ['0.96', '40'],
        ],
        '0.01',
        '0.951',
      ),
    ]);
    expect(m.stats('A')).toMatchObject({ hashesVerified: 2, mismatches: 0, ltpRecovered: 1 });
    expect(m.book('A')?.inSync()).toBe(true);
  });
});
