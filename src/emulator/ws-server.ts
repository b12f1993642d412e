// The emulator's WebSocket endpoint: /ws/market, /ws/user and /ws/all with the subscription
// messages of wire-formats.md sections 1-2 (initial and dynamic subscribe/unsubscribe), text
// PING -> PONG, the first book as a JSON array, market frames to the connections subscribed to
// the market's tokens (plus best_bid_ask with custom_feature_enabled), and user frames to the
// connections authenticated with their owner's key (the polymarket profile checks the whole credential).
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket, type RawData } from 'ws';
import type { Logger } from '../core/log.js';
import type { Exchange, UserFrame } from './exchange.js';
import type { FaultState } from './faults.js';
import type { KeyRegistry } from './keys.js';
import type { EmuMarket, MarketFrame } from './market.js';
import { SyntheticMarket } from './synthetic-market.js';
import { formatPrice } from '../core/units.js';
import { ConnectionSet } from './ws-conns.js';

export type ChannelKind = 'market' | 'user' | 'all';

const MAX_BUFFERED = 32 * 1024 * 1024;

interface Conn {
  ws: WebSocket;
  kind: ChannelKind;
  assets: Set<string>;
  /** Condition ids with at least one subscribed asset (market data routing). */
  marketsOfAssets: Set<string>;
  /** Condition ids of the user subscription; empty = every market. */
  userMarkets: Set<string>;
  apiKey?: string;
  /** custom_feature_enabled: also gets best_bid_ask events (synthetic markets). */
  custom: boolean;
  /** performance.now() of its last PING (or of its open). */
  pingedAt: number;
}

export interface WsHubOptions {
  exchange: Exchange;
  keys: KeyRegistry;
  faults: FaultState;
  log: Logger;
  /** The polymarket profile's check of a user subscription's auth {apiKey, secret, passphrase}: the owner, or undefined. */
  userAuth?: (auth: unknown) => string | undefined;
  /** A connection with no PING for this long is dropped, as the venue drops one (default WS_IDLE_DROP_MS; 0 = never). */
  idleDropMs?: number;
}

/**
 * The venue drops a client that stops sending PING "after about 10 seconds" of missing heartbeats
 * (wire-formats.md 1.2), the client pinging every 10 s: twice the interval.
 */
export const WS_IDLE_DROP_MS = 20_000;

export class WsHub {
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly conns = new ConnectionSet<Conn>();
  private readonly lastTop = new Map<string, string>();
  /** Counters a test or status line can read. */
  readonly stats = { connections: 0, framesSent: 0, badMessages: 0, slowDropped: 0, idleDropped: 0 };

  /** The idle bound in effect (WsHubOptions.idleDropMs). */
  readonly idleDropMs: number;
  private readonly idleTimer: NodeJS.Timeout | undefined;

  constructor(private readonly o: WsHubOptions) {
    this.idleDropMs = o.idleDropMs ?? WS_IDLE_DROP_MS;
    if (this.idleDropMs > 0) {
      this.idleTimer = setInterval(() => this.dropIdle(), Math.min(1000, Math.max(10, this.idleDropMs / 4)));
      this.idleTimer.unref();
    }
  }

  /** Drops, abruptly, the connections with no PING for the idle bound. */
  private dropIdle(): void {
    const now = performance.now();
    for (const c of this.conns) {
      if (now - c.pingedAt > this.idleDropMs) {
        this.stats.idleDropped++;
        c.ws.terminate();
      }
    }
  }

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, kind: ChannelKind): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.attach(ws, kind));
  }

  private attach(ws: WebSocket, kind: ChannelKind): void {
    const c: Conn = { ws, kind, assets: new Set(), marketsOfAssets: new Set(), userMarkets: new Set(), custom: false, pingedAt: performance.now() };
    this.conns.add(c);
    this.stats.connections++;
    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (isBinary) return void this.stats.badMessages++;
      this.onMessage(c, data.toString());
    });
  }

  private send(c: Conn, text: string): void {
    if (c.ws.readyState !== c.ws.OPEN) return;
    // a reader that stopped reading is cut off, as a venue would, instead of buffering without bound
    if (c.ws.bufferedAmount > MAX_BUFFERED) {
      this.stats.slowDropped++;
      c.ws.terminate();
      this.conns.delete(c);
      return;
    }
    c.ws.send(text);
    this.stats.framesSent++;
  }

  private onMessage(c: Conn, text: string): void {
    if (text === 'PING' || text === 'ping') {
      c.pingedAt = performance.now();
      return this.send(c, text === 'PING' ? 'PONG' : 'pong');
    }
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      this.stats.badMessages++;
      return;
    }
    if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) return void this.stats.badMessages++;
    const m = msg as Record<string, unknown>;
    const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
    // user part: auth + markets (the user and all channels)
    if (c.kind !== 'market' && (m.auth !== undefined || m.type === 'user' || m.type === 'all')) {
      const auth = m.auth as Record<string, unknown> | undefined;
      const named = typeof auth?.apiKey === 'string' ? auth.apiKey : undefined;
      const key = this.o.userAuth ? this.o.userAuth(auth) : this.o.keys.check(named) === 0 ? named : undefined;
      if (key === undefined) {
        this.send(c, JSON.stringify({ event_type: 'error', message: 'unauthorized: auth.apiKey missing or not accepted' }));
        c.ws.close(4401, 'unauthorized');
        return;
      }
      c.apiKey = key;
      for (const id of strings(m.markets)) c.userMarkets.add(id);
    }
    if (c.kind === 'user') {
      if (this.o.faults.cfg.userOpsIgnored) return;
      if (m.operation === 'subscribe') for (const id of strings(m.markets)) c.userMarkets.add(id);
      if (m.operation === 'unsubscribe') for (const id of strings(m.markets)) c.userMarkets.delete(id);
      return;
    }
    if (this.o.faults.cfg.silentFeed) return; // a silent feed ignores (re)subscribes
    const ids = strings(m.assets_ids);
    if (m.operation === 'unsubscribe') {
      for (const id of ids) c.assets.delete(id);
      this.reindex(c);
      return;
    }
    if (m.custom_feature_enabled === true) c.custom = true;
    const fresh = ids.filter((id) => this.o.exchange.byToken.has(id));
    for (const id of fresh) c.assets.add(id);
    this.reindex(c);
    if (m.initial_dump !== false) this.sendSnapshots(c, fresh);
  }

  private reindex(c: Conn): void {
    c.marketsOfAssets.clear();
    for (const a of c.assets) {
      const m = this.o.exchange.byToken.get(a);
      if (m) c.marketsOfAssets.add(m.market.conditionId);
    }
  }

  private sendSnapshots(c: Conn, assetIds: string[]): void {
    const byMarket = new Map<EmuMarket, string[]>();
    for (const id of assetIds) {
      const m = this.o.exchange.byToken.get(id)!.market;
      const l = byMarket.get(m);
      if (l) {
        if (!l.includes(id)) l.push(id);
      } else byMarket.set(m, [id]);
    }
    for (const [m, ids] of byMarket) {
      const books = m.snapshot(ids);
      if (books.length) this.send(c, JSON.stringify(books));
    }
  }

  /** Publishes one market frame (after the fault filter) to every subscribed market/all connection. */
  publishMarket(f: MarketFrame): void {
    if (this.conns.size === 0) return;
    if (this.o.faults.cfg.silentFeed) return;
    const text = this.o.faults.marketFrame(f.text, f.type);
    if (text === undefined) return;
    for (const c of this.conns) {
      if (c.kind === 'user') continue;
      if (f.assetId ? c.assets.has(f.assetId) : c.marketsOfAssets.has(f.conditionId)) this.send(c, text);
    }
    if (f.type === 'price_change' || f.type === 'book') this.bestBidAsk(f);
  }

  /** best_bid_ask (wire-formats.md 1.7) when a synthetic market's top of book moved, to custom-feature subscribers. */
  private bestBidAsk(f: MarketFrame): void {
    const m = this.o.exchange.byCondition.get(f.conditionId);
    if (!(m instanceof SyntheticMarket)) return; // a replay publishes only what was recorded
    for (const t of m.tokens) {
      const b = m.frames.book(t);
      const bid = b.bestBid();
      const ask = b.bestAsk();
      const key = `${bid}|${ask}`;
      if (this.lastTop.get(t) === key) continue;
      this.lastTop.set(t, key);
      if (bid < 0 || ask < 0) continue;
      const text = JSON.stringify({
        event_type: 'best_bid_ask',
        market: m.conditionId,
        asset_id: t,
        best_bid: m.frames.price(bid),
        best_ask: m.frames.price(ask),
        spread: formatPrice(ask - bid, 2),
        timestamp: String(f.ts),
      });
      for (const c of this.conns) if (c.custom && c.kind !== 'user' && c.assets.has(t)) this.send(c, text);
    }
  }

  publishUser(f: UserFrame): void {
    if (this.o.faults.cfg.silentUser) return;
    let text: string | undefined;
    for (const c of this.conns) {
      if (c.kind === 'market' || c.apiKey !== f.owner) continue;
      if (c.userMarkets.size === 0 || c.userMarkets.has(f.conditionId)) this.send(c, (text ??= this.o.faults.userFrame(f.text)));
    }
  }

  /** The condition ids each open user-channel connection is subscribed to, sorted (tests, inspection). */
  userSubscriptions(): string[][] {
    const out: string[][] = [];
    for (const c of this.conns) if (c.kind === 'user' && c.apiKey !== undefined) out.push([...c.userMarkets].sort());
    return out;
  }

  /** Drops every connection abruptly (a fault); returns how many. */
  dropAll(): number {
    return this.conns.dropAll();
  }

  close(): void {
    if (this.idleTimer) clearInterval(this.idleTimer);
    this.dropAll();
    this.wss.close();
  }
}
