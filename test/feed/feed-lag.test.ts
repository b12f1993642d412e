// Paper mode's sim.feedLatencyMs: the simulated venue (the venue sink) sees a frame when it comes,
// the mirror and the engine that long after, on the clock's timers, as in a backtest; paper mode
// saw both at once, so its quotes could never be picked off by a move not yet seen. Loopback ws
// server, real time; bounded waits.
import { afterEach, describe, expect, it } from 'vitest';
import { MarketFeed } from '../../src/feed/market-feed.js';
import { WallClock } from '../../src/core/clock.js';
import type { MarketEvent } from '../../src/core/events.js';
import { bookFrame, startServer, waitFor, type TestServer } from './ws-server.js';

let server: TestServer | undefined;
let feed: MarketFeed | undefined;
afterEach(async () => {
  feed?.stop();
  await server?.close();
});

const A = '1111';
const config = {
  urls: { ws: '' } as never,
  feed: { pingIntervalMs: 20, pongTimeoutMs: 1000, quietMs: 5000, probeTimeoutMs: 1000, reconnectBaseMs: 10, reconnectMaxMs: 40, priceFeedPingIntervalMs: 20, priceSymbols: [] },
  book: { verifyEvery: 0, resync: 'resubscribe' as const, resyncTimeoutMs: 1500, groupIdleMs: 100 },
};

describe('MarketFeed with a feed lag (paper)', () => {
  it('the venue sink gets each frame at once, the mirror and the engine the lag later, in order', async () => {
    server = await startServer();
    server.onMessage = (ws, text) => {
      if (text.includes('assets_ids')) ws.send(bookFrame(A, '100'));
    };
    feed = new MarketFeed({ config: { ...config, urls: { ws: server.url } as never }, tokens: [A], meta: {}, lag: { ms: 300, clock: new WallClock() } });
    const venueAt: number[] = [];
    const engineAt: number[] = [];
    feed.pipeline.connect({ venue: { onMarketEvent: () => void venueAt.push(performance.now()) }, engine: { handleMarketEvent: (_e: MarketEvent) => void engineAt.push(performance.now()) } });
    feed.start();
    await waitFor(() => venueAt.length === 1, 3000);
    expect(feed.book(A)?.inSync() === true).toBe(false);
    expect(engineAt).toHaveLength(0);
    await waitFor(() => engineAt.length === 1, 3000);
    expect(engineAt[0] - venueAt[0]).toBeGreaterThanOrEqual(290);
    expect(feed.book(A)?.inSync()).toBe(true);
  });

  it('without a lag both see the frame at once (live)', async () => {
    server = await startServer();
    server.onMessage = (ws, text) => {
      if (text.includes('assets_ids')) ws.send(bookFrame(A, '100'));
    };
    feed = new MarketFeed({ config: { ...config, urls: { ws: server.url } as never }, tokens: [A], meta: {} });
    let engine = 0;
    feed.pipeline.connect({ venue: { onMarketEvent: () => expect(engine).toBe(0) }, engine: { handleMarketEvent: () => void engine++ } });
    feed.start();
    await waitFor(() => engine === 1, 3000);
    expect(feed.book(A)?.inSync()).toBe(true);
  });
});
