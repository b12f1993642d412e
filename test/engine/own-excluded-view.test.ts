// The book without our own resting orders: what strategies, the requote skip and the PnL mark read
// where a venue's books show our orders (a real venue, the emulator).
import { describe, expect, it } from 'vitest';
import { DenseBook } from '../../src/book/book.js';
import { formatPrice, formatSize } from '../../src/core/units.js';
import type { Side } from '../../src/core/events.js';
import { OwnExcludedView, ownSizeAt } from '../../src/engine/own-excluded-view.js';
import type { OrderState, TrackedOrder } from '../../src/engine/orders.js';

const YES = 'yes';
const NO = 'no';

function book(bids: Array<[number, number]>, asks: Array<[number, number]>): DenseBook {
  const b = new DenseBook(YES);
  for (const [p, s] of bids) b.set('BUY', p, s, formatPrice(p), formatSize(s));
  for (const [p, s] of asks) b.set('SELL', p, s, formatPrice(p), formatSize(s));
  b.tick = 100;
  b.setInSync(true);
  return b;
}

let seq = 0;
function order(tokenId: string, side: Side, price: number, size: number, state: OrderState = 'live', filled = 0): TrackedOrder {
  seq++;
  return { clientId: `c${seq}`, orderId: `o${seq}`, tokenId, market: 'm', side, price, size, filled, state, createdMs: 0, updatedMs: 0 };
}

const view = (b: DenseBook, orders: TrackedOrder[]) => new OwnExcludedView(YES, NO).reset(b, orders);

function levels(v: OwnExcludedView, side: Side, n: number): Array<[number, number]> {
  const out: number[] = [];
  const k = v.depth(side, n, out);
  const r: Array<[number, number]> = [];
  for (let i = 0; i < k; i++) r.push([out[2 * i], out[2 * i + 1]]);
  return r;
}

describe('OwnExcludedView', () => {
  it('is the raw book when we have no orders', () => {
    const b = book(
      [
        [4700, 300],
        [4800, 1000],
      ],
      [
        [5200, 400],
        [5300, 900],
      ],
    );
    const v = view(b, []);
    expect([v.bestBid(), v.bestAsk(), v.mid(), v.spread(), v.microprice()]).toEqual([b.bestBid(), b.bestAsk(), b.mid(), b.spread(), b.microprice()]);
    expect(levels(v, 'BUY', 5)).toEqual([
      [4800, 1000],
      [4700, 300],
    ]);
    expect(v.sizeAt('SELL', 5300)).toBe(900);
  });

  it('skips a best bid that is only ours, to the external bid below', () => {
    // the market fell to 0.05 / 0.28; our bid at 0.48 is alone at the top
    const b = book(
      [
        [500, 10000],
        [4800, 2000],
      ],
      [[2800, 1000]],
    );
    const v = view(b, [order(YES, 'BUY', 4800, 2000)]);
    expect(b.mid()).toBe((4800 + 2800) / 2); // the raw mid, crossed by our own bid
    expect(v.bestBid()).toBe(500);
    expect(v.mid()).toBe((500 + 2800) / 2);
    expect(v.spread()).toBe(2800 - 500);
    expect(v.sizeAt('BUY', 4800)).toBe(0);
    expect(levels(v, 'BUY', 3)).toEqual([[500, 10000]]);
  });

  it('reduces a level shared with others by our size, and computes depth and microprice from what is left', () => {
    const b = book(
      [
        [4600, 800],
        [4700, 500],
        [4800, 2500],
      ],
      [
        [5200, 1000],
        [5300, 2000],
      ],
    );
    const v = view(b, [order(YES, 'BUY', 4800, 2000), order(YES, 'BUY', 4700, 500)]);
    expect(v.bestBid()).toBe(4800);
    expect(v.sizeAt('BUY', 4800)).toBe(500);
    expect(v.sizeAt('BUY', 4700)).toBe(0);
    // the 0.47 level was only ours: dropped, the next external level takes its place
    expect(levels(v, 'BUY', 2)).toEqual([
      [4800, 500],
      [4600, 800],
    ]);
    expect(levels(v, 'BUY', 1)).toEqual([[4800, 500]]);
    // bid size 500, ask size 1000: the microprice leans to the bid (the raw one, with 2500 bid, to the ask)
    expect(v.microprice()).toBe((4800 * 1000 + 5200 * 500) / 1500);
    expect(b.microprice()).toBe((4800 * 1000 + 5200 * 2500) / 3500);
    expect(v.mid()).toBe(5000);
  });

  it('counts a complement BUY as our ask at 1 - q and a complement SELL as our bid at 1 - q', () => {
    const b = book(
      [
        [4700, 400],
        [4800, 600],
      ],
      [
        [5100, 700],
        [5300, 1000],
      ],
    );
    const mine = [order(NO, 'BUY', 4900, 700), order(NO, 'SELL', 5200, 600)]; // a YES ask at 0.51, a YES bid at 0.48
    expect(ownSizeAt(YES, NO, 'SELL', 5100, mine)).toBe(700);
    expect(ownSizeAt(YES, NO, 'BUY', 4800, mine)).toBe(600);
    const v = view(b, mine);
    expect([v.bestBid(), v.bestAsk()]).toEqual([4700, 5300]);
    expect(levels(v, 'SELL', 5)).toEqual([[5300, 1000]]);
    // an order on some other token is not ours in this book
    expect(view(b, [order('other', 'BUY', 4900, 700)]).bestAsk()).toBe(5100);
  });

  it('ignores orders ended or unclear, counts places in flight, and takes only the unfilled part of a partly filled one out', () => {
    const b = book(
      [
        [4700, 1000],
        [4800, 600],
      ],
      [
        [5100, 700],
        [5300, 1000],
      ],
    );
    const notResting = [order(NO, 'BUY', 4900, 700, 'canceled'), order(NO, 'BUY', 4900, 700, 'ambiguous'), order(YES, 'BUY', 4800, 600, 'filled', 600)];
    const v = view(b, notResting);
    expect([v.bestBid(), v.bestAsk(), v.sizeAt('SELL', 5100)]).toEqual([4800, 5100, 700]);
    // a place not answered yet may rest already: the feed often shows it first
    expect(view(b, [order(NO, 'BUY', 4900, 700, 'pending_new')]).bestAsk()).toBe(5300);
    // 1000 ordered, 500 filled: 500 of ours rest at 0.48, 100 are someone else's
    const p = view(b, [order(YES, 'BUY', 4800, 1000, 'partially_filled', 500)]);
    expect([p.bestBid(), p.sizeAt('BUY', 4800)]).toEqual([4800, 100]);
    // a cancel not yet confirmed still rests
    expect(view(b, [order(YES, 'BUY', 4800, 600, 'pending_cancel')]).bestBid()).toBe(4700);
  });

  it('is empty on a side that holds only our orders (mid, spread and microprice NaN)', () => {
    const b = book([[4800, 2000]], [[5200, 1000]]);
    const v = view(b, [order(YES, 'BUY', 4800, 2000)]);
    expect(v.bestBid()).toBe(-1);
    expect(v.depth('BUY', 3, [])).toBe(0);
    expect(v.mid()).toBeNaN();
    expect(v.spread()).toBeNaN();
    expect(v.microprice()).toBeNaN();
  });

  it('passes tick, asset, update time and sync state through, and follows the orders it was reset with', () => {
    const b = book([[4800, 2000]], [[5200, 1000]]);
    const mine = [order(YES, 'BUY', 4800, 1500)];
    const v = view(b, mine);
    expect([v.assetId, v.tick, v.updatedAt(), v.inSync()]).toEqual([YES, 100, b.updatedAt(), true]);
    b.setInSync(false);
    expect(v.inSync()).toBe(false);
    expect(v.sizeAt('BUY', 4800)).toBe(500);
    mine[0].state = 'canceled'; // an order object changes in place: the view sees it
    expect(v.sizeAt('BUY', 4800)).toBe(2000);
    expect(v.reset(b, []).sizeAt('BUY', 4800)).toBe(2000);
  });
});
