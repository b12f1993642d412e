// Issue 12, item 8 (c): the daemon's end-to-end behaviour in the polymarket profile, against
// `makerd emulator --profile polymarket` (real paths, L2-signed requests, signed V2 orders recovered
// against the key's account, heartbeats enforced): quotes appear, every fill lands once in SQLite,
// SIGTERM leaves no order; after a SIGKILL the venue's dead-man switch cancels the orders left
// resting, and a restart loses and doubles no fill.
import { describe, expect, it } from 'vitest';
import { setOrderVersion } from '../../src/emulator/polymarket-markets.js';
import { bounded, kill, setup, spawnDaemon, storedFills, until, useTestScope, venueFills } from './harness.js';

useTestScope();

describe('makerd run in the polymarket profile', () => {
  it.each([
    ['an EOA', 0],
    ['a deposit-wallet (ERC-1271)', 2],
  ])(
    '%s account: signed quotes, every fill once, SIGTERM leaves no order',
    async (_kind, account) => {
      // the venue's per-signer buckets on, at a tier the daemon learns from the answers
      const e = await setup({ profile: 'polymarket', account, signerTier: 'silver' });
      const d = spawnDaemon(e);
      await bounded(d.ready, 15_000, 'ready');
      const open = await until('signed quotes at the venue', () => e.emu.exchange.openOrders(e.owner).length > 0 && e.emu.exchange.openOrders(e.owner), 8000);
      expect(open.every((o) => o.orderType === 'GTC')).toBe(true);
      const url = await until('status url', () => d.statusUrl(), 2000);
      expect((await fetch(`${url}/health`)).status).toBe(200);
      await until('two fills at the venue', () => venueFills(e.emu, e.owner).length >= 2, 20_000, 100);
      const status = (await (await fetch(`${url}/status`)).json()) as { signerTier: string; rateLimits: Array<{ scope: string }> };
      expect(status.signerTier).toBe('silver');
      expect(status.rateLimits.map((u) => u.scope)).toEqual(expect.arrayContaining(['signer:orders', 'signer:cancels']));
      expect(d.output.filter((l) => l.includes('rate limited (429)'))).toEqual([]);
      // the dead-man switch armed before the first quote and never missed (the second test outlives its window)
      expect(d.output.some((l) => l.includes('heartbeat failed'))).toBe(false);
      kill(d, 'SIGTERM');
      expect(await bounded(d.exited, 15_000, 'exit after SIGTERM')).toBe(0);
      expect(e.emu.exchange.openOrders(e.owner)).toEqual([]);
      const stored = storedFills(e.db);
      expect(new Set(stored).size).toBe(stored.length);
      expect(stored).toEqual(venueFills(e.emu, e.owner));
    },
    45_000,
  );

  it('a venue at another order version: the daemon refuses to start (exit 1, naming it) and sends no order', async () => {
    const e = await setup({ profile: 'polymarket' });
    setOrderVersion(e.emu.exchange, 3);
    const d = spawnDaemon(e);
    d.ready.catch(() => {}); // it is never ready: it exits before
    expect(await bounded(d.exited, 15_000, 'exit')).toBe(1);
    expect(d.output.join('\n')).toMatch(/venue order version 3; makerd signs version 2 orders/);
    expect([...e.emu.exchange.orders.values()]).toEqual([]);
  });

  it('a proxy-wallet account: after a SIGKILL the venue cancels the orders by itself; a restart loses and doubles no fill', async () => {
    const e = await setup({ profile: 'polymarket', account: 1, heartbeatTimeoutMs: 3000 });
    const first = spawnDaemon(e, { venue: { profile: 'polymarket', heartbeatIntervalMs: 1000 } });
    await bounded(first.ready, 15_000, 'first ready');
    await until('fills before the crash', () => venueFills(e.emu, e.owner).length >= 2, 20_000, 100);
    // orders rest for longer than the heartbeat window while the daemon lives
    await new Promise((r) => setTimeout(r, 3500));
    expect(e.emu.exchange.openOrders(e.owner).length).toBeGreaterThan(0);
    kill(first, 'SIGKILL');
    await bounded(first.exited, 5000, 'killed');
    // the dead-man switch: no heartbeat, the venue cancels every order of ours
    await until('the venue cancelling the dead daemon orders', () => e.emu.exchange.openOrders(e.owner).length === 0, 8000, 100);
    const second = spawnDaemon(e, { venue: { profile: 'polymarket', heartbeatIntervalMs: 1000 } });
    await bounded(second.ready, 15_000, 'second ready');
    const atRestart = venueFills(e.emu, e.owner).length;
    await until('fills after the restart', () => venueFills(e.emu, e.owner).length >= atRestart + 2, 20_000, 100);
    kill(second, 'SIGTERM');
    expect(await bounded(second.exited, 15_000, 'exit after SIGTERM')).toBe(0);
    expect(e.emu.exchange.openOrders(e.owner)).toEqual([]);
    const stored = storedFills(e.db);
    expect(new Set(stored).size).toBe(stored.length);
    expect(stored).toEqual(venueFills(e.emu, e.owner));
  }, 75_000);
});
