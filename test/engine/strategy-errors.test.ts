// A user strategy's onFill that throws: the fill is ours whatever the strategy does with it, and
// so are the other fills of the same trade (before, the throw left the trade's later maker orders
// unrecorded until the trade's next status).
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import { createLogger } from '../../src/core/log.js';
import { RecordingVenue, TWO_BANDS, Y, bandsEngine, books, deliver, makerTrade, quotingEngine, settle } from './helpers.js';

describe("engine: a strategy's onFill that throws", () => {
  it('loses no fill: a trade filling two of our orders records both, and the error is counted', async () => {
    const { clock, engine } = await quotingEngine((now) => new RecordingVenue(now), TWO_BANDS);
    const bids = [...engine.orders.open()].filter((o) => o.side === 'BUY' && o.tokenId === Y);
    expect(bids).toHaveLength(2);
    const st = engine.marketOf(Y)!;
    st.strategy.onFill = () => {
      throw new Error('strategy bug');
    };
    const errors = engine.counters.errors;
    const e = makerTrade('t1', bids[0].orderId!, 'BUY', 'MATCHED', clock.now(), { price: bids[0].price, size: 500 });
    e.makerOrders.push({ orderId: bids[1].orderId!, assetId: Y, price: bids[1].price, matchedAmount: 500, feeRateBps: 0, outcome: 'Yes', side: 'BUY', owner: 'k' });
    engine.handleUserEvent(e);
    expect(engine.positions.qty(Y)).toBe(1000);
    expect(engine.ledger.has('t1', bids[1].orderId!)).toBe(true);
    expect(engine.counters.errors).toBe(errors + 2);
    await engine.stop();
  });
});

describe("engine: a strategy that failed, then a block of the engine's own", () => {
  it('the block is logged once, not per requote, and the failure is forgotten (no stale /health reason for the whole block)', async () => {
    const lines: Array<{ level: number; msg: string }> = [];
    const log = createLogger({ level: 'trace', destination: { write: (s: string) => void lines.push(JSON.parse(s) as { level: number; msg: string }) } });
    const clock = new VirtualClock(1_700_000_000_000);
    const venue = new RecordingVenue(() => clock.now());
    const { engine, mirror } = await bandsEngine({ clock, venue, log, params: { fair: 'mid', bands: [{ distance: 0.02, size: 10 }], skewPerShare: 0 } });
    const st = engine.marketOf(Y)!;
    st.strategy.quote = () => {
      throw new Error('strategy bug');
    };
    deliver(mirror, engine, books(4900, 5100, clock.now()));
    engine.start();
    await settle(10);
    expect(st.strategyError?.message).toBe('strategy bug');
    engine.halt('test halt');
    for (let i = 0; i < 5; i++) {
      clock.advanceTo(clock.now() + 100);
      deliver(mirror, engine, books(4900 - i * 100, 5100, clock.now()));
      await settle(10);
    }
    expect(st.strategyError).toBeUndefined();
    expect(st.blocked).toMatch(/halted: test halt/);
    expect(lines.filter((l) => l.msg === 'engine: market not quoting')).toHaveLength(1);
    await engine.stop();
  });
});

describe('engine: an async quote() that rejects', () => {
  it('is a strategy failure named as async, and its rejection is caught (not an unhandled rejection that ends the daemon)', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (r: unknown): void => void unhandled.push(r);
    process.on('unhandledRejection', onUnhandled);
    try {
      const clock = new VirtualClock(1_700_000_000_000);
      const venue = new RecordingVenue(() => clock.now());
      const { engine, mirror } = await bandsEngine({ clock, venue, params: { fair: 'mid', bands: [{ distance: 0.02, size: 10 }], skewPerShare: 0 } });
      const st = engine.marketOf(Y)!;
      (st.strategy as { quote: unknown }).quote = async () => {
        await Promise.resolve();
        throw new Error('async strategy bug');
      };
      deliver(mirror, engine, books(4900, 5100, clock.now()));
      engine.start();
      await settle(10);
      await new Promise((r) => setImmediate(r));
      expect(st.strategyError?.message).toMatch(/quote\(\) returned a Promise \(quote\(\) must not be async\)/);
      expect([...engine.orders.open()]).toHaveLength(0);
      await engine.stop();
      await new Promise((r) => setImmediate(r));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
