// Issue 10 finding 1 against the emulator: CLOB answers that trickle in one byte at a time and
// never finish. Cancels past their deadline are "not confirmed": no new orders, /health 503, a
// cancel-all retried until one is confirmed; shutdown and start-up are bounded and obey signals;
// a stop that cannot confirm its cancels exits 1 naming exactly the orders left at the venue.
import { describe, it, expect } from 'vitest';
import { bounded, kill, KEY, setup, spawnDaemon, until, useTestScope } from './harness.js';

useTestScope();

const fast = { http: { cancelDeadlineMs: 600, readDeadlineMs: 800, placeDeadlineMs: 800 }, daemon: { startupTimeoutMs: 4000, shutdownTimeoutMs: 4000 } };

async function health(url: string | undefined): Promise<{ status: number; body: { reasons: string[] } }> {
  const r = await fetch(`${url}/health`);
  return { status: r.status, body: (await r.json()) as { reasons: string[] } };
}

describe('a stalled venue', () => {
  it('unconfirmed cancels stop new orders and show on /health until a cancel-all lands; a stop that cannot confirm exits 1 with the ids', async () => {
    // no takers: a fill would settle an order whose cancel is unconfirmed
    const e = await setup({ params: { takerRatePerSec: 1e-9 } });
    const d = spawnDaemon(e, fast);
    await bounded(d.ready, 15_000, 'ready');
    await until('quotes at the venue', () => e.emu.exchange.openOrders(KEY).length > 0, 8000);
    e.emu.admin.set({ cancelTrickleMs: 2000 });
    // the market moves: the daemon cancels, the venue stalls, the deadline passes
    const h = await until(
      'health 503 naming unconfirmed cancels',
      async () => {
        const r = await health(d.statusUrl());
        return r.status === 503 && r.body.reasons.some((x) => /cancels not confirmed/.test(x)) ? r : undefined;
      },
      15_000,
      100,
    );
    expect(h.status).toBe(503);
    // nothing new is placed while the cancels are unconfirmed
    const before = new Set(e.emu.exchange.openOrders(KEY).map((o) => o.id));
    await new Promise((r) => setTimeout(r, 1500));
    const placedMeanwhile = e.emu.exchange.openOrders(KEY).filter((o) => !before.has(o.id));
    expect(placedMeanwhile).toEqual([]);
    // the venue recovers: the retried cancel-all lands, quoting resumes, /health is 200 again
    e.emu.admin.set({ cancelTrickleMs: 0 });
    // (the last reasons named if it never comes: under CPU load it once halted on the error rate of
    // its own resent cancels, fixed since: test/engine/unconfirmed-cancels.test.ts)
    let lastReasons: string[] = [];
    await until(
      'health 200',
      async () => {
        const r = await health(d.statusUrl());
        lastReasons = r.body.reasons;
        return r.status === 200;
      },
      15_000,
      100,
    ).catch((err: unknown) => {
      throw new Error(`${(err as Error).message}; last /health reasons: ${JSON.stringify(lastReasons)}`);
    });
    await until('quoting again', () => e.emu.exchange.openOrders(KEY).length > 0, 10_000);
    // now cancels and reads stall for good: SIGINT must still end the process, in bounded time, with exit 1 and the ids
    e.emu.admin.set({ cancelTrickleMs: 2000, readTrickleMs: 2000 });
    const t0 = Date.now();
    kill(d, 'SIGINT');
    const code = await bounded(d.exited, 12_000, 'exit');
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(code).toBe(1);
    const line = d.output.find((l) => l.startsWith('makerd run: the venue did not confirm these orders cancelled:'));
    expect(line).toBeDefined();
    const listed = new Set((line as string).slice((line as string).lastIndexOf(': ') + 2).split(' '));
    const resting = e.emu.exchange.openOrders(KEY).map((o) => o.id);
    expect(resting.length).toBeGreaterThan(0);
    expect(resting.filter((id) => !listed.has(id))).toEqual([]);
  }, 90_000);

  it('start-up against a venue whose reads stall: SIGINT ends it at once with exit 0, and the start-up bound ends it by itself', async () => {
    const e = await setup();
    e.emu.admin.set({ readTrickleMs: 2000 });
    // the read deadline alone ends the start-up with a clear error
    const d0 = spawnDaemon(e, fast);
    d0.ready.catch(() => undefined);
    expect(await bounded(d0.exited, 10_000, 'exit at the read deadline')).toBe(1);
    expect(d0.output).toContain('makerd run: GET /book: no complete answer within the read deadline of 800 ms');
    // reads that outlast their (long) deadline: the daemon waits in the market look-up until a signal
    const slow = { ...fast, http: { ...fast.http, readDeadlineMs: 60_000 } };
    const d = spawnDaemon(e, slow);
    d.ready.catch(() => undefined); // it never gets there
    // the market look-up (a GET) is stalled: the daemon waits in it
    const stalledBefore = e.emu.stalled();
    await until('the daemon waiting on the venue', () => e.emu.stalled() > stalledBefore, 10_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(d.proc.exitCode).toBe(null);
    const t0 = Date.now();
    kill(d, 'SIGINT');
    expect(await bounded(d.exited, 8000, 'exit after SIGINT')).toBe(0);
    expect(Date.now() - t0).toBeLessThan(5000);
    // no signal this time: the start-up bound (4 s) stops it, exit non-zero with the reason
    const d2 = spawnDaemon(e, slow);
    d2.ready.catch(() => undefined);
    const t1 = Date.now();
    const code = await bounded(d2.exited, 15_000, 'exit at the start-up bound');
    expect(code).not.toBe(0);
    expect(Date.now() - t1).toBeLessThan(12_000);
    expect(d2.output.some((l) => /start-up did not finish within its bound/.test(l))).toBe(true);
  }, 60_000);
});
