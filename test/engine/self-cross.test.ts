// A new post-only order must not cross one of our own working orders: the venue rejects it (and
// the rejection counts toward the error-rate breaker). crossesOwn holds such a place back.
import { describe, expect, it } from 'vitest';
import { crossesOwn } from '../../src/engine/quote-checks.js';
import type { OrderState, TrackedOrder } from '../../src/engine/orders.js';
import type { MarketMeta, Quote } from '../../src/engine/strategy.js';
import type { Side } from '../../src/core/events.js';

const Y = 'yes';
const N = 'no';
const meta: MarketMeta = { conditionId: 'm', tokenId: Y, complementId: N, tick: 100, minSize: 500, negRisk: false };
const q = (tokenId: string, side: Side, price: number): Quote => ({ tokenId, side, price, size: 500 });
const o = (tokenId: string, side: Side, price: number, state: OrderState = 'live', filled = 0): TrackedOrder => ({
  clientId: 'c',
  orderId: 'x',
  tokenId,
  market: 'm',
  side,
  price,
  size: 500,
  filled,
  state,
  createdMs: 0,
  updatedMs: 0,
});

describe('crossesOwn', () => {
  const cases: Array<[string, Quote, TrackedOrder[], boolean]> = [
    ['bid below our ask', q(Y, 'BUY', 5000), [o(Y, 'SELL', 5100)], false],
    ['bid at our ask', q(Y, 'BUY', 5100), [o(Y, 'SELL', 5100)], true],
    ['bid through our ask', q(Y, 'BUY', 5200), [o(Y, 'SELL', 5100)], true],
    ['ask at our bid', q(Y, 'SELL', 5000), [o(Y, 'BUY', 5000)], true],
    ['ask above our bid', q(Y, 'SELL', 5100), [o(Y, 'BUY', 5000)], false],
    ['same side never crosses', q(Y, 'BUY', 5500), [o(Y, 'BUY', 5000)], false],
    // our complement BUY at 0.49 is an ask at 0.51 on YES
    ['bid meets our complement bid (mint)', q(Y, 'BUY', 5100), [o(N, 'BUY', 4900)], true],
    ['bid below our complement bid mirror', q(Y, 'BUY', 5000), [o(N, 'BUY', 4900)], false],
    ['sell meets our complement sell (merge)', q(Y, 'SELL', 4900), [o(N, 'SELL', 5100)], true],
    ['sell above our complement sell mirror', q(Y, 'SELL', 5000), [o(N, 'SELL', 5100)], false], // a YES bid at 0.49
    ['sell below our complement sell mirror', q(Y, 'SELL', 5000), [o(N, 'SELL', 4900)], true], // a YES bid at 0.51
    ['complement opposite side does not cross', q(Y, 'BUY', 5100), [o(N, 'SELL', 4900)], false],
    ['an order being cancelled still crosses', q(Y, 'BUY', 5100), [o(Y, 'SELL', 5100, 'pending_cancel')], true],
    ['an order in flight may be resting: crosses', q(Y, 'BUY', 5100), [o(Y, 'SELL', 5100, 'pending_new')], true],
    ['a cancelled order does not cross', q(Y, 'BUY', 5100), [o(Y, 'SELL', 5100, 'canceled')], false],
    ['a fully filled order does not cross', q(Y, 'BUY', 5100), [o(Y, 'SELL', 5100, 'partially_filled', 500)], false],
    ["another market's token is ignored", q(Y, 'BUY', 5100), [o('zzz', 'SELL', 5000)], false],
  ];
  for (const [name, quote, own, want] of cases) {
    it(name, () => expect(crossesOwn(quote, meta, own)).toBe(want));
  }
});
