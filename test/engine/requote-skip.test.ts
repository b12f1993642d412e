// Skipped requotes (quote-inputs.ts): a strategy declaring `reads` is not asked again while
// nothing it or the reconciler reads changed; anything that did change still moves the quotes,
// and a strategy without the declaration (time may matter) is asked every time.
import { describe, it, expect } from 'vitest';
import { z } from 'zod';
import { VirtualClock } from '../../src/core/clock.js';
import { Limiter } from '../../src/api/limiter.js';
import { BookMirror } from '../../src/book/mirror.js';
import { SimulatedVenue } from '../../src/venue/simulated-venue.js';
import { loadStrategy, type LoadedStrategy } from '../../src/strategy/loader.js';
import { loadConfig } from '../../src/config.js';
import type { MarketEvent } from '../../src/core/events.js';
import type { MarketMeta, Quote, StrategyModule } from '../../src/engine/strategy.js';
import { settle, Y, N, M, bookEv, books, deliver, testEngine } from './helpers.js';

const meta: MarketMeta = { conditionId: M, tokenId: Y, complementId: N, tick: 100, minSize: 500, negRisk: false };

async function setup(strategy: LoadedStrategy, staleBookMs = 60_000) {
  const cfg = loadConfig({ env: {} });
  const clock = new VirtualClock(1_700_000_000_000);
  const limiter = new Limiter({ clock });
  const venue = new SimulatedVenue({ clock, markets: [{ conditionId: M, tokens: [Y, N], tick: 100, minSize: 500 }], orderLatencyMs: 0, cancelLatencyMs: 0, makerFeeBps: 0, takerFeeBps: 0 });
  const mirror = new BookMirror({ verifyEvery: 0, now: () => clock.now() });
  const engine = testEngine({
    clock,
    venue,
    limiter,
    books: mirror,
    strategy,
    config: { reconciler: { ...cfg.reconciler, debounceMs: 0 }, risk: { ...cfg.risk, staleBookMs }, scheduler: cfg.scheduler },
    markets: [meta],
  });
  const feed = async (evs: MarketEvent[]) => {
    // each event as a frame of its own: the venue sees it just before the engine
    for (const e of evs) deliver(mirror, engine, [e], venue);
    await settle(10);
  };
  return { engine, venue, clock, feed };
}

const bands = (fair: 'mid' | 'microprice' = 'mid') => loadStrategy('bands', { fair, bands: [{ distance: 0.02, size: 10 }], skewPerShare: 0 });
const resting = async (v: SimulatedVenue) => (await v.openOrders()).map((o) => [o.tokenId, o.side, o.price]).sort();

describe('engine: skipped requotes', () => {
  it('bands: the same top again is not requoted; a new top is', async () => {
    const { engine, venue, clock, feed } = await setup(await bands());
    await feed(books(4900, 5100, clock.now()));
    engine.start();
    await settle(10);
    clock.advanceTo(clock.now() + 50);
    await feed(books(4900, 5100, clock.now())); // orders acknowledged: this requote finds nothing to do
    const requotes = engine.counters.requotes;
    const skipped = engine.counters.skippedRequotes;
    for (let i = 0; i < 10; i++) {
      clock.advanceTo(clock.now() + 50);
      await feed(books(4900, 5100, clock.now(), { size: 20_000 + i })); // sizes change, prices do not: mid is the same
    }
    expect(engine.counters.requotes - requotes).toBe(20);
    expect(engine.counters.skippedRequotes - skipped).toBe(20);
    expect(engine.scheduler.stats.ordersSent).toBe(2);
    clock.advanceTo(clock.now() + 50);
    await feed(books(5400, 5600, clock.now()));
    expect(await resting(venue)).toEqual(
      [
        [N, 'BUY', 4300],
        [Y, 'BUY', 5300],
      ].sort(),
    );
    await engine.stop();
  });

  it('bands on the microprice: a new size at the top is requoted', async () => {
    const { engine, clock, feed } = await setup(await bands('microprice'));
    await feed(books(4900, 5100, clock.now()));
    engine.start();
    await settle(10);
    clock.advanceTo(clock.now() + 50);
    await feed(books(4900, 5100, clock.now()));
    const skipped = engine.counters.skippedRequotes;
    clock.advanceTo(clock.now() + 50);
    const requotes = engine.counters.requotes;
    await feed([bookEv(Y, 4900, 5100, clock.now(), { size: 30_000 })]);
    expect(engine.counters.requotes).toBe(requotes + 1);
    expect(engine.counters.skippedRequotes).toBe(skipped);
    // the same sizes again: skipped
    clock.advanceTo(clock.now() + 50);
    await feed([bookEv(Y, 4900, 5100, clock.now(), { size: 30_000 })]);
    expect(engine.counters.skippedRequotes).toBe(skipped + 1);
    await engine.stop();
  });

  it('a stale complement book still pulls the quote on it while the token book stays the same', async () => {
    const { engine, venue, clock, feed } = await setup(await bands(), 2000);
    await feed(books(4900, 5100, clock.now()));
    engine.start();
    await settle(10);
    expect(await resting(venue)).toEqual(
      [
        [N, 'BUY', 4800],
        [Y, 'BUY', 4800],
      ].sort(),
    );
    // Only the YES book is refreshed (same top): the NO book ages past staleBookMs.
    for (let i = 0; i < 30; i++) {
      clock.advanceTo(clock.now() + 100);
      await feed([bookEv(Y, 4900, 5100, clock.now())]);
    }
    expect(await resting(venue)).toEqual([[Y, 'BUY', 4800]]);
    expect(engine.risk.blocks.get('book_stale')).toBeGreaterThan(0);
    await engine.stop();
  });

  it('a strategy that does not declare what it reads is asked every time (its quotes may follow the clock)', async () => {
    // Bids 0.40 for the first second of its life, then 0.41: the book never changes.
    const mod: StrategyModule<Record<string, never>> = {
      name: 'clocked',
      params: z.strictObject({}),
      create: () => {
        let t0 = -1;
        return {
          quote(ctx): readonly Quote[] {
            const now = ctx.clock.now();
            if (t0 < 0) t0 = now;
            return [{ tokenId: Y, side: 'BUY', price: now - t0 < 1000 ? 4000 : 4100, size: 1000 }];
          },
        };
      },
    };
    const { engine, venue, clock, feed } = await setup({ module: mod as StrategyModule<unknown>, params: {} });
    await feed(books(4900, 5100, clock.now()));
    engine.start();
    await settle(10);
    for (let i = 0; i < 15; i++) {
      clock.advanceTo(clock.now() + 100);
      await feed(books(4900, 5100, clock.now()));
    }
    expect(engine.counters.skippedRequotes).toBe(0);
    expect(await resting(venue)).toEqual([[Y, 'BUY', 4100]]);
    await engine.stop();
  });
});
