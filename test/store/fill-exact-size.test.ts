// A fill's exact size, finer than the 0.01-share grid (the venue's 6-decimal pieces: "8.771927"),
// kept across a restart (found in review): the position holds the rounded size and a tally of what
// the rounding added, so no more is offered for sale than the venue holds; the store kept only the
// rounded size, so after a restart the tally was gone and a SELL of the whole position was refused
// for balance. On a real SQLite file, restored into a real engine.
import { describe, expect, it } from 'vitest';
import { Store } from '../../src/store/store.js';
import { silentLogger } from '../../src/core/log.js';
import { VirtualClock } from '../../src/core/clock.js';
import { restoreFromStore } from '../../src/session/startup.js';
import { fillKey, type Fill } from '../../src/engine/fills.js';
import { RecordingVenue, Y, bandsEngine } from '../engine/helpers.js';
import { tempDbs } from './temp-db.js';

const dbPath = tempDbs('fill-exact');

// 2.005 shares four times then 1.96: booked as 2.01 x 4 + 1.96 = 10.00, the venue holds 9.98
const pieces: Fill[] = [...[1, 2, 3, 4].map((i) => ({ size: 201, sizeMicros: 2_005_000, i })), { size: 196, sizeMicros: undefined, i: 5 }].map(({ size, sizeMicros, i }) => ({
  tradeId: `T${i}`,
  orderId: 'O1',
  tokenId: Y,
  market: 'M',
  side: 'BUY' as const,
  price: 5000,
  size,
  ...(sizeMicros === undefined ? {} : { sizeMicros }),
  fee: 0,
  liquidity: 'MAKER' as const,
  status: 'CONFIRMED' as const,
  timeMs: 1_700_000_000_000 + i,
}));

describe('a fill finer than the share grid', () => {
  it('keeps its exact size in the store, so a restart offers no more for sale than the venue holds', async () => {
    const path = dbPath();
    const s = new Store(path, silentLogger);
    for (const f of pieces) s.fill(f);
    s.close();
    const back = new Store(path, silentLogger);
    const stored = back.fills();
    back.close();
    expect(stored.map((f) => f.sizeMicros)).toEqual([2_005_000, 2_005_000, 2_005_000, 2_005_000, undefined]);

    const clock = new VirtualClock(1_700_000_100_000);
    // the running engine's view: the same pieces applied as they came
    const live = (await bandsEngine({ clock, venue: new RecordingVenue(() => clock.now()), params: {} })).engine;
    for (const f of pieces) live.positions.applyFill(f, fillKey(f.tradeId, f.orderId), false);
    const restarted = (await bandsEngine({ clock, venue: new RecordingVenue(() => clock.now()), params: {} })).engine;
    restoreFromStore(restarted, [], stored);
    expect(live.positions.overstated(Y)).toBe(2);
    expect(restarted.positions.overstated(Y)).toBe(live.positions.overstated(Y));
  });

  it('a store of the previous schema gets the column, its fills kept (their exact sizes unknown: on the grid)', () => {
    const path = dbPath();
    let s = new Store(path, silentLogger);
    for (const f of pieces) s.fill(f);
    s.db.exec(`ALTER TABLE fills DROP COLUMN size_micros`);
    s.db.pragma('user_version = 5');
    s.close();
    s = new Store(path, silentLogger);
    expect(s.db.pragma('user_version', { simple: true })).toBe(6);
    const back = s.fills();
    s.close();
    expect(back.map((f) => [f.tradeId, f.size, f.sizeMicros])).toEqual(pieces.map((f) => [f.tradeId, f.size, undefined]));
  });
});
