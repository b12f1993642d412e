// A SELL replacing a SELL of the same token waits for the old one's cancel only when the shares
// need it: held shares that cover the old SELL, the new one and every other open SELL of the
// token let the venue accept the new one while the old one still rests, so it goes out first,
// with the places that depend on no cancel. It waited behind the cancel every time, a third
// request in a row on the path from a book move to the new ask (tick_to_order's slowest samples).
// Shares bought in a trade not yet on chain do not count: the venue may not count them yet.
// A SELL that needs the shares waits for the cancel's answer, not only for the DELETE to be
// written: the venue may carry out the POST first, on another connection.
import { describe, it, expect } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import { RecordingVenue, settle, books, deliver, bandsEngine, Y, M } from './helpers.js';

/**
 * The requests after a move of the YES book by a cent, with `held` YES shares (the strategy's SELLs
 * are 10 shares), `unmined` more bought in a trade not yet on chain.
 */
async function afterMove(held: number, unmined = 0): Promise<Array<{ kind: string; sells: number[]; buys: number[] }>> {
  const clock = new VirtualClock(1_700_000_000_000);
  const venue = new RecordingVenue(() => clock.now());
  const { engine, mirror } = await bandsEngine({ clock, venue, params: { fair: 'mid', bands: [{ distance: 0.02, size: 10 }], skewPerShare: 0 } });
  engine.positions.apply(Y, 'BUY', 5000, held * 100, 0);
  if (unmined > 0) {
    const f = {
      tradeId: 't1',
      orderId: 'earlier',
      tokenId: Y,
      market: M,
      side: 'BUY' as const,
      price: 5000,
      size: unmined * 100,
      fee: 0,
      liquidity: 'MAKER' as const,
      status: 'MATCHED' as const,
      timeMs: clock.now(),
    };
    expect(engine.ledger.record(f, clock.now())).toBe(true);
  }
  deliver(mirror, engine, books(4900, 5100, clock.now()));
  engine.start();
  await settle(10);
  const sells = () => [...engine.orders.open()].filter((o) => o.tokenId === Y && o.side === 'SELL');
  expect(sells().map((o) => [o.price, o.state])).toEqual([[5200, 'live']]);
  venue.calls.length = 0;
  clock.advanceTo(clock.now() + 100);
  deliver(mirror, engine, books(5000, 5200, clock.now()));
  await settle(10);
  const calls = venue.calls.map((c) => ({
    kind: c.kind,
    sells: (c.reqs ?? []).filter((r) => r.side === 'SELL').map((r) => r.price),
    buys: (c.reqs ?? []).filter((r) => r.side === 'BUY').map((r) => r.price),
  }));
  expect(sells().map((o) => o.price)).toEqual([5300]);
  await engine.stop();
  return calls;
}

describe('engine: a SELL replaced while the old one is cancelled', () => {
  it('goes out before the cancel, with the independent places, when the held shares cover both SELLs', async () => {
    const calls = await afterMove(30);
    expect(calls.map((c) => c.kind)).toEqual(['placeOrders', 'cancelOrders']);
    expect(calls[0].sells).toEqual([5300]);
  });

  it('waits for the cancel when the cover needs shares bought in a trade not yet on chain (the venue may not count them yet)', async () => {
    const calls = await afterMove(15, 15);
    expect(calls.map((c) => c.kind)).toEqual(['placeOrders', 'cancelOrders', 'placeOrders']);
    expect(calls[2].sells).toEqual([5300]);
  });

  it('waits for the cancel when only the old SELL is covered (the venue counts its shares until the cancel lands)', async () => {
    const calls = await afterMove(15);
    expect(calls.map((c) => c.kind)).toEqual(['placeOrders', 'cancelOrders', 'placeOrders']);
    expect(calls[0].sells).toEqual([]);
    expect(calls[2].sells).toEqual([5300]);
  });
});
