// A backtest with a market fee rule (BacktestOptions.feeRules, by condition id): the market's fills
// are charged by the rule (makers pay nothing, takers rate x (p(1-p))^exponent per share), the
// result names the rule, and nothing else moves; without a rule the flat sim bps apply as before.
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { runBacktest } from '../../src/backtest/runner.js';
import { resultJson } from '../../src/backtest/output.js';
import type { Fill } from '../../src/engine/fills.js';
import { config } from './helpers.js';

const SAMPLE = fileURLToPath(new URL('../../data/sample-synthetic.jsonl.gz', import.meta.url));

describe('backtest with a market fee rule', () => {
  it('charges the sample market by its rule instead of the flat bps, with the same orders and fills', async () => {
    const cfg = config({ sim: { makerFeeBps: 10, takerFeeBps: 20 } });
    const flatFills: Fill[] = [];
    const flat = await runBacktest({ data: [SAMPLE], config: cfg, onFill: (f) => flatFills.push(f) });
    expect(flat.result.markets).toHaveLength(1);
    expect(flat.result.markets[0]).not.toHaveProperty('feeRule');
    expect(resultJson(flat.result)).not.toMatch(/feeRule/);
    const market = flat.result.markets[0].conditionId;
    // the daemon's strategies quote post-only: every fill is a maker fill, charged the flat 10 bps
    expect(flat.result.venue.fills).toBeGreaterThan(0);
    expect(flat.result.venue.takerFills).toBe(0);
    expect(flat.result.venue.feesMicros).toBeGreaterThan(0);
    expect(flatFills.every((f) => f.fee > 0)).toBe(true);

    const rule = { rate: 0.25, exponent: 2 };
    const ruleFills: Fill[] = [];
    const ruled = await runBacktest({ data: [SAMPLE], config: cfg, feeRules: new Map([[market, rule]]), onFill: (f) => ruleFills.push(f) });
    expect(ruled.result.markets[0]).toEqual({ ...flat.result.markets[0], feeRule: rule });
    // makers pay nothing under a rule
    expect(ruled.result.venue.feesMicros).toBe(0);
    expect(ruleFills.map((f) => f.fee)).toEqual(ruleFills.map(() => 0));
    // the same fills otherwise (fees do not feed back into quoting here)
    const strip = (fs: Fill[]) => fs.map(({ fee: _fee, ...rest }) => rest);
    expect(strip(ruleFills)).toEqual(strip(flatFills));
    expect({ ...ruled.result.venue, feesMicros: 0 }).toEqual({ ...flat.result.venue, feesMicros: 0 });
    expect(ruled.result.total.pnl.fees).toBe(0);
    expect(flat.result.total.pnl.fees).toBeGreaterThan(0);
    // the flat fees paid come back as PnL
    expect(ruled.result.total.pnl.total).toBeCloseTo(flat.result.total.pnl.total + flat.result.total.pnl.fees, 9);
  }, 60_000);

  it('a rule for another condition id changes nothing: the result is byte-identical', async () => {
    const cfg = config({ sim: { makerFeeBps: 10, takerFeeBps: 20 } });
    const a = await runBacktest({ data: [SAMPLE], config: cfg });
    const b = await runBacktest({ data: [SAMPLE], config: cfg, feeRules: new Map([['0xother', { rate: 0.25, exponent: 2 }]]) });
    expect(resultJson(b.result)).toBe(resultJson(a.result));
  }, 60_000);
});
