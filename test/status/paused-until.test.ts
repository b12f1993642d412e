// /status names when a 429-paused rate scope opens again as a time of day (epoch ms), also after the
// system clock stepped: the limiter runs on a clock with the steps taken out, so its own instants
// drift from Date.now() by every step since start.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startDaemon, type Running } from './daemon-fixture.js';

let running: Running | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await running?.close();
  running = undefined;
});

describe('status: a paused rate scope', () => {
  it('pausedUntil is the epoch time it opens, after the clock stepped an hour forward as before it', async () => {
    running = await startDaemon(1, { waitQuoting: false });
    const limiter = running.daemon.clients.limiter;
    const scope = 'clob:GET /book';
    const read = async (): Promise<number> => {
      const s = (await (await fetch(`${running?.url}/status`, { signal: AbortSignal.timeout(5000) })).json()) as { rateLimits: Array<{ scope: string; pausedUntil: number }> };
      return s.rateLimits.find((u) => u.scope === scope)?.pausedUntil ?? NaN;
    };
    limiter.pause(scope, limiter.clock.now() + 8_000);
    const before = await read();
    expect(Math.abs(before - (Date.now() + 8_000))).toBeLessThan(2000);
    // the system clock steps an hour forward: the pause still opens 8 s from now (within the scope's 10 s window: a pause is never longer)
    const realNow = Date.now.bind(Date);
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 3_600_000);
    limiter.clock.now(); // the step is seen at the next read of the limiter's clock
    const after = await read();
    expect(Math.abs(after - (Date.now() + 8_000))).toBeLessThan(2000);
  }, 30_000);
});
