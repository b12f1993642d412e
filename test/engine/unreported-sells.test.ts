// A SELL of ours the venue would not cancel ("already canceled or matched") ends at the cancel's
// answer, while its trade may still be on the user channel: the shares are likely sold. Offered
// again at once, a replacement SELL is refused for balance (a refusal toward the order-error-rate
// halt). They are held back until the fill is reported, or UNREPORTED_HOLD_MS passes (the
// venue did cancel it: the shares are ours again).
import { describe, it, expect } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import { UNREPORTED_HOLD_MS } from '../../src/engine/unreported-fills.js';
import { RecordingVenue, settle, books, deliver, bandsEngine, makerTrade, Y } from './helpers.js';

async function setup() {
  const clock = new VirtualClock(1_700_000_000_000);
  const venue = new RecordingVenue(() => clock.now());
  const { engine, mirror } = await bandsEngine({ clock, venue, params: { fair: 'mid', bands: [{ distance: 0.02, size: 10 }], skewPerShare: 0 } });
  // 10 YES shares held, settled: the ask is a SELL of them
  engine.positions.apply(Y, 'BUY', 5000, 1000, 0);
  deliver(mirror, engine, books(4900, 5100, clock.now()));
  engine.start();
  await settle(10);
  const ask = [...engine.orders.open()].find((o) => o.side === 'SELL' && o.tokenId === Y);
  expect(ask?.orderId).toBeDefined();
  const sellsOfY = () => venue.calls.flatMap((c) => c.reqs ?? []).filter((r) => r.side === 'SELL' && r.tokenId === Y).length;
  expect(sellsOfY()).toBe(1);
  // the venue matched the ask; the trade's report is late when the book moves and the requote cancels it
  venue.live.delete(ask!.orderId!);
  clock.advanceTo(clock.now() + 100);
  deliver(mirror, engine, books(5200, 5400, clock.now()));
  await settle(10);
  expect(ask!.state).toBe('canceled');
  return { clock, engine, mirror, ask: ask!, sellsOfY };
}

describe('engine: a SELL the venue would not cancel (matched, its trade not yet reported)', () => {
  it('its shares are not offered again before the fill is reported', async () => {
    const { clock, engine, ask, sellsOfY } = await setup();
    expect(sellsOfY()).toBe(1);
    engine.handleUserEvent(makerTrade('t1', ask.orderId!, 'SELL', 'MATCHED', clock.now(), { price: ask.price, size: ask.size }));
    await settle(10);
    expect(engine.positions.qty(Y)).toBe(0);
    expect(sellsOfY()).toBe(1);
    await engine.stop();
  });

  it('no report within UNREPORTED_HOLD_MS: the venue cancelled it after all, and the shares are offered again', async () => {
    const { clock, engine, mirror, sellsOfY } = await setup();
    clock.advanceTo(clock.now() + UNREPORTED_HOLD_MS - 100);
    deliver(mirror, engine, books(5200, 5400, clock.now()));
    await settle(10);
    expect(sellsOfY()).toBe(1);
    clock.advanceTo(clock.now() + 200);
    await settle(10);
    expect(sellsOfY()).toBe(2);
    await engine.stop();
  });
});
