// Timestamp groups in the mirror (wire-formats.md 5.3, 5.4): every variant a venue may send is in
// sync, and any single corrupted hash or wrong top is found, wherever it sits in the group.
import { describe, expect, it, vi } from 'vitest';
import { BookMirror } from '../../src/book/mirror.js';
import { BookHasher, bookHash } from '../../src/book/hash.js';
import { META, VenueBook, batchMessages, bookMsg, decode, pc, setup, type Change, type L, BIDS, ASKS } from './helpers.js';

// a batch that moves the top on both sides, then back
const BATCH: Change[] = [
  { side: 'BUY', p: '0.47', s: '3' },
  { side: 'SELL', p: '0.5', s: '4' },
  { side: 'BUY', p: '0.47', s: '0' },
  { side: 'SELL', p: '0.52', s: '9' },
];
const VARIANTS = [
  ['batch', 'entry'],
  ['batch', 'batch'],
  ['message', 'entry'],
  ['message', 'batch'],
] as const;

function corrupt(hash: string): string {
  return (hash[0] === '0' ? '1' : '0') + hash.slice(1);
}

describe('timestamp groups', () => {
  it.each(VARIANTS)('hashes after the %s, tops after the %s: in sync, every entry verified', (hashes, tops) => {
    const { m, feed, oos } = setup();
    const v = new VenueBook('A', BIDS, ASKS);
    feed(v.snapshot('20'));
    for (const msg of batchMessages(v, '30', BATCH, hashes, tops)) feed(msg);
    for (const msg of batchMessages(v, '31', BATCH.slice(0, 2), hashes, tops)) feed(msg);
    m.flush();
    expect(oos).toEqual([]);
    expect(m.stats('A')).toMatchObject({ mismatches: 0, bestMismatches: 0, entriesVerified: 6, deltas: 6 });
    expect(m.book('A')!.wireLevels('SELL')).toEqual(v.levels().asks);
  });

  it.each(VARIANTS)('hashes after the %s, tops after the %s: one corrupted hash at any position is a mismatch', (hashes, tops) => {
    for (let pos = 0; pos < BATCH.length; pos++) {
      const { m, feed, oos, infos } = setup();
      const v = new VenueBook('A', BIDS, ASKS);
      feed(v.snapshot('20'));
      const msgs = batchMessages(v, '30', BATCH, hashes, tops);
      msgs[pos].price_changes[0].hash = corrupt(msgs[pos].price_changes[0].hash!);
      for (const msg of msgs) feed(msg);
      m.flush();
      expect(oos, `position ${pos}`).toHaveLength(1);
      expect(['inconsistent_group', 'hash_mismatch']).toContain(oos[0][1]);
      // the last message alone carries a wrong hash when every earlier run checked out
      if (pos < BATCH.length - 1) expect(oos[0][1]).toBe('inconsistent_group');
      expect(infos[0]).toMatchObject({ assetId: 'A', timestamp: '30' });
      expect(infos[0].expected).toMatch(/^[0-9a-f]{40}$/);
      expect(m.book('A')!.inSync()).toBe(false);
    }
  });

  it('a top that is neither the entry, the message nor the batch top is a best_mismatch when the group closes', () => {
    const { m, feed, oos, infos } = setup();
    const v = new VenueBook('A', BIDS, ASKS);
    feed(v.snapshot('20'));
    const msgs = batchMessages(v, '30', BATCH, 'batch', 'entry');
    msgs[1].price_changes[0].best_ask = '0.51';
    for (const msg of msgs) feed(msg);
    expect(oos).toEqual([]);
    m.flush();
    expect(oos).toEqual([['A', 'best_mismatch']]);
    expect(infos[0]).toMatchObject({ expected: '-/0.51', computed: '0.45/0.5' });
  });

  it('two different after-batch claims in one group are a best_mismatch at once', () => {
    const { feed, oos } = setup();
    const v = new VenueBook('A', BIDS, ASKS);
    feed(v.snapshot('20'));
    const msgs = batchMessages(v, '30', BATCH, 'batch', 'batch');
    msgs[0].price_changes[0].best_bid = '0.41';
    msgs[1].price_changes[0].best_bid = '0.42';
    feed(msgs[0]);
    feed(msgs[1]);
    expect(oos).toEqual([['A', 'best_mismatch']]);
  });

  it('a batch split across two socket reads, with another market in between, is one group', () => {
    const { m, feed, oos } = setup();
    const v = new VenueBook('A', BIDS, ASKS);
    const w = new VenueBook('W', BIDS, ASKS);
    feed(v.snapshot('20'));
    feed(w.snapshot('20'));
    const msgs = batchMessages(v, '30', BATCH, 'batch', 'batch');
    feed(msgs[0]);
    feed(msgs[1]);
    for (const msg of batchMessages(w, '29', BATCH.slice(0, 1), 'batch', 'entry')) feed(msg);
    feed(msgs[2]);
    feed(msgs[3]);
    m.flush();
    expect(oos).toEqual([]);
    expect(m.stats('A')).toMatchObject({ hashesVerified: 2, entriesVerified: 4 });
  });

  it('a group with no message for groupIdleMs is checked without waiting for the next timestamp; a failed check is confirmed 10x later', () => {
    const { m, feed, oos, setNow } = setup({ groupIdleMs: 100 });
    const v = new VenueBook('A', BIDS, ASKS);
    feed(v.snapshot('20'));
    const msgs = batchMessages(v, '30', BATCH.slice(0, 2), 'batch', 'entry');
    // a wrong batch hash on every message: only the complete group can show it
    for (const msg of msgs) msg.price_changes[0].hash = corrupt(msg.price_changes[0].hash!);
    msgs.forEach(feed);
    setNow(1050);
    m.closeIdleGroups();
    expect(oos).toEqual([]);
    expect(m.hasOpenGroup()).toBe(true);
    // idle: checked, and failing, it may still be a batch whose rest is late (below)
    setNow(1100);
    m.closeIdleGroups();
    expect(oos).toEqual([]);
    expect(m.hasOpenGroup()).toBe(true);
    setNow(1999);
    m.closeIdleGroups();
    expect(oos).toEqual([]);
    setNow(2000);
    m.closeIdleGroups();
    expect(oos).toEqual([['A', 'hash_mismatch']]);
    expect(m.hasOpenGroup()).toBe(false);
  });

  it('a group open when the clock steps back a minute is still checked groupIdleMs (then 10x) after the step, not a minute later', () => {
    const { m, feed, oos, setNow } = setup({ groupIdleMs: 100 });
    const v = new VenueBook('A', BIDS, ASKS);
    feed(v.snapshot('20'));
    const msgs = batchMessages(v, '30', BATCH.slice(0, 2), 'batch', 'entry');
    for (const msg of msgs) msg.price_changes[0].hash = corrupt(msg.price_changes[0].hash!);
    msgs.forEach(feed); // at 1000
    setNow(1000 - 60_000 + 50); // the clock steps back a minute
    m.closeIdleGroups();
    expect(oos).toEqual([]);
    setNow(1000 - 60_000 + 150); // groupIdleMs since the step: checked, failing, kept open
    m.closeIdleGroups();
    expect(oos).toEqual([]);
    setNow(1000 - 60_000 + 50 + 1000); // 10x groupIdleMs of quiet since the step
    m.closeIdleGroups();
    expect(oos).toEqual([['A', 'hash_mismatch']]);
    expect(m.hasOpenGroup()).toBe(false);
  });

  it('a group that passes its idle check closes at groupIdleMs', () => {
    const { m, feed, oos, setNow } = setup({ groupIdleMs: 100 });
    const v = new VenueBook('A', BIDS, ASKS);
    feed(v.snapshot('20'));
    batchMessages(v, '30', BATCH.slice(0, 2), 'batch', 'entry').forEach(feed);
    setNow(1100);
    m.closeIdleGroups();
    expect(oos).toEqual([]);
    expect(m.hasOpenGroup()).toBe(false);
    expect(m.stats('A')).toMatchObject({ hashesVerified: 2, entriesVerified: 2 });
  });

  it('one timestamp batch split by more than groupIdleMs (166 ms in a real capture) is no mismatch, and a later timestamp still checks at once', () => {
    // glmbotpoly clob_session lines 11-12: two messages of timestamp ...834 received 166 ms apart;
    // polytope carries the hash after the whole batch on every entry
    for (const tops of ['entry', 'batch'] as const) {
      const { m, feed, oos, setNow } = setup({ groupIdleMs: 100 });
      const v = new VenueBook('A', BIDS, ASKS);
      feed(v.snapshot('20'));
      const msgs = batchMessages(v, '30', BATCH.slice(0, 2), 'batch', tops);
      feed(msgs[0]);
      setNow(1166);
      m.closeIdleGroups();
      feed(msgs[1]);
      setNow(1300);
      m.closeIdleGroups();
      expect(oos, tops).toEqual([]);
      expect(m.hasOpenGroup()).toBe(false);
      expect(m.stats('A')).toMatchObject({ mismatches: 0, bestMismatches: 0, entriesVerified: 2 });
      expect(m.book('A')!.wireLevels('SELL')).toEqual(v.levels().asks);
      // an incomplete group followed by the next timestamp is checked then, not 10x later
      const next = batchMessages(v, '31', BATCH.slice(2, 4), 'batch', tops);
      feed(next[0]);
      setNow(1500);
      m.closeIdleGroups();
      for (const msg of batchMessages(v, '32', BATCH.slice(0, 1), 'batch', tops)) feed(msg);
      expect(
        oos.map((o) => o[1]),
        tops,
      ).toHaveLength(1);
    }
  });

  it('a mismatch in one token leaves the others in sync', () => {
    const { m, feed, oos } = setup();
    const a = new VenueBook('A', BIDS, ASKS);
    const b = new VenueBook('B', BIDS, ASKS);
    feed(a.snapshot('20'));
    feed(b.snapshot('20'));
    const ma = batchMessages(a, '30', BATCH, 'batch', 'entry');
    ma[0].price_changes[0].hash = corrupt(ma[0].price_changes[0].hash!);
    const mb = batchMessages(b, '30', BATCH, 'batch', 'entry');
    for (let i = 0; i < BATCH.length; i++) {
      feed(ma[i]);
      feed(mb[i]);
    }
    m.flush();
    expect(oos).toEqual([['A', 'inconsistent_group']]);
    expect(m.book('B')!.inSync()).toBe(true);
    expect(m.stats('B')).toMatchObject({ entriesVerified: 4, mismatches: 0 });
  });

  it('same-timestamp deltas after a snapshot: skipped up to the one carrying its hash, applied after it', () => {
    const { m, feed, oos } = setup();
    const v = new VenueBook('A', BIDS, ASKS);
    feed(v.snapshot('20'));
    const msgs = batchMessages(v, '30', BATCH, 'message', 'entry');
    // the venue snapshots after the second message of the batch, then sends the whole batch
    const after2 = new VenueBook('A', BIDS, ASKS);
    for (const c of BATCH.slice(0, 2)) after2.set(c.side, c.p, c.s);
    feed(after2.snapshot('30'));
    msgs.forEach(feed);
    m.flush();
    expect(oos).toEqual([]);
    expect(m.stats('A')).toMatchObject({ ignoredDeltas: 2, deltas: 2, entriesVerified: 2, mismatches: 0 });
  });

  it('a same-timestamp delta after a snapshot whose hash never reaches the snapshot hash is a mismatch', () => {
    const { feed, oos } = setup();
    const v = new VenueBook('A', BIDS, ASKS);
    const msgs = batchMessages(v, '30', BATCH.slice(0, 2), 'message', 'entry');
    feed(v.snapshot('30'));
    msgs[1].price_changes[0].hash = corrupt(msgs[1].price_changes[0].hash!);
    msgs.forEach(feed);
    expect(oos).toEqual([]);
    for (const msg of batchMessages(v, '31', BATCH.slice(2, 3), 'message', 'entry')) feed(msg);
    expect(oos).toEqual([['A', 'inconsistent_group']]);
  });

  it('sync history: time in sync, reason and since when', () => {
    const { m, feed, setNow } = setup();
    const v = new VenueBook('A', BIDS, ASKS);
    setNow(2000);
    feed(v.snapshot('20'));
    setNow(5000);
    feed(pc('30', [{ a: 'A', p: '0.44', s: '1', side: 'BUY', hash: 'f'.repeat(40) }]));
    m.flush();
    setNow(6000);
    expect(m.syncInfo('A')).toMatchObject({ inSync: false, reason: 'hash_mismatch', sinceMs: 5000, inSyncMs: 3000, episodes: 1 });
    feed(v.snapshot('40'));
    setNow(7000);
    expect(m.syncInfo('A')).toMatchObject({ inSync: true, reason: 'hash_mismatch', sinceMs: 6000, inSyncMs: 4000 });
  });
});

describe('hashed last_trade_price', () => {
  const withLtp = (asset: string, ts: string, bids: L[], asks: L[], ltp: string) => bookHash({ market: '0xm', assetId: asset, timestamp: ts, bids, asks, ...META, lastTradePrice: ltp });

  it('a snapshot hashed over a trade not yet announced verifies (grid search), counted in ltpRecovered', () => {
    const { m, feed, oos } = setup();
    feed([bookMsg('A', '20', BIDS, ASKS, withLtp('A', '20', BIDS, ASKS, '0.570'))]);
    expect(oos).toEqual([]);
    expect(m.stats('A')).toMatchObject({ ltpRecovered: 1, hashesVerified: 1 });
    // adopted: the next group hashes over it without another search
    feed(
      pc('30', [
        {
          a: 'A',
          p: '0.44',
          s: '1',
          side: 'BUY',
          hash: withLtp(
            'A',
            '30',
            [
              ['0.4', '100'],
              ['0.44', '1'],
              ['0.45', '20.5'],
            ],
            ASKS,
            '0.570',
          ),
        },
      ]),
    );
    m.flush();
    expect(m.stats('A')).toMatchObject({ ltpRecovered: 1, hashesVerified: 2, mismatches: 0 });
  });

  it("the complement's trade as 1 - p, and our own trades, are tried first", () => {
    const m = new BookMirror({ now: () => 0 });
    m.setMeta('A', { market: '0xm' });
    m.setMeta('B', { market: '0xm' });
    decode({ asset_id: 'B', event_type: 'last_trade_price', fee_rate_bps: '0', market: '0xm', price: '0.58', side: 'BUY', size: '5', timestamp: '10' }).forEach((e) => m.apply(e));
    decode([bookMsg('A', '20', BIDS, ASKS, withLtp('A', '20', BIDS, ASKS, '0.420'))]).forEach((e) => m.apply(e));
    expect(m.stats('A')).toMatchObject({ ltpRecovered: 1, mismatches: 0 });
    m.noteOwnTrade('A', 4300);
    decode([bookMsg('A', '21', BIDS, ASKS, withLtp('A', '21', BIDS, ASKS, '0.430'))]).forEach((e) => m.apply(e));
    expect(m.stats('A')).toMatchObject({ ltpRecovered: 2, mismatches: 0 });
  });

  it('a trade noted since the last check is tried first: each change of the hashed price costs one hash', () => {
    const runs = vi.spyOn(BookHasher.prototype, 'hash');
    try {
      const m = new BookMirror({ now: () => 0 });
      m.setMeta('A', { market: '0xm' });
      m.setMeta('B', { market: '0xm' });
      const feed = (o: unknown) => decode(o).forEach((e) => m.apply(e));
      const trade = (asset: string, price: string, ts: string) =>
        feed({ asset_id: asset, event_type: 'last_trade_price', fee_rate_bps: '0', market: '0xm', price, side: 'BUY', size: '5', timestamp: ts });
      // A's size at 0.45 moves at each step; the venue hashes A's book with `ltp`
      const step = (ts: string, size: string, ltp: string): number => {
        const before = runs.mock.calls.length;
        const bids: L[] = [
          ['0.4', '100'],
          ['0.45', size],
        ];
        feed(pc(ts, [{ a: 'A', p: '0.45', s: size, side: 'BUY', hash: withLtp('A', ts, bids, ASKS, ltp) }]));
        m.flush();
        return runs.mock.calls.length - before;
      };
      feed([bookMsg('A', '20', BIDS, ASKS, withLtp('A', '20', BIDS, ASKS, '0.5'))]);
      // the sibling traded at 0.58: A's hashed price is 0.420 (before: 0.5 failed first)
      trade('B', '0.58', '21');
      expect(step('30', '21', '0.420')).toBe(1);
      // A traded at 0.43, then B at 0.60: the newest, 1 - 0.60, is tried first (before: 0.420, then
      // A's own 0.430 and 0.43, then the complement's 0.400: four runs)
      trade('A', '0.43', '31');
      trade('B', '0.6', '32');
      expect(step('40', '22', '0.400')).toBe(1);
      expect(step('50', '23', '0.400')).toBe(1);
      // a trade the hash does not cover yet costs one run more, once
      trade('A', '0.45', '51');
      expect(step('60', '24', '0.400')).toBe(2);
      expect(step('70', '25', '0.400')).toBe(1);
      // and when it comes to be hashed, the recent trades are searched newest first
      expect(step('80', '26', '0.450')).toBe(2);
      expect(m.stats('A')).toMatchObject({ ltpRecovered: 3, mismatches: 0, hashesVerified: 7 });
    } finally {
      runs.mockRestore();
    }
  });

  it('levels that disagree are a mismatch whatever the last trade price', () => {
    const { m, feed, oos } = setup();
    feed([
      bookMsg(
        'A',
        '20',
        BIDS,
        ASKS,
        withLtp(
          'A',
          '20',
          [
            ['0.4', '100'],
            ['0.45', '20.6'],
          ],
          ASKS,
          '0.570',
        ),
      ),
    ]);
    expect(oos).toEqual([['A', 'hash_mismatch']]);
    expect(m.stats('A')).toMatchObject({ ltpRecovered: 0, mismatches: 1 });
  });
});
