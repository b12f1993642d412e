import { describe, it, expect } from 'vitest';
import { bounded, kill, KEY, setup, spawnDaemon, storedFills, until, venueFills, useTestScope } from './harness.js';

useTestScope();

describe('crash and restart', () => {
  it('a SIGKILL and a restart lose no fill and duplicate none', async () => {
    const e = await setup();
    const first = spawnDaemon(e);
    await bounded(first.ready, 15_000, 'first ready');
    await until('fills before the crash', () => venueFills(e.emu).length >= 2, 15_000, 100);
    kill(first, 'SIGKILL');
    await bounded(first.exited, 5000, 'killed');
    // The orders left resting keep trading while the daemon is down.
    const atKill = venueFills(e.emu).length;
    expect(e.emu.exchange.openOrders(KEY).length).toBeGreaterThan(0);
    await until('a fill while the daemon is down', () => venueFills(e.emu).length > atKill || e.emu.exchange.openOrders(KEY).length === 0, 10_000, 100);
    const second = spawnDaemon(e);
    await bounded(second.ready, 15_000, 'second ready');
    // startup reconciliation recorded the missed fills before quoting
    const recon = await until('the reconciliation log line', () => second.output.find((l) => l.includes('"msg":"reconciled with the venue"')), 5000);
    const rep = JSON.parse(recon) as { venueOrders: number; adopted: number; settled: number };
    // the first run's orders still at the venue were known from the store: none adopted as foreign
    expect(rep.adopted).toBe(0);
    await until('fills after the restart', () => venueFills(e.emu).length >= atKill + 2, 15_000, 100);
    kill(second, 'SIGTERM');
    expect(await bounded(second.exited, 15_000, 'exit after SIGTERM')).toBe(0);
    expect(e.emu.exchange.openOrders(KEY)).toEqual([]);
    const stored = storedFills(e.db);
    expect(new Set(stored).size).toBe(stored.length);
    expect(stored).toEqual(venueFills(e.emu));
  }, 60_000);
});
