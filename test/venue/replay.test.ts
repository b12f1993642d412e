// The simulated venue's external book over a real recording (polytope market_39: one book, then
// 35 price_change frames with entries for both tokens).
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createMarketDecodeStats, decodeMarketFrame } from '../../src/feed/decode-market.js';
import type { BookEvent, MarketEvent } from '../../src/core/events.js';
import { VirtualClock } from '../../src/core/clock.js';
import { SimBook } from '../../src/venue/sim-book.js';
import { SimulatedVenue } from '../../src/venue/simulated-venue.js';
import { silentLogger } from '../../src/core/log.js';

const A = '98022490269692409998126496127597032490334070080325855126491859374983463996227';
const B = '53831553061883006530739877284105938919721408776239639687877978808906551086026';

function load(): MarketEvent[] {
  const path = fileURLToPath(new URL('../fixtures/polymarket/polytope/market_39.jsonl', import.meta.url));
  const out: MarketEvent[] = [];
  const stats = createMarketDecodeStats(silentLogger);
  for (const line of readFileSync(path, 'utf8').split('\n')) if (line.trim()) decodeMarketFrame(line.trim(), out, stats);
  return out;
}

/** Asset B's first book is the mirror of A's (the recording only carries A's snapshot). */
function mirror(b: BookEvent, assetId: string): BookEvent {
  const flip = (l: BookEvent['bids'][number]) => ({ ...l, price: 10000 - l.price });
  return { ...b, assetId, bids: b.asks.map(flip).reverse(), asks: b.bids.map(flip).reverse() };
}

describe('SimBook over a real recording', () => {
  it('tracks the best bid and ask the feed reports after every change, for both tokens', () => {
    const events = load();
    const first = events[0] as BookEvent;
    expect(first.type).toBe('book');
    const books = new Map([
      [A, new SimBook()],
      [B, new SimBook()],
    ]);
    books.get(A)?.snapshot(first.bids, first.asks);
    const m = mirror(first, B);
    books.get(B)?.snapshot(m.bids, m.asks);
    let checked = 0;
    for (const e of events.slice(1)) {
      if (e.type !== 'price_change') continue;
      for (const c of e.changes) {
        const b = books.get(c.assetId) as SimBook;
        b.set(c.side, c.price, c.size);
        if (c.bestBid !== undefined) expect(b.bestBid()).toBe(c.bestBid);
        if (c.bestAsk !== undefined) expect(b.bestAsk()).toBe(c.bestAsk);
        checked++;
      }
    }
    expect(checked).toBe(70);
  });

  it('the venue replays it with resting orders on both tokens, deterministically', async () => {
    const run = async () => {
      const events = load();
      const clock = new VirtualClock(events[0].timestampMs);
      const venue = new SimulatedVenue({
        clock,
        markets: [{ conditionId: (events[0] as BookEvent).market, tokens: [A, B], tick: 100, minSize: 500 }],
        orderLatencyMs: 0,
        cancelLatencyMs: 0,
        makerFeeBps: 0,
        takerFeeBps: 0,
        logger: silentLogger,
      });
      venue.onMarketEvent(events[0]);
      venue.onMarketEvent(mirror(events[0] as BookEvent, B));
      // shares of both tokens for the SELLs
      venue.holdShares(A, 500);
      venue.holdShares(B, 500);
      const ids: string[] = [];
      for (const [token, side, price] of [
        [A, 'BUY', 5400],
        [A, 'SELL', 5500],
        [B, 'BUY', 4500],
        [B, 'SELL', 4600],
      ] as const) {
        const r = await venue.placeOrder({ clientId: `${token.slice(0, 4)}${side}`, tokenId: token, side, price, size: 500, orderType: 'GTC', postOnly: true });
        expect(r.ok).toBe(true);
        ids.push(r.orderId as string);
      }
      const queues: Array<number | undefined> = [];
      for (const e of events.slice(1)) {
        clock.advanceTo(Math.max(clock.now(), e.timestampMs));
        venue.onMarketEvent(e);
        queues.push(...ids.map((id) => venue.queuePosition(id)));
      }
      return { queues, fills: venue.fills().map((f) => `${f.orderId}:${f.price}:${f.size}`), stats: venue.stats() };
    };
    const a = await run();
    // Each order joins behind the visible touch of its own token: A bid 0.54 x 63.96, A ask 0.55 x 33,
    // and B's mirror (bid 0.45 x 33, ask 0.46 x 63.96). The recording only changes deeper levels, so
    // the queues never move and nothing fills.
    expect(a.queues.slice(0, 4)).toEqual([6396, 3300, 3300, 6396]);
    expect(a.queues.slice(-4)).toEqual([6396, 3300, 3300, 6396]);
    expect(a.fills).toEqual([]);
    expect(a.stats.placed).toBe(4);
    expect(await run()).toEqual(a);
  });

  it('seeds the never-snapshotted token from the mirror of its sibling at its first price change', async () => {
    const events = load();
    const clock = new VirtualClock(events[0].timestampMs);
    const venue = new SimulatedVenue({
      clock,
      markets: [{ conditionId: (events[0] as BookEvent).market, tokens: [A, B], tick: 100, minSize: 500 }],
      orderLatencyMs: 0,
      cancelLatencyMs: 0,
      makerFeeBps: 0,
      takerFeeBps: 0,
      logger: silentLogger,
    });
    venue.onMarketEvent(events[0]); // A's snapshot only
    const early = await venue.placeOrder({ clientId: 'early', tokenId: B, side: 'BUY', price: 4500, size: 500, orderType: 'GTC', postOnly: true });
    expect(early).toMatchObject({ ok: false, error: 'MARKET_NOT_READY' });
    const firstChange = events.findIndex((e) => e.type === 'price_change');
    venue.onMarketEvent(events[firstChange]);
    expect(venue.stats().seeded).toBe(1);
    // B's touch is A's mirrored: bid 0.45 x 33 (A's ask 0.55), ask 0.46 x 63.96 (A's bid 0.54)
    const bid = await venue.placeOrder({ clientId: 'bid', tokenId: B, side: 'BUY', price: 4500, size: 500, orderType: 'GTC', postOnly: true });
    venue.holdShares(B, 500);
    const ask = await venue.placeOrder({ clientId: 'ask', tokenId: B, side: 'SELL', price: 4600, size: 500, orderType: 'GTC', postOnly: true });
    expect(bid.ok && ask.ok).toBe(true);
    expect(venue.queuePosition(bid.orderId as string)).toBe(3300);
    expect(venue.queuePosition(ask.orderId as string)).toBe(6396);
    // a crossing post-only order is refused against the seeded book too
    const cross = await venue.placeOrder({ clientId: 'x', tokenId: B, side: 'BUY', price: 4600, size: 500, orderType: 'GTC', postOnly: true });
    expect(cross).toMatchObject({ ok: false, error: 'INVALID_POST_ONLY_ORDER' });
    for (const e of events.slice(firstChange + 1)) venue.onMarketEvent(e);
    expect(venue.stats().seeded).toBe(1);
  });
});
