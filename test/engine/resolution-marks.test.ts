// A resolved market values its tokens at what they pay: the winner at 1, the other at 0, not at the
// last mid. A holding of the losing token kept its last mid (0.61) in the PnL and the daily-loss
// check, a loss of the whole stake unseen; a backtest ended with it as unrealized profit.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import { createMarketDecodeStats, decodeMarketFrame } from '../../src/feed/decode-market.js';
import type { MarketEvent, MarketLifecycleEvent } from '../../src/core/events.js';
import { M, N, RecordingVenue, Y, bandsEngine, books, deliver, makerTrade, quotingEngine, settle } from './helpers.js';

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

describe('engine: the real market_resolved message (a capture: nautilus_trader ws_market_resolved_msg.json)', () => {
  it('decoded by the one market decoder, it marks the winner at 1 and the other token at 0', async () => {
    const text = readFileSync(new URL('../fixtures/polymarket/nautilus_trader/rust_test_data/ws_market_resolved_msg.json', import.meta.url), 'utf8');
    const events: MarketEvent[] = [];
    decodeMarketFrame(text, events, createMarketDecodeStats());
    const e = events[0];
    if (e?.type !== 'market_resolved') throw new Error('not decoded as market_resolved');
    const [winner, other] = [e.winningAssetId!, e.assetIds.find((a) => a !== e.winningAssetId)!];
    const clock = new VirtualClock(1_700_000_000_000);
    const venue = new RecordingVenue(() => clock.now());
    // the market as its metadata would list it: the other token first, so the winner is not simply the priced one
    const meta = { conditionId: e.market, tokenId: other, complementId: winner, tick: 100, minSize: 500, negRisk: false };
    const { engine, mirror } = await bandsEngine({ clock, venue, params: {}, meta });
    engine.positions.apply(other, 'BUY', 4000, 1000, 0);
    engine.positions.apply(winner, 'BUY', 5000, 1000, 0);
    deliver(mirror, engine, [e]);
    expect(engine.mark(winner)).toBe(10_000);
    expect(engine.mark(other)).toBe(0);
    // 10 shares of each bought for $9: worth $10 now
    expect(engine.pnlMicros()).toBe(10_000 * 1000 - (4000 + 5000) * 1000);
  });
});
