// A scriptable market-channel server on 127.0.0.1:0 for the feed tests: records what clients send
// and lets each test decide how to answer PINGs and subscriptions.
import { afterEach } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';

export interface TestServer {
  url: string;
  received: string[];
  sockets: WebSocket[];
  connections: number;
  /** Called for every non-PING message; default: none. */
  onMessage: (ws: WebSocket, text: string) => void;
  answerPing: boolean;
  /** Per socket, overrides answerPing when set: whether this socket's PING is answered. */
  answerPingOf?: (ws: WebSocket) => boolean;
  close(): Promise<void>;
}

export async function startServer(): Promise<TestServer> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const addr = wss.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  const s: TestServer = {
    url: `ws://127.0.0.1:${port}`,
    received: [],
    sockets: [],
    connections: 0,
    onMessage: () => {},
    answerPing: true,
    close: () =>
      new Promise<void>((r) => {
        for (const c of wss.clients) c.terminate();
        wss.close(() => r());
      }),
  };
  wss.on('connection', (ws, req) => {
    s.connections++;
    s.sockets.push(ws);
    s.received.push(`CONNECT ${req.url ?? ''}`);
    ws.on('message', (d) => {
      const text = d.toString();
      s.received.push(text);
      if (text === 'PING') {
        if (s.answerPingOf ? s.answerPingOf(ws) : s.answerPing) ws.send('PONG');
        return;
      }
      s.onMessage(ws, text);
    });
  });
  return s;
}

/** Polls `cond` every 5 ms until true or `ms` elapse (bounded wait). */
export async function waitFor(cond: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('waitFor timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A subscription message (the initial or a live subscribe) naming assets, not an unsubscribe. */
export function isSubscribe(text: string): boolean {
  return text.includes('assets_ids') && !text.includes('"operation":"unsubscribe"');
}

export function bookFrame(assetId: string, ts = '1779862954465'): string {
  return JSON.stringify([{ market: '0xm', asset_id: assetId, timestamp: ts, hash: '', bids: [{ price: '0.4', size: '10' }], asks: [{ price: '0.6', size: '10' }], event_type: 'book' }]);
}

/**
 * A venue that keeps each socket's assets and sends a book only for assets new to the socket: a
 * subscribe to what the socket already carries is ignored (NautilusTrader's Polymarket adapter:
 * "The venue ignores a duplicate subscribe, so only a real cycle produces a fresh book snapshot");
 * an unsubscribe removes them. `book(id)` is the frame sent for a new asset.
 */
export function dupSubscribeIgnoringVenue(book: (assetId: string) => string = (id) => bookFrame(id)): (ws: WebSocket, text: string) => void {
  const carried = new WeakMap<WebSocket, Set<string>>();
  return (ws, text) => {
    let m: { assets_ids?: unknown; operation?: unknown };
    try {
      m = JSON.parse(text) as typeof m;
    } catch {
      return;
    }
    const ids = Array.isArray(m.assets_ids) ? m.assets_ids.filter((x): x is string => typeof x === 'string') : [];
    const mine = carried.get(ws) ?? new Set<string>();
    carried.set(ws, mine);
    if (m.operation === 'unsubscribe') {
      for (const id of ids) mine.delete(id);
      return;
    }
    for (const id of ids) {
      if (mine.has(id)) continue;
      mine.add(id);
      ws.send(book(id));
    }
  };
}

/** A MarketFeed's config for the feed tests, against `url`: fast timers, hashes checked every `verifyEvery` (0: none). */
export function feedConfig(url: string, verifyEvery = 0) {
  return {
    urls: { ws: url } as never,
    feed: { pingIntervalMs: 20, pongTimeoutMs: 1000, quietMs: 5000, probeTimeoutMs: 1000, reconnectBaseMs: 10, reconnectMaxMs: 40, priceFeedPingIntervalMs: 20, priceSymbols: [] },
    book: { verifyEvery, resync: 'resubscribe' as const, resyncTimeoutMs: 1500, groupIdleMs: 100 },
  };
}

/** After each test, the feed `get` names stopped and its server closed (the test file's own variables, set by its tests). */
export function stopAfterEach(get: () => { feed: { stop(): void } | undefined; server: TestServer | undefined }): void {
  afterEach(async () => {
    const { feed, server } = get();
    feed?.stop();
    await server?.close();
  });
}
