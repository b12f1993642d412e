// The order of sends within one submit: a place that depends on none of the market's queued
// cancels is handed to the venue before them; a dependent place (it would cross an order being
// cancelled, or a SELL whose shares a cancelled SELL holds) goes once the cancels are answered,
// not when they are written (the venue may carry out a POST on another connection first); and
// every place waits while a cancel waits for its window.
import { describe, it, expect } from 'vitest';
import { OrderScheduler, dependsOnCancel, type CancelTarget } from '../../src/engine/scheduler.js';
import { grantHoldMs } from '../../src/api/limiter.js';
import type { Quote } from '../../src/engine/strategy.js';
import { schedulerRig, settle, type RecordingVenue } from './helpers.js';

function setup(scale = 1) {
  return schedulerRig({ scale, windowScale: 1 }, { singleOverflow: false });
}

const q = (tokenId: string, side: 'BUY' | 'SELL', price: number): Quote => ({ tokenId, side, price, size: 500 });

/** Places a bid at 4000 and an ask at 6000 on YES through the scheduler; returns them as cancel targets. */
async function working(s: OrderScheduler, venue: RecordingVenue): Promise<{ bid: CancelTarget; ask: CancelTarget }> {
  s.submit('m', [], [q('YES', 'BUY', 4000), q('YES', 'SELL', 6000)]);
  await settle();
  const ids = [...venue.live.keys()];
  venue.calls.length = 0;
  return { bid: { orderId: ids[0], tokenId: 'YES', side: 'BUY', price: 4000 }, ask: { orderId: ids[1], tokenId: 'YES', side: 'SELL', price: 6000 } };
}

describe('order scheduler: places before the cancels they do not depend on', () => {
  it('a requote of the bid: the new bid is sent before the cancel of the old one', async () => {
    const { venue, s } = setup();
    const { bid } = await working(s, venue);
    s.submit('m', [bid], [q('YES', 'BUY', 4100)]);
    // handed to the venue synchronously, place first
    expect(venue.calls.map((c) => c.kind)).toEqual(['placeOrders', 'cancelOrders']);
    expect(venue.calls[0].reqs?.[0].price).toBe(4100);
    expect(venue.calls[1].ids).toEqual([bid.orderId]);
  });

  it('a place that would cross the order being cancelled still waits for that cancel', async () => {
    const { venue, s } = setup();
    const { ask } = await working(s, venue);
    // a bid at the old ask's price crosses it; a bid on NO at 4000 meets nothing (4000 + 6000 is not a BUY pair)
    s.submit('m', [ask], [q('YES', 'BUY', 6000), q('NO', 'BUY', 3000)]);
    expect(venue.calls.map((c) => [c.kind, c.n])).toEqual([
      ['placeOrders', 1],
      ['cancelOrders', 1],
    ]);
    await settle(); // the cancel answered
    expect(venue.calls.map((c) => [c.kind, c.n])).toEqual([
      ['placeOrders', 1],
      ['cancelOrders', 1],
      ['placeOrders', 1],
    ]);
    expect(venue.calls[0].reqs?.[0]).toMatchObject({ tokenId: 'NO', price: 3000 });
    expect(venue.calls[2].reqs?.[0]).toMatchObject({ tokenId: 'YES', price: 6000 });
  });

  it('a dependent place waits for the answer of its cancel however long it takes, not for its write', async () => {
    const { venue, s } = setup();
    const { ask } = await working(s, venue);
    const cancel = venue.cancelOrders.bind(venue);
    let answer: (() => void) | undefined;
    venue.cancelOrders = (ids) => {
      const r = cancel(ids); // carried out and recorded now, answered when the test says
      return new Promise((resolve) => (answer = () => resolve(r)));
    };
    s.submit('m', [ask], [q('YES', 'BUY', 6000)]);
    await settle(20);
    expect(venue.calls.map((c) => c.kind)).toEqual(['cancelOrders']);
    expect(s.pendingPlaces()).toBe(1);
    answer?.();
    await settle();
    expect(venue.calls.map((c) => c.kind)).toEqual(['cancelOrders', 'placeOrders']);
  });

  it('a SELL replacing a SELL of the same token waits (the cancel frees the shares)', async () => {
    const { venue, s } = setup();
    const { ask } = await working(s, venue);
    s.submit('m', [ask], [q('YES', 'SELL', 6100)]);
    expect(venue.calls.map((c) => c.kind)).toEqual(['cancelOrders']);
    await settle();
    expect(venue.calls.map((c) => c.kind)).toEqual(['cancelOrders', 'placeOrders']);
  });

  it('the terms of the cancelled order decide, not whether this scheduler placed it (an order the user channel named before its answer, one adopted at start)', async () => {
    const { venue, s } = setup();
    const other: CancelTarget = { orderId: 'not-placed-here', tokenId: 'U', side: 'BUY', price: 1000 };
    s.submit('m2', [other], [q('U', 'BUY', 1100), q('U', 'SELL', 1000)]);
    await settle();
    expect(venue.calls.map((c) => [c.kind, c.reqs?.map((r) => `${r.side}@${r.price}`)])).toEqual([
      ['placeOrders', ['BUY@1100']],
      ['cancelOrders', undefined],
      ['placeOrders', ['SELL@1000']],
    ]);
  });

  it('a SELL replacing a SELL of the same token goes first when the held shares cover both (sharesCovered)', async () => {
    const { venue, s } = setup();
    const { ask } = await working(s, venue);
    s.submit('m', [ask], [q('YES', 'SELL', 6100), q('YES', 'BUY', 6000)], [true, false]);
    await settle();
    // the covered SELL leaves before the cancel; the bid at the old ask's price still crosses it
    expect(venue.calls.map((c) => [c.kind, c.reqs?.map((r) => `${r.side}@${r.price}`)])).toEqual([
      ['placeOrders', ['SELL@6100']],
      ['cancelOrders', undefined],
      ['placeOrders', ['BUY@6000']],
    ]);
  });

  it('while a cancel waits for its window, independent places wait too', async () => {
    const { venue, s, clock } = setup(0.001); // DELETE /orders and POST /orders: 1 request per 10 s burst
    const { bid } = await working(s, venue);
    clock.advanceTo(clock.now() + 10_001 + grantHoldMs(10_000)); // the POST /orders window has room again
    s.submit('x', [{ orderId: 'other', tokenId: 'U', side: 'BUY', price: 1000 }], []); // takes the DELETE /orders window
    await settle();
    venue.calls.length = 0;
    s.submit('m', [bid], [q('YES', 'BUY', 4100)]);
    expect(venue.calls).toEqual([]);
    expect(s.pendingPlaces()).toBe(1);
    expect(s.pendingCancels()).toBe(1);
    clock.advanceTo(clock.now() + 10_001 + grantHoldMs(10_000));
    await settle();
    expect(venue.calls.map((c) => c.kind)).toEqual(['placeOrders', 'cancelOrders']);
  });

  it('dependsOnCancel follows the crossesOwn rule on both tokens', () => {
    const o = (tokenId: string, side: 'BUY' | 'SELL', price: number) => ({ tokenId, side, price });
    expect(dependsOnCancel(q('YES', 'BUY', 5000), o('YES', 'SELL', 5000))).toBe(true);
    expect(dependsOnCancel(q('YES', 'BUY', 4900), o('YES', 'SELL', 5000))).toBe(false);
    expect(dependsOnCancel(q('YES', 'SELL', 5000), o('YES', 'BUY', 5000))).toBe(true);
    expect(dependsOnCancel(q('YES', 'BUY', 6000), o('NO', 'BUY', 4000))).toBe(true);
    expect(dependsOnCancel(q('YES', 'BUY', 5900), o('NO', 'BUY', 4000))).toBe(false);
    expect(dependsOnCancel(q('YES', 'SELL', 6000), o('NO', 'SELL', 4000))).toBe(true);
    expect(dependsOnCancel(q('YES', 'SELL', 6100), o('NO', 'SELL', 4000))).toBe(false);
    expect(dependsOnCancel(q('YES', 'BUY', 4000), o('YES', 'BUY', 3000))).toBe(false);
    expect(dependsOnCancel(q('YES', 'SELL', 6000), o('YES', 'SELL', 6500))).toBe(true);
    expect(dependsOnCancel(q('YES', 'SELL', 6000), o('YES', 'SELL', 6500), true)).toBe(false);
    expect(dependsOnCancel(q('YES', 'BUY', 6500), o('YES', 'SELL', 6500), true)).toBe(true); // covered shares do not undo a cross
  });
});
