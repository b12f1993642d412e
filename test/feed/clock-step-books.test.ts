// A system clock stepped back (an NTP step, a VM's clock corrected) must not hide a frozen book:
// book ages are read on the daemon's clock, and a step back made them negative, so the stale-book
// guard called a book fresh, and the quiet-book refresh never asked for it again, for as long as
// the step. Found in review. Loopback ws server; bounded waits.
import { describe, expect, it } from 'vitest';
import { MarketFeed } from '../../src/feed/market-feed.js';
import { bookFreshness } from '../../src/engine/risk.js';
import { bookFrame, feedConfig, isSubscribe, startServer, stopAfterEach, type TestServer, waitFor } from './ws-server.js';

let server: TestServer | undefined;
let feed: MarketFeed | undefined;
stopAfterEach(() => ({ feed, server }));

const A = '1111';
const HOUR = 3_600_000;

describe('books across a clock stepped back', () => {
  it('a book stamped after the step-back instant is stale at once, and asked for again; its new snapshot is fresh', async () => {
    server = await startServer();
    let subscribes = 0;
    server.onMessage = (ws, text) => {
      if (!isSubscribe(text)) return;
      subscribes++;
      ws.send(bookFrame(A, String(1_779_862_954_465 + subscribes)));
    };
    let offset = 0;
    const now = (): number => Date.now() + offset;
    feed = new MarketFeed({ config: feedConfig(server.url), tokens: [A], meta: {}, refreshQuietMs: 300, now });
    feed.start();
    await waitFor(() => feed!.book(A)?.inSync() === true, 3000);
    expect(bookFreshness(feed.book(A), now(), 15_000)).toBe('fresh');
    const before = subscribes;
    offset = -HOUR;
    // an age below zero says nothing of how old the book is: not fresh
    expect(bookFreshness(feed.book(A), now(), 15_000)).toBe('stale');
    await waitFor(() => subscribes > before, 3000);
    await waitFor(() => bookFreshness(feed!.book(A), now(), 15_000) === 'fresh', 3000);
  });
});
