import { describe, it, expect } from 'vitest';
import { type CancelTarget } from '../../src/engine/scheduler.js';
import { grantHoldMs } from '../../src/api/limiter.js';
import { scopesFor } from '../../src/api/limit-table.js';
import { silentLogger } from '../../src/core/log.js';
import { RateLimitError } from '../../src/core/errors.js';
import { schedulerRig } from './helpers.js';
import type { Quote } from '../../src/engine/strategy.js';
import { settle } from './helpers.js';

function setup(opts: { windowScale?: number; scale?: number; singleOverflow?: boolean; log?: typeof silentLogger } = {}) {
  return schedulerRig({ scale: opts.scale ?? 1, windowScale: opts.windowScale ?? 1 }, { singleOverflow: opts.singleOverflow ?? true, log: opts.log });
}
const quotes = (n: number, token = 'T'): Quote[] => Array.from({ length: n }, (_, i) => ({ tokenId: token, side: 'BUY', price: 100 + i * 100, size: 500 }));
/** Cancels of SELLs at 0.01 on T: every bid of quotes() crosses them, so the places wait for these cancels. */
const crossed = (...ids: string[]): CancelTarget[] => ids.map((orderId) => ({ orderId, tokenId: 'T', side: 'SELL', price: 100 }));

describe('order scheduler', () => {
  it('sends cancels before places', async () => {
    const { venue, s } = setup();
    s.submit('m', crossed('a', 'b'), quotes(3));
    await settle();
    expect(venue.calls.map((c) => c.kind)).toEqual(['cancelOrders', 'placeOrders']);
    expect(venue.calls[0].ids).toEqual(['a', 'b']);
  });

  it('gatherAfterSend: the first send of a synchronous run goes at once, the later ones together after it, in a microtask', async () => {
    const { venue, s } = setup();
    s.gatherAfterSend(true);
    s.submit('m1', [], quotes(1, 'A'));
    expect(venue.calls.map((c) => c.n)).toEqual([1]); // at once
    s.submit('m2', [], quotes(2, 'B'));
    s.submit('m3', [], quotes(1, 'C'));
    expect(venue.calls.length).toBe(1); // held until this run ends
    await Promise.resolve();
    expect(venue.calls.map((c) => [c.kind, c.n])).toEqual([
      ['placeOrders', 1],
      ['placeOrders', 3],
    ]);
    // off: each submit sends at once, in its own request
    await settle();
    s.gatherAfterSend(false);
    s.submit('m4', [], quotes(1, 'D'));
    s.submit('m5', [], quotes(1, 'E'));
    expect(venue.calls.map((c) => c.n)).toEqual([1, 3, 1, 1]);
  });

  it('a venue that throws instead of rejecting: the request fails as a rejected one would, its slot is freed, the next goes out', async () => {
    const { venue, s, sink } = setup();
    const failed: string[] = [];
    sink.placeFailed = (reqs, err) => void failed.push(`place ${reqs.length}: ${(err as Error).message}`);
    sink.cancelFailed = (ids, err) => void failed.push(`cancel ${ids.length}: ${(err as Error).message}`);
    const place = venue.placeOrders.bind(venue);
    const cancel = venue.cancelOrders.bind(venue);
    venue.placeOrders = () => {
      throw new Error('bug');
    };
    venue.cancelOrders = () => {
      throw new Error('bug');
    };
    s.submit('m', crossed('a'), quotes(2));
    await settle();
    // the places waited for that cancel; it failed, so they are dropped (the orders may still rest)
    expect(failed).toEqual(['cancel 1: bug']);
    expect(s.pendingPlaces()).toBe(0);
    expect(s.stats.coalescedPlaces).toBe(2);
    s.submit('m', [], quotes(2));
    await settle();
    expect(failed).toEqual(['cancel 1: bug', 'place 2: bug']);
    expect(s.requestsInFlight()).toBe(0);
    venue.placeOrders = place;
    venue.cancelOrders = cancel;
    s.submit('m', crossed('b'), quotes(1));
    await settle();
    expect(venue.calls.map((c) => c.kind)).toEqual(['cancelOrders', 'placeOrders']);
  });

  it('a send that throws (a bug past the venue call) is logged, not thrown: pumps run from microtasks, timers and answers', async () => {
    const errors: string[] = [];
    const log = { ...silentLogger, error: (_o: unknown, msg?: string) => void errors.push(String(msg)) } as typeof silentLogger;
    const { venue, s: t, sink } = setup({ log });
    t.gatherAfterSend(true);
    const prepare = sink.preparePlaces;
    t.submit('m1', [], quotes(1, 'A')); // sent at once
    sink.preparePlaces = () => {
      throw new Error('bug');
    };
    t.submit('m2', [], quotes(1, 'B')); // held for the microtask that sends the rest of the run
    await Promise.resolve();
    expect(errors).toEqual(['scheduler: sending failed']);
    sink.preparePlaces = prepare;
    t.submit('m3', [], quotes(1, 'C'));
    await settle();
    expect(venue.calls.map((c) => c.reqs?.[0].tokenId)).toEqual(['A', 'C']);
  });

  it('batches at most 15 orders per POST /orders and many ids per DELETE /orders', async () => {
    const { venue, s } = setup();
    const ids = Array.from({ length: 40 }, (_, i) => `id${i}`);
    s.submit('m', crossed(...ids), quotes(40));
    await settle();
    const places = venue.calls.filter((c) => c.kind === 'placeOrders');
    expect(places.map((c) => c.n)).toEqual([15, 15, 10]);
    const cancels = venue.calls.filter((c) => c.kind === 'cancelOrders');
    expect(cancels.map((c) => c.n)).toEqual([40]);
  });

  it('coalesces: a newer intent for the same market replaces the unsent one', async () => {
    // A window of 1 request: the first batch goes, the rest wait; two newer submits replace the waiting one.
    const { venue, s, clock } = setup({ scale: 0.001, singleOverflow: false });
    s.submit('m', [], quotes(1));
    s.submit('m', [], quotes(2));
    s.submit('m', [], quotes(3));
    await settle();
    expect(venue.calls.length).toBe(1);
    expect(s.pendingPlaces()).toBe(3);
    expect(s.stats.coalescedPlaces).toBe(2); // the batch of 2 never left
    clock.advanceTo(clock.now() + 10_001 + grantHoldMs(10_000));
    await settle();
    expect(venue.calls.length).toBe(2);
    expect(venue.calls[1].n).toBe(3);
  });

  it('overflows to POST /order when the batch windows are full', async () => {
    const { venue, s } = setup({ scale: 0.001 }); // POST /orders burst limit 1
    s.submit('m', [], quotes(1));
    s.submit('m2', [], quotes(2, 'U'));
    await settle();
    expect(venue.calls.map((c) => c.kind)).toEqual(['placeOrders', 'placeOrder', 'placeOrder']);
  });

  it("no place goes while the venue pauses the cancel endpoints (a 429's reset, a 425): its cancel could not follow", async () => {
    // found in review: with no cancel queued (a cancel-all had ended every order) places went out
    // while DELETE /orders and DELETE /order were paused for minutes
    const { venue, s, limiter, clock } = setup();
    const until = clock.now() + 3000;
    for (const sc of [...limiter.scopesOf('clob', 'DELETE', '/orders'), ...limiter.scopesOf('clob', 'DELETE', '/order')]) {
      if (sc.id.endsWith(':burst')) limiter.pause(sc.id, until);
    }
    s.submit('m', [], quotes(2));
    await settle();
    expect(venue.calls).toEqual([]);
    expect(s.pendingPlaces()).toBe(2);
    clock.advanceTo(until + 1);
    await settle();
    expect(venue.calls.map((c) => [c.kind, c.n])).toEqual([['placeOrders', 2]]);
    // one cancel endpoint free is enough
    const one = setup();
    const b = one.limiter.scopesOf('clob', 'DELETE', '/orders').find((sc) => sc.id.endsWith(':burst'));
    if (!b) throw new Error('no burst scope');
    one.limiter.pause(b.id, one.clock.now() + 3000);
    one.s.submit('m', [], quotes(1));
    await settle();
    expect(one.venue.calls.map((c) => c.kind)).toEqual(['placeOrders']);
  });

  it('cancels a venue pause would hold for more than 10 s fail at once, to the cancel-all: they do not wait minutes in the queue unseen', async () => {
    const { venue, s, limiter, clock, sink } = setup();
    const failed: Array<[string[], unknown]> = [];
    sink.cancelFailed = (ids, err) => void failed.push([ids.slice(), err]);
    for (const sc of [...limiter.scopesOf('clob', 'DELETE', '/orders'), ...limiter.scopesOf('clob', 'DELETE', '/order')]) {
      if (sc.id.endsWith(':sustained')) limiter.pause(sc.id, clock.now() + 300_000);
    }
    s.submit('m', crossed('a', 'b'), quotes(1));
    await settle();
    expect(failed.map(([ids]) => ids)).toEqual([['a', 'b']]);
    expect(failed[0][1]).toBeInstanceOf(RateLimitError);
    expect(s.pendingCancels()).toBe(0);
    // the place that waited for them is dropped (their orders may still rest), none went out
    expect(s.pendingPlaces()).toBe(0);
    expect(venue.calls).toEqual([]);
    // not while the cancel-all is paused too (a per-signer bucket holds both): it would go no sooner
    const both = setup();
    const bothFailed: string[][] = [];
    both.sink.cancelFailed = (ids) => void bothFailed.push(ids.slice());
    for (const sc of [...both.limiter.scopesOf('clob', 'DELETE', '/orders'), ...both.limiter.scopesOf('clob', 'DELETE', '/order'), ...both.limiter.scopesOf('clob', 'DELETE', '/cancel-all')]) {
      if (sc.id.endsWith(':sustained')) both.limiter.pause(sc.id, both.clock.now() + 300_000);
    }
    both.s.submit('m', crossed('d'), []);
    await settle();
    expect(bothFailed).toEqual([]);
    expect(both.s.pendingCancels()).toBe(1);
    // a short pause is waited out (a 425's longest wait, 8 s: a restart's cancels go again when it ends)
    const short = setup();
    const shortFailed: string[][] = [];
    short.sink.cancelFailed = (ids) => void shortFailed.push(ids.slice());
    for (const sc of [...short.limiter.scopesOf('clob', 'DELETE', '/orders'), ...short.limiter.scopesOf('clob', 'DELETE', '/order')]) {
      if (sc.id.endsWith(':burst')) short.limiter.pause(sc.id, short.clock.now() + 8000);
    }
    short.s.submit('m', crossed('c'), []);
    await settle();
    expect(shortFailed).toEqual([]);
    short.clock.advanceTo(short.clock.now() + 8001);
    await settle();
    expect(short.venue.calls.map((c) => c.kind)).toEqual(['cancelOrders']);
  });

  it('places leave a request slot to the cancels: a cancel never waits behind places in flight', async () => {
    const { venue, s } = schedulerRig({}, { maxInFlight: 3 });
    venue.placeOrders = () => new Promise<never>(() => undefined); // answers that do not come
    for (let i = 0; i < 5; i++) s.submit(`m${i}`, [], quotes(1, `T${i}`));
    await settle();
    expect(s.requestsInFlight()).toBe(2);
    s.submit('x', [{ orderId: 'z', tokenId: 'X', side: 'SELL', price: 100 }], []);
    await settle();
    expect(venue.calls.filter((c) => c.kind === 'cancelOrders').map((c) => c.ids)).toEqual([['z']]);
  });

  it('cancel-all drops the unsent intents', async () => {
    const { venue, s } = setup({ scale: 0.001, singleOverflow: false });
    s.submit('m', [], quotes(1));
    s.submit('m', [], quotes(5));
    await settle();
    await s.cancelAll();
    expect(s.pendingPlaces()).toBe(0);
    expect(venue.calls.map((c) => c.kind)).toEqual(['placeOrders', 'cancelAll']);
  });

  it('never exceeds either window under saturation in virtual time', async () => {
    // Compressed windows (x0.01): burst 1000/100 ms, sustained 15000/6 s for POST /orders.
    const { venue, s, clock, limiter } = setup({ windowScale: 0.01, singleOverflow: false });
    const end = clock.now() + 10_000;
    let k = 0;
    while (clock.now() < end) {
      // 5 markets' worth per ms: more than the 2.5 batches/ms the sustained window allows
      for (let i = 0; i < 5; i++) s.submit(`m${k++ % 50}`, [], quotes(15, `T${k}`));
      await settle(2);
      clock.advanceTo(clock.now() + 1);
    }
    await settle();
    const times = venue.calls.filter((c) => c.kind === 'placeOrders').map((c) => c.t);
    const [burst, sustained] = scopesFor('clob', 'POST', '/orders');
    for (const sc of [burst, sustained]) {
      const w = limiter.window(sc);
      let lo = 0;
      for (let hi = 0; hi < times.length; hi++) {
        while (times[hi] - times[lo] >= w.windowMs) lo++;
        expect(hi - lo + 1).toBeLessThanOrEqual(w.limit);
      }
    }
    // Saturated: the first 15000 go in 1.5 s at the burst rate, the next ones as the first expire
    // after 6 s (10 s allows 30000 at most).
    expect(times.length).toBeGreaterThan(29_000);
    expect(times.length).toBeLessThanOrEqual(30_000);
  });
});
