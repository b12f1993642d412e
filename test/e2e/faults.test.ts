import { describe, it, expect } from 'vitest';
import { bounded, kill, KEY, setup, spawnDaemon, until, useTestScope } from './harness.js';

useTestScope();

interface Status {
  quoting: boolean;
  haltReason: string | null;
  openOrders: unknown[];
}

describe('faults', () => {
  it('a silent feed pulls the quotes within the configured time, and they come back', async () => {
    // No takers: only the stale-book guard may empty our orders (a fill would look like a pull).
    const e = await setup({ params: { takerRatePerSec: 1e-9 } });
    const staleBookMs = 1500;
    const daemon = spawnDaemon(e, { risk: { staleBookMs }, feed: { quietMs: 1000, probeTimeoutMs: 1000 } });
    await bounded(daemon.ready, 15_000, 'ready');
    await until('quotes at the venue', () => e.emu.exchange.openOrders(KEY).length > 0, 8000);
    const t0 = Date.now();
    e.emu.admin.set({ silentFeed: true });
    await until('quotes pulled', () => e.emu.exchange.openOrders(KEY).length === 0, 6000, 20);
    const pulledMs = Date.now() - t0;
    // book age limit + one housekeeping period (1 s) + slack for a cancel round trip on a busy machine
    expect(pulledMs).toBeLessThan(staleBookMs + 1000 + 1000);
    const url = daemon.statusUrl();
    expect((await fetch(`${url}/health`)).status).toBe(503);
    e.emu.admin.clear();
    e.emu.admin.dropConnections(); // the reconnect brings fresh snapshots
    await until('quotes back', () => e.emu.exchange.openOrders(KEY).length > 0, 10_000, 50);
    kill(daemon, 'SIGTERM');
    expect(await bounded(daemon.exited, 15_000, 'exit')).toBe(0);
    expect(e.emu.exchange.openOrders(KEY)).toEqual([]);
  }, 45_000);

  it('with the default settings a silent feed pulls the quotes within 5 s (quiet time plus probe timeout)', async () => {
    const e = await setup({ params: { takerRatePerSec: 1e-9 } });
    const daemon = spawnDaemon(e);
    await bounded(daemon.ready, 15_000, 'ready');
    await until('quotes at the venue', () => e.emu.exchange.openOrders(KEY).length > 0, 8000);
    const t0 = Date.now();
    e.emu.admin.set({ silentFeed: true });
    await until('quotes pulled', () => e.emu.exchange.openOrders(KEY).length === 0, 10_000, 20);
    // quietMs 3000 + probeTimeoutMs 2000, plus the watchdog's tick and a cancel round trip
    expect(Date.now() - t0).toBeLessThan(5000 + 1000);
  }, 45_000);

  it('the order-error breaker halts: cancels everything, quotes nothing, stays up and says why', async () => {
    const e = await setup();
    const daemon = spawnDaemon(e, { risk: { errorRateMinSamples: 4, errorRateMax: 0.5, errorRateWindowMs: 60_000 }, retry: { baseMs: 50, maxMs: 200, attempts: 4 } });
    await bounded(daemon.ready, 15_000, 'ready');
    await until('quotes at the venue', () => e.emu.exchange.openOrders(KEY).length > 0, 8000);
    const url = daemon.statusUrl();
    // Every request now fails with 500 (order submits are ambiguous) until the breaker trips.
    e.emu.admin.set({ http500Rate: 1 });
    const st = await until(
      'halt',
      async () => {
        const s = (await (await fetch(`${url}/status`)).json()) as Status;
        return s.haltReason ? s : undefined;
      },
      15_000,
      100,
    );
    expect(st.haltReason).toMatch(/order error rate/);
    expect(st.quoting).toBe(false);
    // the venue recovers: the halt's cancel-all is retried until it goes through
    e.emu.admin.clear();
    await until('everything cancelled', () => e.emu.exchange.openOrders(KEY).length === 0, 10_000, 50);
    // still up, still reporting, still not quoting a few seconds later
    await new Promise((r) => setTimeout(r, 1500));
    expect(daemon.proc.exitCode).toBeNull();
    expect(e.emu.exchange.openOrders(KEY)).toEqual([]);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/^makerd_halted\{reason="error_rate"\} 1$/m);
    kill(daemon, 'SIGTERM');
    expect(await bounded(daemon.exited, 15_000, 'exit')).toBe(0);
  }, 45_000);

  it('a 429 on a place is not retried with the stale quote: the places end unsent (not refusals), and the newest quote goes once the pause is over', async () => {
    const e = await setup();
    // a breaker this quick would trip on a few failures: unsent places must not count as any
    const daemon = spawnDaemon(e, { risk: { errorRateMinSamples: 4, errorRateMax: 0.5, errorRateWindowMs: 60_000 } });
    await bounded(daemon.ready, 15_000, 'ready');
    await until('quotes at the venue', () => e.emu.exchange.openOrders(KEY).length > 0, 8000);
    const url = daemon.statusUrl();
    const before = new Set(e.emu.exchange.openOrders(KEY).map((o) => o.id));
    e.emu.admin.set({ http429Next: 6 });
    await until('places ended unsent on a 429', () => daemon.output.some((l) => /"msg":"places not sent"/.test(l) && /429/.test(l)), 20_000, 50);
    await until('an order placed after the pause', () => e.emu.exchange.openOrders(KEY).some((o) => !before.has(o.id)), 20_000, 50);
    const st = (await (await fetch(`${url}/status`)).json()) as Status;
    expect(st.haltReason).toBeNull();
    expect(st.quoting).toBe(true);
    expect(daemon.output.filter((l) => l.includes('order rejected'))).toEqual([]);
    kill(daemon, 'SIGTERM');
    expect(await bounded(daemon.exited, 15_000, 'exit')).toBe(0);
  }, 60_000);

  it.each(['spec', 'polymarket'] as const)(
    "%s: the venue's matching-engine restart (425 on every order request) waits it out: no halt, nothing counted as refused, quoting resumes",
    async (profile) => {
      const e = await setup(profile === 'polymarket' ? { profile } : {});
      const owner = e.owner;
      // a breaker this quick would trip on a few failures: the 425s must not count as any
      const daemon = spawnDaemon(e, { risk: { errorRateMinSamples: 4, errorRateMax: 0.5, errorRateWindowMs: 60_000 } });
      await bounded(daemon.ready, 15_000, 'ready');
      await until('quotes at the venue', () => e.emu.exchange.openOrders(owner).length > 0, 8000);
      const url = daemon.statusUrl();
      e.emu.admin.set({ engineRestart: true });
      // a busy market requotes several times a second against the restarting engine
      await new Promise((r) => setTimeout(r, 4000));
      const during = (await (await fetch(`${url}/status`)).json()) as Status;
      expect(during.haltReason).toBeNull();
      const before = new Set(e.emu.exchange.openOrders(owner).map((o) => o.id));
      e.emu.admin.set({ engineRestart: false });
      await until('an order placed after the restart', () => e.emu.exchange.openOrders(owner).some((o) => !before.has(o.id)), 40_000, 50);
      const after = (await (await fetch(`${url}/status`)).json()) as Status;
      expect(after.haltReason).toBeNull();
      expect(after.quoting).toBe(true);
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).not.toMatch(/^makerd_halted\{[^}]*\} 1$/m);
      expect(daemon.output.filter((l) => l.includes('order rejected'))).toEqual([]);
      kill(daemon, 'SIGTERM');
      expect(await bounded(daemon.exited, 15_000, 'exit')).toBe(0);
    },
    75_000,
  );
});
