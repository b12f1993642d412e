import { describe, it, expect } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/log.js';
import { HOUR, LOOKUP_OVERLAP_MS, VenueLookUps } from '../../src/session/look-ups.js';
import { RecordingVenue, bandsEngine } from '../engine/helpers.js';

async function setup() {
  const clock = new VirtualClock(1_700_000_000_000);
  const venue = new RecordingVenue(() => clock.now());
  const { engine } = await bandsEngine({ clock, venue, params: {} });
  // every trade read: from when
  const reads: number[] = [];
  let failing = false;
  venue.trades = async (sinceMs?: number) => {
    reads.push(sinceMs ?? NaN);
    if (failing) throw new Error('venue down');
    return [];
  };
  const lookUps = new VenueLookUps({ engine, venue, clock, log: silentLogger });
  return { clock, venue, lookUps, reads, fail: (on: boolean) => (failing = on) };
}

describe('look-ups at the venue', () => {
  it('an asked-for look-up reads trades since the last one that succeeded less the overlap; the periodic one the hour', async () => {
    const { clock, lookUps, reads, fail } = await setup();
    // before any success: the last hour
    await lookUps.now();
    expect(reads.at(-1)).toBe(clock.now() - HOUR);
    const okAt = clock.now();
    clock.advanceTo(clock.now() + 10_000);
    await lookUps.now();
    expect(reads.at(-1)).toBe(okAt - LOOKUP_OVERLAP_MS);
    const ok2At = clock.now();
    // a failed one moves nothing: the next reads from the last success again
    fail(true);
    clock.advanceTo(clock.now() + 5000);
    await lookUps.now();
    fail(false);
    clock.advanceTo(clock.now() + 5000);
    await lookUps.now();
    expect(reads.at(-1)).toBe(ok2At - LOOKUP_OVERLAP_MS);
    // the periodic reconciliation reads the hour and counts as a success
    clock.advanceTo(clock.now() + 30_000);
    await lookUps.full(clock.now() - HOUR);
    expect(reads.at(-1)).toBe(clock.now() - HOUR);
    const fullAt = clock.now();
    clock.advanceTo(clock.now() + 2000);
    await lookUps.now();
    expect(reads.at(-1)).toBe(fullAt - LOOKUP_OVERLAP_MS);
    // never more than the hour, however long since the last success
    clock.advanceTo(clock.now() + 3 * HOUR);
    await lookUps.now();
    expect(reads.at(-1)).toBe(clock.now() - HOUR);
  });

  it('held (the daemon, until start-up has restored and checked the orders): look-ups asked for wait, and one runs at open()', async () => {
    const clock = new VirtualClock(1_700_000_000_000);
    const venue = new RecordingVenue(() => clock.now());
    const { engine } = await bandsEngine({ clock, venue, params: {} });
    const reads: number[] = [];
    venue.trades = async (sinceMs?: number) => {
      reads.push(sinceMs ?? NaN);
      return [];
    };
    const lookUps = new VenueLookUps({ engine, venue, clock, log: silentLogger, held: true });
    await lookUps.now();
    lookUps.soon(0);
    await new Promise((r) => setTimeout(r, 50));
    expect(reads).toEqual([]);
    // start-up's own check is not held
    await lookUps.full(clock.now() - 2 * HOUR);
    expect(reads).toEqual([clock.now() - 2 * HOUR]);
    lookUps.open();
    for (let i = 0; i < 100 && reads.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(reads).toHaveLength(2);
    lookUps.stop();
  });

  it('a catch-up reads once from the time asked, then the look-ups read as before; onRead tells each read that went through', async () => {
    const { clock, lookUps, reads } = await setup();
    await lookUps.now();
    const from = clock.now() - 5 * HOUR;
    lookUps.catchUpFrom(from);
    clock.advanceTo(clock.now() + 10_000);
    await lookUps.now();
    expect(reads.at(-1)).toBe(from);
    const okAt = clock.now();
    clock.advanceTo(clock.now() + 10_000);
    await lookUps.now();
    expect(reads.at(-1)).toBe(okAt - LOOKUP_OVERLAP_MS);
  });

  it('caughtUp waits for a look-up that started after it was asked, not for the one already running', async () => {
    const { clock, venue, lookUps, reads } = await setup();
    const releases: Array<() => void> = [];
    venue.trades = (sinceMs?: number) => {
      reads.push(sinceMs ?? NaN);
      return new Promise((r) => releases.push(() => r([])));
    };
    const early = lookUps.now();
    await until(() => reads.length === 1);
    let caught = false;
    const p = lookUps.caughtUp().then(() => (caught = true));
    // the running one ends: it began before the ask, so another follows and caughtUp waits for it
    clock.advanceTo(clock.now() + 2000);
    releases[0]();
    await early;
    await until(() => reads.length === 2);
    expect(caught).toBe(false);
    releases[1]();
    await p;
    expect(caught).toBe(true);
    lookUps.stop();
  });

  it('one asked for while another runs follows it: the running one began before what asked (an unreadable message, an unknown order, a bad trade)', async () => {
    const { clock, venue, lookUps, reads } = await setup();
    const releases: Array<() => void> = [];
    venue.trades = (sinceMs?: number) => {
      reads.push(sinceMs ?? NaN);
      return new Promise((r) => releases.push(() => r([])));
    };
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    for (const ask of [() => void lookUps.now(), () => lookUps.soon(0)]) {
      const before = reads.length;
      const first = lookUps.now();
      await until(() => reads.length === before + 1);
      ask();
      ask();
      await sleep(20); // a soon()'s timer has fired meanwhile, into the running one
      clock.advanceTo(clock.now() + 2000);
      releases.at(-1)?.();
      await first;
      await until(() => reads.length === before + 2);
      releases.at(-1)?.();
      // one more, not one per ask
      await sleep(50);
      expect(reads).toHaveLength(before + 2);
      clock.advanceTo(clock.now() + 2000);
    }
    lookUps.stop();
  });

  it('caughtUp settles at stop, and at once after it', async () => {
    const { venue, lookUps, reads } = await setup();
    venue.trades = (sinceMs?: number) => {
      reads.push(sinceMs ?? NaN);
      return new Promise(() => undefined); // never answers
    };
    void lookUps.now();
    const p = lookUps.caughtUp();
    lookUps.stop();
    await p;
    await lookUps.caughtUp();
    expect(reads.length).toBe(1);
  });
});

/** Polls `ok` every 5 ms for at most 2 s. */
async function until(ok: () => boolean): Promise<void> {
  const end = performance.now() + 2000;
  while (!ok()) {
    if (performance.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}
