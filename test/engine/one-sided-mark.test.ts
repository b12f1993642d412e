// A held token whose book loses a side mid-session (the bids vanish, or only our own order is left
// on it where the venue's books show ours): its mid is gone. Found in review: the holding was then
// valued at cost, so a loss already seen vanished from the daily-loss check, and the check itself
// waited 60 s (as at start-up) for every market. It keeps the last mark it had instead.
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import { M, N, RecordingVenue, Y, bandsEngine, books, deliver, mirroredBooks, settle } from './helpers.js';

/** 100 YES bought at 0.60, the market then at 0.52/0.54: $7 down (the daily loss limit $10). */
async function holdingSevenDown() {
  const clock = new VirtualClock(1_700_000_000_000);
  const venue = new RecordingVenue(() => clock.now());
  const { engine, mirror } = await bandsEngine({ clock, venue, params: { fair: 'mid', bands: [{ distance: 0.02, size: 10 }], skewPerShare: 0 }, risk: { dailyLossLimit: 10 } });
  deliver(mirror, engine, books(5900, 6100, clock.now()));
  engine.start();
  await settle(10);
  const base = engine.runningPnlMicros();
  engine.positions.apply(Y, 'BUY', 6000, 10000, 0);
  clock.advanceTo(clock.now() + 1000);
  deliver(mirror, engine, mirroredBooks(M, Y, N, [[5200, 10000]], [[5400, 10000]], clock.now()));
  expect(engine.runningPnlMicros() - base).toBe(-7_000_000);
  return { clock, engine, mirror, base };
}

describe('daily loss: a held token whose book loses a side', () => {
  it('keeps its last mark (not its cost), and the loss check keeps running', async () => {
    const { clock, engine, mirror, base } = await holdingSevenDown();
    // the bids vanish: no mid on either token
    clock.advanceTo(clock.now() + 1000);
    deliver(mirror, engine, mirroredBooks(M, Y, N, [], [[5400, 10000]], clock.now()));
    // no mid to quote around (the risk gate's no_mid), valued at the last mark, below the ask that is left
    expect(engine.mark(Y)).toBeNaN();
    expect(engine.valueOf(Y)).toBe(5300);
    expect(engine.runningPnlMicros() - base).toBe(-7_000_000);
    expect(engine.pnlMicros() - base).toBe(-7_000_000);
    // and a further real loss is still seen at once, not after a 60 s wait: a fill far below
    engine.positions.apply(Y, 'SELL', 1000, 10000, 0); // sold the 100 at 0.10: -$50 realized
    engine.onTimer();
    expect(engine.risk.halted).toMatch(/daily loss/);
    await engine.stop();
  });

  it('is worth no more than the side that is left offers: a crash that takes every bid and leaves asks at 0.02 is a loss seen at once (found in review)', async () => {
    const { clock, engine, mirror, base } = await holdingSevenDown();
    // every YES bid gone, YES offered at 0.02 (the NO book mirrors it: bids at 0.98, no asks)
    clock.advanceTo(clock.now() + 1000);
    deliver(mirror, engine, mirroredBooks(M, Y, N, [], [[200, 10000]], clock.now()));
    expect(engine.mark(Y)).toBeNaN();
    expect(engine.valueOf(Y)).toBe(200);
    expect(engine.pnlMicros() - base).toBe(-58_000_000);
    engine.onTimer();
    expect(engine.risk.halted).toMatch(/daily loss/);
    await engine.stop();
  });
});
