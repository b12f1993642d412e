// The polymarket profile's dead-man switch (wire-formats.md 4.6): POST /v1/heartbeats answers a new
// heartbeat id; the first may carry "" or null, later ones must carry the last id (else 400 with
// the right one). Once an API key has sent one, missing the window cancels all its open orders.
import type { Clock } from '../core/clock.js';
import { hex64 } from './ids.js';

/**
 * The docs' 10 s, without the buffer of up to 5 s the venue may add: a client that needs the buffer
 * would lose its orders at the real venue now and then, so the emulator does not give it.
 */
export const HEARTBEAT_TIMEOUT_MS = 10_000;

interface Beat {
  id: string;
  /** The clock handle of the expiry; undefined once expired (the next valid heartbeat re-arms it). */
  timer?: number;
}

export type HeartbeatAnswer = { ok: true; heartbeatId: string } | { ok: false; heartbeatId: string; error: string };

export class Heartbeats {
  private readonly beats = new Map<string, Beat>();
  private seq = 0;
  /** Expiries so far (every open order of the key was cancelled). */
  expired = 0;

  constructor(
    private readonly clock: Clock,
    private readonly timeoutMs: number,
    private readonly onExpire: (owner: string) => void,
  ) {}

  private newId(owner: string): string {
    const h = hex64(`heartbeat:${owner}:${++this.seq}:${this.clock.now()}`);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
  }

  beat(owner: string, id: unknown): HeartbeatAnswer {
    const b = this.beats.get(owner);
    const blank = id === undefined || id === null || id === '';
    if (b && id !== b.id) return { ok: false, heartbeatId: b.id, error: 'Invalid Heartbeat ID' };
    if (!b && !blank && typeof id !== 'string') return { ok: false, heartbeatId: '', error: 'Invalid Heartbeat ID' };
    if (b?.timer !== undefined) this.clock.cancel(b.timer);
    const next: Beat = { id: this.newId(owner) };
    next.timer = this.clock.schedule(this.clock.now() + this.timeoutMs, () => this.expire(owner, next));
    this.beats.set(owner, next);
    return { ok: true, heartbeatId: next.id };
  }

  private expire(owner: string, b: Beat): void {
    if (this.beats.get(owner) !== b) return;
    b.timer = undefined;
    // the old id is dead: the next heartbeat gets 400 with this fresh one
    b.id = this.newId(owner);
    this.expired++;
    this.onExpire(owner);
  }

  close(): void {
    for (const b of this.beats.values()) if (b.timer !== undefined) this.clock.cancel(b.timer);
    this.beats.clear();
  }
}
