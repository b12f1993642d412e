// Crypto reference prices from the real-time data socket (wire-formats.md section 3): subscribes
// `crypto_prices` by symbol over the one FeedConnection (PING every 5 s, reconnect), decodes
// updates and the initial `type:"subscribe"` dump into CryptoPriceEvents, keeps the last price.
// A data watchdog as on the market channel: no price for quietMs and the stream is probed (an
// unsubscribe and a subscribe: a fresh `type:"subscribe"` dump answers); none within
// probeTimeoutMs and it reconnects. A stream that answers PING but stopped sending prices would
// otherwise stay up with frozen reference prices.
import type { Logger } from '../core/log.js';
import { FeedConnection, type ConnectionOptions, type ConnectionState } from './connection.js';
import { DecodeStats } from './decode-stats.js';
import type { CryptoPriceEvent } from '../core/events.js';
import { unixToMs } from '../core/units.js';

export { PRICES_CHANNEL } from './channels.js';

/** The three filter syntaxes the sources disagree on; we send one (configurable), accept all. */
export type FilterStyle = 'comma' | 'json-array' | 'object';

export function cryptoSubscribeMessage(action: 'subscribe' | 'unsubscribe', symbols: readonly string[], style: FilterStyle): string {
  const subs =
    style === 'object'
      ? symbols.map((s) => ({ topic: 'crypto_prices', type: 'update', filters: JSON.stringify({ symbol: s }) }))
      : [{ topic: 'crypto_prices', type: 'update', filters: style === 'comma' ? symbols.join(',') : JSON.stringify(symbols) }];
  return JSON.stringify({ action, subscriptions: subs });
}

/** Symbols named by a `filters` value in any of the three syntaxes (string or already-parsed). */
export function parseCryptoFilter(filters: unknown): string[] {
  let v = filters;
  if (typeof v === 'string') {
    const t = v.trim();
    if (t.startsWith('[') || t.startsWith('{')) {
      try {
        v = JSON.parse(t);
      } catch {
        return [];
      }
    } else {
      return t
        .split(',')
        .map((s) => s.trim().toLowerCase())
        .filter(Boolean);
    }
  }
  if (Array.isArray(v)) return v.filter((s): s is string => typeof s === 'string').map((s) => s.toLowerCase());
  if (v && typeof v === 'object' && typeof (v as { symbol?: unknown }).symbol === 'string') return [(v as { symbol: string }).symbol.toLowerCase()];
  return [];
}

function num(v: unknown): number {
  return typeof v === 'number' ? v : typeof v === 'string' && v !== '' ? Number(v) : NaN;
}

/** Decodes one RTDS frame into price events (an update gives one, a subscribe dump gives each point). */
export function decodePriceFrame(text: string, out: CryptoPriceEvent[], stats: DecodeStats): number {
  stats.frames++;
  if (text === 'PONG' || text === 'pong') {
    stats.pongs++;
    return 0;
  }
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    stats.reject('malformed_json', text);
    return 0;
  }
  if (!m || typeof m !== 'object' || Array.isArray(m)) {
    stats.reject('not_an_object', text);
    return 0;
  }
  const o = m as { topic?: unknown; type?: unknown; payload?: unknown };
  if (o.topic !== 'crypto_prices' && o.topic !== 'crypto_prices_chainlink') {
    stats.reject(`unknown_topic:${String(o.topic).slice(0, 40)}`, text);
    return 0;
  }
  const p = o.payload as { symbol?: unknown; value?: unknown; timestamp?: unknown; full_accuracy_value?: unknown; data?: unknown } | undefined;
  if (!p || typeof p !== 'object' || typeof p.symbol !== 'string') {
    stats.reject('bad_field:payload.symbol', text);
    return 0;
  }
  const symbol = p.symbol.toLowerCase();
  const points: unknown[] = Array.isArray(p.data) ? p.data : [p];
  let n = 0;
  for (const pt of points) {
    if (typeof pt !== 'object' || pt === null) {
      stats.reject('bad_field:payload.data', text);
      continue;
    }
    const q = pt as { value?: unknown; timestamp?: unknown; full_accuracy_value?: unknown };
    // prefer the exact string when present; a price is above 0
    const value = q.full_accuracy_value !== undefined ? num(q.full_accuracy_value) : num(q.value);
    // seconds, ms or µs, as every other time field
    const ts = unixToMs(q.timestamp);
    if (!(Number.isFinite(value) && value > 0) || !Number.isFinite(ts)) {
      stats.reject('bad_field:value', text);
      continue;
    }
    out.push({ type: 'crypto_price', symbol, value, timestampMs: ts });
    stats.events++;
    n++;
  }
  return n;
}

export interface PriceStreamOptions {
  /** Base URL, no suffix (config urls.priceFeed). */
  url: string;
  symbols: readonly string[];
  filterStyle?: FilterStyle;
  pingIntervalMs?: number;
  pongTimeoutMs?: number;
  /** No price for this long: probe (re-subscribe, expect a `type:"subscribe"` dump); 0 = no data watchdog. Default DEFAULT_PRICE_QUIET_MS. */
  quietMs?: number;
  /** A probe unanswered this long: reconnect. Default DEFAULT_PRICE_PROBE_TIMEOUT_MS. */
  probeTimeoutMs?: number;
  reconnectBaseMs?: number;
  reconnectMaxMs?: number;
  random?: () => number;
  log?: Logger;
}

/** The price stream's data watchdog when the caller gives none (the daemon passes feed.quietMs and feed.probeTimeoutMs). */
export const DEFAULT_PRICE_QUIET_MS = 10_000;
export const DEFAULT_PRICE_PROBE_TIMEOUT_MS = 5000;

export class CryptoPriceStream {
  readonly connection: FeedConnection;
  readonly stats: DecodeStats;
  private readonly lastBySymbol = new Map<string, CryptoPriceEvent>();
  private readonly listeners: Array<(e: CryptoPriceEvent) => void> = [];
  private readonly buf: CryptoPriceEvent[] = [];

  constructor(private readonly o: PriceStreamOptions) {
    const style = o.filterStyle ?? 'comma';
    const opts: ConnectionOptions = {
      url: o.url,
      subscribeAll: (ids) => (ids.length ? [cryptoSubscribeMessage('subscribe', ids, style)] : []),
      subscribeMore: (ids) => cryptoSubscribeMessage('subscribe', ids, style),
      unsubscribeMsg: (ids) => cryptoSubscribeMessage('unsubscribe', ids, style),
      isSnapshot: (t) => t.includes('"type":"subscribe"'),
      // the probe: unsubscribe, then subscribe again (a dump answers; no second subscription piles up)
      probe: (ids) => (ids.length ? [cryptoSubscribeMessage('unsubscribe', ids, style), cryptoSubscribeMessage('subscribe', ids, style)] : []),
      pingText: 'PING',
      isPong: (t) => t === 'PONG' || t === 'pong',
      pingIntervalMs: o.pingIntervalMs ?? 5000,
      pongTimeoutMs: o.pongTimeoutMs ?? 30_000,
      quietMs: o.quietMs ?? DEFAULT_PRICE_QUIET_MS,
      probeTimeoutMs: o.probeTimeoutMs ?? DEFAULT_PRICE_PROBE_TIMEOUT_MS,
      reconnectBaseMs: o.reconnectBaseMs ?? 500,
      reconnectMaxMs: o.reconnectMaxMs ?? 30_000,
      random: o.random,
      log: o.log,
      name: 'crypto_prices',
    };
    this.connection = new FeedConnection(opts);
    this.stats = new DecodeStats('price', o.log);
    this.connection.onFrame((f) => {
      this.buf.length = 0;
      decodePriceFrame(f.text, this.buf, this.stats);
      for (const e of this.buf) {
        const prev = this.lastBySymbol.get(e.symbol);
        if (!prev || e.timestampMs >= prev.timestampMs) this.lastBySymbol.set(e.symbol, e);
        for (const fn of this.listeners) fn(e);
      }
    });
  }

  onPrice(fn: (e: CryptoPriceEvent) => void): void {
    this.listeners.push(fn);
  }
  onState(fn: (s: ConnectionState) => void): void {
    this.connection.onState(fn);
  }
  /** Latest price per symbol (lowercase, e.g. btcusdt). */
  last(symbol: string): CryptoPriceEvent | undefined {
    return this.lastBySymbol.get(symbol.toLowerCase());
  }
  start(): void {
    this.connection.start(this.o.symbols.map((s) => s.toLowerCase()));
  }
  stop(): void {
    this.connection.stop();
  }
  subscribe(symbols: readonly string[]): void {
    this.connection.subscribe(symbols.map((s) => s.toLowerCase()));
  }
  unsubscribe(symbols: readonly string[]): void {
    this.connection.unsubscribe(symbols.map((s) => s.toLowerCase()));
  }
}
