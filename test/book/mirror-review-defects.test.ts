// Review findings on the book mirror, each replayed from the wire: complement seeding only once (a
// token that went out of sync waits for a proof), rejected price_change messages put their tokens
// out of sync, the tick known from metadata reaches the book, a legacy message's root hash covers
// all of its entries ("" is no hash), and a neg-risk book verifies when neg_risk is not known.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BookMirror, type OutOfSyncReason } from '../../src/book/mirror.js';
import { bookHash } from '../../src/book/hash.js';
import { createMarketDecodeStats, decodeMarketFrame, RejectedTokens } from '../../src/feed/decode-market.js';
import { MarketPipeline } from '../../src/feed/market-pipeline.js';
import { VirtualClock } from '../../src/core/clock.js';
import type { MarketEvent } from '../../src/core/events.js';
import { VenueBook, bookMsg, decode, h, pc, setup, BIDS, ASKS } from './helpers.js';

const fx = new URL('../fixtures/polymarket/', import.meta.url);
const read = (p: string) => readFileSync(new URL(p, fx), 'utf8');

const PT_A = '98022490269692409998126496127597032490334070080325855126491859374983463996227';
const PT_B = '53831553061883006530739877284105938919721408776239639687877978808906551086026';

function corrupt(hash: string): string {
  return (hash[0] === '0' ? '1' : '0') + hash.slice(1);
}

/** A mirror fed frame by frame through the shared decoder, with its out-of-sync and resync calls recorded. */
function polytopeMirror() {
  const resyncs: Array<[string, OutOfSyncReason]> = [];
  const m = new BookMirror({ now: () => 0, onResync: (a, r) => resyncs.push([a, r]) });
  const stats = createMarketDecodeStats();
  const out: MarketEvent[] = [];
  const feed = (line: string) => {
    out.length = 0;
    decodeMarketFrame(line, out, stats);
    for (const ev of out) m.apply(ev);
  };
  return { m, resyncs, feed, stats };
}

describe('complement seeding happens once (defect 1)', () => {
  const lines = read('polytope/market_39.jsonl').split('\n');

  it('a seeded token whose hash fails stays out of sync: not re-seeded from its sibling at its next delta', () => {
    const { m, resyncs, feed } = polytopeMirror();
    // line 6 (ts ...168): B's hash corrupted; B's group closes at line 7 (its next timestamp)
    const bad = JSON.parse(lines[5]) as { price_changes: Array<{ asset_id: string; hash: string }> };
    const e = bad.price_changes.find((c) => c.asset_id === PT_B)!;
    e.hash = corrupt(e.hash);
    for (let i = 0; i < lines.length; i++) {
      if (lines[i] === '') continue;
      feed(i === 5 ? JSON.stringify(bad) : lines[i]);
    }
    m.flush();
    const sb = m.stats(PT_B)!;
    expect(sb.seeded).toBe(1);
    expect(sb.mismatches).toBe(1);
    expect(m.book(PT_B)!.inSync()).toBe(false);
    expect(m.syncInfo(PT_B)).toMatchObject({ inSync: false, reason: 'hash_mismatch', episodes: 1 });
    expect(resyncs).toEqual([[PT_B, 'hash_mismatch']]);
    // B's deltas after the mismatch are waiting for a snapshot, not applied to a guess
    expect(sb.deltas).toBe(3);
    expect(sb.ignoredDeltas).toBe(35 - 3);
    // A is untouched
    expect(m.book(PT_A)!.inSync()).toBe(true);
    expect(m.stats(PT_A)!.mismatches).toBe(0);
  });

  it('a seeded token put out of sync by a reconnect is not re-seeded after the sibling snapshot; its own snapshot restores it', () => {
    const { m, feed } = polytopeMirror();
    for (let i = 0; i < 8; i++) if (lines[i] !== '') feed(lines[i]);
    expect(m.book(PT_B)!.inSync()).toBe(true);
    m.markAllOutOfSync('reconnect');
    // the sibling's fresh snapshot (same frame again, a later timestamp) and a delta for both
    const snap = JSON.parse(lines[0]) as Array<Record<string, unknown>>;
    feed(JSON.stringify(snap));
    expect(m.book(PT_A)!.inSync()).toBe(true);
    feed(lines[8]);
    expect(m.stats(PT_B)!.seeded).toBe(1);
    expect(m.book(PT_B)!.inSync()).toBe(false);
    // a snapshot of its own (hashless: taken as it is without requireHash) brings it back
    feed(
      JSON.stringify({ market: snap[0].market, asset_id: PT_B, timestamp: '1779862958050', hash: '', bids: [{ price: '0.4', size: '1' }], asks: [{ price: '0.6', size: '1' }], event_type: 'book' }),
    );
    expect(m.book(PT_B)!.inSync()).toBe(true);
  });

  it('a token never seeded and never snapshotted is still seeded at its first delta', () => {
    const { m, feed } = polytopeMirror();
    for (let i = 0; i < 5; i++) if (lines[i] !== '') feed(lines[i]);
    expect(m.stats(PT_B)).toMatchObject({ seeded: 1, snapshots: 0, mismatches: 0 });
    expect(m.book(PT_B)!.inSync()).toBe(true);
  });
});

describe('a rejected price_change puts its tokens out of sync (defect 2)', () => {
  const snapA = () => bookMsg('A', '10', BIDS, ASKS);
  const snapB = () => bookMsg('B', '10', BIDS, ASKS);
  function pipeline() {
    const resyncs: Array<[string, OutOfSyncReason]> = [];
    const m = new BookMirror({ now: () => 0, onResync: (a, r) => resyncs.push([a, r]), complementSeeding: false });
    m.setMeta('A', { market: '0xm' });
    m.setMeta('B', { market: '0xm' });
    const stats = createMarketDecodeStats();
    const p = new MarketPipeline({ mirror: m, stats });
    p.frame(1, JSON.stringify([snapA(), snapB()]));
    expect(m.book('A')!.inSync()).toBe(true);
    expect(m.book('B')!.inSync()).toBe(true);
    return { m, p, stats, resyncs };
  }
  const entryA = { asset_id: 'A', price: '0.46', size: '5', side: 'BUY', hash: h('A', '20', [...BIDS, ['0.46', '5']], ASKS), best_bid: '0.46', best_ask: '0.55' };
  const frame = (patch: Record<string, unknown>, entry: Record<string, unknown> = {}) =>
    JSON.stringify({ market: '0xm', price_changes: [{ ...entryA, ...entry }], timestamp: '20', event_type: 'price_change', ...patch });
  const cases: Array<[string, string]> = [
    ['size 1e-7', frame({}, { size: '1e-7' })],
    ['size -0', frame({}, { size: '-0' })],
    ['a price with 5 decimals', frame({}, { price: '0.46001' })],
    ['a numeric timestamp', frame({ timestamp: 20 })],
    ['a float best_bid', frame({}, { best_bid: 0.46 })],
    ['a bad side', frame({}, { side: 'buy' })],
  ];

  it.each(cases)('%s: the entry token goes out of sync (resync asked), the other stays', (_n, bad) => {
    const { m, p, stats, resyncs } = pipeline();
    expect(p.frame(1, bad)).toBe(0);
    expect(stats.rejected()).toBe(1);
    expect(m.book('A')!.inSync()).toBe(false);
    expect(m.syncInfo('A')!.reason).toBe('rejected_message');
    expect(resyncs).toEqual([['A', 'rejected_message']]);
    expect(m.book('B')!.inSync()).toBe(true);
  });

  it('entries of both tokens: both out of sync', () => {
    const { m, p } = pipeline();
    p.frame(
      1,
      JSON.stringify({
        market: '0xm',
        price_changes: [
          { ...entryA, size: 'x' },
          { ...entryA, asset_id: 'B' },
        ],
        timestamp: '20',
        event_type: 'price_change',
      }),
    );
    expect([m.book('A')!.inSync(), m.book('B')!.inSync()]).toEqual([false, false]);
  });

  it("an entry whose asset_id cannot be read: every token of the frame's market", () => {
    const { m, p } = pipeline();
    p.frame(1, frame({}, { asset_id: 7 }));
    expect([m.book('A')!.inSync(), m.book('B')!.inSync()]).toEqual([false, false]);
  });

  it('nothing readable (no market, no asset id): counted only', () => {
    const { m, p, stats } = pipeline();
    p.frame(1, frame({ market: 1 }, { asset_id: 7 }));
    expect(stats.rejected()).toBe(1);
    expect([m.book('A')!.inSync(), m.book('B')!.inSync()]).toEqual([true, true]);
  });

  it('a legacy changes message and a flat one: their root asset_id', () => {
    for (const msg of [
      {
        asset_id: 'A',
        changes: [
          { price: '0.46', side: 'BUY', size: '5' },
          { price: '0.47', side: 'BUY', size: '1e-7' },
        ],
        event_type: 'price_change',
        market: '0xm',
        timestamp: '20',
      },
      { asset_id: 'A', price: '0.46', side: 'BUY', size: '-1', event_type: 'price_change', market: '0xm', timestamp: '20' },
    ]) {
      const { m, p } = pipeline();
      p.frame(1, JSON.stringify(msg));
      expect([m.book('A')!.inSync(), m.book('B')!.inSync()]).toEqual([false, true]);
    }
  });

  it('decode alone (the live feed decodes, then dispatches what is left): the tokens are marked', () => {
    const { m, p } = pipeline();
    expect(p.decode(frame({}, { size: '1e-7' }))).toEqual([]);
    expect(m.book('A')!.inSync()).toBe(false);
  });

  it('a snapshot then a rejected delta in one frame: out of sync after the frame (the snapshot does not hide the loss)', () => {
    const { m, p } = pipeline();
    const frameArr = `[${JSON.stringify(bookMsg('A', '15', BIDS, ASKS))},${frame({}, { size: '1e-7' })}]`;
    expect(p.frame(1, frameArr)).toBe(1);
    expect(m.book('A')!.inSync()).toBe(false);
    expect(m.book('B')!.inSync()).toBe(true);
  });

  it('with a feed lag the tokens are marked when the frame is delivered, after its events', () => {
    const m = new BookMirror({ now: () => 0, complementSeeding: false });
    m.setMeta('A', { market: '0xm' });
    const clock = new VirtualClock(0);
    const p = new MarketPipeline({ mirror: m, stats: createMarketDecodeStats(), lagMs: 5, clock });
    p.frame(1, JSON.stringify([snapA()]));
    p.deliverNext();
    expect(m.book('A')!.inSync()).toBe(true);
    p.frame(1, `[${JSON.stringify(bookMsg('A', '15', BIDS, ASKS))},${frame({}, { size: '1e-7' })}]`);
    p.frame(1, frame({}, { timestamp: '21', hash: undefined }));
    expect(m.book('A')!.inSync()).toBe(true); // nothing delivered yet
    p.deliverNext();
    expect(m.book('A')!.inSync()).toBe(false);
    expect(m.syncInfo('A')!.reason).toBe('rejected_message');
  });

  it('with a feed lag, a frame holding only a rejected message waits its turn too: marked after the snapshot before it, not at once (found in review)', () => {
    // marked at once, it acted before the lag (look-ahead) and, with the token's snapshot still
    // waiting in the lag, on a book not yet live: the snapshot then showed it in sync
    const m = new BookMirror({ now: () => 0, complementSeeding: false });
    m.setMeta('A', { market: '0xm' });
    const clock = new VirtualClock(0);
    const p = new MarketPipeline({ mirror: m, stats: createMarketDecodeStats(), lagMs: 5, clock });
    p.frame(1, JSON.stringify([snapA()]));
    expect(p.frame(1, frame({}, { size: '1e-7' }))).toBe(0);
    expect(m.book('A')?.inSync() ?? false).toBe(false); // nothing delivered yet
    p.deliverNext(); // the snapshot
    expect(m.book('A')!.inSync()).toBe(true);
    p.deliverNext(); // the rejected message
    expect(m.book('A')!.inSync()).toBe(false);
    expect(m.syncInfo('A')!.reason).toBe('rejected_message');
    expect(p.nextDueAt()).toBe(Infinity);
  });

  it('the decoder names the tokens; a good frame names none', () => {
    const r = new RejectedTokens();
    const out: MarketEvent[] = [];
    decodeMarketFrame(frame({}, { size: '1e-7' }), out, createMarketDecodeStats(), r);
    expect(out).toEqual([]);
    expect({ markets: r.markets, assetIds: r.assetIds }).toEqual({ markets: [], assetIds: ['A'] });
    r.clear();
    decodeMarketFrame(frame({}, { asset_id: 7 }), out, createMarketDecodeStats(), r);
    expect({ markets: r.markets, assetIds: r.assetIds }).toEqual({ markets: ['0xm'], assetIds: [] });
    r.clear();
    decodeMarketFrame(frame({}), out, createMarketDecodeStats(), r);
    expect(out).toHaveLength(1);
    expect(r.empty()).toBe(true);
  });
});

describe('polymercado WS book (neg_risk true, tick 0.001, no tick_size in the frame)', () => {
  const text = read('polymercado/clob_ws_book.json');
  const frame = JSON.stringify({ ...JSON.parse(text), event_type: 'book' });
  const [ev] = decode(frame);
  if (ev.type !== 'book') throw new Error('not a book');

  it('defect 3: the tick from metadata reaches the book, so the hashed last trade price is found on its grid', () => {
    const m = new BookMirror({ now: () => 0 });
    m.setMeta(ev.assetId, { market: ev.market, minOrderSize: '5', tickSize: '0.001', negRisk: true });
    expect(m.book(ev.assetId)!.tick).toBe(10);
    m.apply(ev);
    expect(m.stats(ev.assetId)).toMatchObject({ hashesVerified: 1, mismatches: 0, ltpRecovered: 1 });
    expect(m.book(ev.assetId)!.inSync()).toBe(true);
  });

  it('defect 5: replayed as a backtest does (no metadata but the market) it verifies', () => {
    const m = new BookMirror({ verifyEvery: 1, groupIdleMs: 100, now: () => 0 });
    const stats = createMarketDecodeStats();
    const p = new MarketPipeline({ mirror: m, stats });
    expect(p.frame(0, frame)).toBe(1);
    m.setMeta(ev.assetId, { market: ev.market });
    expect(m.stats(ev.assetId)).toMatchObject({ snapshots: 1, hashesVerified: 1, mismatches: 0 });
    expect(m.book(ev.assetId)!.inSync()).toBe(true);
    expect(m.book(ev.assetId)!.tick).toBe(10);
  });

  it('defect 5: neg_risk known from metadata is not second-guessed', () => {
    const oos: OutOfSyncReason[] = [];
    const m = new BookMirror({ now: () => 0 });
    m.onOutOfSync((_a, r) => oos.push(r));
    m.setMeta(ev.assetId, { market: ev.market, minOrderSize: '5', tickSize: '0.001', negRisk: false });
    m.apply(ev);
    expect(m.stats(ev.assetId)).toMatchObject({ hashesVerified: 0, mismatches: 1 });
    expect(oos).toEqual(['hash_mismatch']);
  });

  it('defect 5: a neg_risk false market verifies under a neg_risk true default (verify --neg-risk), and keeps false', () => {
    const book = (JSON.parse(read('polytope/market_39.jsonl').split('\n')[0]) as unknown[])[0];
    const m = new BookMirror({ now: () => 0, defaultNegRisk: true });
    for (const e of decode([book])) m.apply(e);
    expect(m.stats(PT_A)).toMatchObject({ hashesVerified: 1, mismatches: 0 });
    // the verified value is kept: a corrupted snapshot later is a mismatch, with the hash computed under false
    const bad = { ...(book as Record<string, unknown>), hash: corrupt((book as { hash: string }).hash), timestamp: '1779862954470' };
    for (const e of decode([bad])) m.apply(e);
    expect(m.stats(PT_A)!.mismatches).toBe(1);
    const b = book as { market: string; bids: Array<{ price: string; size: string }>; asks: Array<{ price: string; size: string }> };
    const lv = (x: Array<{ price: string; size: string }>) => x.map((l) => [l.price, l.size] as const);
    const underFalse = bookHash({
      market: b.market,
      assetId: PT_A,
      timestamp: '1779862954470',
      bids: lv(b.bids),
      asks: lv(b.asks),
      minOrderSize: '5',
      tickSize: '0.01',
      negRisk: false,
      lastTradePrice: '0.550',
    });
    expect(m.lastMismatch(PT_A)!.computed).toBe(underFalse);
  });
});

describe('legacy changes messages and empty hashes (defect 4)', () => {
  const legacy = (ts: string, changes: Array<[string, string, 'BUY' | 'SELL']>, hash: string) => ({
    asset_id: 'A',
    changes: changes.map(([price, size, side]) => ({ price, side, size })),
    event_type: 'price_change',
    market: '0xm',
    timestamp: ts,
    hash,
  });

  it('two legacy messages of one timestamp, each hashed after itself: in sync, every entry verified', () => {
    const { m, feed, oos } = setup();
    const v = new VenueBook('A', BIDS, ASKS);
    feed(v.snapshot('10'));
    const m1: Array<[string, string, 'BUY' | 'SELL']> = [
      ['0.46', '5', 'BUY'],
      ['0.56', '3', 'SELL'],
    ];
    const m2: Array<[string, string, 'BUY' | 'SELL']> = [
      ['0.47', '2', 'BUY'],
      ['0.55', '0', 'SELL'],
    ];
    for (const [p, s, side] of m1) v.set(side, p, s);
    const h1 = v.hash('20');
    for (const [p, s, side] of m2) v.set(side, p, s);
    const h2 = v.hash('20');
    const events = [...decode(legacy('20', m1, h1)), ...decode(legacy('20', m2, h2))];
    for (const e of events) if (e.type === 'price_change') expect(e.changes.map((c) => c.hash)).toEqual(e.changes.map(() => (e === events[0] ? h1 : h2)));
    feed(legacy('20', m1, h1));
    feed(legacy('20', m2, h2));
    m.flush();
    expect(oos).toEqual([]);
    expect(m.stats('A')).toMatchObject({ mismatches: 0, inconsistentGroups: 0, hashesVerified: 3, entriesVerified: 4 });
  });

  it('"hash":"" on an entry is no hash (as on a snapshot)', () => {
    const { m, feed, oos } = setup();
    feed([bookMsg('A', '10', BIDS, ASKS)]);
    const msg = pc('20', [{ a: 'A', p: '0.46', s: '5', side: 'BUY', bb: '0.46', ba: '0.55' }]);
    (msg.price_changes[0] as Record<string, unknown>).hash = '';
    const [e] = decode(msg);
    if (e.type !== 'price_change') throw new Error();
    expect(e.changes[0].hash).toBeUndefined();
    feed(msg);
    feed(legacy('30', [['0.47', '1', 'BUY']], ''));
    m.flush();
    expect(oos).toEqual([]);
    expect(m.stats('A')).toMatchObject({ deltas: 2, mismatches: 0, hashesVerified: 1 });
  });
});
