// A live daemon reads the venue's clock (GET /time) at start, and again on the refreshMarkets cron,
// and says so plainly when ours is off:
// signed requests carry our time and the venue refuses stale ones, and the daily-loss day turns
// at our midnight. The emulator's venue clock runs 10 s ahead here (fault clockAheadMs: within
// its 30 s tolerance for signed requests, so the daemon still trades).
import { describe, expect, it } from 'vitest';
import { bounded, kill, setup, spawnDaemon, useTestScope } from './harness.js';

useTestScope();

describe('clock skew at start', () => {
  it('logs an error naming the skew when our clock is 10 s behind the venue, and starts quoting', async () => {
    const e = await setup({ profile: 'polymarket', faults: { clockAheadMs: 10_000 } });
    const d = spawnDaemon(e, { book: { verifyEvery: 0 } });
    await bounded(d.ready, 30_000, 'daemon ready');
    const line = d.output.find((l) => l.includes('"skewMs"'));
    expect(line, d.output.slice(-10).join('\n')).toBeDefined();
    const rec = JSON.parse(line as string) as { level: number; skewMs: number; msg: string };
    expect(rec.level).toBe(50);
    // GET /time has second resolution (floored), and the skew is taken at the request's middle:
    // from -10 s less half the request to -9 s plus half of it (CI saw -8,997)
    expect(rec.skewMs).toBeLessThanOrEqual(-8500);
    expect(rec.skewMs).toBeGreaterThanOrEqual(-11_500);
    expect(rec.msg).toMatch(/behind the venue's clock/);
    kill(d, 'SIGTERM');
    await bounded(d.exited, 30_000, 'daemon exit');
  }, 60_000);

  it('reads the clock again while running: the skew as a metric, and a line when it is back', async () => {
    const e = await setup({ profile: 'polymarket', faults: { clockAheadMs: 10_000 } });
    // the check follows cron.refreshMarkets (every 15 minutes by default; every second here)
    const d = spawnDaemon(e, { book: { verifyEvery: 0 }, cron: { refreshMarkets: '* * * * * *' } });
    await bounded(d.ready, 30_000, 'daemon ready');
    const skew = async (): Promise<number | undefined> => {
      const text = await (await fetch(`${d.statusUrl() as string}/metrics`)).text();
      const m = /^makerd_clock_skew_seconds (\S+)$/m.exec(text);
      return m ? Number(m[1]) * 1000 : undefined;
    };
    const ahead = await skew();
    expect(ahead).toBeLessThanOrEqual(-8500);
    expect(ahead).toBeGreaterThanOrEqual(-11_500);
    // the venue's clock comes back to ours (as after an NTP step on our side)
    e.emu.admin.set({ clockAheadMs: 0 });
    const end = Date.now() + 10_000;
    while (!d.output.some((l) => l.includes("our clock is back within the venue's"))) {
      if (Date.now() > end) throw new Error(`no line that the clock is back: ${d.output.slice(-5).join('\n')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(Math.abs((await skew()) as number)).toBeLessThan(1500);
    kill(d, 'SIGTERM');
    await bounded(d.exited, 30_000, 'daemon exit');
  }, 60_000);

  it('a venue that does not answer GET /time: a warning, and the daemon starts quoting', async () => {
    // the daemon's first request is GET /time: 500s for all 4 of its attempts, then a venue that answers
    const e = await setup({ profile: 'polymarket', faults: { http500Next: 4 } });
    const d = spawnDaemon(e, { book: { verifyEvery: 0 }, retry: { baseMs: 50, maxMs: 100, attempts: 4 } });
    await bounded(d.ready, 30_000, 'daemon ready');
    const line = d.output.find((l) => l.includes("could not read the venue's clock"));
    expect(line, d.output.slice(-10).join('\n')).toBeDefined();
    expect((JSON.parse(line as string) as { level: number }).level).toBe(40);
    expect(d.output.some((l) => l.includes('"skewMs"'))).toBe(false);
    kill(d, 'SIGTERM');
    await bounded(d.exited, 30_000, 'daemon exit');
  }, 60_000);
});
