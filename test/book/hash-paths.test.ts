// Every fast hashing path against the simple one (createHash over the flat JSON of the payload
// object, built by JSON.stringify): BookHasher (per-token byte buffer), sha1Hex over
// bookHashPayloadFromText with DenseBook.sideText (the payload written piece by piece), and sha1Hex
// of any other string. Random books under random changes, two tokens hashed alternately (cached
// heads), moving hashed fields (cached tails), timestamps of other lengths or not digits, ids that
// need escaping, non-ASCII text, books that outgrow the buffers, and the three real vectors.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DenseBook } from '../../src/book/book.js';
import { BookHasher, bookHash, bookHashPayload, bookHashPayloadFromText, hashDenseBook, sha1Hex, type HashMeta } from '../../src/book/hash.js';
import { formatPrice, parsePrice, parseSize } from '../../src/core/units.js';
import { SeededRng } from '../../src/core/rng.js';

function simple(m: HashMeta, bids: Array<[string, string]>, asks: Array<[string, string]>): string {
  const lv = (ls: Array<[string, string]>) => ls.map(([price, size]) => ({ price, size }));
  const o = {
    market: m.market,
    asset_id: m.assetId,
    timestamp: m.timestamp,
    hash: '',
    bids: lv(bids),
    asks: lv(asks),
    min_order_size: m.minOrderSize,
    tick_size: m.tickSize,
    neg_risk: m.negRisk,
    last_trade_price: m.lastTradePrice,
  };
  return createHash('sha1').update(JSON.stringify(o), 'utf8').digest('hex');
}

const simpleOf = (m: HashMeta, b: DenseBook) => simple(m, b.wireLevels('BUY'), b.wireLevels('SELL'));
const viaText = (m: HashMeta, b: DenseBook) => sha1Hex(bookHashPayloadFromText(m, b.sideText('BUY'), b.sideText('SELL')));

const MARKET = '0x1fad72fae204143ff1c3035e99e7c0f65ea8d5cd9bd1070987bd1a3316f772be';
const A = '98022490269692409998126496127597032490334070080325855126491859374983463996227';
const B = '53831553061883006530739877284105938919721408776239639687877978808906551086026';

function sizeStr(rng: SeededRng): string {
  const r = rng.next();
  if (r < 0.3) return String(rng.int(1, 500));
  if (r < 0.9) return `${rng.int(1, 40000)}.${rng.int(1, 99)}`;
  return `${rng.int(100000, 999999999)}.${rng.int(1, 9)}`;
}

describe('fast book hash paths equal the simple hash', () => {
  it('BookHasher and the text path over random books, two tokens alternating, moving fields', () => {
    const rng = new SeededRng(11);
    const books = [new DenseBook(A), new DenseBook(B)];
    const hashers = [new BookHasher(), new BookHasher()];
    const ltps = ['0.550', '0.551', '', '0.5'];
    const ticks = ['0.01', '0.001'];
    let checks = 0;
    for (let i = 0; i < 8000; i++) {
      const k = i & 1;
      const b = books[k];
      const n = rng.int(1, 3);
      for (let j = 0; j < n; j++) {
        const side = rng.next() < 0.5 ? 'BUY' : 'SELL';
        const price = side === 'BUY' ? rng.int(1, 499) * 10 : rng.int(501, 999) * 10;
        const remove = rng.next() < 0.3;
        const s = remove ? '0' : sizeStr(rng);
        b.set(side, price, remove ? 0 : parseSize(s), formatPrice(price), s);
      }
      // now and then: emptied sides, a cleared book, a big book that outgrows every buffer
      if (i % 1500 === 700) b.clear();
      if (i === 5000) for (let p = 1; p < 5000; p += 1) b.set('BUY', p, 100, formatPrice(p), '123456.78');
      if (i === 6000) for (let p = 1; p < 5000; p += 1) b.set('BUY', p, 0, formatPrice(p), '0');
      const ts = i % 97 === 0 ? String(1_779_862_954 + i) : String(1_779_862_954_465 + i * 37); // 10 or 13 digits
      const m: HashMeta = {
        market: MARKET,
        assetId: b.assetId,
        timestamp: ts,
        minOrderSize: i % 500 < 250 ? '5' : '15',
        tickSize: ticks[(i >> 9) & 1],
        negRisk: i % 300 < 100,
        lastTradePrice: ltps[(i >> 6) & 3],
      };
      const want = simpleOf(m, b);
      expect(hashers[k].hash(m, b), `BookHasher ${i}`).toBe(want);
      expect(viaText(m, b), `text ${i}`).toBe(want);
      if (i % 50 === 0) expect(hashDenseBook(m, b), `one-off ${i}`).toBe(want);
      checks++;
    }
    expect(checks).toBe(8000);
  });

  it('odd fields: timestamps that are not digits, ids needing escapes, non-ASCII, empty sides', () => {
    const b = new DenseBook('tok"en\\é');
    const h = new BookHasher();
    const metas: HashMeta[] = [
      { market: MARKET, assetId: b.assetId, timestamp: '', minOrderSize: '5', tickSize: '0.01', negRisk: false, lastTradePrice: '' },
      { market: 'm"é\u2028', assetId: b.assetId, timestamp: '17798629544.5', minOrderSize: '5', tickSize: '0.01', negRisk: true, lastTradePrice: '0.5' },
      { market: MARKET, assetId: b.assetId, timestamp: '1779862954465', minOrderSize: 'é', tickSize: '\u{1F600}', negRisk: false, lastTradePrice: '\ud800' },
      { market: MARKET, assetId: b.assetId, timestamp: '123456789012345678901234', minOrderSize: '5', tickSize: '0.01', negRisk: false, lastTradePrice: '0.550' },
    ];
    for (const m of metas) {
      expect(h.hash(m, b)).toBe(simpleOf(m, b)); // both sides empty
      expect(viaText(m, b)).toBe(simpleOf(m, b));
    }
    b.set('BUY', 4500, 100, '0.45', '1');
    for (const m of metas) {
      expect(h.hash(m, b)).toBe(simpleOf(m, b)); // asks empty
      expect(viaText(m, b)).toBe(simpleOf(m, b));
    }
    b.set('BUY', 4500, 0, '0.45', '0');
    b.set('SELL', 5500, 100, '0.55', '1');
    for (const m of metas) {
      expect(h.hash(m, b)).toBe(simpleOf(m, b)); // bids empty
      expect(viaText(m, b)).toBe(simpleOf(m, b));
    }
  });

  it('hashed in place: hashers sharing a book, one hasher for two books, snapshots, heads too long for the room, the text left intact', () => {
    const rng = new SeededRng(5);
    const b1 = new DenseBook(A);
    const b2 = new DenseBook(B);
    const h1 = new BookHasher();
    const h2 = new BookHasher();
    const long = '0x' + 'f'.repeat(400); // a head longer than the book's head room: assembled apart
    for (let i = 0; i < 3000; i++) {
      const b = rng.next() < 0.5 ? b1 : b2;
      const side = rng.next() < 0.5 ? 'BUY' : 'SELL';
      const price = side === 'BUY' ? rng.int(1, 49) * 100 : rng.int(51, 99) * 100;
      const remove = rng.next() < 0.35;
      const sz = remove ? '0' : sizeStr(rng);
      b.set(side, price, remove ? 0 : parseSize(sz), formatPrice(price), sz);
      if (i % 400 === 399) {
        // a snapshot replaces the book (its text laid out once, not spliced level by level)
        const lv = (lo: number, hi: number, desc: boolean) => {
          const out = [];
          for (let p = lo; p <= hi; p += 100) if (rng.next() < 0.6) out.push({ price: p, size: 100, priceStr: formatPrice(p), sizeStr: sizeStr(rng) });
          return desc ? out.reverse() : out;
        };
        b.loadSnapshot(i % 800 === 399 ? lv(100, 4900, false) : [], lv(5100, 9900, true), 0);
      }
      const m: HashMeta = {
        market: i % 10 === 3 ? long : MARKET,
        assetId: b.assetId,
        timestamp: String(1_779_862_954_465 + i),
        minOrderSize: '5',
        tickSize: '0.01',
        negRisk: false,
        lastTradePrice: '0.550',
      };
      const h = rng.next() < 0.5 ? h1 : h2;
      expect(h.hash(m, b), `change ${i}`).toBe(simpleOf(m, b));
      if (i % 5 === 0) {
        // the level text is intact after a hash (the brackets put over the commas went back)
        expect(b.sideText('BUY')).toBe(JSON.stringify(b.wireLevels('BUY').map(([price, size]) => ({ price, size }))));
        expect(b.sideText('SELL')).toBe(JSON.stringify(b.wireLevels('SELL').map(([price, size]) => ({ price, size }))));
        expect(b.sideBytes('BUY').toString('latin1')).toBe(b.sideText('BUY').slice(1, -1));
      }
    }
  });

  it('sha1Hex of strings other than the last payload, and of an equal copy of it', () => {
    const rng = new SeededRng(3);
    const sha = (s: string) => createHash('sha1').update(s, 'utf8').digest('hex');
    for (const s of ['', 'abc', 'é', '\ud800x', '\u{1F600}'.repeat(3000), 'x'.repeat(40_000)]) expect(sha1Hex(s)).toBe(sha(s));
    const m: HashMeta = { market: MARKET, assetId: A, timestamp: '1779862954465', minOrderSize: '5', tickSize: '0.01', negRisk: false, lastTradePrice: '0.550' };
    const p = bookHashPayloadFromText(m, '[{"price":"0.4","size":"1"}]', '[]');
    const copy = Buffer.from(p, 'utf8').toString('utf8'); // equal text, another string
    expect(sha1Hex(copy)).toBe(sha(p));
    expect(sha1Hex(p)).toBe(sha(p));
    // level text given as any string (not only DenseBook's ASCII): encoded as UTF-8 like the whole
    for (const [bt, at] of [
      ['[{"price":"é","size":"1"}]', '[]'],
      ['\ud83d', '\ude00'],
      ['[\u{1F600}]', 'ü'.repeat(9000)],
    ]) {
      const q = bookHashPayloadFromText(m, bt, at);
      expect(sha1Hex(q)).toBe(sha(q));
    }
    // a payload made earlier, hashed after a later one was made
    const older = bookHashPayloadFromText({ ...m, timestamp: '1' }, '[]', '[]');
    bookHashPayloadFromText({ ...m, timestamp: '2' }, '[]', String(rng.next()));
    expect(sha1Hex(older)).toBe(sha(older));
  });

  it('reproduce the three real vectors on every path', () => {
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
    const h = new BookHasher();
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
      expect(simpleOf(m, b), v.file).toBe(v.hash_in_message);
      expect(h.hash(m, b), v.file).toBe(v.hash_in_message);
      expect(viaText(m, b), v.file).toBe(v.hash_in_message);
      expect(bookHash({ ...m, bids: b.wireLevels('BUY'), asks: b.wireLevels('SELL') }), v.file).toBe(v.hash_in_message);
      expect(sha1Hex(bookHashPayload({ ...m, bids: b.wireLevels('BUY'), asks: b.wireLevels('SELL') }))).toBe(v.hash_in_message);
    }
  });
});
