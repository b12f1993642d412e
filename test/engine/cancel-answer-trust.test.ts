// A cancel's answer naming orders it was not asked about: only the asked ones are taken. A venue
// (or a proxy) answering a cancel of one order with others' ids as canceled ended orders of ours
// that still rested, untracked from then on. A cancel-all's answer may name any order.
import { describe, expect, it } from 'vitest';
import { M, RecordingVenue, TWO_BANDS, Y, quotingEngine, settle } from './helpers.js';

describe('engine: a cancel answer naming other orders', () => {
  it('takes only the orders asked about; the others keep resting as tracked', async () => {
    const { engine, venue } = await quotingEngine((now) => new RecordingVenue(now), TWO_BANDS);
    const bids = [...engine.orders.open()].filter((o) => o.side === 'BUY' && o.tokenId === Y);
    expect(bids).toHaveLength(2);
    const [a, b] = bids;
    const cancel = venue.cancelOrders.bind(venue);
    venue.cancelOrders = async (ids) => {
      const r = await cancel(ids);
      return { ...r, canceled: [...r.canceled, b.orderId!] };
    };
    engine.scheduler.submit(M, [{ orderId: a.orderId!, tokenId: Y, side: 'BUY', price: a.price }], []);
    await settle(10);
    expect(engine.orders.byVenueId(a.orderId!)?.state).toBe('canceled');
    expect(engine.orders.byVenueId(b.orderId!)?.state).toBe('live');
    await engine.stop();
  });
});
