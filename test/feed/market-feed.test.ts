// The facade end to end against a loopback server: decoded events and book updates flow, bad
// frames are counted and the loop survives, a wrong hash makes the token out of sync and the
// resync resubscribes it; the fresh snapshot brings it back.
import { describe, expect, it } from 'vitest';
import { bookHash } from '../../src/book/hash.js';
import { MarketFeed } from '../../src/feed/market-feed.js';
import type { MarketEvent } from '../../src/core/events.js';
import { feedConfig, isSubscribe, startServer, stopAfterEach, type TestServer, waitFor } from './ws-server.js';

let server: TestServer | undefined;
let feed: MarketFeed | undefined;
stopAfterEach(() => ({ feed, server }));

const A = '1111';
const META = { market: '0xm', minOrderSize: '5', tickSize: '0.01', negRisk: false, lastTradePrice: '0.5' };
function snapshot(ts: string): string {
  const bids: Array<[string, string]> = [
    ['0.4', '10'],
    ['0.45', '2'],
  ];
  const asks: Array<[string, string]> = [['0.55', '3']];
  const hash = bookHash({ assetId: A, timestamp: ts, bids, asks, ...META });
  return JSON.stringify([
    {
      market: '0xm',
      asset_id: A,
      timestamp: ts,
      hash,
      bids: bids.map(([price, size]) => ({ price, size })),
      asks: asks.map(([price, size]) => ({ price, size })),
      tick_size: '0.01',
      event_type: 'book',
      last_trade_price: '0.5',
    },
  ]);
}
function change(ts: string, hash: string): string {
  return JSON.stringify({
    market: '0xm',
    price_changes: [{ asset_id: A, price: '0.46', size: '1', side: 'BUY', hash, best_bid: '0.46', best_ask: '0.55' }],
    timestamp: ts,
    event_type: 'price_change',
  });
}
describe('MarketFeed', () => {
  it('survives bad frames, detects a wrong hash, resyncs by resubscribing', async () => {
    server = await startServer();
    let snapshots = 0;
    server.onMessage = (ws, text) => {
      if (isSubscribe(text)) {
        snapshots++;
        ws.send(snapshot(String(100 * snapshots)));
        if (snapshots === 1) {
          ws.send('{garbage');
          ws.send('{"event_type":"surprise","market":"0xm"}');
          ws.send('PONG');
          ws.send(change('150', 'f'.repeat(40))); // wrong hash
          ws.send(change('160', 'f'.repeat(40))); // closes the 150 group
        }
      }
    };
    feed = new MarketFeed({ config: feedConfig(server.url, 1), tokens: [A], meta: { [A]: META } });
    const events: MarketEvent[] = [];
    const oos: string[] = [];
    let updates = 0;
    feed.pipeline.connect({ engine: { handleMarketEvent: (e) => events.push(e) } });
    feed.onOutOfSync((id, r) => oos.push(`${id}:${r}`));
    feed.onBook(() => updates++);
    feed.start();
    await waitFor(() => snapshots >= 2 && feed!.book(A)!.inSync() && feed!.mirror.stats(A)!.snapshots === 2, 3000);
    expect(oos).toEqual([`${A}:hash_mismatch`]);
    const c = feed.counters();
    expect(c.market_decode_rejected).toBe(2);
    expect(c['market_decode_reject:malformed_json']).toBe(1);
    expect(c['market_decode_reject:unknown_event:surprise']).toBe(1);
    expect(feed.resync.stats.episodes.hash_mismatch).toBe(1);
    expect(feed.outOfSync.get('hash_mismatch')).toBe(1);
    expect(server.received.filter((m) => m.includes('"operation":"subscribe"')).map((m) => JSON.parse(m).assets_ids)).toEqual([[A]]);
    expect(events.filter((e) => e.type === 'book')).toHaveLength(2);
    expect(feed.mirror.stats(A)).toMatchObject({ hashesVerified: 2, mismatches: 1 });
    expect(updates).toBeGreaterThanOrEqual(3);
  });

  it('throttles resyncs: a snapshot that never verifies does not cause a resubscribe storm', async () => {
    server = await startServer();
    server.onMessage = (ws, text) => {
      if (isSubscribe(text)) ws.send(snapshot('100').replace(/"hash":"[0-9a-f]+"/, `"hash":"${'0'.repeat(40)}"`));
    };
    feed = new MarketFeed({ config: feedConfig(server.url, 1), tokens: [A], meta: { [A]: META } });
    feed.start();
    await waitFor(() => feed!.mirror.stats(A)?.mismatches === 2, 3000);
    await new Promise((r) => setTimeout(r, 400));
    // the initial subscription + one immediate resync; the next waits >= 1 s
    expect(server.received.filter((m) => m.includes('"operation":"subscribe"'))).toHaveLength(1);
    expect(feed.mirror.stats(A)!.mismatches).toBe(2);
    expect(feed.resync.stats.episodes.hash_mismatch).toBe(2);
  });

  it('verifies the last timestamp group of a quiet market after a short idle', async () => {
    server = await startServer();
    server.onMessage = (ws, text) => {
      if (isSubscribe(text)) {
        ws.send(snapshot('100'));
        const bids: Array<[string, string]> = [
          ['0.4', '10'],
          ['0.45', '2'],
          ['0.46', '1'],
        ];
        ws.send(change('200', bookHash({ assetId: A, timestamp: '200', bids, asks: [['0.55', '3']], ...META })));
      }
    };
    feed = new MarketFeed({ config: feedConfig(server.url, 1), tokens: [A], meta: { [A]: META } });
    feed.start();
    await waitFor(() => feed!.mirror.stats(A)?.deltas === 1, 2000);
    expect(feed.mirror.stats(A)!.hashesVerified).toBe(1);
    await waitFor(() => feed!.mirror.stats(A)!.hashesVerified === 2, 2000);
    expect(feed.mirror.stats(A)!.mismatches).toBe(0);
  });
  it('refuses a snapshot without a valid hash and drops frames for tokens it did not subscribe to', async () => {
    server = await startServer();
    let subs = 0;
    server.onMessage = (ws, text) => {
      // the refused snapshot asks for a resync (a re-subscribe): answered with nothing here
      if (!isSubscribe(text) || ++subs > 1) return;
      ws.send(snapshot('100').replace(/"hash":"[0-9a-f]+"/, '"hash":""')); // unprovable
      for (let i = 0; i < 50; i++) ws.send(snapshot('100').replaceAll(A, `9${i}`)); // nobody asked for these
      ws.send(snapshot('110'));
    };
    feed = new MarketFeed({ config: feedConfig(server.url, 1), tokens: [A], meta: { [A]: META } });
    feed.start();
    await waitFor(() => feed!.book(A)?.inSync() === true, 3000);
    const c = feed.counters();
    expect(c.book_rejected_snapshots).toBe(1);
    expect(c.book_dropped_unknown_token).toBe(50);
    expect(feed.mirror.assetIds()).toEqual([A]);
    expect(feed.mirror.stats(A)).toMatchObject({ snapshots: 1, hashesVerified: 1 });
  });
});
