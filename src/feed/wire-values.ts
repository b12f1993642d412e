// Wire value parsers of the market decoder: prices, sizes and timestamps from their wire strings,
// and the recent-id cache that hands on an equal token/market id string seen before.
import { parsePrice, parseWireSize } from '../core/units.js';
import { FieldError, reqStr, toMs, type Json } from './decode-stats.js';

/** Unix wire string (seconds, ms or µs, as unixToMs reads them) -> ms, without a regex (hot path). */
export function tsMs(s: string): number {
  const n = s.length;
  if (n === 0 || n > 16) throw new FieldError('timestamp');
  let v = 0;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return toMs(s, 'timestamp');
    v = v * 10 + (c - 48);
  }
  return v < 1e11 ? v * 1000 : v > 1e14 ? Math.round(v / 1000) : v;
}

/**
 * Token and market ids decoded before. JSON.parse makes a new 66-77 character string for every
 * asset_id and market; handing on an equal one seen before (whose hash V8 already computed) lets
 * every Map lookup downstream (mirror, venue, engine, backtest) skip hashing it. Same value, so no
 * behaviour change. A direct-mapped table of SLOTS strings indexed by a cheap fingerprint (the
 * length and six characters from the middle and the end, where ids differ): one compare per
 * lookup however many tokens are live (the 8-entry ring it replaces missed past 8 live ids);
 * two ids that share a slot take turns in it (a miss, never a wrong answer). Bounded memory.
 */
export class RecentIds {
  private readonly ids: string[] = new Array<string>(SLOTS).fill('');
  get(o: Json, k: string): string {
    const s = reqStr(o, k);
    return this.find(s) ?? this.remember(s);
  }
  /** The cached string equal to `s`, if any. */
  find(s: string): string | undefined {
    const c = this.ids[slot(s)];
    return c === s ? c : undefined;
  }
  remember(s: string): string {
    this.ids[slot(s)] = s;
    return s;
  }
}
const SLOTS = 4096;
/** The fingerprint of an id: its length and six of its characters, mixed; in [0, SLOTS). */
function slot(s: string): number {
  const n = s.length;
  if (n < 8) return n;
  const m = n >> 1;
  let h = Math.imul(n, 0x9e3779b1);
  h = Math.imul(h ^ (s.charCodeAt(n - 1) | (s.charCodeAt(n - 2) << 8) | (s.charCodeAt(n - 3) << 16)), 0x85ebca6b);
  h = Math.imul(h ^ (s.charCodeAt(m) | (s.charCodeAt(m + 1) << 8) | (s.charCodeAt(m - 1) << 16)), 0xc2b2ae35);
  return (h ^ (h >>> 15)) & (SLOTS - 1);
}
export const recentAssets = new RecentIds();
export const recentMarkets = new RecentIds();

/**
 * The common wire price "0.d" .. "0.dddd" in price units without the general parser; -1 for any
 * other shape (then parsePrice decides). Same value as parsePrice for every string it accepts.
 */
function quickPrice(s: string): number {
  const n = s.length;
  if (n < 3 || n > 6 || s.charCodeAt(0) !== 48 || s.charCodeAt(1) !== 46) return -1;
  let v = 0;
  for (let i = 2; i < 6; i++) {
    let d = 0;
    if (i < n) {
      d = s.charCodeAt(i) - 48;
      if (d < 0 || d > 9) return -1;
    }
    v = v * 10 + d;
  }
  return v;
}

/**
 * The common wire size "123" / "123.4" / "123.45" (at most 9 whole digits) in size units without
 * the general parser; -1 for any other shape (then parseSize decides, e.g. rounding past 2 decimals).
 */
function quickSize(s: string): number {
  const n = s.length;
  if (n === 0 || n > 12) return -1;
  let whole = 0;
  let i = 0;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) break;
    if (c < 48 || c > 57) return -1;
    whole = whole * 10 + (c - 48);
  }
  if (i === 0 || i > 9) return -1;
  if (i === n) return whole * 100;
  const fd = n - i - 1; // digits after the dot
  if (fd < 1 || fd > 2) return -1;
  const x = s.charCodeAt(i + 1) - 48;
  if (x < 0 || x > 9) return -1;
  let frac = x * 10;
  if (fd === 2) {
    const y = s.charCodeAt(i + 2) - 48;
    if (y < 0 || y > 9) return -1;
    frac += y;
  }
  return whole * 100 + frac;
}

export function price(s: unknown, field: string): number {
  if (typeof s !== 'string') throw new FieldError(field);
  let v = quickPrice(s);
  if (v < 0) v = parsePrice(s);
  if (v < 0) throw new FieldError(field);
  return v;
}

export function size(s: unknown, field: string): number {
  if (typeof s !== 'string') throw new FieldError(field);
  let v = quickSize(s);
  if (v < 0) v = parseWireSize(s);
  if (v < 0) throw new FieldError(field);
  return v;
}
