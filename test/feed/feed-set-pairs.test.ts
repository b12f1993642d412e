// A market's two tokens on one market connection (feed.maxAssetsPerConnection odd): a current-format
// price_change covers the whole market and is sent on every connection carrying either token, so a
// split pair had its entries applied twice (false gaps and resyncs). Against the emulator on 127.0.0.1.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { loadConfig } from '../../src/config.js';
import { MarketFeed } from '../../src/feed/market-feed.js';
import type { WebSocket } from 'ws';
import { startServer, waitFor, type TestServer } from './ws-server.js';

let emu: RunningEmulator;
let feed: MarketFeed | undefined;
let server: TestServer | undefined;
beforeAll(async () => {
  emu = await startEmulator({ markets: 3, seed: 3, tickMs: 10 });
});
afterAll(async () => {
  await emu.close();
});
afterEach(async () => {
  feed?.stop();
  feed = undefined;
  await server?.close();
  server = undefined;
});

function makeFeed(tokens: string[], bound: number): { feed: MarketFeed; oos: string[] } {
  const config = loadConfig({
    env: {},
    overrides: { urls: { ws: emu.urls.ws }, feed: { maxAssetsPerConnection: bound, pingIntervalMs: 200, reconnectBaseMs: 20, reconnectMaxMs: 50 }, log: { level: 'silent' } },
  });
  const meta = Object.fromEntries(emu.markets.flatMap((m) => m.tokens.map((t) => [t, { market: m.conditionId }])));
  const f = new MarketFeed({ config, tokens, meta });
  const oos: string[] = [];
  f.onOutOfSync((id, r) => oos.push(`${id}:${r}`));
  f.pipeline.connect({ engine: { handleMarketEvent: () => {} } });
  feed = f;
  return { feed: f, oos };
}

const allInSync = (f: MarketFeed, ids: Iterable<string>): boolean => [...ids].every((t) => f.book(t)?.inSync() === true);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('feed set: a market on one connection', () => {
  it('bound 3, three markets: no pair split, no gap over a few seconds of a busy market', async () => {
    const tokens = emu.markets.flatMap((m) => m.tokens);
    const { feed: f, oos } = makeFeed(tokens, 3);
    f.start();
    // one pair per connection: floor(3 / 2)
    expect(f.marketConnections().map((c) => [...c.assets])).toEqual(emu.markets.map((m) => m.tokens));
    await waitFor(() => f.marketStates().every((s) => s === 'live') && allInSync(f, tokens), 5000);
    await sleep(3000);
    expect(oos.filter((x) => !x.endsWith(':reconnect'))).toEqual([]);
    expect(f.outOfSync.get('gap') ?? 0).toBe(0);
    expect(allInSync(f, tokens)).toBe(true);
  });

  it('markets added while running keep their pair together, on the connection with room for both', async () => {
    const m = emu.markets;
    const { feed: f, oos } = makeFeed([...m[0].tokens], 3);
    f.start();
    await waitFor(() => allInSync(f, m[0].tokens), 5000);
    // the first connection has room for one asset: the pair goes on a new one
    f.addTokens(m[1].tokens);
    f.addTokens(m[2].tokens);
    expect(f.marketConnections().map((c) => [...c.assets])).toEqual(m.map((x) => x.tokens));
    await waitFor(
      () =>
        allInSync(
          f,
          m.flatMap((x) => x.tokens),
        ),
      5000,
    );
    await sleep(2000);
    expect(f.outOfSync.get('gap') ?? 0).toBe(0);
    expect(oos.filter((x) => !x.endsWith(':reconnect'))).toEqual([]);
  });
});

/** A current-format price_change of market M: an entry for each of its tokens (sizes are new aggregates). */
function change(ts: number, size: string, tokens: readonly string[]): string {
  const price_changes = tokens.map((asset_id, i) => ({ asset_id, price: i === 0 ? '0.4' : '0.6', size, side: i === 0 ? 'BUY' : 'SELL' }));
  return JSON.stringify({ market: '0xm', price_changes, timestamp: String(ts), event_type: 'price_change' });
}
function snapshot(assetId: string): string {
  return JSON.stringify([{ market: '0xm', asset_id: assetId, timestamp: '1000', hash: '', bids: [{ price: '0.4', size: '10' }], asks: [{ price: '0.6', size: '10' }], event_type: 'book' }]);
}

/**
 * A scripted venue: market 0xm's tokens A and B, and 0xo's tokens X0 and X1. Each connection gets
 * its snapshots on subscribe; `burst` sends two price_changes of 0xm on every connection carrying A
 * or B, the first connection's both before the second's (the interleaving two sockets can show).
 */
async function scripted(bound: number, tokens: string[], meta: Record<string, { market: string }>): Promise<{ f: MarketFeed; oos: string[]; burst: (ts: number) => void }> {
  const s = (server = await startServer());
  const subs = new Map<WebSocket, string[]>();
  s.onMessage = (ws, text) => {
    const m = JSON.parse(text) as { assets_ids?: string[]; operation?: string };
    const ids = m.operation === 'unsubscribe' ? [] : (m.assets_ids ?? []);
    subs.set(ws, [...(subs.get(ws) ?? []), ...ids]);
    for (const id of ids) ws.send(snapshot(id));
  };
  const config = loadConfig({ env: {}, overrides: { feed: { maxAssetsPerConnection: bound }, book: { verifyEvery: 0 }, log: { level: 'silent' } } });
  const f = (feed = new MarketFeed({ config: { ...config, urls: { ...config.urls, ws: s.url } }, tokens, meta }));
  const oos: string[] = [];
  f.onOutOfSync((id, r) => oos.push(`${id}:${r}`));
  f.pipeline.connect({ engine: { handleMarketEvent: () => {} } });
  f.start();
  await waitFor(() => f.marketStates().every((x) => x === 'live') && tokens.every((t) => f.book(t)?.inSync() === true), 3000);
  const burst = (ts: number) => {
    for (const [ws, ids] of subs) if (ids.includes('A') || ids.includes('B')) for (const k of [0, 1]) ws.send(change(ts + k, String(20 + k), ['A', 'B']));
  };
  return { f, oos, burst };
}

describe('feed set: a market price_change seen on two connections', () => {
  const meta = { A: { market: '0xm' }, B: { market: '0xm' }, X0: { market: '0xo' }, X1: { market: '0xo' } };
  /** Five bursts (ten price_changes on each connection carrying A or B), all read. */
  async function bursts(f: MarketFeed, burst: (ts: number) => void): Promise<void> {
    const frames = () => f.marketConnections().reduce((n, c) => n + c.conn.counters.frames, 0);
    const carrying = f.marketConnections().filter((c) => c.assets.has('A') || c.assets.has('B')).length;
    const before = frames();
    for (let i = 0; i < 5; i++) burst(2000 + 10 * i);
    await waitFor(() => frames() >= before + 10 * carrying, 2000);
  }

  it('bound 3: the pair rides one connection, so two sockets cannot interleave its deltas (no gap)', async () => {
    const { f, oos, burst } = await scripted(3, ['X0', 'X1', 'A', 'B'], meta);
    expect(f.marketConnections().map((c) => [...c.assets])).toEqual([
      ['X0', 'X1'],
      ['A', 'B'],
    ]);
    await bursts(f, burst);
    expect(oos).toEqual([]);
    expect([f.mirror.stats('A')!.deltas, f.mirror.stats('B')!.deltas]).toEqual([10, 10]);
  });

  it('bound 1 (a pair must split): each connection applies only the entries of the asset it carries', async () => {
    const { f, oos, burst } = await scripted(1, ['A', 'B'], meta);
    expect(f.marketConnections().map((c) => [...c.assets])).toEqual([['A'], ['B']]);
    await bursts(f, burst);
    expect(oos).toEqual([]);
    // each entry applied once: ten of A's, ten of B's
    expect([f.mirror.stats('A')!.deltas, f.mirror.stats('B')!.deltas]).toEqual([10, 10]);
  });
});

describe('config: feed.maxAssetsPerConnection', () => {
  it('is bounded at 500 (the per-connection limit reported for the venue)', () => {
    expect(loadConfig({ env: {}, overrides: { feed: { maxAssetsPerConnection: 500 } } }).feed.maxAssetsPerConnection).toBe(500);
    expect(() => loadConfig({ env: {}, overrides: { feed: { maxAssetsPerConnection: 501 } } })).toThrow(/maxAssetsPerConnection/);
  });
});
