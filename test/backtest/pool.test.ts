// The grid's worker pool (backtest/pool.ts) with test workers: every worker runs with the
// backtest's heap growth (V8 flags are per process: the parent's own did not reach them), and a
// worker that stays up after its answer (a user strategy's own timer) is ended instead of holding
// its slot, and the sweep, for good. Real processes; bounded.
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { runInWorkers } from '../../src/backtest/pool.js';
import { BACKTEST_HEAP_GROWING_PERCENT } from '../../src/backtest/heap-growth.js';

const ECHO = fileURLToPath(new URL('../fixtures/workers/echo-flags.mjs', import.meta.url));

describe('grid worker pool', () => {
  it("runs each worker with the backtest's heap growth", async () => {
    const r = await runInWorkers<{ linger: boolean }, string[]>([{ linger: false }], { workers: 1, workerPath: ECHO, execArgv: [] });
    expect(r[0]).toEqual({ ok: true, value: [`--heap-growing-percent=${BACKTEST_HEAP_GROWING_PERCENT}`] });
  });

  it('a worker that stays up after its answer is ended: the next job gets its slot', async () => {
    const t0 = Date.now();
    const r = await runInWorkers<{ linger: boolean }, string[]>([{ linger: true }, { linger: true }], { workers: 1, workerPath: ECHO, execArgv: [] });
    expect(r.map((x) => x.ok)).toEqual([true, true]);
    expect(Date.now() - t0).toBeLessThan(10_000);
  }, 20_000);
});
