// A strategy told of a fill (onFill) is told when it is taken back (onFillReversed): the trade
// FAILED on chain and the engine took it out of the position, so a strategy counting its own fills
// would otherwise drift from ctx.position.
import { describe, expect, it } from 'vitest';
import type { StrategyFill } from '../../src/engine/strategy.js';
import { RecordingVenue, Y, makerTrade, quotingEngine } from './helpers.js';

describe('engine: a fill reversed', () => {
  it('the strategy hears of it, once, with the fill it was told of', async () => {
    const { clock, engine } = await quotingEngine((now) => new RecordingVenue(now));
    const bid = [...engine.orders.open()].find((o) => o.tokenId === Y && o.side === 'BUY');
    expect(bid?.orderId).toBeDefined();
    const st = engine.marketOf(Y)!;
    const told: Array<[string, StrategyFill]> = [];
    st.strategy.onFill = (_ctx, f) => void told.push(['fill', f]);
    st.strategy.onFillReversed = (_ctx, f) => void told.push(['reversed', f]);
    engine.handleUserEvent(makerTrade('t-rev', bid!.orderId!, 'BUY', 'MATCHED', clock.now(), { price: bid!.price, size: 500 }));
    expect(engine.positions.qty(Y)).toBe(500);
    engine.handleUserEvent(makerTrade('t-rev', bid!.orderId!, 'BUY', 'FAILED', clock.now(), { price: bid!.price, size: 500 }));
    expect(engine.positions.qty(Y)).toBe(0);
    expect(told.map(([k, f]) => [k, f.side, f.price, f.size])).toEqual([
      ['fill', 'BUY', bid!.price, 500],
      ['reversed', 'BUY', bid!.price, 500],
    ]);
    await engine.stop();
  });
});
