// Builders for mirror tests: hand-made book and price_change frames whose hashes come from the one
// hash function, decoded by the real decoder, and a mirror with recorded out-of-sync calls.
import { expect } from 'vitest';
import { BookMirror, type OutOfSyncInfo, type OutOfSyncReason } from '../../src/book/mirror.js';
import { bookHash } from '../../src/book/hash.js';
import { createMarketDecodeStats, decodeMarketFrame } from '../../src/feed/decode-market.js';
import type { MarketEvent } from '../../src/core/events.js';

export function decode(obj: unknown): MarketEvent[] {
  const out: MarketEvent[] = [];
  const st = createMarketDecodeStats();
  decodeMarketFrame(typeof obj === 'string' ? obj : JSON.stringify(obj), out, st);
  expect(st.rejected()).toBe(0);
  return out;
}

export type L = [string, string];
export const META = { minOrderSize: '5', tickSize: '0.01', negRisk: false, lastTradePrice: '0.5' };
export function h(asset: string, ts: string, bids: L[], asks: L[]): string {
  return bookHash({ market: '0xm', assetId: asset, timestamp: ts, bids, asks, ...META });
}
export function bookMsg(asset: string, ts: string, bids: L[], asks: L[], hash = h(asset, ts, bids, asks)) {
  const lv = (x: L[]) => x.map(([price, size]) => ({ price, size }));
  return { market: '0xm', asset_id: asset, timestamp: ts, hash, bids: lv(bids), asks: lv(asks), tick_size: '0.01', event_type: 'book', last_trade_price: '0.5' };
}
export function pc(ts: string, entries: Array<{ a: string; p: string; s: string; side: 'BUY' | 'SELL'; hash?: string; bb?: string; ba?: string }>) {
  return {
    market: '0xm',
    price_changes: entries.map((e) => ({ asset_id: e.a, price: e.p, size: e.s, side: e.side, ...(e.hash ? { hash: e.hash } : {}), ...(e.bb ? { best_bid: e.bb, best_ask: e.ba } : {}) })),
    timestamp: ts,
    event_type: 'price_change',
  };
}

export function setup(opts: { verifyEvery?: number; groupIdleMs?: number } = {}) {
  const resyncs: Array<[string, OutOfSyncReason]> = [];
  const oos: Array<[string, OutOfSyncReason]> = [];
  const infos: OutOfSyncInfo[] = [];
  let now = 1000;
  const m = new BookMirror({ ...opts, now: () => now, onResync: (a, r) => resyncs.push([a, r]), complementSeeding: false });
  m.onOutOfSync((a, r, info) => {
    oos.push([a, r]);
    infos.push(info);
  });
  const feed = (o: unknown) => decode(o).forEach((e) => m.apply(e));
  return { m, resyncs, oos, infos, feed, setNow: (t: number) => (now = t) };
}

/** A venue-side book of one token (market '0xm'): applies level changes and gives the hash and top a venue would send. */
export class VenueBook {
  readonly bids = new Map<string, string>();
  readonly asks = new Map<string, string>();
  ltp = META.lastTradePrice;
  constructor(
    readonly asset: string,
    bids: L[],
    asks: L[],
  ) {
    for (const [p, s] of bids) this.bids.set(p, s);
    for (const [p, s] of asks) this.asks.set(p, s);
  }
  set(side: 'BUY' | 'SELL', price: string, size: string): void {
    const m = side === 'BUY' ? this.bids : this.asks;
    if (size === '0') m.delete(price);
    else m.set(price, size);
  }
  levels(): { bids: L[]; asks: L[] } {
    return { bids: [...this.bids].sort((x, y) => +x[0] - +y[0]), asks: [...this.asks].sort((x, y) => +y[0] - +x[0]) };
  }
  hash(ts: string): string {
    const { bids, asks } = this.levels();
    return bookHash({ market: '0xm', assetId: this.asset, timestamp: ts, bids, asks, ...META, lastTradePrice: this.ltp });
  }
  top(): { bb: string; ba: string } {
    const { bids, asks } = this.levels();
    return { bb: bids.at(-1)?.[0] ?? '0', ba: asks.at(-1)?.[0] ?? '1' };
  }
  snapshot(ts: string) {
    const { bids, asks } = this.levels();
    return [bookMsg(this.asset, ts, bids, asks, this.hash(ts))];
  }
}

export type Change = { side: 'BUY' | 'SELL'; p: string; s: string };

/**
 * The price_change messages a venue sends for one batch (one message per change, one timestamp):
 * `hashes` 'batch' = every entry carries the hash after the batch (polytope), 'message' = after its
 * own message (glmbotpoly); `tops` 'entry' = the top after the message, 'batch' = after the batch.
 */
export function batchMessages(v: VenueBook, ts: string, changes: Change[], hashes: 'batch' | 'message', tops: 'entry' | 'batch') {
  const own: Array<{ hash: string; bb: string; ba: string }> = [];
  for (const c of changes) {
    v.set(c.side, c.p, c.s);
    own.push({ hash: v.hash(ts), ...v.top() });
  }
  const after = { hash: v.hash(ts), ...v.top() };
  return changes.map((c, i) => {
    const hash = hashes === 'batch' ? after.hash : own[i].hash;
    const top = tops === 'batch' ? after : own[i];
    return pc(ts, [{ a: v.asset, p: c.p, s: c.s, side: c.side, hash, bb: top.bb, ba: top.ba }]);
  });
}

/** A two-level book of the mirror tests: bids ascending, asks descending (wire order). */
export const BIDS: L[] = [
  ['0.4', '100'],
  ['0.45', '20.5'],
];
export const ASKS: L[] = [
  ['0.6', '7'],
  ['0.55', '12'],
];
