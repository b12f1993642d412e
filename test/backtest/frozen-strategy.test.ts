// A strategy whose create() returns a frozen object (or one whose hooks are read-only): live and
// paper take it as it is; the backtest wrapped it by assigning over the hooks, which throws on a
// frozen prototype in strict mode, so the backtest failed where live ran (found in review).
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/backtest/runner.js';
import { config } from './helpers.js';

const SAMPLE = fileURLToPath(new URL('../../data/sample-synthetic.jsonl.gz', import.meta.url));
const FROZEN = fileURLToPath(new URL('../fixtures/strategies/frozen.mjs', import.meta.url));

describe('backtest: a frozen strategy instance', () => {
  it('runs as live would, its quotes placed and its errors counted as none', async () => {
    const out = await runBacktest({ data: [SAMPLE], config: config({ strategy: { name: FROZEN, params: {} } }) });
    expect(out.result.total.orders).toBeGreaterThan(0);
    expect(out.strategyErrors.count).toBe(0);
    expect(out.result.engine.strategyErrors).toBeUndefined();
  });
});
