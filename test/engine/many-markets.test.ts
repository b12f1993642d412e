// What quoting many markets at once asks of the engine (the scale bench, 1,000 markets): a requote
// that would change nothing is skipped while other markets have intents queued (something nearly
// always is at that scale); a metadata refresh with the same terms keeps the skip; and a batch's
// orders are stored in one transaction, written before the batch is sent.
import { describe, it, expect } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import { Limiter } from '../../src/api/limiter.js';
import { BookMirror } from '../../src/book/mirror.js';
import { loadStrategy } from '../../src/strategy/loader.js';
import { loadConfig } from '../../src/config.js';
import type { BookEvent } from '../../src/core/events.js';
import type { Journal } from '../../src/engine/engine-sink.js';
import type { MarketMeta } from '../../src/engine/strategy.js';
import type { OrderRequest, PlaceResult } from '../../src/venue/types.js';
import { RecordingVenue, settle, Y, N, M, bookEv, books, deliver, testEngine } from './helpers.js';

const A: MarketMeta = { conditionId: M, tokenId: Y, complementId: N, tick: 100, minSize: 500, negRisk: false };
const B: MarketMeta = { conditionId: '0xother', tokenId: '333', complementId: '444', tick: 100, minSize: 500, negRisk: false };

/** Both books of market B (its YES bid/ask; NO mirrors it). */
function booksB(bid: number, ask: number, t: number): BookEvent[] {
  return [
    { ...bookEv(B.tokenId, bid, ask, t), market: B.conditionId },
    { ...bookEv(B.complementId, 10_000 - ask, 10_000 - bid, t), market: B.conditionId },
  ];
}

async function setup(o: { limitScale?: number; journal?: Journal; venue?: RecordingVenue } = {}) {
  const cfg = loadConfig({ env: {} });
  const clock = new VirtualClock(1_700_000_000_000);
  const venue = o.venue ?? new RecordingVenue(() => clock.now());
  const mirror = new BookMirror({ verifyEvery: 0, now: () => clock.now() });
  const engine = testEngine({
    clock,
    venue,
    // limits x0.0003: one request per 10 s on each trading endpoint (batch and single)
    limiter: new Limiter({ clock, scale: o.limitScale ?? 1 }),
    books: mirror,
    strategy: await loadStrategy('bands', { bands: [{ distance: 0.02, size: 10 }], skewPerShare: 0 }),
    config: { reconciler: { ...cfg.reconciler, debounceMs: 0 }, risk: cfg.risk, scheduler: cfg.scheduler },
    markets: [A, B],
    journal: o.journal,
  });
  const feed = async (evs: BookEvent[]) => {
    for (const e of evs) deliver(mirror, engine, [e]);
    await settle(10);
  };
  return { engine, venue, clock, feed };
}

describe('engine: many markets', () => {
  it("an unchanged market's requote is skipped while another market's places wait for a window", async () => {
    const { engine, venue, clock, feed } = await setup({ limitScale: 0.0003 });
    await feed(books(4900, 5100, clock.now()));
    engine.start();
    await settle(10);
    expect(venue.calls.map((c) => c.kind)).toEqual(['placeOrders']);
    clock.advanceTo(clock.now() + 50);
    await feed(books(4900, 5100, clock.now())); // A's orders acknowledged: nothing to do, recorded
    // B's books: its two places find the batch window taken; one goes single, one waits
    await feed(booksB(3900, 4100, clock.now()));
    expect(engine.scheduler.pendingPlaces()).toBe(1);
    expect(engine.scheduler.hasPending(B.conditionId)).toBe(true);
    expect(engine.scheduler.hasPending(A.conditionId)).toBe(false);
    const skipped = engine.counters.skippedRequotes;
    clock.advanceTo(clock.now() + 50);
    await feed(books(4900, 5100, clock.now(), { size: 20_000 })); // A: same top, new sizes
    expect(engine.counters.skippedRequotes - skipped).toBe(2);
    // B's own requote is never skipped while its place waits (its submit replaces it)
    const skippedB = engine.counters.skippedRequotes;
    await feed(booksB(3900, 4100, clock.now()));
    expect(engine.counters.skippedRequotes).toBe(skippedB);
    expect(engine.scheduler.pendingPlaces()).toBe(1);
    await engine.stop();
  });

  it('a metadata refresh with the same terms keeps the skip; new terms requote', async () => {
    const { engine, clock, feed } = await setup();
    await feed(books(4900, 5100, clock.now()));
    engine.start();
    await settle(10);
    clock.advanceTo(clock.now() + 50);
    await feed(books(4900, 5100, clock.now()));
    const skipped = engine.counters.skippedRequotes;
    engine.addMarket({ ...A }); // the periodic refresh: a new object, the same terms
    clock.advanceTo(clock.now() + 50);
    await feed(books(4900, 5100, clock.now(), { size: 20_000 }));
    expect(engine.counters.skippedRequotes - skipped).toBe(2);
    engine.addMarket({ ...A, endMs: clock.now() + 3_600_000 }); // new terms: the strategy sees them
    expect(engine.markets.get(M)?.meta.endMs).toBe(clock.now() + 3_600_000);
    const skipped2 = engine.counters.skippedRequotes;
    clock.advanceTo(clock.now() + 50);
    await feed(books(4900, 5100, clock.now(), { size: 30_000 }));
    expect(engine.counters.skippedRequotes - skipped2).toBeLessThan(2);
    await engine.stop();
  });

  it("a batch's orders are one store transaction, written before the batch is sent; so are its answer's", async () => {
    const trail: string[] = [];
    let depth = 0;
    let records = 0;
    const journal: Journal = {
      orderChanged: () => void records++,
      fill: () => void records++,
      fillStatus: () => void records++,
      unit<T>(fn: () => T): T {
        depth++;
        try {
          return fn();
        } finally {
          if (--depth === 0 && records) {
            trail.push(`tx:${records}`);
            records = 0;
          }
        }
      },
    };
    class TrailVenue extends RecordingVenue {
      override placeOrders(orders: OrderRequest[]): Promise<PlaceResult[]> {
        // what a write outside a unit would be: a transaction of its own
        if (records) {
          trail.push(`tx:${records}`);
          records = 0;
        }
        trail.push(`send:${orders.length}`);
        return super.placeOrders(orders);
      }
    }
    const { engine, clock, feed } = await setup({ journal, venue: new TrailVenue(() => clock.now()) });
    await feed([...books(4900, 5100, clock.now()), ...booksB(3900, 4100, clock.now())]);
    engine.start();
    await settle(10);
    // each market's bid and ask: stored together (pending_new), then sent; each answer: one transaction
    expect(trail).toEqual(['tx:2', 'send:2', 'tx:2', 'send:2', 'tx:2', 'tx:2']);
    await engine.stop();
  });
});
