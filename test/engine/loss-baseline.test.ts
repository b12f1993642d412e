// The daily-loss check at a start with holdings (a restart, or the first start of a day): it waits
// for the held tokens' marks, not counting from their cost before any book came. From cost, a
// holding 20 dollars under water halted the engine as soon as its book arrived (a loss of earlier
// days counted as today's); one above water halted a restart whose day's baseline was kept.
import { describe, it, expect } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import type { DayStarts } from '../../src/engine/risk.js';
import { RecordingVenue, bandsEngine, bookEv, deliver, settle, Y, N } from './helpers.js';

/**
 * An engine (daily loss limit 10 dollars) started holding 100 shares of Y bought at `cost`, no book
 * yet; `book(bid, ask)` delivers Y's book (N's mirrors it) a second after the last one.
 */
async function startedHolding(cost: number, dayStarts?: DayStarts) {
  const clock = new VirtualClock(1_700_000_000_000);
  const venue = new RecordingVenue(() => clock.now());
  const { engine, mirror } = await bandsEngine({ clock, venue, params: {}, risk: { dailyLossLimit: 10 }, dayStarts });
  engine.positions.apply(Y, 'BUY', cost, 10_000, 0);
  engine.start();
  await settle();
  const book = async (bid: number, ask: number): Promise<string | undefined> => {
    clock.advanceTo(clock.now() + 1000);
    deliver(mirror, engine, [bookEv(Y, bid, ask, clock.now()), bookEv(N, 10_000 - ask, 10_000 - bid, clock.now())]);
    await settle();
    return engine.risk.halted;
  };
  return { engine, clock, book };
}

describe("engine: the day's loss check waits for the holdings' marks", () => {
  it('a holding under water at start does not halt when its book comes; a loss after that does', async () => {
    // 100 shares bought at 0.60 on an earlier day
    const { engine, book } = await startedHolding(6000);
    expect(engine.risk.halted).toBeUndefined();
    // the book comes at 0.39 / 0.41: the holding is 20 dollars under its cost
    expect(await book(3900, 4100)).toBeUndefined();
    // today's move: 0.29 / 0.31 is 10 dollars more, 0.28 / 0.30 11
    expect(await book(2900, 3100)).toBeUndefined();
    expect(await book(2800, 3000)).toMatch(/daily loss 11.00 exceeds limit 10/);
  });

  it('a restart the same day with a holding above its cost does not halt before its book comes', async () => {
    // the day began (in the process before the restart) with 100 shares bought at 0.40 marked at 0.60: +20 dollars
    const kept = new Map([[Math.floor(1_700_000_000_000 / 86_400_000), 20 * 1e6]]);
    const { engine, book } = await startedHolding(4000, { dayStartPnl: (d) => kept.get(d), setDayStartPnl: (d, p) => void kept.set(d, p) });
    // valued at cost (0 dollars) until the book comes: not a loss of 20
    expect(engine.risk.halted).toBeUndefined();
    expect(await book(5900, 6100)).toBeUndefined();
    expect(await book(4800, 5000)).toMatch(/daily loss 11.00 exceeds limit 10/);
  });

  it('a restart the same day quotes no market until every held token is marked: the loss check it waits for may halt', async () => {
    const Y2 = '333';
    const N2 = '444';
    const day = Math.floor(1_700_000_000_000 / 86_400_000);
    // the day began +20 dollars; 100 shares of the second market's Y2 were bought at 0.40
    const kept = new Map([[day, 20 * 1e6]]);
    const clock = new VirtualClock(1_700_000_000_000);
    const venue = new RecordingVenue(() => clock.now());
    const { engine, mirror } = await bandsEngine({
      clock,
      venue,
      params: {},
      risk: { dailyLossLimit: 10 },
      dayStarts: { dayStartPnl: (d) => kept.get(d), setDayStartPnl: (d, p) => void kept.set(d, p) },
      markets: [
        { conditionId: '0xmarket', tokenId: Y, complementId: N, tick: 100, minSize: 500, negRisk: false },
        { conditionId: '0xmarket2', tokenId: Y2, complementId: N2, tick: 100, minSize: 500, negRisk: false },
      ],
    });
    engine.positions.apply(Y2, 'BUY', 4000, 10_000, 0);
    engine.start();
    await settle();
    const places = () => venue.calls.flatMap((c) => c.reqs ?? []);
    // the first market's book comes; the held token's does not yet
    clock.advanceTo(clock.now() + 1000);
    deliver(mirror, engine, [bookEv(Y, 4900, 5100, clock.now()), bookEv(N, 4900, 5100, clock.now())]);
    await settle();
    expect(places()).toEqual([]);
    expect(engine.marketOf(Y)?.blocked).toMatch(/mark/);
    // Y2's book at 0.29 / 0.31 (mid 0.30): 10 dollars under its cost, 30 under the day's start: halted, nothing ever placed
    clock.advanceTo(clock.now() + 1000);
    deliver(mirror, engine, [bookEv(Y2, 2900, 3100, clock.now()), bookEv(N2, 6900, 7100, clock.now())]);
    await settle();
    expect(engine.risk.halted).toMatch(/daily loss 30.00 exceeds limit 10/);
    expect(places()).toEqual([]);
  });
});
