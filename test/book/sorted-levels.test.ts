// The sorted-array books (DenseBook of the mirror, SimBook of the simulated venue) against a plain
// Map per side over many seeded random changes: levels and their wire order, best prices, depth
// from the best outward, sizeAt, the hash text (before and after it is kept), snapshots and
// clears; SimBook with its takers' overlay too. Prices cover the whole 1..9999 range on a mixed
// grid, clustered near the top as real changes are, so deep inserts, removals and growth all occur.
import { describe, expect, it } from 'vitest';
import { DenseBook } from '../../src/book/book.js';
import { bookHash, hashDenseBook, type HashMeta } from '../../src/book/hash.js';
import { formatPrice } from '../../src/core/units.js';
import { SeededRng } from '../../src/core/rng.js';
import { SimBook } from '../../src/venue/sim-book.js';

const META: HashMeta = { market: '0x' + 'cd'.repeat(32), assetId: '9'.repeat(77), timestamp: '1779862954465', minOrderSize: '5', tickSize: '0.01', negRisk: false, lastTradePrice: '0.550' };

type Side = 'BUY' | 'SELL';
/** price -> [size, sizeStr] */
type RefSide = Map<number, [number, string]>;

/** Wire order: bids ascending, asks descending (best last). */
function refLevels(m: RefSide, side: Side): Array<[number, number, string, string]> {
  const ps = [...m.keys()].sort((a, b) => (side === 'BUY' ? a - b : b - a));
  return ps.map((p) => [p, m.get(p)![0], formatPrice(p), m.get(p)![1]]);
}

function sizeStrOf(rng: SeededRng): [number, string] {
  const whole = rng.int(1, 5000);
  if (rng.next() < 0.4) return [whole * 1e6, String(whole)];
  const frac = rng.int(1, 99);
  return [whole * 1e6 + frac * 1e4, `${whole}.${String(frac).padStart(2, '0')}`];
}

/** A price near the top of `side` (most of the time) or anywhere on it, on a 0.01, 0.001 or 0.0001 grid. */
function priceOf(rng: SeededRng, side: Side, grid: number): number {
  const deep = rng.next() < 0.15;
  const off = deep ? rng.int(0, 4999) : Math.floor(rng.exp(0.3)) * grid;
  const p = side === 'BUY' ? 4999 - off : 5001 + off;
  const q = Math.round(p / grid) * grid;
  return Math.min(9999, Math.max(1, q));
}

function check(b: DenseBook, ref: Record<Side, RefSide>, depthOut: number[]): void {
  for (const side of ['BUY', 'SELL'] as const) {
    const want = refLevels(ref[side], side);
    const got: Array<[number, number, string, string]> = [];
    b.forEachLevel(side, (p, s, ps, ss) => got.push([p, s, ps, ss]));
    expect(got).toEqual(want);
    expect(b.levelCount(side)).toBe(want.length);
    const best = want.length ? want[want.length - 1][0] : -1;
    expect(side === 'BUY' ? b.bestBid() : b.bestAsk()).toBe(best);
    const n = b.depth(side, 7, depthOut);
    const top = want.slice(-7).reverse();
    expect(n).toBe(top.length);
    for (let k = 0; k < n; k++) expect([depthOut[2 * k], depthOut[2 * k + 1]]).toEqual([top[k][0], top[k][1]]);
    expect(b.sideText(side)).toBe(JSON.stringify(want.map(([, , price, size]) => ({ price, size }))));
  }
}

describe('sorted-array books against a reference map', () => {
  it('DenseBook: levels, best prices, depth order, sizeAt and hash text after every change', () => {
    const rng = new SeededRng(20261125);
    const b = new DenseBook(META.assetId);
    const ref: Record<Side, RefSide> = { BUY: new Map(), SELL: new Map() };
    const depthOut: number[] = [];
    const grids = [100, 10, 1];
    let grid = 100;
    for (let i = 0; i < 12_000; i++) {
      if (i % 3000 === 0) grid = grids[(i / 3000) % 3];
      const r = rng.next();
      if (r < 0.002) {
        // a snapshot of ~30 levels a side (in wire order, as sent)
        ref.BUY.clear();
        ref.SELL.clear();
        for (let k = 0; k < 30; k++) for (const side of ['BUY', 'SELL'] as const) ref[side].set(priceOf(rng, side, grid), sizeStrOf(rng));
        const wl = (side: Side) => refLevels(ref[side], side).map(([price, size, priceStr, sizeStr]) => ({ price, size, priceStr, sizeStr }));
        b.loadSnapshot(wl('BUY'), wl('SELL'), i);
      } else if (r < 0.003) {
        b.clear();
        ref.BUY.clear();
        ref.SELL.clear();
      } else {
        const side: Side = rng.next() < 0.5 ? 'BUY' : 'SELL';
        const p = priceOf(rng, side, grid);
        if (rng.next() < 0.3) {
          b.set(side, p, 0, formatPrice(p), '0');
          ref[side].delete(p);
        } else {
          const [size, str] = sizeStrOf(rng);
          b.set(side, p, size, formatPrice(p), str);
          ref[side].set(p, [size, str]);
        }
        const q = priceOf(rng, side, grid);
        expect(b.sizeAt(side, q)).toBe(ref[side].get(q)?.[0] ?? 0);
      }
      check(b, ref, depthOut);
      // from the first hash on (after 2,000 changes: holes and all) the level text is spliced in place:
      // every few changes, against the plain hash
      if ((i >= 2000 && i % 7 === 0) || i > 11_500) {
        const want = bookHash({ ...META, bids: refLevels(ref.BUY, 'BUY').map((l) => [l[2], l[3]]), asks: refLevels(ref.SELL, 'SELL').map((l) => [l[2], l[3]]) });
        expect(hashDenseBook(META, b)).toBe(want);
      }
    }
    expect(b.sizeAt('BUY', -5)).toBe(0);
    expect(b.sizeAt('SELL', 10_001)).toBe(0);
    expect(b.set('BUY', 10_001, 1, '1.0001', '1')).toBe(false);
  });

  it('SimBook: sizes, the takers overlay, best prices with liquidity left and the complement seed', () => {
    const rng = new SeededRng(14);
    const b = new SimBook();
    const ref: Record<Side, Map<number, { size: number; taken: number }>> = { BUY: new Map(), SELL: new Map() };
    const avail = (side: Side, p: number) => {
      const l = ref[side].get(p);
      return l ? Math.max(0, l.size - l.taken) : 0;
    };
    const bestOf = (side: Side) => {
      const ps = [...ref[side].keys()].filter((p) => avail(side, p) > 0);
      if (!ps.length) return side === 'BUY' ? 0 : 10000;
      return side === 'BUY' ? Math.max(...ps) : Math.min(...ps);
    };
    b.snapshot([], []);
    for (let i = 0; i < 20_000; i++) {
      const side: Side = rng.next() < 0.5 ? 'BUY' : 'SELL';
      const p = priceOf(rng, side, i < 10_000 ? 100 : 1);
      const r = rng.next();
      if (r < 0.002) {
        const lv = (s: Side) => [...ref[s]].map(([price, l]) => ({ price, size: l.size }));
        const fresh = new SimBook();
        fresh.snapshot(lv('BUY'), lv('SELL'));
        b.seedFromComplement(fresh); // mirrored once...
        const back = new SimBook();
        back.seedFromComplement(b); // ...and back: the same levels, the overlay gone
        for (const s of ['BUY', 'SELL'] as const) for (const l of ref[s].values()) l.taken = 0;
        for (const s of ['BUY', 'SELL'] as const) for (const [q, l] of ref[s]) expect(back.size(s, q)).toBe(l.size);
        b.snapshot(lv('BUY'), lv('SELL'));
      } else if (r < 0.25) {
        const q = side === 'BUY' ? b.bestBid() : b.bestAsk();
        const a = b.available(side, q);
        const t = Math.min(a, rng.int(1, 3000) * 1e6);
        b.take(side, q, t);
        const l = ref[side].get(q);
        if (l) l.taken += t;
      } else {
        const size = rng.next() < 0.3 ? 0 : rng.int(1, 5000) * 1e6;
        const old = b.set(side, p, size);
        expect(old).toBe(ref[side].get(p)?.size ?? 0);
        if (size > 0) ref[side].set(p, { size, taken: 0 });
        else ref[side].delete(p);
      }
      expect(b.bestBid()).toBe(bestOf('BUY'));
      expect(b.bestAsk()).toBe(bestOf('SELL'));
      const q = priceOf(rng, side, 1);
      expect(b.size(side, q)).toBe(ref[side].get(q)?.size ?? 0);
      expect(b.available(side, q)).toBe(avail(side, q));
    }
    expect(b.set('BUY', 1.5, 10)).toBe(0);
    expect(b.size('BUY', 10_000)).toBe(0);
  });
});
