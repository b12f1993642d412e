// Paper mode's sim.feedLatencyMs: the simulated venue (the venue sink) sees a frame when it comes,
// the mirror and the engine that long after, on the clock's timers, as in a backtest; paper mode
// saw both at once, so its quotes could never be picked off by a move not yet seen. Loopback ws
// server, real time; bounded waits.
import { describe, expect, it } from 'vitest';
import { MarketFeed } from '../../src/feed/market-feed.js';
import { WallClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/log.js';
import type { MarketEvent } from '../../src/core/events.js';
import { bookFrame, feedConfig, isSubscribe, startServer, stopAfterEach, type TestServer, waitFor } from './ws-server.js';

let server: TestServer | undefined;
let feed: MarketFeed | undefined;
stopAfterEach(() => ({ feed, server }));

const A = '1111';
describe('MarketFeed with a feed lag (paper)', () => {
  it('the venue sink gets each frame at once, the mirror and the engine the lag later, in order', async () => {
    server = await startServer();
    server.onMessage = (ws, text) => {
      if (isSubscribe(text)) ws.send(bookFrame(A, '100'));
    };
    feed = new MarketFeed({ config: feedConfig(server.url), tokens: [A], meta: {}, lag: { ms: 300, clock: new WallClock() } });
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

  it('a connection lost while its frames wait: the snapshot delivered after the loss leaves the book out of sync', async () => {
    server = await startServer();
    let subs = 0;
    server.onMessage = (ws, text) => {
      if (!isSubscribe(text) || ++subs > 1) return; // the resubscribe gets nothing: no fresh snapshot
      ws.send(bookFrame(A, '100'));
      setTimeout(() => ws.terminate(), 50);
    };
    feed = new MarketFeed({ config: feedConfig(server.url), tokens: [A], meta: {}, lag: { ms: 300, clock: new WallClock() } });
    let delivered = 0;
    feed.pipeline.connect({ engine: { handleMarketEvent: () => void delivered++ } });
    feed.start();
    await waitFor(() => delivered === 1, 3000);
    // the snapshot came before the loss, the deltas after it never will: once the lagged view
    // reaches the loss, the book is out of sync again (before the fix it stayed in sync for good)
    await waitFor(() => feed!.book(A)?.inSync() === false, 2000);
    expect(feed.mirror.syncInfo(A)?.reason).toBe('reconnect');
  });

  it('without a lag the engine sees the frame in the same turn as the venue (live)', async () => {
    server = await startServer();
    server.onMessage = (ws, text) => {
      if (isSubscribe(text)) ws.send(bookFrame(A, '100'));
    };
    feed = new MarketFeed({ config: feedConfig(server.url), tokens: [A], meta: {} });
    const order: string[] = [];
    let sameTurn = false;
    feed.pipeline.connect({
      venue: {
        onMarketEvent: () => {
          order.push('venue');
          sameTurn = true;
          queueMicrotask(() => (sameTurn = false));
        },
      },
      engine: { handleMarketEvent: () => void order.push(sameTurn && feed!.book(A)?.inSync() === true ? 'engine, same turn, book in sync' : 'engine, later') },
    });
    feed.start();
    await waitFor(() => order.length === 2, 3000);
    // the same synchronous dispatch: the mirror applied the frame before the engine saw it
    expect(order).toEqual(['venue', 'engine, same turn, book in sync']);
  });

  it("a lagged frame's failure (a throw in the engine) is logged and the next lagged frames still go", async () => {
    server = await startServer();
    server.onMessage = (ws, text) => {
      if (!isSubscribe(text)) return;
      ws.send(bookFrame(A, '100'));
      setTimeout(() => ws.send(bookFrame(A, '200')), 50);
    };
    const errors: string[] = [];
    const log = { ...silentLogger, error: (_o: unknown, msg?: string) => void errors.push(String(msg)) } as typeof silentLogger;
    feed = new MarketFeed({ config: feedConfig(server.url), tokens: [A], meta: {}, lag: { ms: 100, clock: new WallClock() }, log });
    const uncaught: unknown[] = [];
    const onUncaught = (e: unknown): void => void uncaught.push(e);
    process.on('uncaughtException', onUncaught);
    try {
      let seen = 0;
      feed.pipeline.connect({
        engine: {
          handleMarketEvent: () => {
            if (++seen === 1) throw new Error('engine bug');
          },
        },
      });
      feed.start();
      await waitFor(() => seen === 2, 3000);
      expect(errors).toEqual(['market pipeline: a lagged frame failed']);
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });
});
