// A venue that stops answering cancels (a stall): the orders whose cancel failed are the
// cancel-all's (retried every second until one lands), and no requote sends them a cancel of
// their own again meanwhile. Each resent cancel would fail too and count against the order
// error rate: a stall of some seconds with a moving book halted the daemon ("order error rate
// 70% over 20 orders"), where it should quote again once the venue answers.
import { describe, it, expect } from 'vitest';
import type { CancelResult } from '../../src/venue/types.js';
import { RateLimitError } from '../../src/core/errors.js';
import { RecordingVenue, settle, books, deliver, quotingEngine } from './helpers.js';

/** Cancels (one by one, batched, all) fail while `stalled`, as past their deadline. */
class StallingVenue extends RecordingVenue {
  stalled = false;
  /** Only the cancel-all fails (the cancels by id are answered). */
  allOnly = false;
  override async cancelOrders(ids: string[]): Promise<CancelResult> {
    if (this.stalled && !this.allOnly) {
      this.calls.push({ kind: 'cancelOrders', t: 0, n: ids.length, ids });
      throw new Error('DELETE /orders: no complete answer within the cancel deadline');
    }
    return super.cancelOrders(ids);
  }
  override async cancelAll(): Promise<CancelResult> {
    if (this.stalled) {
      this.calls.push({ kind: 'cancelAll', t: 0, n: 0 });
      throw new Error('DELETE /cancel-all: no complete answer within the cancel deadline');
    }
    return super.cancelAll();
  }
}

describe('engine: cancels a stalled venue did not confirm', () => {
  it('are left to the cancel-all: a moving book does not resend them, the error rate does not halt, quoting resumes when it lands', async () => {
    const { clock, venue, engine, mirror } = await quotingEngine((now) => new StallingVenue(now));
    expect(venue.live.size).toBe(2);
    venue.stalled = true;
    // 40 book moves over 4 s of a stalled venue
    for (let i = 1; i <= 40; i++) {
      clock.advanceTo(clock.now() + 100);
      const mid = 5000 + (i % 2 === 1 ? 100 : 0);
      deliver(mirror, engine, books(mid - 100, mid + 100, clock.now()));
      await settle(10);
    }
    // every order resting at the venue had its cancel sent once (the first move's new quotes went
    // out before the cancels they did not depend on); after that only the cancel-all, once a second
    const resting = [...venue.live.keys()].sort();
    expect(resting).toHaveLength(4);
    const cancelled = venue.calls.filter((c) => c.kind === 'cancelOrders').flatMap((c) => c.ids ?? []);
    expect(cancelled.sort()).toEqual(resting);
    const cancelAlls = venue.calls.filter((c) => c.kind === 'cancelAll').length;
    expect(cancelAlls).toBeGreaterThanOrEqual(3);
    expect(cancelAlls).toBeLessThanOrEqual(5);
    expect(engine.unconfirmedCancels().sort()).toEqual(resting);
    expect(engine.risk.halted).toBeUndefined();
    expect(venue.calls.filter((c) => c.kind === 'placeOrders')).toHaveLength(2); // the first quotes and the first move's
    // the venue answers again: the next cancel-all lands, and the market quotes again
    venue.stalled = false;
    clock.advanceTo(clock.now() + 1000);
    await settle(10);
    expect(engine.unconfirmedCancels()).toEqual([]);
    expect(venue.calls.filter((c) => c.kind === 'placeOrders').length).toBeGreaterThan(2);
    expect(venue.live.size).toBe(2);
    expect(engine.risk.halted).toBeUndefined();
    await engine.stop();
  });
});

describe('engine: unconfirmed cancels the venue then reports cancelled', () => {
  // Found in review: the ended ones were forgotten only when /health or /metrics was read, so
  // whether the markets quoted again depended on a scraper.
  it('no longer block quoting once each has ended, with nothing reading the status', async () => {
    const { clock, venue, engine, mirror } = await quotingEngine((now) => new StallingVenue(now));
    venue.stalled = true;
    clock.advanceTo(clock.now() + 100);
    deliver(mirror, engine, books(5100, 5300, clock.now()));
    await settle(10);
    const placesBefore = venue.calls.filter((c) => c.kind === 'placeOrders').length;
    // the user channel says each is cancelled (the cancel-all itself still fails; cancels by id are answered again)
    for (const id of [...venue.live.keys()]) engine.orders.canceled(id, clock.now());
    venue.allOnly = true;
    for (let i = 0; i < 3; i++) {
      clock.advanceTo(clock.now() + 100);
      deliver(mirror, engine, books(5000 + 100 * (i % 2), 5200 + 100 * (i % 2), clock.now()));
      await settle(10);
    }
    expect(venue.calls.filter((c) => c.kind === 'placeOrders').length).toBeGreaterThan(placesBefore);
    // and the failing cancel-all is not retried any more: it would only wipe the new quotes
    const alls = venue.calls.filter((c) => c.kind === 'cancelAll').length;
    for (let i = 0; i < 4; i++) {
      clock.advanceTo(clock.now() + 1000);
      await settle(10);
    }
    expect(venue.calls.filter((c) => c.kind === 'cancelAll').length).toBeLessThanOrEqual(alls + 1);
    await engine.stop();
  });
});

/** Answers a cancel 200 without naming the ids asked (neither canceled nor not_canceled) while `mute`. */
class MuteCancelVenue extends RecordingVenue {
  mute = false;
  override async cancelOrders(ids: string[]): Promise<CancelResult> {
    if (!this.mute) return super.cancelOrders(ids);
    this.calls.push({ kind: 'cancelOrders', t: 0, n: ids.length, ids });
    return { canceled: [], notCanceled: {} };
  }
  override async cancelOrder(id: string): Promise<CancelResult> {
    return this.cancelOrders([id]);
  }
}

describe('engine: a cancel answer that names none of the orders asked', () => {
  it('leaves them to the cancel-all, not "being cancelled" for the rest of the run while they rest', async () => {
    const { clock, venue, engine, mirror } = await quotingEngine((now) => new MuteCancelVenue(now));
    const first = [...venue.live.keys()].sort();
    expect(first).toHaveLength(2);
    venue.mute = true;
    clock.advanceTo(clock.now() + 100);
    deliver(mirror, engine, books(5000, 5200, clock.now()));
    await settle(10);
    // asked, not answered: left to the cancel-all (sent at once), which takes them off the venue;
    // before, they stayed "being cancelled" here and resting there for the rest of the run
    expect(venue.calls.filter((c) => c.kind === 'cancelAll').length).toBeGreaterThanOrEqual(1);
    expect(first.filter((id) => venue.live.has(id))).toEqual([]);
    expect(first.map((id) => engine.orders.byVenueId(id)?.state)).toEqual(['canceled', 'canceled']);
    expect(engine.unconfirmedCancels()).toEqual([]);
    await engine.stop();
  });
});

/**
 * Cancels by id fail; a cancel-all waits for `release()`, then answers for the orders resting when
 * it arrived. `late` rest only from after that (their POST reached the venue after the cancel-all).
 */
class SlowCancelAllVenue extends RecordingVenue {
  private gate: (() => void) | undefined;
  gated = true;
  late = new Set<string>();
  override async cancelOrders(ids: string[]): Promise<CancelResult> {
    this.calls.push({ kind: 'cancelOrders', t: 0, n: ids.length, ids });
    throw new Error('DELETE /orders: no complete answer within the cancel deadline');
  }
  override async cancelAll(): Promise<CancelResult> {
    const arrived = [...this.live.keys()].filter((id) => !this.late.has(id));
    if (this.gated) await new Promise<void>((r) => (this.gate = r));
    this.late.clear();
    this.calls.push({ kind: 'cancelAll', t: 0, n: arrived.length });
    for (const id of arrived) this.live.delete(id);
    return { canceled: arrived, notCanceled: {} };
  }
  release(): void {
    this.gate?.();
    this.gate = undefined;
  }
}

describe('engine: a cancel that fails while a cancel-all is on its way', () => {
  it("is not taken as confirmed by that cancel-all's answer: another cancel-all follows for it", async () => {
    const { venue, engine } = await quotingEngine((now) => new SlowCancelAllVenue(now));
    const [a, b] = [...engine.orders.open()].map((o) => o.orderId!).sort();
    // a's cancel fails: a cancel-all goes out and waits at the venue; b's POST reached it later
    venue.late.add(b);
    engine.cancelsUnconfirmed([a]);
    await settle(5);
    // b's cancel fails while it waits (b may have rested after the cancel-all reached the venue)
    engine.cancelsUnconfirmed([b]);
    venue.release();
    await settle(10);
    expect(engine.unconfirmedCancels()).toEqual([b]);
    expect(venue.live.has(b)).toBe(true);
    venue.release();
    await settle(10);
    expect(engine.unconfirmedCancels()).toEqual([]);
    expect(venue.live.has(b)).toBe(false);
    // (the venue records a cancel-all when it answers)
    expect(venue.calls.filter((c) => c.kind === 'cancelAll')).toHaveLength(2);
    venue.gated = false;
    await engine.stop();
  });
});

/** Cancels (batched, one by one) answered 429 past their deadline while `limited`; cancel-all has a scope of its own and goes. */
class RateLimitedCancelVenue extends RecordingVenue {
  limited = false;
  override async cancelOrders(ids: string[]): Promise<CancelResult> {
    if (!this.limited) return super.cancelOrders(ids);
    this.calls.push({ kind: 'cancelOrders', t: 0, n: ids.length, ids });
    throw new RateLimitError('DELETE', '/orders', undefined);
  }
  override async cancelOrder(id: string): Promise<CancelResult> {
    return this.cancelOrders([id]);
  }
}

describe('engine: cancels answered 429', () => {
  it('are left to the cancel-all and do not count against the order error rate (a rate limit is not an order refused): a minute of them halted quoting for good', async () => {
    const { clock, venue, engine, mirror } = await quotingEngine((now) => new RateLimitedCancelVenue(now));
    const results: boolean[] = [];
    const record = engine.risk.recordResult.bind(engine.risk);
    engine.risk.recordResult = (ok, now) => {
      results.push(ok);
      return record(ok, now);
    };
    venue.limited = true;
    for (let i = 1; i <= 20; i++) {
      clock.advanceTo(clock.now() + 1000);
      const mid = 5000 + (i % 2 === 1 ? 100 : 0);
      deliver(mirror, engine, books(mid - 100, mid + 100, clock.now()));
      await settle(10);
    }
    expect(venue.calls.filter((c) => c.kind === 'cancelOrders').length).toBeGreaterThan(0);
    expect(venue.calls.filter((c) => c.kind === 'cancelAll').length).toBeGreaterThan(0);
    expect(results.filter((ok) => !ok)).toEqual([]);
    expect(engine.risk.halted).toBeUndefined();
    await engine.stop();
  });
});
