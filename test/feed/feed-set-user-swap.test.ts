// Markets added to the user channel while running, on a venue that keeps a connection's first
// subscription only (wire-formats.md 2 describes no other; the emulator's fault userOpsIgnored):
// a second user connection opens with the whole list and takes over once its subscription is in
// effect (make-before-break), the channel never leaving 'live', events seen on both meanwhile
// delivered once, and adds made during a swap served by one more swap after it.
import type { WebSocket } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { loadConfig } from '../../src/config.js';
import { MarketFeed } from '../../src/feed/market-feed.js';
import { marketsFromTokens } from '../../src/session/markets.js';
import type { UserEvent } from '../../src/core/events.js';
import { KEY, sleep, startDaemon } from '../status/daemon-fixture.js';
import { startServer, waitFor, type TestServer } from './ws-server.js';

async function until<T>(what: string, ok: () => Promise<T | undefined | false> | T | undefined | false, ms = 15_000, every = 50): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await ok();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(every);
  }
}

describe('daemon: a market added to the user channel of a venue that ignores live operations', () => {
  it('gets its fills over the user channel within 2 s, no forced reconnect, the channel live throughout', async () => {
    const r = await startDaemon(3, { seed: 5, trade: 2 });
    const d = r.daemon;
    const ex = r.emu.exchange;
    try {
      const subscribed = () => r.emu.ws.userSubscriptions();
      await until('the user channel subscribed', () => subscribed().length === 1);
      r.emu.admin.set({ userOpsIgnored: true });
      const [mA, mB] = d.markets;
      const [mC] = await marketsFromTokens(d.clients.clob, [r.emu.markets[2].facts.tokens[0]], silentLogger);
      const userStates: string[] = [];
      d.feed.onState((ch, s) => ch === 'user' && userStates.push(s));
      const flags: boolean[] = [];
      const setFeedLive = d.engine.setFeedLive.bind(d.engine);
      d.engine.setFeedLive = (live: boolean) => {
        flags.push(live);
        setFeedLive(live);
      };
      const trades: UserEvent[] = [];
      d.feed.onUserEvent((e) => e.type === 'trade' && e.market === mC.conditionId && trades.push(e));
      const reconnects = d.feed.counters().user_ws_reconnects;

      d.setMarkets([mA, mB, mC]);
      const bid = await until('our bid resting on C', () => ex.openOrders(KEY).find((o) => o.side === 'BUY' && o.market.conditionId === mC.conditionId));
      const fillsBefore = d.engine.ledger.count();
      // a sell of everything bid at or above our price (at our price), so it reaches our order
      const depth: number[] = [];
      const n = r.emu.markets[2].frames.book(bid.assetId).depth('BUY', 100, depth);
      let units = 0;
      for (let i = 0; i < n; i++) if (depth[2 * i] >= bid.price) units += depth[2 * i + 1];
      const shares = Math.ceil(Math.max(5, units / 100));
      ex.split('swap-test-taker', mC.conditionId, shares * 100);
      const out = await ex.place('swap-test-taker', { tokenID: bid.assetId, side: 'SELL', price: bid.price / 10_000, size: shares, orderType: 'FAK' });
      expect(out.errorMsg).toBe('');
      // over the user channel (not a look-up at the venue), within 2 s
      await until('the trade on the user channel', () => trades.length > 0, 2000, 10);
      await until('the fill in the engine', () => d.engine.ledger.count() > fillsBefore, 2000, 10);
      // one user connection again, holding C, once the new one took over
      await until('the user channel swapped to one subscribed with C', () => {
        const s = subscribed();
        return s.length === 1 && s[0].includes(mC.conditionId);
      });
      expect(subscribed()[0]).toEqual([mA.conditionId, mB.conditionId, mC.conditionId].sort());
      expect(d.feed.counters().user_ws_reconnects).toBe(reconnects);
      expect(d.feed.counters().user_ws_swaps).toBe(1);
      expect(userStates).toEqual([]);
      expect(d.feedStates.user).toBe('live');
      expect(flags).not.toContain(false);
    } finally {
      await r.close();
    }
  }, 60_000);
});

let server: TestServer | undefined;
let feed: MarketFeed | undefined;
afterEach(async () => {
  feed?.stop();
  feed = undefined;
  await server?.close();
  server = undefined;
});

function orderFrame(id: string, market: string): string {
  return JSON.stringify({
    event_type: 'order',
    type: 'PLACEMENT',
    id,
    market,
    asset_id: `${market}-yes`,
    side: 'BUY',
    price: '0.5',
    original_size: '10',
    size_matched: '0',
    status: 'LIVE',
    timestamp: '1780000000000',
  });
}

/**
 * A venue that keeps only the first subscription of each user connection (the spec's), the sockets
 * open with what each subscribed, and a MarketFeed on it (user channel of M1; its user states).
 */
async function swapVenue(userTakeoverMs?: number, pongTimeoutMs = 5000) {
  const s = (server = await startServer());
  const subs = new Map<WebSocket, string[]>();
  s.onMessage = (ws, text) => {
    const m = JSON.parse(text) as { type?: string; markets?: string[] };
    if (m.type === 'user' && !subs.has(ws)) subs.set(ws, [...(m.markets ?? [])].sort());
  };
  const open = () => [...subs].filter(([ws]) => ws.readyState === ws.OPEN);
  const config = loadConfig({ env: {}, overrides: { feed: { pingIntervalMs: 50, pongTimeoutMs, reconnectBaseMs: 20, reconnectMaxMs: 50 }, log: { level: 'silent' } } });
  const f = (feed = new MarketFeed({ config: { ...config, urls: { ...config.urls, ws: s.url } }, tokens: [], conditionIds: ['M1'], auth: { apiKey: 'k' }, userTakeoverMs }));
  const states: string[] = [];
  f.onState((ch, st) => ch === 'user' && states.push(st));
  return { s, open, f, states };
}

describe('MarketFeed: user-channel swaps', () => {
  it('events on both connections during a swap are delivered once; adds during a swap make one more swap after it', async () => {
    const { s, open, f, states } = await swapVenue();
    const events: string[] = [];
    f.onUserEvent((e) => e.type === 'order' && events.push(e.orderId));
    f.start();
    await waitFor(() => f.user?.state === 'live' && open().length === 1, 3000);
    states.length = 0;

    // the handover waits for a PING answered on the new connection: held while none is
    s.answerPing = false;
    f.addUserMarkets(['M2']);
    await waitFor(() => open().length === 2, 3000);
    const [[oldWs], [newWs, newSub]] = open();
    expect(newSub).toEqual(['M1', 'M2']);
    // an event the venue sends on both: once; one only the new connection has (M2): once
    oldWs.send(orderFrame('x1', 'M1'));
    newWs.send(orderFrame('x1', 'M1'));
    newWs.send(orderFrame('y1', 'M2'));
    oldWs.send(orderFrame('z1', 'M1'));
    await waitFor(() => events.length >= 3, 2000);
    await sleep(100);
    expect(events.sort()).toEqual(['x1', 'y1', 'z1']);
    newWs.send(orderFrame('z1', 'M1'));

    // two adds while the swap is in progress: the connection opened took their ops, not its subscription
    f.addUserMarkets(['M3']);
    f.addUserMarkets(['M4']);
    await sleep(100);
    expect(open()).toHaveLength(2);
    expect([...f.userMarkets()].sort()).toEqual(['M1', 'M2', 'M3', 'M4']);
    s.answerPing = true;
    // one more swap: three connections in all, one left open with the whole list
    await waitFor(() => s.connections === 3 && open().length === 1 && f.counters().user_ws_swaps === 2, 5000);
    expect(open()[0][1]).toEqual(['M1', 'M2', 'M3', 'M4']);
    expect(oldWs.readyState).not.toBe(oldWs.OPEN);
    expect(newWs.readyState).not.toBe(newWs.OPEN);
    expect(states).toEqual([]);
    expect(f.user?.state).toBe('live');
    expect(f.counters().user_ws_reconnects).toBe(0);
    expect(events.sort()).toEqual(['x1', 'y1', 'z1']);
  });

  it('a second connection that never takes over is given up: the first goes on, and the next add swaps no more until it reconnects', async () => {
    const { s, open, f, states } = await swapVenue(300);
    f.start();
    await waitFor(() => f.user?.state === 'live' && open().length === 1, 3000);
    states.length = 0;
    const first = open()[0][0];
    // no PING answered: the new connection can never prove its subscription in effect
    s.answerPing = false;
    f.addUserMarkets(['M2']);
    await waitFor(() => open().length === 2, 3000);
    await waitFor(() => open().length === 1, 3000);
    expect(open()[0][0]).toBe(first);
    expect(f.counters().user_ws_swaps ?? 0).toBe(0);
    // another add: an operation only, no second connection until the first reconnects
    f.addUserMarkets(['M3']);
    await sleep(200);
    expect(s.connections).toBe(2);
    expect(states).toEqual([]);
    expect([...f.userMarkets()].sort()).toEqual(['M1', 'M2', 'M3']);
  });

  // A swap's new connection that fails its PING must never take over: the working one stays, and
  // the channel never reports down (which would cancel every order).
  it('a new connection the venue closes before answering its PING does not take over: the first stays current, the channel never leaves live', async () => {
    const { s, open, f, states } = await swapVenue(10_000, 1000);
    f.start();
    await waitFor(() => f.user?.state === 'live' && open().length === 1, 3000);
    states.length = 0;
    const first = open()[0][0];
    // every later socket is closed at its first PING, before any PONG
    s.answerPingOf = (ws) => {
      if (ws === first) return true;
      ws.close();
      return false;
    };
    f.addUserMarkets(['M2']);
    await waitFor(() => s.connections >= 3, 3000);
    await sleep(300);
    expect(first.readyState).toBe(first.OPEN);
    expect(f.user?.state).toBe('live');
    expect(f.counters().user_ws_swaps ?? 0).toBe(0);
    expect(states).toEqual([]);
  });

  it('a new connection that stays open but never answers its PING does not take over when its flush times out', async () => {
    const { s, open, f, states } = await swapVenue(10_000, 1000);
    f.start();
    await waitFor(() => f.user?.state === 'live' && open().length === 1, 3000);
    states.length = 0;
    const first = open()[0][0];
    s.answerPingOf = (ws) => ws === first;
    f.addUserMarkets(['M2']);
    await waitFor(() => open().length === 2, 3000);
    // past the flush's 1 s timeout (and the new socket's own watchdog, which kills it)
    await sleep(2500);
    expect(first.readyState).toBe(first.OPEN);
    expect(f.counters().user_ws_swaps ?? 0).toBe(0);
    expect(states).toEqual([]);
  });

  it('a new connection whose proven open dropped and reopened while the old one flushed does not take over on the old proof', async () => {
    const { s, open, f, states } = await swapVenue(10_000, 1000);
    f.start();
    await waitFor(() => f.user?.state === 'live' && open().length === 1, 3000);
    states.length = 0;
    const first = open()[0][0];
    const later: WebSocket[] = [];
    s.answerPingOf = (ws) => {
      // the old connection answers, 500 ms late: its flush outlasts the new one's first open
      if (ws === first) {
        setTimeout(() => ws.readyState === ws.OPEN && ws.send('PONG'), 500);
        return false;
      }
      if (!later.includes(ws)) later.push(ws);
      // the new one's first open answers, then is dropped; its next open never answers
      if (later.indexOf(ws) === 0) {
        setTimeout(() => ws.close(), 30);
        return true;
      }
      return false;
    };
    f.addUserMarkets(['M2']);
    await waitFor(() => later.length >= 2, 3000);
    // past the old flush's PONG (500 ms), before the second open's own flush times out (1 s)
    await sleep(700);
    expect(first.readyState).toBe(first.OPEN);
    expect(f.counters().user_ws_swaps ?? 0).toBe(0);
    expect(states).toEqual([]);
  });

  it('a market added while the user connection is not open goes into its next subscription: no swap', async () => {
    const s = (server = await startServer());
    const subs: string[][] = [];
    s.onMessage = (_ws, text) => {
      const m = JSON.parse(text) as { type?: string; markets?: string[] };
      if (m.type === 'user') subs.push([...(m.markets ?? [])].sort());
    };
    const config = loadConfig({ env: {}, overrides: { feed: { pingIntervalMs: 50, reconnectBaseMs: 200, reconnectMaxMs: 300 }, log: { level: 'silent' } } });
    const f = (feed = new MarketFeed({ config: { ...config, urls: { ...config.urls, ws: s.url } }, tokens: [], conditionIds: ['M1'], auth: { apiKey: 'k' } }));
    f.start();
    await waitFor(() => f.user?.state === 'live' && subs.length === 1, 3000);
    f.user?.drop();
    await waitFor(() => f.user?.state === 'down', 2000);
    f.addUserMarkets(['M2']);
    await waitFor(() => subs.length === 2, 3000);
    await sleep(200);
    expect(subs).toEqual([['M1'], ['M1', 'M2']]);
    expect(s.connections).toBe(2);
    expect(f.counters().user_ws_swaps ?? 0).toBe(0);
  });
});
