// The replay emulator's order and trade ids are its run's own: a second rehearsal with the same
// recording and the same daemon store must not hand out the first run's ids again (the store
// would take them for the first run's orders, and INSERT OR IGNORE would drop the second run's
// fills of the same trade ids). The real venue's ids never repeat.
import { describe, expect, it } from 'vitest';
import { ReplayOrderDesk } from '../../src/emulator/replay-orders.js';
import { M, NO, YES, book } from '../venue/sim-helpers.js';

function desk(): ReplayOrderDesk {
  const books = [book(YES, [[5000, 10_000]], [[5200, 10_000]]), book(NO, [[4800, 10_000]], [[5000, 10_000]])];
  return new ReplayOrderDesk([{ conditionId: M, tokens: [YES, NO], tick: 100, minSize: 500 }], 1_000_000, () => books);
}

describe('replay emulator ids', () => {
  it('two runs over the same recording give the same owner different order and trade ids', async () => {
    const ids: string[] = [];
    for (const d of [desk(), desk()]) {
      const v = d.venueFor('key');
      // a marketable BUY: an order id and a trade id at once
      const r = await v.placeOrder({ clientId: 'c1', tokenId: YES, side: 'BUY', price: 5200, size: 500, orderType: 'FAK', postOnly: false });
      expect(r.ok).toBe(true);
      ids.push(r.orderId as string, ...v.fills().map((f) => f.tradeId));
    }
    expect(ids).toHaveLength(4);
    expect(new Set(ids).size).toBe(4);
  });
});
