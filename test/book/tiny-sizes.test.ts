// A level whose size is above zero but under half a unit (0.005 share: "0.004", what a 6-decimal
// fill can leave resting) stays in the book: it was parsed as 0, which removes a level, so the
// hashed book never matched the venue's and the token stayed out of sync for as long as the level
// rested (every resync brought the same snapshot back). The decoder, the mirror with every hash
// verified, and the REST snapshot's parser.
import { describe, expect, it } from 'vitest';
import { BookMirror } from '../../src/book/mirror.js';
import { bookHash } from '../../src/book/hash.js';
import { createMarketDecodeStats, decodeMarketFrame } from '../../src/feed/decode-market.js';
import type { MarketEvent } from '../../src/core/events.js';
import { parseWireSize } from '../../src/core/units.js';

const A = '1111';
const META = { market: '0xm', minOrderSize: '5', tickSize: '0.01', negRisk: false, lastTradePrice: '0.5' };
type Lv = Array<[string, string]>;

function snapshot(ts: string, bids: Lv, asks: Lv): string {
  const hash = bookHash({ assetId: A, timestamp: ts, bids, asks, ...META });
  const lv = (xs: Lv) => xs.map(([price, size]) => ({ price, size }));
  return JSON.stringify([{ market: '0xm', asset_id: A, timestamp: ts, hash, bids: lv(bids), asks: lv(asks), tick_size: '0.01', event_type: 'book', last_trade_price: '0.5' }]);
}
function change(ts: string, price: string, size: string, bids: Lv, asks: Lv): string {
  const hash = bookHash({ assetId: A, timestamp: ts, bids, asks, ...META });
  return JSON.stringify({
    market: '0xm',
    timestamp: ts,
    event_type: 'price_change',
    price_changes: [{ asset_id: A, price, size, side: 'BUY', hash, best_bid: bids.at(-1)?.[0] ?? '0', best_ask: asks.at(-1)?.[0] ?? '0' }],
  });
}

describe('book levels under half a unit', () => {
  it('stay in the book and verify', () => {
    const m = new BookMirror({ verifyEvery: 1, now: () => 0 });
    const stats = createMarketDecodeStats();
    const feed = (frame: string): void => {
      const out: MarketEvent[] = [];
      decodeMarketFrame(frame, out, stats);
      for (const e of out) m.apply(e);
    };
    const asks: Lv = [['0.55', '3']];
    feed(
      snapshot(
        '100',
        [
          ['0.4', '10'],
          ['0.45', '0.004'],
        ],
        asks,
      ),
    );
    expect(m.book(A)?.inSync()).toBe(true);
    expect(m.book(A)?.bestBid()).toBe(4500);
    // a level changed to 0.003 stays; "0" removes it
    feed(
      change(
        '200',
        '0.4',
        '0.003',
        [
          ['0.4', '0.003'],
          ['0.45', '0.004'],
        ],
        asks,
      ),
    );
    feed(change('300', '0.45', '0', [['0.4', '0.003']], asks));
    feed(change('400', '0.4', '0.00', [], asks));
    const b = m.book(A)!;
    expect(b.inSync()).toBe(true);
    expect(b.bestBid()).toBe(-1);
    // the snapshot and the first two groups; the last stays open until the next timestamp
    expect(m.stats(A)).toMatchObject({ mismatches: 0, hashesVerified: 3 });
  });

  it('parseWireSize: a nonzero size is at least 1 unit; zero in any spelling is 0', () => {
    expect(parseWireSize('0.004')).toBe(1);
    expect(parseWireSize('0.000001')).toBe(1);
    expect(parseWireSize('0.005')).toBe(1);
    expect(parseWireSize('0.006')).toBe(1);
    expect(parseWireSize('1.234')).toBe(123);
    for (const z of ['0', '0.0', '0.000', '00.00']) expect(parseWireSize(z)).toBe(0);
    expect(parseWireSize('abc')).toBe(-1);
  });
});
