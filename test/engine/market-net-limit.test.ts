// risk.maxPositionPerMarket nets YES against NO "with open buys and sells counted as if filled"
// (README). Found in review: only the order's own token's open orders were counted, so holding NO
// with resting SELLs of it, the BUYs of YES still netted against all the NO held: one sweep of the
// bid side filled both and left the market net up to twice the limit.
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import type { Engine } from '../../src/engine/engine.js';
import { N, RecordingVenue, Y, bandsEngine, books, deliver, matchedOrderEvent, settle } from './helpers.js';

const BANDS = [0.01, 0.02, 0.03, 0.04, 0.05].map((distance) => ({ distance, size: 10 }));

/** The market's net (YES minus NO, in size units) if every open order of ours filled: the most long and the most short. */
function worstNets(engine: Engine): { long: number; short: number } {
  let buyY = 0;
  let sellY = 0;
  let buyN = 0;
  let sellN = 0;
  for (const o of engine.orders.open()) {
    const left = o.size - o.filled;
    if (o.tokenId === Y && o.side === 'BUY') buyY += left;
    else if (o.tokenId === Y) sellY += left;
    else if (o.tokenId === N && o.side === 'BUY') buyN += left;
    else if (o.tokenId === N) sellN += left;
  }
  const y = engine.positions.qty(Y);
  const n = engine.positions.qty(N);
  return { long: y + buyY - (n - sellN), short: y - sellY - (n + buyN) };
}

/** The bands engine at a net limit of 20 shares, holding 20 of `token`, quoting a 0.49/0.51 book. */
async function quoting(token: string) {
  const clock = new VirtualClock(1_700_000_000_000);
  const venue = new RecordingVenue(() => clock.now());
  const { engine, mirror } = await bandsEngine({
    clock,
    venue,
    params: { fair: 'mid', bands: BANDS, skewPerShare: 0 },
    risk: { maxPositionPerMarket: 20, maxPositionPerToken: 1000, maxTotalNotional: 100_000 },
  });
  engine.positions.apply(token, 'BUY', 5000, 2000, 0);
  deliver(mirror, engine, books(4900, 5100, clock.now()));
  engine.start();
  await settle(20);
  return { engine, mirror, venue, clock };
}

describe('risk: the per-market net limit counts both tokens open orders', () => {
  for (const [held, token] of [
    ['NO', N],
    ['YES', Y],
  ] as const) {
    it(`holding 20 ${held} at a limit of 20: no sweep can take the net past the limit`, async () => {
      const { engine } = await quoting(token);
      expect([...engine.orders.open()].length).toBeGreaterThan(0);
      const w = worstNets(engine);
      expect(w.long).toBeLessThanOrEqual(2000);
      expect(w.short).toBeGreaterThanOrEqual(-2000);
      await engine.stop();
    });
  }

  it('a SELL of the other token that ended matched, its trade unreported, counts as sold for the BUYs', async () => {
    const { engine, mirror, venue, clock } = await quoting(N);
    const sell = [...engine.orders.open()].find((o) => o.tokenId === N && o.side === 'SELL')!;
    expect(sell).toBeDefined();
    venue.live.delete(sell.orderId!);
    engine.handleUserEvent(matchedOrderEvent(sell, clock.now()));
    expect(engine.unreportedSells.shares(N)).toBe(sell.size);
    clock.advanceTo(clock.now() + 100);
    deliver(mirror, engine, books(4800, 5000, clock.now()));
    await settle(20);
    const w = worstNets(engine);
    // the NO sold unreported is gone as far as the net goes
    expect(w.long + engine.unreportedSells.shares(N)).toBeLessThanOrEqual(2000);
    await engine.stop();
  });
});
