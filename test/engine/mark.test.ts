// The PnL mark without our own orders: a real venue's book shows them, and a mid that counts our
// own fresh bid would hold up the mark of a position that just lost.
import { describe, expect, it } from 'vitest';
import { DenseBook } from '../../src/book/book.js';
import { formatPrice, formatSize } from '../../src/core/units.js';
import type { Side } from '../../src/feed/events.js';
import { externalMid, ownSizeAt } from '../../src/engine/mark.js';
import type { OrderState, TrackedOrder } from '../../src/engine/orders.js';
import { Engine } from '../../src/engine/engine.js';
import { VirtualClock } from '../../src/engine/clock.js';
import { SeededRng } from '../../src/engine/rng.js';
import { Limiter } from '../../src/api/limiter.js';
import { BookMirror } from '../../src/book/mirror.js';
import { loadStrategy } from '../../src/engine/loader.js';
import { silentLogger } from '../../src/core/log.js';
import { loadConfig } from '../../src/config.js';
import type { BookEvent } from '../../src/feed/events.js';
import type { MarketMeta } from '../../src/engine/strategy.js';
import { lv, RecordingVenue, settle } from './helpers.js';

const YES = 'yes';
const NO = 'no';

function book(bids: Array<[number, number]>, asks: Array<[number, number]>): DenseBook {
  const b = new DenseBook(YES);
  for (const [p, s] of bids) b.set('BUY', p, s, formatPrice(p), formatSize(s));
  for (const [p, s] of asks) b.set('SELL', p, s, formatPrice(p), formatSize(s));
  return b;
}

let seq = 0;
function order(tokenId: string, side: Side, price: number, size: number, state: OrderState = 'live', filled = 0): TrackedOrder {
  seq++;
  return { clientId: `c${seq}`, orderId: `o${seq}`, tokenId, market: 'm', side, price, size, filled, state, createdMs: 0, updatedMs: 0 };
}

describe('externalMid', () => {
  it('is the plain mid when we have no orders', () => {
    expect(externalMid(book([[4800, 1000]], [[5200, 1000]]), YES, NO, [], [])).toBe(5000);
  });

  it('steps past a best bid that is only ours, to the external bid below', () => {
    // the market fell to 0.05 / 0.28; our new bid at 0.48 is alone at the top
    const b = book([[500, 10000], [4800, 2000]], [[2800, 1000]]);
    expect(b.mid()).toBe((4800 + 2800) / 2); // what the old mark saw (crossed by our own bid)
    expect(externalMid(b, YES, NO, [order(YES, 'BUY', 4800, 2000)], [])).toBe((500 + 2800) / 2);
  });

  it('keeps a level that holds external size beside ours', () => {
    const b = book([[4700, 500], [4800, 2500]], [[5200, 1000]]);
    expect(externalMid(b, YES, NO, [order(YES, 'BUY', 4800, 2000)], [])).toBe((4800 + 5200) / 2);
  });

  it('counts a complement BUY as our ask at 1 - q, and ignores orders not resting', () => {
    const b = book([[4800, 1000]], [[5300, 1000], [5100, 700]]);
    const mine = [order(NO, 'BUY', 4900, 700)]; // shows as a YES ask at 0.51
    expect(ownSizeAt(YES, NO, 'SELL', 5100, mine)).toBe(700);
    expect(externalMid(b, YES, NO, mine, [])).toBe((4800 + 5300) / 2);
    const notResting = [order(NO, 'BUY', 4900, 700, 'pending_new'), order(NO, 'BUY', 4900, 700, 'canceled')];
    expect(externalMid(b, YES, NO, notResting, [])).toBe((4800 + 5100) / 2);
  });

  it('takes only the unfilled part of a partly filled order out', () => {
    const b = book([[4700, 1000], [4800, 600]], [[5200, 1000]]);
    // 1000 ordered, 500 filled: 500 of ours rest at 0.48, 100 are someone else's
    expect(externalMid(b, YES, NO, [order(YES, 'BUY', 4800, 1000, 'partially_filled', 500)], [])).toBe((4800 + 5200) / 2);
  });

  it('is NaN when a side holds only our orders', () => {
    const b = book([[4800, 2000]], [[5200, 1000]]);
    expect(externalMid(b, YES, NO, [order(YES, 'BUY', 4800, 2000)], [])).toBeNaN();
  });
});

describe('Engine.mark', () => {
  const M = '0xmarket';
  const meta: MarketMeta = { conditionId: M, tokenId: YES, complementId: NO, tick: 100, minSize: 500, negRisk: false };
  const bookEv = (asset: string, bids: Array<[number, number]>, asks: Array<[number, number]>, t: number): BookEvent => ({
    type: 'book', market: M, assetId: asset, timestampMs: t, timestampStr: String(t), hash: '',
    bids: bids.map(([p, s]) => lv(p, s)), asks: asks.map(([p, s]) => lv(p, s)), tickSize: 100, tickSizeStr: '0.01',
  });
  /** YES levels and the mirrored NO book (bids ascending, asks descending, as the wire sends them). */
  const both = (bids: Array<[number, number]>, asks: Array<[number, number]>, t: number): BookEvent[] => [
    bookEv(YES, bids, asks, t),
    bookEv(NO, asks.map(([p, s]) => [10_000 - p, s] as [number, number]), bids.map(([p, s]) => [10_000 - p, s] as [number, number]), t),
  ];

  async function markWith(booksIncludeOwnOrders: boolean): Promise<{ mark: number; mine: Array<[string, string, number]> }> {
    const cfg = loadConfig({ env: {} });
    const clock = new VirtualClock(1_700_000_000_000);
    const venue = new RecordingVenue(() => clock.now());
    venue.booksIncludeOwnOrders = booksIncludeOwnOrders;
    const engine = new Engine({
      clock, rng: new SeededRng(1), log: silentLogger, venue, limiter: new Limiter({ clock }), recordLimiterUse: false,
      books: new BookMirror({ verifyEvery: 0, now: () => clock.now() }), applyMarketEvents: true,
      strategy: await loadStrategy('bands', { bands: [{ distance: 0.02, size: 10 }], skewPerShare: 0 }),
      config: { reconciler: { ...cfg.reconciler, debounceMs: 0 }, risk: cfg.risk, scheduler: cfg.scheduler },
      markets: [meta],
    });
    for (const e of both([[4800, 5000], [4900, 5000]], [[5200, 5000], [5100, 5000]], clock.now())) engine.handleMarketEvent(e);
    engine.start();
    await settle(10);
    // the venue's book now shows our bid 0.48 and our ask 0.52 (a NO bid at 0.48) alone at the top,
    // above external liquidity at 0.46 and 0.53
    for (const e of both([[4600, 5000], [4800, 1000]], [[5300, 5000], [5200, 1000]], clock.now())) engine.handleMarketEvent(e);
    await settle(10);
    const mine = [...engine.orders.open()].map((o) => [o.tokenId, o.side, o.price] as [string, string, number]).sort();
    const mark = engine.mark(YES);
    await engine.stop();
    return { mark, mine };
  }

  it('marks at the mid without our own orders when the venue\'s books include them, and at the plain mid otherwise', async () => {
    const real = await markWith(true);
    expect(real.mine).toEqual([[NO, 'BUY', 4800], [YES, 'BUY', 4800]]);
    expect(real.mark).toBe((4600 + 5300) / 2);
    const sim = await markWith(false);
    expect(sim.mark).toBe((4800 + 5200) / 2);
  });
});
