// The spliced level bytes of DenseBook (hashed by hashDenseBook) against the plain path (bookHash
// over the levels in wire order, flat JSON, one SHA-1): the same hash after every one of thousands
// of seeded random changes (inserts, removals, resizes, new best and far ends, a finer tick
// mid-stream), and the three real books of derived/book_hash_vectors.json.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DenseBook } from '../../src/book/book.js';
import { bookHash, bookHashPayload, hashDenseBook, type HashMeta } from '../../src/book/hash.js';
import { formatPrice, parsePrice, parseSize } from '../../src/core/units.js';
import { SeededRng } from '../../src/core/rng.js';

const META: HashMeta = { market: '0x' + 'ab'.repeat(32), assetId: '7'.repeat(77), timestamp: '1779862954465', minOrderSize: '5', tickSize: '0.01', negRisk: false, lastTradePrice: '0.550' };

function plain(b: DenseBook, m: HashMeta): string {
  const payload = bookHashPayload({ ...m, bids: b.wireLevels('BUY'), asks: b.wireLevels('SELL') });
  return createHash('sha1')
    .update(JSON.stringify(JSON.parse(payload)))
    .digest('hex');
}

describe('DenseBook level bytes and hashDenseBook', () => {
  it('equal the plain hash after every random change', () => {
    const rng = new SeededRng(7);
    const b = new DenseBook(META.assetId);
    let tick = 100;
    for (let i = 0; i < 6000; i++) {
      if (i === 3000) tick = 10; // a finer grid mid-stream: off-grid prices re-derive the walk step
      const side = rng.next() < 0.5 ? 'BUY' : 'SELL';
      const base = side === 'BUY' ? 1000 : 5500;
      const price = base + Math.floor(rng.next() * (3500 / tick)) * tick;
      const size = rng.next() < 0.3 ? 0 : Math.floor(rng.next() * 1_000_000) + 1;
      const sizeStr = size === 0 ? '0' : (size / 100).toString();
      b.set(side, price, size, formatPrice(price), sizeStr);
      const m = { ...META, timestamp: String(1779862954465 + i) };
      if (i % 7 === 0 || i > 5900) {
        expect(hashDenseBook(m, b), `change ${i}`).toBe(plain(b, m));
        expect(b.sideText('BUY')).toBe(JSON.stringify(b.wireLevels('BUY').map(([price, size]) => ({ price, size }))));
      }
    }
    b.clear();
    expect(hashDenseBook(META, b)).toBe(plain(b, META));
    expect(b.sideText('SELL')).toBe('[]');
  });

  it('a large book hashed for the first time (its bytes built at once) and changed after', () => {
    const b = new DenseBook(META.assetId);
    for (let p = 100; p <= 4900; p += 10) b.set('BUY', p, p, formatPrice(p), `${p}.25`);
    for (let p = 9900; p >= 5100; p -= 10) b.set('SELL', p, p, formatPrice(p), `${p}.5`);
    expect(hashDenseBook(META, b)).toBe(plain(b, META));
    b.set('BUY', 2500, 0, '0.25', '0');
    b.set('SELL', 5005, 7, '0.5005', '0.07');
    expect(hashDenseBook(META, b)).toBe(plain(b, META));
  });

  it('reproduce the three real book hashes', () => {
    const dir = new URL('../fixtures/polymarket/', import.meta.url);
    const vectors = JSON.parse(readFileSync(new URL('derived/book_hash_vectors.json', dir), 'utf8')).vectors as Array<{
      file: string;
      hash_in_message: string;
      min_order_size: string;
      tick_size: string;
      neg_risk: boolean;
      last_trade_price: string;
    }>;
    expect(vectors).toHaveLength(3);
    for (const v of vectors) {
      const raw = v.file.startsWith('polytope/')
        ? (JSON.parse(readFileSync(new URL('polytope/market_39.jsonl', dir), 'utf8').split('\n')[0]) as Array<Record<string, unknown>>)[0]
        : (JSON.parse(readFileSync(new URL(v.file, dir), 'utf8')) as Record<string, unknown>);
      const b = new DenseBook(raw.asset_id as string);
      for (const l of raw.bids as Array<{ price: string; size: string }>) b.set('BUY', parsePrice(l.price), parseSize(l.size), l.price, l.size);
      for (const l of raw.asks as Array<{ price: string; size: string }>) b.set('SELL', parsePrice(l.price), parseSize(l.size), l.price, l.size);
      const m: HashMeta = {
        market: raw.market as string,
        assetId: raw.asset_id as string,
        timestamp: raw.timestamp as string,
        minOrderSize: v.min_order_size,
        tickSize: v.tick_size,
        negRisk: v.neg_risk,
        lastTradePrice: v.last_trade_price,
      };
      expect(hashDenseBook(m, b), v.file).toBe(v.hash_in_message);
      expect(bookHash({ ...m, bids: b.wireLevels('BUY'), asks: b.wireLevels('SELL') })).toBe(v.hash_in_message);
    }
  });
});
