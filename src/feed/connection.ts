// The one WebSocket connection every feed uses (market, user, all, and the crypto price stream):
// text PING heartbeat with a PONG timeout, a data watchdog that probes a quiet feed by
// re-subscribing (a fresh snapshot proves it alive, none marks it stale), reconnect with capped
// exponential backoff and jitter, subscribe/unsubscribe of ids without reconnecting, and flush: a
// PING whose PONG proves every frame the peer sent before it has been delivered (a peer answers in
// order), which a make-before-break swap of connections waits for.
import WebSocket from 'ws';
import type { Logger } from '../core/log.js';
import { monotonicNow } from '../core/clock.js';

export type ConnectionState = 'connecting' | 'live' | 'stale' | 'down';

/** One raw frame as received: text, receive time (ms) and the connection epoch (1 per open). */
export interface RawFrame {
  text: string;
  t: number;
  epoch: number;
}

export interface ConnectionOptions {
  /** Full URL (the caller adds any /ws/<kind> suffix; see channelUrl). */
  url: string;
  /** Messages that subscribe the whole wanted set on (re)open and when probing. */
  subscribeAll: (ids: readonly string[]) => string[];
  /** Adds ids on a live connection; undefined = send subscribeAll(ids) instead. */
  subscribeMore?: (ids: readonly string[]) => string;
  /** Removes ids on a live connection; undefined = no message (the ids are just forgotten). */
  unsubscribeMsg?: (ids: readonly string[]) => string;
  /** A data frame that is a fresh snapshot (answers a probe). */
  isSnapshot?: (text: string) => boolean;
  /** The probe: messages sent to provoke a snapshot; default subscribeAll(wanted). */
  probe?: (ids: readonly string[]) => string[];
  pingText?: string;
  /** Frames that are heartbeat answers (not data). */
  isPong?: (text: string) => boolean;
  pingIntervalMs: number;
  /** No frame at all (data or PONG) for this long: terminate and reconnect. 0 = off. */
  pongTimeoutMs: number;
  /** No data frame for this long: probe. 0 = no data watchdog. */
  quietMs: number;
  probeTimeoutMs: number;
  reconnectBaseMs: number;
  reconnectMaxMs: number;
  /** Jitter source in [0,1); injectable for tests. */
  random?: () => number;
  /** Receive-time source (the frames' stamps, epoch ms; the watchdog runs on monotonicNow()). */
  now?: () => number;
  log?: Logger;
  /** Sent as the connection name in logs. */
  name?: string;
}

export type FrameListener = (f: RawFrame) => void;

interface FlushWaiter {
  /** The PING (count on this socket) whose PONG ends the wait. */
  ping: number;
  fn: (ok: boolean) => void;
  timer: NodeJS.Timeout;
}
export type StateListener = (s: ConnectionState, epoch: number) => void;

/** The largest frame a feed accepts. */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;
/**
 * A connection that stayed open this long reconnects from the base delay; one that closed sooner
 * (a server that accepts, then refuses the subscription) keeps doubling: resetting at every open
 * reconnected at the base forever.
 */
const STABLE_MS = 10_000;

export class FeedConnection {
  private ws: WebSocket | null = null;
  private readonly wanted = new Set<string>();
  private st: ConnectionState = 'down';
  private epochN = 0;
  private attempt = 0;
  // The watchdog's times (openedAt, lastFrameAt, lastDataAt, probeSentAt) are monotonicNow(): a
  // step of the system clock back would hide a silent feed for the step, one forward kill them all.
  /** When the current connection opened (0: none open since the last reconnect was scheduled). */
  private openedAt = 0;
  private stopped = true;
  private lastFrameAt = 0;
  private lastDataAt = 0;
  private probing = false;
  private probeSentAt = 0;
  private pingTimer: NodeJS.Timeout | null = null;
  private watchTimer: NodeJS.Timeout | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  /** PINGs sent and PONGs received on the current socket (flush). */
  private pingsOut = 0;
  private pongsIn = 0;
  private flushes: FlushWaiter[] = [];
  private readonly frameListeners: FrameListener[] = [];
  private readonly stateListeners: StateListener[] = [];
  private readonly now: () => number;
  private readonly random: () => number;
  /** Counters for /metrics. */
  readonly counters = { frames: 0, bytes: 0, pongs: 0, reconnects: 0, stale: 0, probes: 0, probesAnswered: 0, pingsSent: 0 };

  constructor(private readonly o: ConnectionOptions) {
    this.now = o.now ?? Date.now;
    this.random = o.random ?? Math.random;
  }

  get state(): ConnectionState {
    return this.st;
  }
  get epoch(): number {
    return this.epochN;
  }
  wantedIds(): string[] {
    return [...this.wanted];
  }

  onFrame(fn: FrameListener): void {
    this.frameListeners.push(fn);
  }
  onState(fn: StateListener): void {
    this.stateListeners.push(fn);
  }

  start(ids: readonly string[] = []): void {
    for (const id of ids) this.wanted.add(id);
    if (!this.stopped) return;
    this.stopped = false;
    this.open();
  }

  stop(): void {
    this.stopped = true;
    this.clearTimers();
    this.endFlushes(() => true, false);
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    const ws = this.ws;
    this.ws = null;
    if (ws) {
      ws.removeAllListeners();
      ws.on('error', () => {});
      ws.terminate();
    }
    this.setState('down');
  }

  /** Cuts the socket now as a dropped peer would (it reconnects with backoff); a no-op when not open. */
  drop(): void {
    this.ws?.terminate();
  }

  /** Adds ids to the wanted set; sends a subscribe on a live connection (no reconnect). */
  subscribe(ids: readonly string[]): void {
    const fresh = ids.filter((id) => !this.wanted.has(id));
    for (const id of fresh) this.wanted.add(id);
    if (fresh.length === 0 || !this.isOpen()) return;
    if (this.o.subscribeMore) this.send(this.o.subscribeMore(fresh));
    else for (const m of this.o.subscribeAll(fresh)) this.send(m);
  }

  /** Removes ids from the wanted set; sends an unsubscribe on a live connection. */
  unsubscribe(ids: readonly string[]): void {
    const gone = ids.filter((id) => this.wanted.delete(id));
    if (gone.length === 0 || !this.isOpen() || !this.o.unsubscribeMsg) return;
    this.send(this.o.unsubscribeMsg(gone));
  }

  /**
   * Subscribes again to ids the socket carries (a resync: the venue answers with fresh snapshots).
   * An unsubscribe goes first: a venue may ignore a subscribe to what it already sends
   * (NautilusTrader's Polymarket adapter), and the snapshot that follows covers what the gap missed.
   */
  resubscribe(ids: readonly string[]): void {
    if (!this.isOpen()) return;
    if (this.o.unsubscribeMsg && this.o.subscribeMore) this.send(this.o.unsubscribeMsg(ids));
    if (this.o.subscribeMore) this.send(this.o.subscribeMore(ids));
    else for (const m of this.o.subscribeAll(ids)) this.send(m);
  }

  /**
   * Sends a PING and calls `fn(true)` once its PONG came: every frame the peer sent before it read
   * the PING has been delivered by then (the peer answers in order), and so has the answer to every
   * message sent before it (a subscription in effect). `fn(false)` when the socket closes first, is
   * not open, or no answer came within `timeoutMs`. Called once, never synchronously.
   */
  flush(timeoutMs: number, fn: (ok: boolean) => void): void {
    if (!this.isOpen()) {
      queueMicrotask(() => fn(false));
      return;
    }
    this.sendPing();
    const w: FlushWaiter = { ping: this.pingsOut, fn, timer: setTimeout(() => this.endFlushes((x) => x === w, false), timeoutMs) };
    w.timer.unref?.();
    this.flushes.push(w);
  }

  private sendPing(): void {
    this.send(this.o.pingText ?? 'PING');
    this.pingsOut++;
    this.counters.pingsSent++;
  }

  /** Ends the flush waits `which` picks with `ok`. */
  private endFlushes(which: (w: FlushWaiter) => boolean, ok: boolean): void {
    if (this.flushes.length === 0) return;
    const done = this.flushes.filter(which);
    if (done.length === 0) return;
    this.flushes = this.flushes.filter((w) => !done.includes(w));
    for (const w of done) {
      clearTimeout(w.timer);
      try {
        w.fn(ok);
      } catch (e) {
        this.o.log?.error({ conn: this.o.name, err: e }, 'feed flush listener threw');
      }
    }
  }

  send(text: string): boolean {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) return false;
    ws.send(text);
    return true;
  }

  private isOpen(): boolean {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  private setState(s: ConnectionState): void {
    if (this.st === s) return;
    this.st = s;
    for (const fn of this.stateListeners) fn(s, this.epochN);
  }

  private open(): void {
    if (this.stopped) return;
    this.setState('connecting');
    let ws: WebSocket;
    try {
      // maxPayload: one frame may not cost more memory than this (ws allows 100 MiB); a larger one
      // closes the connection, which reconnects. The books of every subscribed token fit many times.
      ws = new WebSocket(this.o.url, { perMessageDeflate: false, maxPayload: MAX_FRAME_BYTES, handshakeTimeout: Math.max(1000, this.o.pongTimeoutMs || 10_000) });
    } catch (e) {
      this.o.log?.warn({ conn: this.o.name, err: e }, 'feed connect failed');
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.on('open', () => {
      if (this.ws !== ws) return;
      this.epochN++;
      this.pingsOut = 0;
      this.pongsIn = 0;
      const t = monotonicNow();
      this.openedAt = t;
      this.lastFrameAt = t;
      this.lastDataAt = t;
      this.probing = false;
      for (const m of this.o.subscribeAll([...this.wanted])) ws.send(m);
      this.startTimers();
      this.setState('live');
      this.o.log?.info({ conn: this.o.name, epoch: this.epochN, ids: this.wanted.size }, 'feed connected');
    });
    ws.on('message', (data: WebSocket.RawData, isBinary: boolean) => {
      if (this.ws !== ws) return;
      const text = isBinary ? bufText(data) : typeof data === 'string' ? data : bufText(data);
      this.onMessage(text);
    });
    ws.on('error', (e: Error) => {
      this.o.log?.warn({ conn: this.o.name, err: e.message }, 'feed socket error');
    });
    ws.on('close', () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.clearTimers();
      this.endFlushes(() => true, false);
      if (this.stopped) return;
      this.setState('down');
      this.scheduleReconnect();
    });
  }

  private onMessage(text: string): void {
    const t = this.now();
    const m = monotonicNow();
    this.lastFrameAt = m;
    this.counters.frames++;
    this.counters.bytes += text.length;
    const pong = this.o.isPong ? this.o.isPong(text) : text === 'PONG';
    if (pong) {
      this.counters.pongs++;
      this.pongsIn++;
    } else {
      this.lastDataAt = m;
      if (this.probing && (this.o.isSnapshot ? this.o.isSnapshot(text) : true)) {
        // the market was only quiet: the probe brought a snapshot
        this.probing = false;
        this.counters.probesAnswered++;
      }
    }
    const f: RawFrame = { text, t, epoch: this.epochN };
    for (let i = 0; i < this.frameListeners.length; i++) {
      try {
        this.frameListeners[i](f);
      } catch (e) {
        // a listener bug must not kill the socket loop
        this.o.log?.error({ conn: this.o.name, err: e }, 'feed frame listener threw');
      }
    }
    if (pong) this.endFlushes((w) => w.ping <= this.pongsIn, true);
  }

  private startTimers(): void {
    this.clearTimers();
    this.pingTimer = setInterval(() => {
      if (this.isOpen()) this.sendPing();
    }, this.o.pingIntervalMs);
    // a tenth of the shortest bound: a silent feed is pulled within quietMs + probeTimeoutMs plus
    // two ticks (a quarter made that up to 1 s late with the defaults, past the 5 s promised)
    const tick = Math.max(5, Math.min(this.o.pingIntervalMs, this.o.quietMs || Infinity, this.o.probeTimeoutMs || Infinity, this.o.pongTimeoutMs || Infinity) / 10);
    this.watchTimer = setInterval(() => this.watch(), tick);
  }

  private watch(): void {
    const t = monotonicNow();
    const o = this.o;
    if (o.pongTimeoutMs > 0 && t - this.lastFrameAt > o.pongTimeoutMs) {
      o.log?.warn({ conn: o.name, silentMs: t - this.lastFrameAt }, 'feed: no PONG or data, reconnecting');
      this.kill('stale');
      return;
    }
    if (o.quietMs <= 0 || this.wanted.size === 0) return;
    if (this.probing) {
      if (this.lastDataAt > this.probeSentAt) {
        // data again, though no snapshot (a venue may ignore a re-subscribe to what it already sends): alive
        this.probing = false;
        this.counters.probesAnswered++;
      } else if (t - this.probeSentAt > o.probeTimeoutMs) {
        o.log?.warn({ conn: o.name, quietMs: t - this.lastDataAt }, 'feed stale: probe brought no snapshot, reconnecting');
        this.kill('stale');
      }
      return;
    }
    if (t - this.lastDataAt > o.quietMs) {
      this.probing = true;
      this.probeSentAt = t;
      this.counters.probes++;
      const msgs = o.probe ? o.probe([...this.wanted]) : o.subscribeAll([...this.wanted]);
      for (const m of msgs) this.send(m);
    }
  }

  /** Ends a dead socket now (terminate, not close: a dead peer never completes a close handshake). */
  private kill(state: 'stale'): void {
    this.counters.stale++;
    this.setState(state);
    const ws = this.ws;
    this.ws = null;
    this.clearTimers();
    this.endFlushes(() => true, false);
    if (ws) {
      ws.removeAllListeners();
      ws.on('error', () => {});
      ws.terminate();
    }
    this.setState('down');
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.reconnectTimer) return;
    if (this.openedAt > 0 && monotonicNow() - this.openedAt >= STABLE_MS) this.attempt = 0;
    this.openedAt = 0;
    const delay = backoffDelay(this.attempt, this.o.reconnectBaseMs, this.o.reconnectMaxMs, this.random());
    this.attempt++;
    this.counters.reconnects++;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.open();
    }, delay);
  }

  private clearTimers(): void {
    if (this.pingTimer) clearInterval(this.pingTimer);
    if (this.watchTimer) clearInterval(this.watchTimer);
    this.pingTimer = null;
    this.watchTimer = null;
  }
}

/**
 * Reconnect delay for the n-th consecutive attempt (0-based): base * 2^n capped at max, with
 * jitter `r` in [0,1) spreading it over [capped/2, capped) so clients do not reconnect in step.
 */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, r: number): number {
  const capped = Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 30));
  return capped / 2 + r * (capped / 2);
}

function bufText(d: WebSocket.RawData): string {
  if (Buffer.isBuffer(d)) return d.toString('utf8');
  if (Array.isArray(d)) return Buffer.concat(d).toString('utf8');
  return Buffer.from(d as ArrayBuffer).toString('utf8');
}
