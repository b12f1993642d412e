// The simulated-venue tests' shared market: one binary market (YES/NO, tick 0.01, minimum 5
// shares) with a two-level book on each token, the venue's events collected, and event builders.
import { VirtualClock } from '../../src/core/clock.js';
import type { BookEvent, LastTradePriceEvent, Side, UserEvent, UserTradeEvent } from '../../src/core/events.js';
import { SimulatedVenue, type SimMarket, type SimulatedVenueOptions } from '../../src/venue/simulated-venue.js';
import type { OrderRequest } from '../../src/venue/types.js';

export const M = '0xmkt';
export const YES = 'yes';
export const NO = 'no';

export function book(assetId: string, bids: Array<[number, number]>, asks: Array<[number, number]>, ts = 0): BookEvent {
  const lv = (l: [number, number]) => ({ price: l[0], size: l[1], priceStr: '', sizeStr: '' });
  // wire order: bids ascending, asks descending
  return {
    type: 'book',
    market: M,
    assetId,
    timestampMs: ts,
    timestampStr: String(ts),
    hash: '',
    bids: [...bids].sort((a, b) => a[0] - b[0]).map(lv),
    asks: [...asks].sort((a, b) => b[0] - a[0]).map(lv),
  };
}

export function trade(assetId: string, side: Side, price: number, size: number, ts = 0): LastTradePriceEvent {
  return { type: 'last_trade_price', market: M, assetId, side, price, size, feeRateBps: 0, timestampMs: ts };
}

let cid = 0;
export function req(p: Partial<OrderRequest> & Pick<OrderRequest, 'side' | 'price' | 'size'>): OrderRequest {
  return { clientId: `c${++cid}`, tokenId: YES, orderType: 'GTC', postOnly: false, ...p };
}

/**
 * A venue (no latency, no fees unless given) on the market (fields of `market` override it) with
 * YES bids 0.50 x 100 shares, 0.49 x 200 and asks 0.52 x 50, 0.53 x 100; NO mirrors it.
 */
export function venueWithBook(opts: Partial<SimulatedVenueOptions> = {}, market: Partial<SimMarket> = {}) {
  const clock = new VirtualClock(1_000_000);
  const venue = new SimulatedVenue({
    clock,
    markets: [{ conditionId: M, tokens: [YES, NO], tick: 100, minSize: 500, ...market }],
    orderLatencyMs: 0,
    cancelLatencyMs: 0,
    makerFeeBps: 0,
    takerFeeBps: 0,
    idPrefix: 'S',
    ...opts,
  });
  const events: UserEvent[] = [];
  venue.onUserEvent((e) => events.push(e));
  venue.onMarketEvent(
    book(
      YES,
      [
        [5000, 10000],
        [4900, 20000],
      ],
      [
        [5200, 5000],
        [5300, 10000],
      ],
    ),
  );
  venue.onMarketEvent(
    book(
      NO,
      [
        [4800, 5000],
        [4700, 10000],
      ],
      [
        [5000, 10000],
        [5100, 20000],
      ],
    ),
  );
  const trades = () => events.filter((e): e is UserTradeEvent => e.type === 'trade' && e.status === 'MATCHED');
  return { clock, venue, events, trades };
}
