// The housekeeping period's requote of every market, spread (realTime): a
// tenth of the markets every tenth of the period, each market still once a period; unspread (a
// backtest) every market at once, as before.
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import { Limiter } from '../../src/api/limiter.js';
import { BookMirror } from '../../src/book/mirror.js';
import { SimulatedVenue } from '../../src/venue/simulated-venue.js';
import { loadStrategy } from '../../src/strategy/loader.js';
import { loadConfig } from '../../src/config.js';
import { HOUSEKEEPING_SLICES } from '../../src/engine/engine.js';
import type { MarketMeta } from '../../src/engine/strategy.js';
import { RecordingVenue, quotingEngine, settle, testEngine } from './helpers.js';

const N = 20;
const markets: MarketMeta[] = Array.from({ length: N }, (_, i) => ({ conditionId: `0xm${i}`, tokenId: `${i}1`, complementId: `${i}2`, tick: 100, minSize: 500, negRisk: false }));

async function setup(spread: boolean) {
  const cfg = loadConfig({ env: {} });
  const clock = new VirtualClock(1_700_000_000_000);
  const venue = new SimulatedVenue({
    clock,
    markets: markets.map((m) => ({ conditionId: m.conditionId, tokens: [m.tokenId, m.complementId] as [string, string], tick: 100, minSize: 500 })),
    orderLatencyMs: 0,
    cancelLatencyMs: 0,
    makerFeeBps: 0,
    takerFeeBps: 0,
  });
  const engine = testEngine({
    clock,
    venue,
    limiter: new Limiter({ clock }),
    books: new BookMirror({ verifyEvery: 0, now: () => clock.now() }),
    strategy: await loadStrategy('bands', {}),
    config: { reconciler: cfg.reconciler, risk: cfg.risk, scheduler: cfg.scheduler },
    markets,
    timerMs: 1000,
    realTime: spread,
  });
  const seen: string[] = [];
  const requote = engine.requote.bind(engine);
  engine.requote = (st) => {
    seen.push(st.meta.conditionId);
    requote(st);
  };
  engine.start();
  seen.length = 0;
  return { engine, clock, seen };
}

describe('engine housekeeping', () => {
  it('spread: a tenth of the markets each tenth of the period, every market once a period', async () => {
    const { engine, clock, seen } = await setup(true);
    const t0 = clock.now();
    for (let k = 1; k <= HOUSEKEEPING_SLICES; k++) {
      clock.advanceTo(t0 + (k * 1000) / HOUSEKEEPING_SLICES);
      expect(seen.length).toBe((k * N) / HOUSEKEEPING_SLICES);
    }
    expect([...new Set(seen)].sort()).toEqual(markets.map((m) => m.conditionId).sort());
    await engine.stop();
  });
  it('unspread: every market at once, once a period', async () => {
    const { engine, clock, seen } = await setup(false);
    const t0 = clock.now();
    clock.advanceTo(t0 + 999);
    expect(seen).toEqual([]);
    clock.advanceTo(t0 + 1000);
    expect(seen).toHaveLength(N);
    await engine.stop();
  });
});

describe('engine housekeeping: counts of refused trades', () => {
  it('the count kept per order of refused trades goes with the order (it grew by one entry per order, for good)', async () => {
    const { clock, engine } = await quotingEngine((now) => new RecordingVenue(now));
    const counts = (engine as unknown as { badTradesByOrder: Map<string, number> }).badTradesByOrder;
    const mine = [...engine.orders.open()][0].orderId!;
    engine.badTrade('not-ours-any-more', 'price', {});
    engine.badTrade(mine, 'price', {});
    expect(counts.size).toBe(2);
    for (let i = 0; i < 20; i++) {
      clock.advanceTo(clock.now() + 60_000);
      await settle(2);
    }
    // the one nobody knows is forgotten; ours keeps its count while the tracker knows the order
    expect(counts.has('not-ours-any-more')).toBe(false);
    expect(counts.has(mine)).toBe(engine.orders.byVenueId(mine) !== undefined);
    await engine.stop();
  });
});

describe('engine: a second refused trade for one order', () => {
  // found in review: for an order of a market no longer quoted (restored, rotated out) every refused
  // trade asked a look-up, and each look-up found the trade again and asked another
  it('asks no look-up again, whether or not its market is quoted: the first one read the venue', async () => {
    const { engine } = await quotingEngine((now) => new RecordingVenue(now));
    const asked: string[] = [];
    (engine as unknown as { o: { onBadTrade?: (id: string) => void } }).o.onBadTrade = (id) => void asked.push(id);
    const mine = [...engine.orders.open()][0].orderId as string;
    for (const id of ['of-a-market-not-quoted', mine]) {
      engine.badTrade(id, 'price', {});
      engine.badTrade(id, 'price', {});
      engine.badTrade(id, 'price', {});
    }
    expect(asked).toEqual(['of-a-market-not-quoted', mine]);
    await engine.stop();
  });
});
