// The user channel: one connection at a time, replaced when markets are added. The spec
// (wire-formats.md 2) knows only a connection's first subscription, so a second connection opens with
// the whole list and takes over once subscribed (make-before-break: the channel never leaves 'live').
import type { Logger } from '../core/log.js';
import type { UserEvent } from '../core/events.js';
import { FeedConnection, type ConnectionState, type RawFrame } from './connection.js';
import { channelOptions, type UserAuth } from './channels.js';
import { decodeUserFrame } from './decode-user.js';
import type { DecodeStats } from './decode-stats.js';

export interface UserChannelOptions {
  /** The venue's WebSocket base (config.urls.ws). */
  wsUrl: string;
  auth: UserAuth;
  timing: Parameters<typeof channelOptions>[2];
  /** The user decoder's counters (shared with the feed's /metrics). */
  stats: DecodeStats;
  log?: Logger;
  random?: () => number;
  /** How long a swap's new connection has to take over before it is given up (default SWAP_TAKEOVER_MS). */
  takeoverMs?: number;
}

/** How long after a user-channel swap the events the old connection delivered are still matched against the new one's (late copies dropped). */
const SWAP_DEDUPE_LINGER_MS = 30_000;
/** At most this many events remembered for a swap's matching (a runaway swap stops matching, never grows without bound). */
const SWAP_DEDUPE_MAX = 50_000;
/** How long a swap's new connection has to take over before it is given up. */
const SWAP_TAKEOVER_MS = 60_000;

export class UserChannel {
  /** The channel's connection (a swap replaces it). */
  private conn: FeedConnection;
  /** The connection a swap opened, until it takes over. */
  private next: FeedConnection | undefined;
  /** The markets each connection's last open subscribed (the only subscription the spec knows). */
  private readonly opened = new Map<FeedConnection, ReadonlySet<string>>();
  /** The channel's state as reported (the current connection's; a swap changes nothing). */
  private state: ConnectionState = 'down';
  private seq = 0;
  /** Connections swapped (make-before-break) so far. */
  swaps = 0;
  /** While a swap overlaps two connections (and a while after): per connection, the events it delivered that another has not yet (keys, counted). */
  private seen: Map<FeedConnection, Map<string, number>> | undefined;
  private seenSize = 0;
  private seenTimer: NodeJS.Timeout | undefined;
  /** Gives up a swap whose new connection did not take over in time (a venue refusing a second socket per key). */
  private swapTimer: NodeJS.Timeout | undefined;
  /** A swap was given up: none is tried again until the current connection opens anew. */
  private swapsOff = false;
  private readonly listeners: Array<(e: UserEvent) => void> = [];
  private readonly stateListeners: Array<(s: ConnectionState) => void> = [];
  private readonly buf: UserEvent[] = [];
  private started = false;
  private stopping = false;

  constructor(private readonly o: UserChannelOptions) {
    this.conn = this.newConnection();
  }

  /** The current connection (a swap replaces it). */
  get connection(): FeedConnection {
    return this.conn;
  }

  onEvent(fn: (e: UserEvent) => void): void {
    this.listeners.push(fn);
  }
  /** The channel's state: the current connection's (a swap's new connection reports nothing until it took over). */
  onState(fn: (s: ConnectionState) => void): void {
    this.stateListeners.push(fn);
  }

  /** Connects, subscribing `initial` (condition ids) at the open. */
  start(initial: readonly string[]): void {
    this.started = true;
    this.conn.start(initial);
  }
  stop(): void {
    this.stopping = true;
    this.conn.stop();
    this.next?.stop();
    this.next = undefined;
    if (this.swapTimer) clearTimeout(this.swapTimer);
    this.swapTimer = undefined;
    this.endDedupe();
  }

  /**
   * Adds condition ids: an operation on the open connection (a venue that honours it), kept for its
   * reconnects; and, as the spec knows only a connection's first subscription, a second connection
   * with the whole list that takes over once subscribed (one swap at a time; adds during one are in
   * the next). A connection not open subscribes them at its open.
   */
  addMarkets(conditionIds: readonly string[]): void {
    this.conn.subscribe(conditionIds);
    this.next?.subscribe(conditionIds);
    this.swapIfNeeded();
  }
  /** Takes condition ids off the subscription (sent on the open connection; a reconnect subscribes only the rest). */
  removeMarkets(conditionIds: readonly string[]): void {
    this.conn.unsubscribe(conditionIds);
    this.next?.unsubscribe(conditionIds);
  }
  /** The condition ids the channel subscribes (on its next connect too). */
  markets(): readonly string[] {
    return this.conn.wantedIds();
  }

  /** The channel's connection counters (carried over swaps) and its swaps, for /metrics. */
  counters(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [k, v] of Object.entries(this.conn.counters)) out[k] = v;
    out.swaps = this.swaps;
    return out;
  }

  /** A user-channel connection; its markets are its wanted set (not fixed in the subscription), so they can be pruned and added. */
  private newConnection(): FeedConnection {
    const seq = this.seq++;
    const conn = new FeedConnection(
      channelOptions(this.o.wsUrl, { kind: 'user', markets: [], auth: this.o.auth }, this.o.timing, { log: this.o.log, random: this.o.random, name: seq === 0 ? 'user' : `user#${seq}` }),
    );
    conn.onFrame((f) => this.frame(conn, f));
    conn.onState((s) => {
      // the open just sent the subscription of the whole wanted set
      if (s === 'live') {
        this.opened.set(conn, new Set(conn.wantedIds()));
        if (conn === this.conn) this.swapsOff = false;
      }
      if (conn === this.next) {
        if (s === 'live') this.handOver(conn);
        return;
      }
      if (conn === this.conn) this.report(s);
    });
    return conn;
  }

  private frame(conn: FeedConnection, f: RawFrame): void {
    const out = this.buf;
    out.length = 0;
    decodeUserFrame(f.text, out, this.o.stats);
    const seen = this.seen;
    for (let i = 0; i < out.length; i++) {
      const e = out[i];
      if (seen && !this.firstCopy(seen, conn, JSON.stringify(e))) continue;
      for (const fn of this.listeners) fn(e);
    }
  }

  /**
   * While a swap overlaps two connections, the venue sends an event of the markets both hold on
   * both: the first copy passes, the other is dropped. (The engine takes an exact repeat as a
   * no-op, but copies out of order across two sockets could move a trade's status back a step.)
   */
  private firstCopy(seen: Map<FeedConnection, Map<string, number>>, conn: FeedConnection, key: string): boolean {
    for (const [other, keys] of seen) {
      if (other === conn) continue;
      const n = keys.get(key);
      if (n === undefined) continue;
      if (n > 1) keys.set(key, n - 1);
      else keys.delete(key);
      this.seenSize--;
      return false;
    }
    let mine = seen.get(conn);
    if (!mine) seen.set(conn, (mine = new Map()));
    mine.set(key, (mine.get(key) ?? 0) + 1);
    if (++this.seenSize > SWAP_DEDUPE_MAX) this.endDedupe();
    return true;
  }

  private endDedupe(): void {
    this.seen = undefined;
    this.seenSize = 0;
    if (this.seenTimer) clearTimeout(this.seenTimer);
    this.seenTimer = undefined;
  }

  private report(s: ConnectionState): void {
    if (s === this.state) return;
    this.state = s;
    for (const fn of this.stateListeners) fn(s);
  }

  /** Opens a second connection with the whole list when the open one's subscription lacks some (one swap at a time: the one in progress checks again at its end). */
  private swapIfNeeded(): void {
    const cur = this.conn;
    if (this.next || this.swapsOff || !this.started || this.stopping) return;
    // not open: its next open subscribes the whole list
    if (cur.state !== 'live') return;
    const opened = this.opened.get(cur);
    const wanted = cur.wantedIds();
    if (opened && wanted.every((id) => opened.has(id))) return;
    const next = this.newConnection();
    this.next = next;
    if (this.seenTimer) clearTimeout(this.seenTimer);
    this.seenTimer = undefined;
    this.seen ??= new Map();
    this.o.log?.info({ markets: wanted.length }, 'user channel: markets added; a second connection opens with the whole list and takes over once subscribed');
    next.start(wanted);
    this.swapTimer = setTimeout(() => this.giveUp(next), this.o.takeoverMs ?? SWAP_TAKEOVER_MS);
    this.swapTimer.unref?.();
  }

  /**
   * The new connection did not take over in time: closed, and the old one goes on (the added
   * markets reach it at its next connect, as before the swap existed); no other swap is tried
   * until then, so a venue that refuses a second socket is not asked again and again.
   */
  private giveUp(next: FeedConnection): void {
    this.swapTimer = undefined;
    if (this.next !== next || this.stopping) return;
    this.next = undefined;
    next.stop();
    this.opened.delete(next);
    this.endDedupe();
    this.o.log?.warn({ afterMs: this.o.takeoverMs ?? SWAP_TAKEOVER_MS }, 'user channel: the second connection did not take over; markets added reach the venue at the next connect');
    this.swapsOff = true;
  }

  /** The swap's new connection is open: once its subscription is in effect and the old one has delivered what it had, the new one takes over. */
  private handOver(next: FeedConnection): void {
    const timeoutMs = Math.max(1000, this.o.timing.pongTimeoutMs || 10_000);
    // the open whose PONG proves the subscription: a later open of it is not proven by this one
    const epoch = next.epoch;
    next.flush(timeoutMs, (ok) => {
      if (this.next !== next || this.stopping) return;
      // no PONG (closed before it, or none in time): not proven, the old one stays current; its
      // next open hands over again, or the swap is given up (a close ends the wait before the
      // state says down, so the state alone cannot tell)
      if (!ok) return;
      const old = this.conn;
      old.flush(timeoutMs, () => this.takeOver(next, old, epoch));
    });
  }

  private takeOver(next: FeedConnection, old: FeedConnection, epoch: number): void {
    if (this.next !== next || this.conn !== old || this.stopping) return;
    // it went down (or down and up again) while the old one flushed: the open it is now on hands
    // over by itself once its own PONG comes
    if (next.state !== 'live' || next.epoch !== epoch) return;
    this.next = undefined;
    if (this.swapTimer) clearTimeout(this.swapTimer);
    this.swapTimer = undefined;
    this.conn = next;
    // the channel's counters go on from the old connection's
    for (const k of Object.keys(old.counters) as Array<keyof FeedConnection['counters']>) next.counters[k] += old.counters[k];
    old.stop();
    this.opened.delete(old);
    this.swaps++;
    // late copies of what the old one delivered are still dropped for a while
    this.seen?.forEach((_keys, c) => {
      if (c !== old && c !== next) this.seen?.delete(c);
    });
    this.seenTimer = setTimeout(() => this.endDedupe(), SWAP_DEDUPE_LINGER_MS);
    this.seenTimer.unref?.();
    this.o.log?.info({ markets: next.wantedIds().length }, 'user channel: the new connection took over');
    this.report(next.state);
    // markets added while it opened that its subscription lacks: one more swap
    this.swapIfNeeded();
  }
}
