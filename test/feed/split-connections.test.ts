// The market channel split over several connections (feed.maxAssetsPerConnection) against the
// emulator on 127.0.0.1: ceil(assets/bound) connections, every book in sync; one connection dropped
// puts only its own books out of sync (they come back, the others stay in sync); assets added fill
// the last connection before a new one opens (a market's tokens together), and removing assets
// closes no other connection.
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { loadConfig } from '../../src/config.js';
import { MarketFeed } from '../../src/feed/market-feed.js';
import type { ConnectionState } from '../../src/feed/connection.js';
import { waitFor } from './ws-server.js';

let emu: RunningEmulator;
let feed: MarketFeed | undefined;
beforeAll(async () => {
  emu = await startEmulator({ markets: 4, seed: 3, tickMs: 10 });
});
afterAll(async () => {
  await emu.close();
});
afterEach(() => {
  feed?.stop();
  feed = undefined;
});

function makeFeed(tokens: string[], bound: number): { feed: MarketFeed; states: ConnectionState[]; oos: string[] } {
  const config = loadConfig({
    env: {},
    overrides: { urls: { ws: emu.urls.ws }, feed: { maxAssetsPerConnection: bound, pingIntervalMs: 200, reconnectBaseMs: 20, reconnectMaxMs: 50 }, log: { level: 'silent' } },
  });
  const meta = Object.fromEntries(emu.markets.flatMap((m) => m.tokens.map((t) => [t, { market: m.conditionId }])));
  const f = new MarketFeed({ config, tokens, meta });
  const states: ConnectionState[] = [];
  const oos: string[] = [];
  f.onState((ch, s) => ch === 'market' && states.push(s));
  f.onOutOfSync((id, r) => oos.push(`${id}:${r}`));
  f.pipeline.connect({ engine: { handleMarketEvent: () => {} } });
  feed = f;
  return { feed: f, states, oos };
}

const allInSync = (f: MarketFeed, ids: Iterable<string>): boolean => [...ids].every((t) => f.book(t)?.inSync() === true);

describe('MarketFeed over several market connections', () => {
  it('opens ceil(assets/bound) connections; a dropped one resyncs only its books', async () => {
    const tokens = emu.markets.slice(0, 3).flatMap((m) => m.tokens);
    const { feed: f, states, oos } = makeFeed(tokens, 2);
    f.start();
    const conns = f.marketConnections();
    expect(conns.length).toBe(3);
    expect(conns.map((c) => [...c.assets])).toEqual([tokens.slice(0, 2), tokens.slice(2, 4), tokens.slice(4, 6)]);
    await waitFor(() => f.marketStates().every((s) => s === 'live') && allInSync(f, tokens), 5000);
    expect(states[states.length - 1]).toBe('live');

    const victim = conns[1];
    const others = tokens.filter((t) => !victim.assets.has(t));
    const epoch = victim.conn.epoch;
    const otherEpochs = [conns[0].conn.epoch, conns[2].conn.epoch];
    oos.length = 0;
    victim.conn.drop();
    await waitFor(() => oos.length >= 2, 3000);
    expect(oos.sort()).toEqual([...victim.assets].map((t) => `${t}:reconnect`).sort());
    // while it is down the feed reports the worst state
    expect(states).toContain('down');
    expect(allInSync(f, others)).toBe(true);
    await waitFor(() => victim.conn.epoch === epoch + 1 && allInSync(f, tokens), 5000);
    expect(allInSync(f, others)).toBe(true);
    expect([conns[0].conn.epoch, conns[2].conn.epoch]).toEqual(otherEpochs);
    expect(oos.sort()).toEqual([...victim.assets].map((t) => `${t}:reconnect`).sort());
    expect(f.pipeline.reconnects).toBe(1);
    await waitFor(() => states[states.length - 1] === 'live', 2000);
  });

  it('adds assets to the last connection first, removes without touching other connections', async () => {
    const m = emu.markets;
    const { feed: f } = makeFeed([m[0].tokens[0], m[0].tokens[1], m[1].tokens[0]], 2);
    f.start();
    expect(f.marketConnections().length).toBe(2);
    await waitFor(() => f.marketStates().every((s) => s === 'live') && allInSync(f, [...m[0].tokens, m[1].tokens[0]]), 5000);
    const [c0, c1] = f.marketConnections();
    const epochs = () => f.marketConnections().map((c) => c.conn.epoch);

    // one more asset fills the last connection: no new connection, no reconnect
    f.addTokens([m[1].tokens[1]]);
    expect(f.marketConnections().length).toBe(2);
    expect([...c1.assets]).toEqual([m[1].tokens[0], m[1].tokens[1]]);
    await waitFor(() => allInSync(f, m[1].tokens), 5000);
    expect(epochs()).toEqual([1, 1]);

    // two more open a third connection; the others are left alone
    f.addTokens(m[2].tokens);
    expect(f.marketConnections().length).toBe(3);
    await waitFor(() => f.marketStates().every((s) => s === 'live') && allInSync(f, m[2].tokens), 5000);
    expect(epochs()).toEqual([1, 1, 1]);

    // removing one asset unsubscribes it; removing a connection's last closes only that one
    f.removeTokens([m[0].tokens[1]]);
    f.removeTokens(m[1].tokens);
    expect(f.marketConnections().length).toBe(2);
    expect(c1.conn.state).toBe('down');
    expect(f.marketConnections().map((c) => c.conn)).toEqual([c0.conn, f.marketConnections()[1].conn]);
    await new Promise((r) => setTimeout(r, 300));
    expect(f.marketStates()).toEqual(['live', 'live']);
    expect(epochs()).toEqual([1, 1]);
    expect(allInSync(f, [m[0].tokens[0], ...m[2].tokens])).toBe(true);
    // what was removed is forgotten: no book or sync state is kept for it
    const removed = [m[0].tokens[1], ...m[1].tokens];
    for (const t of removed) expect([t, f.book(t), f.mirror.syncInfo(t)]).toEqual([t, undefined, undefined]);
    expect(f.mirror.assetIds().filter((t) => removed.includes(t))).toEqual([]);

    // a market goes where both its tokens fit (never split): the room freed on the first is one asset, so a new connection opens
    f.addTokens(m[3].tokens);
    expect(f.marketConnections().length).toBe(3);
    expect([...f.marketConnections()[0].assets]).toEqual([m[0].tokens[0]]);
    expect([...f.marketConnections()[2].assets]).toEqual(m[3].tokens);
    await waitFor(() => allInSync(f, m[3].tokens), 5000);
    expect(epochs()).toEqual([1, 1, 1]);
    // the freed room is used before a new connection opens: one token fits there
    f.addTokens([m[0].tokens[1]]);
    expect(f.marketConnections().length).toBe(3);
    expect([...f.marketConnections()[0].assets]).toEqual(m[0].tokens);
    await waitFor(() => allInSync(f, m[0].tokens), 5000);
    expect(epochs()).toEqual([1, 1, 1]);

    // a removed token added again starts afresh: a new snapshot, verified
    f.addTokens(m[1].tokens);
    await waitFor(() => allInSync(f, m[1].tokens), 5000);
    for (const t of m[1].tokens) expect(f.mirror.stats(t)?.snapshots).toBe(1);
  });
});
