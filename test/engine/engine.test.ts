import { describe, it, expect } from 'vitest';
import { Engine, type EngineOptions } from '../../src/engine/engine.js';
import { VirtualClock } from '../../src/core/clock.js';
import { SeededRng } from '../../src/core/rng.js';
import { Limiter } from '../../src/api/limiter.js';
import { BookMirror } from '../../src/book/mirror.js';
import { SimulatedVenue } from '../../src/venue/simulated-venue.js';
import { loadStrategy } from '../../src/strategy/loader.js';
import { silentLogger } from '../../src/core/log.js';
import { loadConfig } from '../../src/config.js';
import type { BookEvent, MarketEvent } from '../../src/core/events.js';
import type { MarketMeta } from '../../src/engine/strategy.js';
import { lv, settle, Y, N, M, bookEv, books, deliver } from './helpers.js';

const meta: MarketMeta = { conditionId: M, tokenId: Y, complementId: N, tick: 100, minSize: 500, negRisk: false };

async function setup(over: { risk?: Record<string, number>; params?: Record<string, unknown>; debounceMs?: number } = {}) {
  const cfg = loadConfig({ env: {} });
  const clock = new VirtualClock(1_700_000_000_000);
  const limiter = new Limiter({ clock });
  const venue = new SimulatedVenue({ clock, markets: [{ conditionId: M, tokens: [Y, N], tick: 100, minSize: 500 }], orderLatencyMs: 0, cancelLatencyMs: 0, makerFeeBps: 0, takerFeeBps: 0 });
  const mirror = new BookMirror({ verifyEvery: 0, now: () => clock.now() });
  const strategy = await loadStrategy('bands', over.params ?? { bands: [{ distance: 0.02, size: 10 }], skewPerShare: 0 });
  const opts: EngineOptions = {
    clock,
    rng: new SeededRng(1),
    log: silentLogger,
    venue,
    limiter,
    recordLimiterUse: true,
    books: mirror,
    strategy,
    config: { reconciler: { ...cfg.reconciler, debounceMs: over.debounceMs ?? 0 }, risk: { ...cfg.risk, ...over.risk }, scheduler: cfg.scheduler },
    markets: [meta],
  };
  const engine = new Engine(opts);
  const feed = async (evs: MarketEvent[]) => {
    // each event as a frame of its own: the venue sees it just before the engine
    for (const e of evs) deliver(mirror, engine, [e], venue);
    await settle(10);
  };
  return { engine, venue, clock, feed, limiter };
}

const live = (v: SimulatedVenue) => v.openOrders();

describe('engine', () => {
  it('quotes a bid on YES and an ask as a BUY of NO (no inventory) after start', async () => {
    const { engine, venue, clock, feed } = await setup();
    await feed(books(4900, 5100, clock.now()));
    expect((await live(venue)).length).toBe(0); // not started: nothing sent
    engine.start();
    await settle(10);
    const orders = (await live(venue)).map((o) => [o.tokenId, o.side, o.price, o.originalSize]).sort();
    expect(orders).toEqual(
      [
        [Y, 'BUY', 4800, 1000],
        [N, 'BUY', 4800, 1000], // ask at 0.52 on YES == bid at 0.48 on NO
      ].sort(),
    );
    expect(engine.orders.openCount()).toBe(2);
    await engine.stop();
  });

  it('keeps quotes in place when the fair price does not move (no cancel-and-replace)', async () => {
    const { engine, venue, clock, feed } = await setup();
    await feed(books(4900, 5100, clock.now()));
    engine.start();
    await settle(10);
    const before = (await live(venue)).map((o) => o.orderId).sort();
    for (let i = 1; i <= 20; i++) {
      clock.advanceTo(clock.now() + 50);
      await feed(books(4900, 5100, clock.now())); // same top of book, new snapshot
    }
    const after = (await live(venue)).map((o) => o.orderId).sort();
    expect(after).toEqual(before);
    expect(engine.scheduler.stats.cancelsSent).toBe(0);
    expect(engine.scheduler.stats.ordersSent).toBe(2);
    await engine.stop();
  });

  it('moves quotes when the mid moves, cancelling first', async () => {
    const { engine, venue, clock, feed } = await setup();
    await feed(books(4900, 5100, clock.now()));
    engine.start();
    await settle(10);
    clock.advanceTo(clock.now() + 100);
    await feed(books(5400, 5600, clock.now()));
    const orders = (await live(venue)).map((o) => [o.tokenId, o.price]).sort();
    expect(orders).toEqual(
      [
        [N, 4300],
        [Y, 5300],
      ].sort(),
    );
    expect(engine.scheduler.stats.cancelsSent).toBe(2);
    await engine.stop();
  });

  it('pulls quotes when the book goes stale and quotes again when it is fresh', async () => {
    const { engine, venue, clock, feed } = await setup({ risk: { staleBookMs: 2000 } });
    await feed(books(4900, 5100, clock.now()));
    engine.start();
    await settle(10);
    expect((await live(venue)).length).toBe(2);
    clock.advanceTo(clock.now() + 3500); // housekeeping timer runs every second
    await settle(10);
    expect((await live(venue)).length).toBe(0);
    expect(engine.risk.blocks.get('book_stale')).toBeGreaterThan(0);
    await feed(books(4900, 5100, clock.now()));
    expect((await live(venue)).length).toBe(2);
    await engine.stop();
  });

  it('pulls quotes while the feed is not live', async () => {
    const { engine, venue, clock, feed } = await setup();
    await feed(books(4900, 5100, clock.now()));
    engine.start();
    await settle(10);
    engine.setFeedLive(false);
    await settle(10);
    expect((await live(venue)).length).toBe(0);
    engine.setFeedLive(true);
    await settle(10);
    expect((await live(venue)).length).toBe(2);
    await engine.stop();
  });

  it('records a fill from the venue, updates the position and sells YES once it holds some', async () => {
    const { engine, venue, clock, feed } = await setup();
    await feed(books(4900, 5100, clock.now()));
    engine.start();
    await settle(10);
    // A taker sells through our 0.48 YES bid (a trade made after our bid joined: a later timestamp).
    clock.advanceTo(clock.now() + 1);
    await feed([{ type: 'last_trade_price', market: M, assetId: Y, price: 4700, size: 5000, side: 'SELL', feeRateBps: 0, timestampMs: clock.now() }]);
    expect(engine.positions.qty(Y)).toBe(1000);
    expect(engine.ledger.count()).toBe(1);
    clock.advanceTo(clock.now() + 100);
    await feed(books(4900, 5100, clock.now()));
    const orders = (await live(venue)).map((o) => [o.tokenId, o.side, o.price]).sort();
    // now holding 10 YES: the ask is a SELL of YES at 0.52, and the bid is back
    expect(orders).toEqual(
      [
        [Y, 'BUY', 4800],
        [Y, 'SELL', 5200],
      ].sort(),
    );
    await engine.stop();
  });

  it('daily-loss kill switch halts: cancels everything, quotes nothing, reports why', async () => {
    const { engine, venue, clock, feed } = await setup({ risk: { dailyLossLimit: 1 } });
    await feed(books(4900, 5100, clock.now()));
    engine.start();
    await settle(10);
    engine.checkLoss(); // baseline for the day
    clock.advanceTo(clock.now() + 1);
    await feed([{ type: 'last_trade_price', market: M, assetId: Y, price: 4700, size: 5000, side: 'SELL', feeRateBps: 0, timestampMs: clock.now() }]);
    expect(engine.positions.qty(Y)).toBe(1000);
    // the market collapses: 10 YES bought at 0.48 now marked at 0.20 -> loss 2.8 > 1
    clock.advanceTo(clock.now() + 100);
    await feed(books(1900, 2100, clock.now()));
    expect(engine.risk.halted).toMatch(/daily loss/);
    expect(engine.scheduler.stats.cancelAlls).toBe(1);
    expect((await live(venue)).length).toBe(0);
    clock.advanceTo(clock.now() + 100);
    await feed(books(1900, 2100, clock.now()));
    expect((await live(venue)).length).toBe(0);
    expect(engine.results().halted).toMatch(/daily loss/);
    await engine.stop();
  });

  it('a bad strategy param names its key', async () => {
    await expect(loadStrategy('bands', { bands: [{ distance: -1, size: 1 }] })).rejects.toThrow(/strategy\.params\.bands\.0\.distance/);
    await expect(loadStrategy('avellaneda', { gamma: 'x' })).rejects.toThrow(/strategy\.params\.gamma/);
    await expect(loadStrategy('nope', {})).rejects.toThrow(/no built-in strategy/);
  });

  it('is deterministic: the same events give the same results', async () => {
    const run = async () => {
      const { engine, clock, feed } = await setup({
        params: {
          bands: [
            { distance: 0.01, size: 10 },
            { distance: 0.03, size: 20 },
          ],
        },
      });
      const rng = new SeededRng(7);
      let mid = 5000;
      await feed(books(mid - 100, mid + 100, clock.now()));
      engine.start();
      for (let i = 0; i < 200; i++) {
        clock.advanceTo(clock.now() + 200);
        mid = Math.max(1000, Math.min(9000, mid + (rng.int(0, 2) - 1) * 100));
        await feed(books(mid - 100, mid + 100, clock.now()));
        if (i % 3 === 0) await feed([{ type: 'last_trade_price', market: M, assetId: Y, price: mid - 300, size: 2000, side: 'SELL', feeRateBps: 0, timestampMs: clock.now() }]);
        if (i % 4 === 1) await feed([{ type: 'last_trade_price', market: M, assetId: Y, price: mid + 300, size: 2000, side: 'BUY', feeRateBps: 0, timestampMs: clock.now() }]);
        if (i % 4 === 3) await feed([{ type: 'last_trade_price', market: M, assetId: N, price: 10_000 - mid + 300, size: 2000, side: 'BUY', feeRateBps: 0, timestampMs: clock.now() }]);
        if (i % 5 === 0) await feed([{ type: 'last_trade_price', market: M, assetId: N, price: 10_000 - mid - 300, size: 2000, side: 'SELL', feeRateBps: 0, timestampMs: clock.now() }]);
      }
      await engine.stop();
      return engine.results();
    };
    const a = await run();
    const b = await run();
    expect(a.fills).toBeGreaterThan(10);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });
});

describe('engine: tick size', () => {
  it('a tick_size_change moves the strategy to the new grid', async () => {
    const { engine, venue, clock, feed } = await setup();
    await feed(books(4900, 5100, clock.now()));
    engine.start();
    await settle(10);
    await feed([{ type: 'tick_size_change', market: M, assetId: Y, oldTickSize: 100, newTickSize: 1000, newTickSizeStr: '0.1', timestampMs: clock.now() }]);
    expect(engine.markets.get(M)?.meta.tick).toBe(1000);
    expect(engine.markets.get(M)?.ctx.market.tick).toBe(1000);
    clock.advanceTo(clock.now() + 100);
    const wide = (asset: string, bid: number, ask: number): BookEvent => ({
      ...bookEv(asset, bid, ask, clock.now()),
      bids: [lv(bid, 10_000)],
      asks: [lv(ask, 10_000)],
      tickSize: 1000,
      tickSizeStr: '0.1',
    });
    await feed([wide(Y, 4000, 6000), wide(N, 4000, 6000)]);
    const prices = (await venue.openOrders()).map((o) => o.price);
    expect(prices.length).toBeGreaterThan(0);
    expect(prices.every((p) => p % 1000 === 0)).toBe(true);
    await engine.stop();
  });
});
