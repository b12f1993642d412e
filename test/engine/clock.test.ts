import { describe, it, expect } from 'vitest';
import { VirtualClock, WallClock } from '../../src/core/clock.js';

describe('VirtualClock', () => {
  it('fires timers in (time, insertion) order and moves time to each', () => {
    const c = new VirtualClock(1000);
    const seen: string[] = [];
    c.schedule(1300, () => seen.push(`b@${c.now()}`));
    c.schedule(1100, () => seen.push(`a@${c.now()}`));
    c.schedule(1300, () => seen.push(`c@${c.now()}`));
    c.schedule(500, () => seen.push(`past@${c.now()}`)); // in the past: due now
    c.advanceTo(1200);
    expect(seen).toEqual(['past@1000', 'a@1100']);
    expect(c.now()).toBe(1200);
    c.advanceTo(2000);
    expect(seen).toEqual(['past@1000', 'a@1100', 'b@1300', 'c@1300']);
    expect(c.now()).toBe(2000);
  });

  it('a cancelled timer never fires and stops counting; cancelling a fired one is a no-op', () => {
    const c = new VirtualClock(0);
    const seen: number[] = [];
    const a = c.schedule(10, () => seen.push(1));
    const b = c.schedule(20, () => seen.push(2));
    c.schedule(30, () => seen.push(3));
    expect(c.pendingCount).toBe(3);
    c.cancel(a);
    c.cancel(a);
    expect(c.pendingCount).toBe(2);
    expect(c.nextTimerAt()).toBe(20); // the cancelled head is skipped
    c.advanceTo(25);
    expect(seen).toEqual([2]);
    c.cancel(b); // already fired
    expect(c.pendingCount).toBe(1);
    c.advanceTo(100);
    expect(seen).toEqual([2, 3]);
    expect(c.pendingCount).toBe(0);
    expect(c.nextTimerAt()).toBe(Infinity);
  });

  it('a timer may cancel or schedule others due at the same time', () => {
    const c = new VirtualClock(0);
    const seen: string[] = [];
    let later = 0;
    c.schedule(10, () => {
      seen.push('first');
      c.cancel(later);
      c.schedule(10, () => seen.push('added'));
    });
    later = c.schedule(10, () => seen.push('cancelled'));
    c.advanceTo(10);
    expect(seen).toEqual(['first', 'added']);
  });

  it('skips many cancelled timers (lazy deletion) and keeps no record of them', () => {
    const c = new VirtualClock(0);
    let fired = 0;
    for (let i = 0; i < 50_000; i++) {
      const h = c.schedule(i + 1, () => fired++);
      if (i % 2 === 0) c.cancel(h);
    }
    c.advanceTo(1_000_000);
    expect(fired).toBe(25_000);
    expect(c.pendingCount).toBe(0);
  });
});

describe('WallClock', () => {
  // found in review: a delay past 2^31 ms went to setTimeout as is, which Node fires after 1 ms: a
  // limiter whose window outlasted it re-armed every millisecond
  it('a timer further off than Node holds does not fire early; it can be cancelled', async () => {
    const c = new WallClock();
    let fired = 0;
    const h = c.schedule(c.now() + 2 ** 31 + 1000, () => fired++);
    await new Promise((r) => setTimeout(r, 100));
    expect(fired).toBe(0);
    c.cancel(h);
    // a near one still fires
    await new Promise<void>((r) => c.schedule(c.now() + 5, r));
  });
});
