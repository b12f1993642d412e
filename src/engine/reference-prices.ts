// The latest crypto reference price per symbol (the price stream of spec 4.5), as strategies read
// it through ctx.referencePrice: the value, its own timestamp, and its age by the engine's clock.
import type { CryptoPriceEvent } from '../core/events.js';

export interface ReferencePrice {
  /** Lowercase, e.g. btcusdt. */
  symbol: string;
  value: number;
  /** When the source stamped it (ms). */
  timestampMs: number;
  /** How long ago we received it, by the engine's clock (ms). */
  ageMs: number;
}

/** How far after its arrival a price's stamp may be and still order the ones after it (a venue clock ahead of ours). */
const MAX_AHEAD_MS = 60_000;

export class ReferencePrices {
  private readonly last = new Map<string, { value: number; timestampMs: number; receivedMs: number }>();

  /** Keeps a newer price; returns whether it changed what strategies see. */
  update(e: CryptoPriceEvent, nowMs: number): boolean {
    if (!Number.isFinite(e.value) || !Number.isFinite(e.timestampMs)) return false;
    const prev = this.last.get(e.symbol);
    // older than the one kept: refused (a dump after an update), unless that one was stamped past
    // any clock skew after it arrived: a bad stamp would otherwise hold the symbol's price for good
    if (prev && e.timestampMs < prev.timestampMs && prev.timestampMs <= prev.receivedMs + MAX_AHEAD_MS) return false;
    this.last.set(e.symbol, { value: e.value, timestampMs: e.timestampMs, receivedMs: nowMs });
    return !prev || prev.value !== e.value;
  }

  get(symbol: string, nowMs: number): ReferencePrice | undefined {
    const s = symbol.toLowerCase();
    const p = this.last.get(s);
    return p ? { symbol: s, value: p.value, timestampMs: p.timestampMs, ageMs: nowMs - p.receivedMs } : undefined;
  }
}
