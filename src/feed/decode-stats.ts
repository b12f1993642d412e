// Counters a decoder keeps: frames seen, events produced, and every rejected frame or event by
// reason (malformed JSON, a missing field, an unknown event_type). A short sample of each reject is
// logged, rate-limited, so a bad feed cannot flood the log. The numbers feed /metrics.
import { keptText, type Logger } from '../core/log.js';
import { unixToMs } from '../core/units.js';

/**
 * Distinct reasons kept that carry a wire value (an unknown event type or price topic:
 * `unknown_event:<type>`, `unknown_topic:<topic>`); later new ones count under `<prefix>other`. Our
 * own reasons (malformed_json, bad_field:<our field name>) are a fixed set and always keep their own.
 */
export const MAX_REJECT_REASONS = 50;
const WIRE_REASONS = ['unknown_event:', 'unknown_topic:'];

export class DecodeStats {
  frames = 0;
  pongs = 0;
  events = 0;
  /** Sizes finer than our 0.01 share grid, rounded (the venue's fills carry up to 6 decimals). */
  sizesRounded = 0;
  /** Rejects by reason, e.g. `malformed_json`, `bad_field:price`, `unknown_event:foo`. */
  readonly rejects = new Map<string, number>();
  /** Distinct wire-valued reasons kept (MAX_REJECT_REASONS at most). */
  private wireReasons = 0;
  private logged = 0;
  /** Told of every reject (a user-channel message of ours that could not be read asks the venue: session/daemon.ts). */
  onReject: ((reason: string, sample: string) => void) | undefined = undefined;

  constructor(
    readonly channel: 'market' | 'user' | 'price',
    private readonly log?: Logger,
    /** Samples logged at most once per this many rejects after the first 20. */
    private readonly logEvery = 1000,
  ) {}

  reject(reason: string, sample: string): void {
    const known = this.rejects.get(reason);
    // bounded: each reason is a Map entry and a /metrics series for good
    let key = reason;
    const wire = known === undefined ? WIRE_REASONS.find((p) => reason.startsWith(p)) : undefined;
    if (wire !== undefined) {
      if (this.wireReasons < MAX_REJECT_REASONS) this.wireReasons++;
      else key = `${wire}other`;
    }
    this.rejects.set(key, (known ?? this.rejects.get(key) ?? 0) + 1);
    this.onReject?.(reason, sample);
    const n = ++this.logged;
    if (this.log && (n <= 20 || n % this.logEvery === 0)) {
      // scrubbed before the cut: a secret cut in half is not the whole value the logger scrubs
      const clean = keptText(sample, 160, '…');
      this.log.warn({ channel: this.channel, reason, sample: clean, rejects: n }, 'feed frame rejected');
    }
  }

  rejected(): number {
    let t = 0;
    for (const v of this.rejects.values()) t += v;
    return t;
  }

  /** Flat counters for /metrics: `{frames, pongs, events, rejected, 'reject:<reason>': n}`. */
  counters(): Record<string, number> {
    const out: Record<string, number> = { frames: this.frames, pongs: this.pongs, events: this.events, rejected: this.rejected() };
    if (this.sizesRounded) out.sizes_rounded = this.sizesRounded;
    for (const [k, v] of this.rejects) out[`reject:${k}`] = v;
    return out;
  }
}

/** A wire field that must be a string; a typed failure the decoders turn into a reject reason. */
export class FieldError {
  constructor(readonly field: string) {}
}

export type Json = Record<string, unknown>;

export function reqStr(o: Json, k: string): string {
  const v = o[k];
  if (typeof v !== 'string') throw new FieldError(k);
  return v;
}

export function optStr(o: Json, k: string): string | undefined {
  const v = o[k];
  return typeof v === 'string' ? v : undefined;
}

/** A Unix time string or number in seconds, ms or µs, normalised to ms (units differ across captures). */
export function toMs(v: unknown, field: string): number {
  const ms = unixToMs(v);
  if (ms !== ms) throw new FieldError(field);
  return ms;
}
