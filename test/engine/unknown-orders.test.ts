// A user-channel order event for an order of this account the engine does not track (a place it
// settled as never landed that lands late; another process trading the key): the owner is asked to
// look the account's orders up at the venue (EngineOptions.onUnknownOrder; the daemon: a look-up
// soon), which adopts or cancels it. Found in review: it was dropped, and the order rested at a stale
// price, its fills uncounted, until the periodic look-up minutes later.
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import type { UserOrderEvent } from '../../src/core/events.js';
import { M, RecordingVenue, Y, ONE_BAND, bandsEngine, books, deliver, settle } from './helpers.js';

function placement(orderId: string, price: number): UserOrderEvent {
  return {
    type: 'order',
    kind: 'PLACEMENT',
    orderId,
    market: M,
    assetId: Y,
    side: 'BUY',
    price,
    originalSize: 1000,
    sizeMatched: 0,
    status: 'LIVE',
    orderType: 'GTC',
    outcome: 'Yes',
    associateTrades: [],
    createdAtMs: 0,
    timestampMs: 0,
  };
}

describe('an order event for an order we do not track', () => {
  it('asks for a look-up; an event of an order we track does not', async () => {
    const clock = new VirtualClock(1_700_000_000_000);
    const venue = new RecordingVenue(() => clock.now());
    let asked = 0;
    const { engine, mirror } = await bandsEngine({ clock, venue, params: ONE_BAND, onUnknownOrder: () => asked++ });
    deliver(mirror, engine, books(4900, 5100, clock.now()));
    engine.start();
    await settle(10);
    const bid = [...engine.orders.open()].find((o) => o.side === 'BUY' && o.tokenId === Y);
    expect(bid?.orderId).toBeDefined();
    engine.handleUserEvent(placement(bid!.orderId!, bid!.price));
    expect(asked).toBe(0);
    engine.handleUserEvent(placement('LATE-1', 1200));
    expect(asked).toBe(1);
    await engine.stop();
  });
});
