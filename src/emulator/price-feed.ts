// The emulator's crypto price stream in the RTDS format (wire-formats.md 3): random-walk prices
// for a few symbols, `crypto_prices` (btcusdt...) and `crypto_prices_chainlink` (btc/usd...)
// topics, subscribe/unsubscribe with any of the filter syntaxes seen (comma list, JSON array,
// {"symbol":..}), a snapshot (`type:"subscribe"`) on subscribe, and PING/ping answered.
import { WebSocketServer, type WebSocket, type RawData } from 'ws';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Clock } from '../core/clock.js';
import type { Rng } from '../core/rng.js';
import { parseCryptoFilter } from '../feed/price-stream.js';
import { ConnectionSet } from './ws-conns.js';

const START: Record<string, number> = { btcusdt: 95_000, ethusdt: 3_500, solusdt: 180, xrpusdt: 2.5 };
const CHAINLINK: Record<string, string> = { 'btc/usd': 'btcusdt', 'eth/usd': 'ethusdt', 'sol/usd': 'solusdt', 'xrp/usd': 'xrpusdt' };
const TOPICS = new Set(['crypto_prices', 'crypto_prices_chainlink']);

interface Sub {
  topic: string;
  /** Empty = every symbol of the topic. */
  symbols: Set<string>;
}

interface Conn {
  ws: WebSocket;
  subs: Sub[];
}

export class PriceFeed {
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly conns = new ConnectionSet<Conn>();
  private readonly values = new Map<string, number>();
  private readonly history = new Map<string, Array<{ timestamp: number; value: number }>>();
  private timer: number | undefined;
  private closed = false;

  constructor(
    private readonly clock: Clock,
    private readonly rng: Rng,
    private readonly intervalMs = 1000,
  ) {
    for (const [s, v] of Object.entries(START)) {
      this.values.set(s, v);
      this.history.set(s, []);
    }
    this.tick();
  }

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const c: Conn = { ws, subs: [] };
      this.conns.add(c);
      ws.on('message', (d: RawData) => this.onMessage(c, d.toString()));
    });
  }

  private tick(): void {
    if (this.closed) return;
    const now = this.clock.now();
    for (const [s, v] of this.values) {
      const nv = Math.max(v * 0.5, v * (1 + 0.0005 * this.rng.normal()));
      const rounded = Number(nv.toFixed(v > 100 ? 2 : 4));
      this.values.set(s, rounded);
      const h = this.history.get(s)!;
      h.push({ timestamp: now, value: rounded });
      if (h.length > 60) h.shift();
      this.publish('crypto_prices', s, now, rounded);
      const cl = Object.keys(CHAINLINK).find((k) => CHAINLINK[k] === s)!;
      this.publish('crypto_prices_chainlink', cl, now, rounded);
    }
    this.timer = this.clock.schedule(now + this.intervalMs, () => this.tick());
  }

  private wants(c: Conn, topic: string, symbol: string): boolean {
    return c.subs.some((s) => s.topic === topic && (s.symbols.size === 0 || s.symbols.has(symbol)));
  }

  private publish(topic: string, symbol: string, now: number, value: number): void {
    if (this.conns.size === 0) return;
    const text = JSON.stringify({ topic, type: 'update', timestamp: now, payload: { symbol, timestamp: Math.floor(now / 1000) * 1000, value, full_accuracy_value: value.toFixed(8) } });
    for (const c of this.conns) if (this.wants(c, topic, symbol) && c.ws.readyState === c.ws.OPEN) c.ws.send(text);
  }

  private onMessage(c: Conn, text: string): void {
    if (text === 'PING' || text === 'ping') return void c.ws.send(text === 'PING' ? 'PONG' : 'pong');
    let m: unknown;
    try {
      m = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof m !== 'object' || m === null) return;
    const { action, subscriptions } = m as { action?: unknown; subscriptions?: unknown };
    if ((action !== 'subscribe' && action !== 'unsubscribe') || !Array.isArray(subscriptions)) return;
    for (const raw of subscriptions) {
      if (typeof raw !== 'object' || raw === null) continue;
      const topic = (raw as Record<string, unknown>).topic;
      if (typeof topic !== 'string' || !TOPICS.has(topic)) continue;
      const symbols = new Set(parseCryptoFilter((raw as Record<string, unknown>).filters));
      if (action === 'unsubscribe') {
        c.subs = c.subs.filter((s) => s.topic !== topic);
        continue;
      }
      c.subs.push({ topic, symbols });
      const now = this.clock.now();
      for (const sym of symbols) {
        const base = topic === 'crypto_prices' ? sym : CHAINLINK[sym];
        const h = base ? this.history.get(base) : undefined;
        if (!h) continue;
        c.ws.send(JSON.stringify({ topic, type: 'subscribe', timestamp: now, payload: { symbol: sym, data: h } }));
      }
    }
  }

  /** Drops every connection abruptly (a fault); returns how many. */
  dropAll(): number {
    return this.conns.dropAll();
  }

  close(): void {
    this.closed = true;
    if (this.timer !== undefined) this.clock.cancel(this.timer);
    this.dropAll();
    this.wss.close();
  }
}
