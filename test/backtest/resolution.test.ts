// A backtest whose recording ends with the market's resolution values what is held at what it pays
// (the winner 1, the other 0), not at the last mid: holding YES when NO won, the unrealized PnL was
// the last mid's profit instead of the whole stake lost.
import { appendFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/backtest/runner.js';
import { recordLine } from '../../src/emulator/recording-writer.js';
import { M, NO, T0, YES, handConfig, sellerRecording, snapshotFrame, tempDir } from './helpers.js';

function resolvedFrame(ts: number, winner: string): string {
  return JSON.stringify({ event_type: 'market_resolved', id: '1', market: M, assets_ids: [YES, NO], winning_asset_id: winner, winning_outcome: winner === YES ? 'Yes' : 'No', timestamp: String(ts) });
}

async function runResolved(winner: string) {
  const dir = tempDir('resolved');
  const path = sellerRecording(dir, { queue: '0', tradeSize: '20', everyMs: 1000, durationMs: 5000 });
  // the book moves up, then the market resolves; a snapshot after it changes nothing
  appendFileSync(path, recordLine(T0 + 6000, snapshotFrame(T0 + 6000, [['0.60', '100']], [['0.62', '100']])));
  appendFileSync(path, recordLine(T0 + 7000, resolvedFrame(T0 + 7000, winner)));
  appendFileSync(path, recordLine(T0 + 8000, snapshotFrame(T0 + 8000, [['0.60', '100']], [['0.62', '100']])));
  const { result } = await runBacktest({ data: [path], config: handConfig({ queueModel: false }) });
  expect(result.engine.pnl).toBeCloseTo(result.total.pnl.total, 6);
  return { result, yes: result.tokens.find((t) => t.tokenId === YES)! };
}

describe('backtest: a market resolved in the recording', () => {
  it('values the YES held at 0 when NO won and at 1 when YES won, in the statistics and the engine alike', async () => {
    const lost = await runResolved(NO);
    const won = await runResolved(YES);
    const held = lost.yes.inventory.final;
    expect(held).toBeGreaterThan(0);
    expect(won.yes.inventory.final).toBe(held);
    expect(lost.yes.lastMid).toBe(0);
    expect(won.yes.lastMid).toBe(1);
    // at 0 the unrealized PnL is minus the cost of what is held: bought at our bids near 0.49
    const cost = -lost.yes.pnl.unrealized;
    expect(cost / held).toBeGreaterThan(0.45);
    expect(cost / held).toBeLessThan(0.55);
    expect(won.yes.pnl.unrealized).toBeCloseTo(held - cost, 6);
  }, 60_000);
});
