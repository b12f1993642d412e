// A strategy whose quote() throws on every call (a user's bug): the daemon quotes nothing for that
// market and must say so where an operator looks (found in review: /health was 200, /status and
// makerd_market_quoting said quoting, and every requote wrote an error line with a stack, up to ten
// a second per market, on the disk that also holds the store).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bounded, ROOT, setup, spawnDaemon, until, useTestScope } from './harness.js';

useTestScope();

describe('a strategy that throws on every call', () => {
  it('/health 503 naming it, the market not quoting in /status and /metrics, and its error logged once a minute, not per requote', async () => {
    const e = await setup();
    const daemon = spawnDaemon(e, { strategy: { name: join(ROOT, 'test', 'fixtures', 'strategies', 'throwing.mjs'), params: {} }, reconciler: { debounceMs: 0 } });
    await bounded(daemon.ready, 15_000, 'ready');
    const url = await until('status url', () => daemon.statusUrl(), 2000);
    const h = await until(
      'health naming the strategy',
      async () => {
        const r = await fetch(`${url}/health`);
        const j = (await r.json()) as { reasons: string[] };
        return r.status === 503 && j.reasons.some((x) => /strategy failing/.test(x)) ? j : undefined;
      },
      8000,
    );
    expect(h.reasons.find((x) => /strategy failing/.test(x))).toMatch(/boom from the strategy/);
    const st = (await (await fetch(`${url}/status`)).json()) as { markets: Array<{ quoting: boolean; notQuoting: string | null }> };
    expect(st.markets[0]).toMatchObject({ quoting: false, notQuoting: expect.stringMatching(/strategy failed/) });
    expect(await (await fetch(`${url}/metrics`)).text()).toMatch(/makerd_market_quoting\{market="[^"]+"\} 0/);
    // the feed moves the book many times over these seconds: one error line for all of them
    await new Promise((r) => setTimeout(r, 3000));
    const lines = daemon.output.filter((l) => /strategy (failed|still failing)/.test(l));
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(lines.length).toBeLessThanOrEqual(2);
  });
});
