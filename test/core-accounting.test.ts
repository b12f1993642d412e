// The one average-cost fold (issue 11, item 4): long, short, crossing flat, integer units.
import { describe, expect, it } from 'vitest';
import { emptyBasis, foldFill } from '../src/core/accounting.js';

describe('average-cost fold', () => {
  it('long: buys add to the basis, a sale realizes against the average cost', () => {
    const p = emptyBasis();
    foldFill(p, 'BUY', 5000, 1000); // 10 shares at 0.50
    foldFill(p, 'BUY', 6000, 1000); // 10 at 0.60: average 0.55
    foldFill(p, 'SELL', 7000, 500); // 5 at 0.70: +0.15 x 5 = 0.75 $
    expect(p).toEqual({ qty: 1500, cost: 8_250_000, realized: 750_000 });
  });
  it('short: a sale from flat opens it, a buy back realizes', () => {
    const p = emptyBasis();
    foldFill(p, 'SELL', 5000, 1000);
    foldFill(p, 'BUY', 3000, 400); // bought back 4 at 0.30 after selling at 0.50: +0.80 $
    expect(p).toEqual({ qty: -600, cost: -3_000_000, realized: 800_000 });
  });
  it('a fill across flat closes the position and opens the rest the other way at its price', () => {
    const p = emptyBasis();
    foldFill(p, 'BUY', 5000, 200);
    foldFill(p, 'SELL', 6000, 500);
    expect(p).toEqual({ qty: -300, cost: -1_800_000, realized: 200_000 });
  });
  it('stays in integer micro-dollars when the average is not whole', () => {
    const p = emptyBasis();
    foldFill(p, 'BUY', 3333, 300);
    foldFill(p, 'BUY', 3334, 100);
    foldFill(p, 'SELL', 4000, 100);
    expect(Number.isInteger(p.cost) && Number.isInteger(p.realized)).toBe(true);
    foldFill(p, 'SELL', 4000, 300);
    expect(p.qty).toBe(0);
    expect(p.cost).toBe(0);
    // the whole round trip: sold 400 at 0.40 for 1,600,000; bought for 999,900 + 333,400
    expect(p.realized).toBe(1_600_000 - 999_900 - 333_400);
  });
});
