// The mirror and the dense book on small hand-built sequences (hashes computed with the one hash
// function), plus the three real books of derived/book_hash_vectors.json.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BookMirror } from '../../src/book/mirror.js';
import { bookHash } from '../../src/book/hash.js';
import { DenseBook } from '../../src/book/book.js';
import { META, bookMsg, decode, h, pc, setup, type L } from './helpers.js';

const fx = new URL('../fixtures/polymarket/', import.meta.url);
const read = (p: string) => readFileSync(new URL(p, fx), 'utf8');

const BIDS: L[] = [
  ['0.40', '100'],
  ['0.45', '20.5'],
];
const ASKS: L[] = [
  ['0.6', '7'],
  ['0.55', '12'],
];

describe('book hash vectors (real books)', () => {
  const vectors = JSON.parse(read('derived/book_hash_vectors.json')).vectors as Array<{
    file: string;
    hash_in_message: string;
    min_order_size: string;
    tick_size: string;
    neg_risk: boolean;
    last_trade_price: string;
  }>;
  it.each(vectors.map((v) => [v.file, v] as const))('%s reproduces through the mirror', (_f, v) => {
    let obj: Record<string, unknown>;
    if (v.file.startsWith('polytope/')) obj = (JSON.parse(read('polytope/market_39.jsonl').split('\n')[0]) as Array<Record<string, unknown>>)[0];
    else obj = { ...JSON.parse(read(v.file)), event_type: 'book' };
    const [ev] = decode(obj);
    if (ev.type !== 'book') throw new Error();
    expect(ev.hash).toBe(v.hash_in_message);
    const m = new BookMirror({ now: () => 0 });
    // metadata for what the frame omits (the REST book hashes last_trade_price "" when absent)
    m.setMeta(ev.assetId, { minOrderSize: v.min_order_size, tickSize: v.tick_size, negRisk: v.neg_risk, lastTradePrice: v.last_trade_price, market: ev.market });
    m.apply(ev);
    expect(m.stats(ev.assetId)).toMatchObject({ hashesVerified: 1, mismatches: 0 });
    // and a wrong metadata value breaks it (the test can fail)
    const m2 = new BookMirror({ now: () => 0 });
    m2.setMeta(ev.assetId, { minOrderSize: '1', tickSize: v.tick_size, negRisk: v.neg_risk, lastTradePrice: v.last_trade_price });
    if (ev.minOrderSizeStr === undefined) {
      m2.apply(ev);
      expect(m2.stats(ev.assetId)!.mismatches).toBe(1);
    }
  });
});

describe('BookMirror', () => {
  it('ignores deltas before the first snapshot, then applies and verifies groups', () => {
    const { m, feed, resyncs } = setup();
    feed(pc('10', [{ a: 'A', p: '0.45', s: '1', side: 'BUY' }]));
    expect(m.stats('A')!.ignoredDeltas).toBe(1);
    feed([bookMsg('A', '20', BIDS, ASKS)]);
    expect(m.stats('A')!.hashesVerified).toBe(1);
    // a group of two messages sharing a timestamp: the hash is of the state after both
    const after: L[] = [
      ['0.40', '100'],
      ['0.45', '20.5'],
      ['0.46', '3'],
    ];
    const afterAsks: L[] = [['0.6', '7']];
    const gh = h('A', '30', after, afterAsks);
    feed(pc('30', [{ a: 'A', p: '0.46', s: '3', side: 'BUY', hash: gh, bb: '0.46', ba: '0.55' }]));
    feed(pc('30', [{ a: 'A', p: '0.55', s: '0', side: 'SELL', hash: gh, bb: '0.46', ba: '0.6' }]));
    expect(m.stats('A')!.hashesVerified).toBe(1); // group still open
    m.flush();
    expect(m.stats('A')).toMatchObject({ hashesVerified: 2, entriesVerified: 2, mismatches: 0, deltas: 2 });
    expect(resyncs).toEqual([]);
    const b = m.book('A')!;
    expect([b.bestBid(), b.bestAsk(), b.sizeAt('SELL', 5500), b.levelCount('SELL')]).toEqual([4600, 6000, 0, 1]);
    expect(b.updatedAt()).toBe(1000);
  });

  it('a wrong hash marks the token out of sync, calls the resync callback once, and a snapshot restores it', () => {
    const { m, feed, resyncs, oos } = setup();
    feed([bookMsg('A', '20', BIDS, ASKS)]);
    feed(pc('30', [{ a: 'A', p: '0.44', s: '1', side: 'BUY', hash: 'deadbeef'.repeat(5) }]));
    feed(pc('31', [{ a: 'A', p: '0.43', s: '1', side: 'BUY', hash: 'deadbeef'.repeat(5) }]));
    feed(pc('32', [{ a: 'A', p: '0.42', s: '1', side: 'BUY' }]));
    expect(oos).toEqual([['A', 'hash_mismatch']]);
    expect(resyncs).toEqual([['A', 'hash_mismatch']]);
    expect(m.book('A')!.inSync()).toBe(false);
    expect(m.stats('A')).toMatchObject({ mismatches: 1, ignoredDeltas: 2 });
    expect(m.lastMismatch('A')!.expected).toBe('deadbeef'.repeat(5));
    feed([bookMsg('A', '40', BIDS, ASKS)]);
    expect(m.book('A')!.inSync()).toBe(true);
    expect(m.stats('A')!.hashesVerified).toBe(2);
  });

  it('a wrong snapshot hash is a mismatch too', () => {
    const { m, feed, resyncs } = setup();
    feed([bookMsg('A', '20', BIDS, ASKS, '0'.repeat(40))]);
    expect(m.stats('A')!.mismatches).toBe(1);
    expect(resyncs).toHaveLength(1);
  });

  it('best_bid/best_ask disagreeing with the book is a mismatch (checked when the group closes)', () => {
    const { m, feed, oos } = setup();
    feed([bookMsg('A', '20', BIDS, ASKS)]);
    feed(pc('30', [{ a: 'A', p: '0.44', s: '1', side: 'BUY', bb: '0.44', ba: '0.55' }]));
    expect(oos).toEqual([]);
    feed(pc('31', [{ a: 'A', p: '0.43', s: '1', side: 'BUY' }]));
    expect(oos).toEqual([['A', 'best_mismatch']]);
    expect(m.stats('A')!.bestMismatches).toBe(1);
  });

  it('an empty side is best_bid "0" / best_ask "1"', () => {
    const { m, feed, oos } = setup();
    feed([bookMsg('A', '20', [['0.45', '1']], [['0.55', '1']])]);
    feed(pc('30', [{ a: 'A', p: '0.45', s: '0', side: 'BUY', bb: '0', ba: '0.55' }]));
    feed(pc('31', [{ a: 'A', p: '0.55', s: '0', side: 'SELL', bb: '0', ba: '1' }]));
    expect(oos).toEqual([]);
    expect([m.book('A')!.bestBid(), m.book('A')!.bestAsk()]).toEqual([-1, -1]);
    m.flush();
  });

  it('a delta older than the snapshot is ignored; a delta going back behind another is a gap', () => {
    const { m, feed, resyncs } = setup();
    feed([bookMsg('A', '20', BIDS, ASKS)]);
    feed(pc('19', [{ a: 'A', p: '0.44', s: '1', side: 'BUY' }]));
    expect(m.stats('A')).toMatchObject({ gaps: 0, ignoredDeltas: 1, deltas: 0 });
    expect(m.book('A')!.inSync()).toBe(true);
    feed(pc('30', [{ a: 'A', p: '0.44', s: '1', side: 'BUY' }]));
    feed(pc('25', [{ a: 'A', p: '0.43', s: '1', side: 'BUY' }]));
    expect(m.stats('A')!.gaps).toBe(1);
    expect(m.book('A')!.inSync()).toBe(false);
    expect(resyncs).toEqual([['A', 'gap']]);
  });

  it('tick_size_change drops the book until a fresh snapshot and hashes the new tick', () => {
    const { m, feed, resyncs } = setup();
    feed([bookMsg('A', '20', BIDS, ASKS)]);
    feed({ event_type: 'tick_size_change', asset_id: 'A', market: '0xm', old_tick_size: '0.01', new_tick_size: '0.001', timestamp: '25' });
    expect(m.book('A')!.inSync()).toBe(false);
    expect(m.book('A')!.bestBid()).toBe(-1);
    expect(resyncs).toEqual([['A', 'tick_size_change']]);
    feed(pc('26', [{ a: 'A', p: '0.44', s: '1', side: 'BUY' }]));
    expect(m.stats('A')!.ignoredDeltas).toBe(1);
    const bids: L[] = [['0.451', '5']];
    const snap = bookMsg('A', '30', bids, ASKS, bookHash({ market: '0xm', assetId: 'A', timestamp: '30', bids, asks: ASKS, ...META, tickSize: '0.001' }));
    delete (snap as { tick_size?: string }).tick_size;
    feed([snap]);
    expect(m.stats('A')).toMatchObject({ hashesVerified: 2, mismatches: 0 });
    expect(m.book('A')!.bestBid()).toBe(4510);
  });

  it('legacy changes and flat formats apply and verify', () => {
    const { m, feed } = setup();
    feed([bookMsg('A', '20', BIDS, ASKS)]);
    const after: L[] = [
      ['0.40', '100'],
      ['0.45', '20.5'],
      ['0.47', '2'],
    ];
    feed({
      asset_id: 'A',
      changes: [
        { price: '0.47', side: 'BUY', size: '2' },
        { price: '0.6', side: 'SELL', size: '0' },
      ],
      event_type: 'price_change',
      market: '0xm',
      timestamp: '30',
      hash: h('A', '30', after, [['0.55', '12']]),
    });
    feed({
      asset_id: 'A',
      event_type: 'price_change',
      hash: h('A', '40', after, [
        ['0.56', '1'],
        ['0.55', '12'],
      ]),
      market: '0xm',
      price: '0.56',
      side: 'SELL',
      size: '1',
      timestamp: '40',
    });
    m.flush();
    expect(m.stats('A')).toMatchObject({ hashesVerified: 3, mismatches: 0, deltas: 3 });
  });

  it('complement seeding (when enabled) mirrors the sibling and is counted', () => {
    const m = new BookMirror({ now: () => 0 });
    decode([bookMsg('A', '20', BIDS, ASKS)]).forEach((e) => m.apply(e));
    const bBids: L[] = [
      ['0.4', '7'],
      ['0.45', '12'],
    ];
    const bAsks: L[] = [
      ['0.6', '100'],
      ['0.56', '1'],
      ['0.55', '20.5'],
    ];
    decode(
      pc('30', [
        { a: 'B', p: '0.56', s: '1', side: 'SELL', hash: h('B', '30', bBids, bAsks) },
        { a: 'A', p: '0.44', s: '1', side: 'BUY' },
      ]),
    ).forEach((e) => m.apply(e));
    m.flush();
    expect(m.stats('B')).toMatchObject({ seeded: 1, hashesVerified: 1, mismatches: 0 });
    expect(m.book('B')!.wireLevels('BUY')).toEqual(bBids);
  });

  it('after a trade, a hash over the new last_trade_price is accepted and adopted', () => {
    const { m, feed, oos } = setup();
    feed([bookMsg('A', '20', BIDS, ASKS)]);
    feed({ asset_id: 'A', event_type: 'last_trade_price', fee_rate_bps: '0', market: '0xm', price: '0.55', side: 'BUY', size: '5', timestamp: '25' });
    const after: L[] = [...BIDS, ['0.46', '1']];
    const withTrade = (ts: string, bids: L[]) => bookHash({ market: '0xm', assetId: 'A', timestamp: ts, bids, asks: ASKS, ...META, lastTradePrice: '0.55' });
    feed(pc('30', [{ a: 'A', p: '0.46', s: '1', side: 'BUY', hash: withTrade('30', after) }]));
    feed(pc('40', [{ a: 'A', p: '0.46', s: '2', side: 'BUY', hash: withTrade('40', [...BIDS, ['0.46', '2']]) }]));
    m.flush();
    expect(oos).toEqual([]);
    expect(m.stats('A')).toMatchObject({ hashesVerified: 3, mismatches: 0 });
  });

  it('verifyEvery 0 never hashes', () => {
    const { m, feed } = setup({ verifyEvery: 0 });
    feed([bookMsg('A', '20', BIDS, ASKS, 'bad')]);
    feed(pc('30', [{ a: 'A', p: '0.44', s: '1', side: 'BUY', hash: 'bad' }]));
    m.flush();
    expect(m.stats('A')).toMatchObject({ hashesVerified: 0, mismatches: 0, deltas: 1 });
  });
});

describe('DenseBook view', () => {
  it('depth, mid, microprice, spread, pointer walks', () => {
    const b = new DenseBook('X');
    b.set('BUY', 4000, 100, '0.4', '1');
    b.set('BUY', 4500, 300, '0.45', '3');
    b.set('SELL', 5500, 100, '0.55', '1');
    b.set('SELL', 6000, 200, '0.6', '2');
    const out: number[] = [];
    expect(b.depth('BUY', 5, out)).toBe(2);
    expect(out).toEqual([4500, 300, 4000, 100]);
    expect(b.depth('SELL', 1, out)).toBe(1);
    expect(out.slice(0, 2)).toEqual([5500, 100]);
    expect(b.mid()).toBe(5000);
    expect(b.spread()).toBe(1000);
    expect(b.microprice()).toBe((4500 * 100 + 5500 * 300) / 400);
    b.set('BUY', 4500, 0, '0.45', '0');
    expect(b.bestBid()).toBe(4000);
    b.set('BUY', 4000, 0, '0.4', '0');
    expect(b.bestBid()).toBe(-1);
    expect(Number.isNaN(b.mid())).toBe(true);
    b.set('SELL', 5500, 0, '0.55', '0');
    expect(b.bestAsk()).toBe(6000);
    // a finer price re-derives the walk step
    b.set('SELL', 5725, 5, '0.5725', '0.05');
    b.set('SELL', 5725, 0, '0.5725', '0');
    expect(b.bestAsk()).toBe(6000);
    expect(b.wireLevels('SELL')).toEqual([['0.6', '2']]);
  });
});
