// The daily-loss baseline at a start with holdings (a restart, or the first start of a day): taken
// once the held tokens have marks, not from their cost before any book came. Taken from cost, a
// holding 20 dollars under water halted the engine as soon as its book arrived (a loss of earlier
// days counted as today's); one above water would have hidden as much of today's loss.
import { describe, it, expect } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import { RecordingVenue, bandsEngine, bookEv, deliver, settle, Y, N } from './helpers.js';

describe("engine: the day's loss baseline waits for the holdings' marks", () => {
  it('a holding under water at start does not halt when its book comes; a loss after that does', async () => {
    const clock = new VirtualClock(1_700_000_000_000);
    const venue = new RecordingVenue(() => clock.now());
    const { engine, mirror } = await bandsEngine({ clock, venue, params: {}, risk: { dailyLossLimit: 10 } });
    // 100 shares bought at 0.60 on an earlier day
    engine.positions.apply(Y, 'BUY', 6000, 10_000, 0);
    engine.start();
    await settle();
    expect(engine.risk.halted).toBeUndefined();
    // the book comes at 0.39 / 0.41: the holding is 20 dollars under its cost
    deliver(mirror, engine, [bookEv(Y, 3900, 4100, clock.now()), bookEv(N, 5900, 6100, clock.now())]);
    await settle();
    expect(engine.risk.halted).toBeUndefined();
    // today's move: 0.29 / 0.31 is 10 dollars more, 0.28 / 0.30 11
    clock.advanceTo(clock.now() + 1000);
    deliver(mirror, engine, [bookEv(Y, 2900, 3100, clock.now())]);
    await settle();
    expect(engine.risk.halted).toBeUndefined();
    clock.advanceTo(clock.now() + 1000);
    deliver(mirror, engine, [bookEv(Y, 2800, 3000, clock.now())]);
    await settle();
    expect(engine.risk.halted).toMatch(/daily loss 11.00 exceeds limit 10/);
  });

  it('a restart the same day with a holding above its cost does not halt before its book comes', async () => {
    const clock = new VirtualClock(1_700_000_000_000);
    const venue = new RecordingVenue(() => clock.now());
    const day = Math.floor(clock.now() / 86_400_000);
    // the day began (in the process before the restart) with 100 shares bought at 0.40 marked at 0.60: +20 dollars
    const kept = new Map([[day, 20 * 1e6]]);
    const dayStarts = { dayStartPnl: (d: number) => kept.get(d), setDayStartPnl: (d: number, p: number) => void kept.set(d, p) };
    const { engine, mirror } = await bandsEngine({ clock, venue, params: {}, risk: { dailyLossLimit: 10 }, dayStarts });
    engine.positions.apply(Y, 'BUY', 4000, 10_000, 0);
    engine.start();
    await settle();
    // valued at cost (0 dollars) until the book comes: not a loss of 20
    expect(engine.risk.halted).toBeUndefined();
    deliver(mirror, engine, [bookEv(Y, 5900, 6100, clock.now()), bookEv(N, 3900, 4100, clock.now())]);
    await settle();
    expect(engine.risk.halted).toBeUndefined();
    clock.advanceTo(clock.now() + 1000);
    deliver(mirror, engine, [bookEv(Y, 4800, 5000, clock.now())]);
    await settle();
    expect(engine.risk.halted).toMatch(/daily loss 11.00 exceeds limit 10/);
  });
});
