// Shares bought in a trade the venue has matched but not settled (MATCHED, RETRYING) are held but
// not sellable there yet: its balance check refuses the SELL "not enough balance / allowance"
// (py-clob-client issues 287, 290) and every refusal counts toward the order-error-rate halt. The
// strategy offers the ask as a BUY of the complement until the trade settles, then sells the
// shares; the risk gate blocks a SELL of them from any strategy (sell_awaits_settlement).
import { describe, it, expect } from 'vitest';
import type { UserTradeEvent, TradeStatus } from '../../src/core/events.js';
import type { TrackedOrder } from '../../src/engine/orders.js';
import { RecordingVenue, settle, books, deliver, makerTrade, Y, quotingEngine } from './helpers.js';

/** Our resting BUY of YES filled whole, as a maker, in trade t1 with the given status. */
const filled = (o: TrackedOrder, status: TradeStatus): UserTradeEvent => makerTrade('t1', o.orderId as string, 'BUY', status, 0, { price: o.price, size: o.size });

describe('engine: shares bought in a trade not yet settled', () => {
  it('quotes the ask as a BUY of the complement until the trade settles, then as a SELL of the shares', async () => {
    const { clock, venue, engine, mirror } = await quotingEngine((now) => new RecordingVenue(now));
    const open = () => [...engine.orders.open()].map((o) => `${o.tokenId === Y ? 'Y' : 'N'} ${o.side} ${o.price}`).sort();
    expect(open()).toEqual(['N BUY 4800', 'Y BUY 4800']);
    const bid = [...engine.orders.open()].find((o) => o.tokenId === Y && o.side === 'BUY') as TrackedOrder;

    engine.handleUserEvent(filled(bid, 'MATCHED'));
    clock.advanceTo(clock.now() + 100);
    deliver(mirror, engine, books(4900, 5100, clock.now()));
    await settle(10);
    expect(engine.positions.qty(Y)).toBe(1000);
    expect(engine.ledger.unminedBought(Y)).toBe(1000);
    // 10 YES held, none sellable yet: the ask at 0.52 is still the BUY of NO at 0.48
    expect(open()).toEqual(['N BUY 4800', 'Y BUY 4800']);
    expect(venue.calls.flatMap((c) => c.reqs ?? []).filter((r) => r.tokenId === Y && r.side === 'SELL')).toEqual([]);

    // a requote with nothing to do is remembered, and the next one with the same inputs skipped
    const skipped = engine.counters.skippedRequotes;
    for (let i = 0; i < 2; i++) {
      clock.advanceTo(clock.now() + 100);
      deliver(mirror, engine, books(4900, 5100, clock.now()));
      await settle(10);
    }
    expect(engine.counters.skippedRequotes).toBeGreaterThan(skipped);

    engine.handleUserEvent(filled(bid, 'MINED'));
    clock.advanceTo(clock.now() + 100);
    await settle(10);
    expect(engine.ledger.unminedBought(Y)).toBe(0);
    // settled: the trade's news alone requotes the market (the shares not yet settled are an input
    // of the skip), and the ask becomes a SELL of the shares
    expect(open()).toEqual(['Y BUY 4800', 'Y SELL 5200']);
    expect(engine.risk.blocks.get('sell_awaits_settlement') ?? 0).toBe(0);
    await engine.stop();
  });
});
