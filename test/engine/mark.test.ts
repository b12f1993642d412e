// The PnL mark without our own orders: a real venue's book shows them, and a mid that counts our
// own fresh bid would hold up the mark of a position that just lost.
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import type { BookEvent } from '../../src/core/events.js';
import type { MarketMeta } from '../../src/engine/strategy.js';
import { mirroredBooks, RecordingVenue, settle, deliver, bandsEngine, type Levels } from './helpers.js';

const YES = 'yes';
const NO = 'no';

describe('Engine.mark', () => {
  const M = '0xmarket';
  const meta: MarketMeta = { conditionId: M, tokenId: YES, complementId: NO, tick: 100, minSize: 500, negRisk: false };
  /** YES levels and the mirrored NO book. */
  const both = (bids: Levels, asks: Levels, t: number): BookEvent[] => mirroredBooks(M, YES, NO, bids, asks, t);

  async function markWith(booksIncludeOwnOrders: boolean): Promise<{ mark: number; mine: Array<[string, string, number]> }> {
    const clock = new VirtualClock(1_700_000_000_000);
    const venue = new RecordingVenue(() => clock.now());
    venue.booksIncludeOwnOrders = booksIncludeOwnOrders;
    const { engine, mirror } = await bandsEngine({
      clock,
      venue,
      params: { bands: [{ distance: 0.02, size: 10 }], skewPerShare: 0 },
      meta,
      recordLimiterUse: false,
      // a price tolerance keeps our first quotes resting when the strategy (seeing the market
      // without them) would move them a tick: the mark is measured against the book showing them
      reconciler: { priceToleranceTicks: 2 },
    });
    deliver(
      mirror,
      engine,
      both(
        [
          [4800, 5000],
          [4900, 5000],
        ],
        [
          [5200, 5000],
          [5100, 5000],
        ],
        clock.now(),
      ),
    );
    engine.start();
    await settle(10);
    // the venue's book now shows our bid 0.48 and our ask 0.52 (a NO bid at 0.48) alone at the top,
    // above external liquidity at 0.46 and 0.53
    deliver(
      mirror,
      engine,
      both(
        [
          [4600, 5000],
          [4800, 1000],
        ],
        [
          [5300, 5000],
          [5200, 1000],
        ],
        clock.now(),
      ),
    );
    await settle(10);
    const mine = [...engine.orders.open()].map((o) => [o.tokenId, o.side, o.price] as [string, string, number]).sort();
    const mark = engine.mark(YES);
    await engine.stop();
    return { mark, mine };
  }

  it("marks at the mid without our own orders when the venue's books include them, and at the plain mid otherwise", async () => {
    const real = await markWith(true);
    expect(real.mine).toEqual([
      [NO, 'BUY', 4800],
      [YES, 'BUY', 4800],
    ]);
    expect(real.mark).toBe((4600 + 5300) / 2);
    const sim = await markWith(false);
    expect(sim.mark).toBe((4800 + 5200) / 2);
  });
});
