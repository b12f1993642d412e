// A resolved market values its tokens at what they pay: the winner at 1, the other at 0, not at the
// last mid. A holding of the losing token kept its last mid (0.61) in the PnL and the daily-loss
// check, a loss of the whole stake unseen; a backtest ended with it as unrealized profit.
import { describe, expect, it } from 'vitest';
import type { MarketLifecycleEvent } from '../../src/core/events.js';
import { M, N, RecordingVenue, Y, books, deliver, makerTrade, quotingEngine, settle } from './helpers.js';

function resolved(t: number, winner: { asset?: string; outcome?: string }): MarketLifecycleEvent {
  return {
    type: 'market_resolved',
    market: M,
    question: 'q',
    slug: 's',
    assetIds: [Y, N],
    outcomes: ['Yes', 'No'],
    ...(winner.asset !== undefined ? { winningAssetId: winner.asset } : {}),
    ...(winner.outcome !== undefined ? { winningOutcome: winner.outcome } : {}),
    timestampMs: t,
  };
}

/** An engine holding 10 YES bought at our bid, the book then at 0.60 / 0.62. */
async function holdingYes() {
  const { clock, engine, mirror } = await quotingEngine((now) => new RecordingVenue(now));
  const bid = [...engine.orders.open()].find((o) => o.side === 'BUY' && o.tokenId === Y)!;
  engine.handleUserEvent(makerTrade('t1', bid.orderId!, 'BUY', 'MATCHED', clock.now(), { price: bid.price, size: 1000 }));
  expect(engine.positions.qty(Y)).toBe(1000);
  const cost = bid.price * 1000;
  clock.advanceTo(clock.now() + 1000);
  deliver(mirror, engine, books(6000, 6200, clock.now()));
  await settle(10);
  expect(engine.pnlMicros()).toBe(6100 * 1000 - cost);
  return { clock, engine, mirror, cost };
}

describe('engine: a resolved market marks its tokens at 1 and 0', () => {
  it('the losing token held is worth 0: PnL and the running PnL of the loss check fall by the stake', async () => {
    const { clock, engine, mirror, cost } = await holdingYes();
    deliver(mirror, engine, [resolved(clock.now(), { asset: N })]);
    expect(engine.mark(Y)).toBe(0);
    expect(engine.mark(N)).toBe(10_000);
    expect(engine.pnlMicros()).toBe(-cost);
    expect(engine.runningPnlMicros()).toBe(-cost);
    // a book still coming after the resolution does not bring the old mark back
    deliver(mirror, engine, books(6000, 6200, clock.now() + 1));
    expect(engine.pnlMicros()).toBe(-cost);
    await engine.stop();
  });

  it('the winner named only by its outcome (no winning_asset_id) is worth 1', async () => {
    const { clock, engine, mirror, cost } = await holdingYes();
    deliver(mirror, engine, [resolved(clock.now(), { outcome: 'Yes' })]);
    expect(engine.pnlMicros()).toBe(10_000 * 1000 - cost);
    expect(engine.runningPnlMicros()).toBe(10_000 * 1000 - cost);
    await engine.stop();
  });

  it('a resolution naming no token of the market changes no mark', async () => {
    const { clock, engine, mirror, cost } = await holdingYes();
    deliver(mirror, engine, [resolved(clock.now(), { asset: '999' })]);
    expect(engine.pnlMicros()).toBe(6100 * 1000 - cost);
    await engine.stop();
  });
});
