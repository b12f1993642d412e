// A recording's market metadata (the lines `makerd record` writes first, channel "meta") decides
// the priced token, the end time and the fee rule of a backtest's market, as live; without it the
// backtest priced whichever token's book came first (here NO), knew no end and no fee rule.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MarketDiscovery } from '../../src/backtest/markets.js';
import { runBacktest } from '../../src/backtest/runner.js';
import { metaFrame, parseMetaFrame } from '../../src/backtest/market-meta-line.js';
import { recordLine } from '../../src/feed/recorder.js';
import type { MarketMeta } from '../../src/engine/strategy.js';
import { recordLine as marketLine } from '../../src/emulator/recording-writer.js';
import { M, NO, T0, YES, handConfig, sellerRecording, tempDir } from './helpers.js';
import { M as SIM_M, book as bookOf } from '../venue/sim-helpers.js';

const META: MarketMeta = { conditionId: M, tokenId: YES, complementId: NO, tick: 100, minSize: 500, negRisk: true, endMs: T0 + 3_600_000, feeRule: { rate: 0.25, exponent: 2 } };

describe('market metadata lines', () => {
  it('round-trip, and a malformed one is refused with why', () => {
    expect(parseMetaFrame(metaFrame(META))).toEqual(META);
    const { endMs: _e, feeRule: _f, ...plain } = META;
    expect(parseMetaFrame(metaFrame(plain))).toEqual(plain);
    expect(parseMetaFrame('{')).toBe('not JSON');
    expect(parseMetaFrame(metaFrame({ ...META, tick: 1.5 }))).toMatch(/^not a market: tick/);
    expect(parseMetaFrame(metaFrame({ ...META, complementId: YES }))).toMatch(/one token/);
    expect(parseMetaFrame(JSON.stringify({ ...JSON.parse(metaFrame(META)), extra: 1 }))).toMatch(/^not a market/);
    expect(parseMetaFrame(metaFrame({ ...META, feeRule: { rate: -1, exponent: 2 } }))).toMatch(/feeRule/);
  });

  it('discovery: the declared market decides the priced token whichever book comes first; tokens that do not match are ignored', () => {
    const declared = { ...META, conditionId: SIM_M };
    const d = new MarketDiscovery();
    d.declare(declared);
    expect(d.see(bookOf(NO, [[4000, 1000]], [[6000, 1000]], 1))).toBeUndefined();
    expect(d.see(bookOf(YES, [[4000, 1000]], [[6000, 1000]], 2))?.meta).toEqual(declared);
    const other = new MarketDiscovery();
    other.declare({ ...declared, tokenId: '999' });
    other.see(bookOf(NO, [[4000, 1000]], [[6000, 1000]], 1));
    expect(other.see(bookOf(YES, [[4000, 1000]], [[6000, 1000]], 2))?.meta).toMatchObject({ tokenId: NO, complementId: YES, negRisk: false });
  });
});

describe('backtest: a recording with its market metadata', () => {
  /** The hand-made seller recording with its snapshot's tokens in the order NO, YES, and `meta` lines first. */
  function recording(meta: string[]): string {
    const dir = tempDir('meta');
    const base = sellerRecording(dir, { queue: '0', tradeSize: '20', everyMs: 1000, durationMs: 5000 });
    const path = join(dir, 'with-meta.jsonl');
    writeFileSync(path, meta.map((f) => recordLine({ text: f, t: T0 - 1000, epoch: 0 }, 'meta')).join(''));
    // the snapshot frame lists YES then NO: swapped, so without metadata NO would be priced
    const lines = readFileSync(base, 'utf8').split('\n').filter(Boolean);
    for (const l of lines) {
      const r = JSON.parse(l) as { t: number; f: unknown };
      const f = Array.isArray(r.f) ? [...r.f].reverse() : r.f;
      appendFileSync(path, marketLine(r.t, JSON.stringify(f)));
    }
    return path;
  }

  it('prices YES, with its end time and fee rule; without the line NO is priced and no rule is known', async () => {
    const cfg = handConfig({ queueModel: false });
    const withMeta = await runBacktest({ data: [recording([metaFrame(META)])], config: cfg });
    expect(withMeta.result.markets).toEqual([{ conditionId: M, tokenId: YES, complementId: NO, feeRule: META.feeRule }]);
    expect(withMeta.result.feed.rejected).toBe(0);
    const without = await runBacktest({ data: [recording([])], config: cfg });
    expect(without.result.markets).toEqual([{ conditionId: M, tokenId: NO, complementId: YES }]);
  }, 60_000);

  it('a malformed metadata line is counted as a rejected frame, and the run goes on as without it', async () => {
    const r = await runBacktest({ data: [recording(['{"event_type":"makerd_market"}'])], config: handConfig({ queueModel: false }) });
    expect(r.result.feed.rejected).toBe(1);
    expect(r.result.markets[0].tokenId).toBe(NO);
  }, 60_000);
});
