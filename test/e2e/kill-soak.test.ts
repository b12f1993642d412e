// Issue 10's soak: 30 SIGKILLs at seeded random moments (start-up, reconciliation, quoting, a fill
// being written) under 400 ms of venue latency, then one clean run. Counted against the
// emulator's own trades: no fill lost, none doubled, none the venue does not know.
import { describe, it, expect } from 'vitest';
import { SeededRng } from '../../src/core/rng.js';
import { bounded, kill, KEY, setup, spawnDaemon, storedFills, until, venueFills, useTestScope } from './harness.js';

useTestScope();

const KILLS = Number(process.env.MAKERD_SOAK_KILLS ?? 30);

describe('SIGKILL soak', () => {
  it(`${KILLS} SIGKILLs at random moments under 400 ms latency lose, double and invent no fill`, async () => {
    const e = await setup();
    e.emu.admin.set({ latencyMs: 400 });
    const rng = new SeededRng(10);
    let readyBeforeKill = 0;
    for (let i = 0; i < KILLS; i++) {
      const d = spawnDaemon(e);
      let ready = false;
      d.ready.then(
        () => (ready = true),
        () => undefined,
      );
      // odd kills land in quoting (after ready, however slow the machine); even ones from the
      // first instant of start-up on (ready takes about 1.5 s here, longer on a busy machine)
      if (i % 2 === 1) await bounded(d.ready, 30_000, `ready ${i}`);
      await new Promise((r) => setTimeout(r, rng.int(0, i % 2 === 1 ? 1500 : 2000)));
      if (ready) readyBeforeKill++;
      kill(d, 'SIGKILL');
      await bounded(d.exited, 10_000, `kill ${i} exit`);
    }
    // the kills hit both start-up and quoting
    expect(readyBeforeKill).toBeGreaterThanOrEqual(Math.floor(KILLS / 2));
    expect(readyBeforeKill).toBeLessThan(KILLS);
    const last = spawnDaemon(e);
    await bounded(last.ready, 30_000, 'last ready');
    await new Promise((r) => setTimeout(r, 1500));
    kill(last, 'SIGTERM');
    expect(await bounded(last.exited, 30_000, 'last exit')).toBe(0);
    await until('no order of ours left', () => e.emu.exchange.openOrders(KEY).length === 0, 5000);
    const stored = storedFills(e.db);
    const venue = venueFills(e.emu);
    expect(venue.length).toBeGreaterThan(5);
    expect(new Set(stored).size).toBe(stored.length); // none doubled
    const v = new Set(venue);
    expect(stored.filter((f) => !v.has(f))).toEqual([]); // none unknown to the venue
    const s = new Set(stored);
    expect(venue.filter((f) => !s.has(f))).toEqual([]); // none lost
  }, 240_000);
});
