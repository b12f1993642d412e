// The collateral budget the risk gate caps BUYs with (collateral.ts): the balance as last read,
// less what was paid out since that read began; a read that fails keeps the last figure; reads
// come one at a time, on the clock's period and when asked.
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/log.js';
import { CollateralBudget, SOON_MS } from '../../src/engine/collateral.js';
import { Positions } from '../../src/engine/positions.js';
import { M, RecordingVenue, Y, bandsEngine, books, deliver, makerTrade, refuseForBalance, settle } from './helpers.js';

function setup(everyMs = 0) {
  const clock = new VirtualClock(0);
  const positions = new Positions();
  const venue = { balance: 10_000_000, reads: 0, refreshes: 0, fail: false, hold: false, release: [] as Array<() => void> };
  const budget = new CollateralBudget({
    clock,
    log: silentLogger,
    read: () => {
      venue.reads++;
      if (venue.fail) return Promise.reject(new Error('503 Service Unavailable'));
      const figure = venue.balance;
      return venue.hold ? new Promise<number>((r) => venue.release.push(() => r(figure))) : Promise.resolve(figure);
    },
    refresh: async () => void venue.refreshes++,
    spent: () => positions.spent,
    everyMs,
  });
  return { clock, positions, venue, budget };
}

describe('collateral budget', () => {
  it('not capped before the first read; then the balance less BUY fills and fees since the read began; SELL proceeds wait for the next read', async () => {
    const { positions, venue, budget } = setup();
    expect(budget.available()).toBe(Infinity);
    expect(budget.lastRead()).toBeUndefined();
    await budget.read();
    expect(budget.available()).toBe(10_000_000);
    positions.apply('Y', 'BUY', 4000, 1000, 20_000); // $4 and a 2-cent fee
    expect(budget.available()).toBe(5_980_000);
    positions.apply('Y', 'SELL', 4500, 500, 0); // $2.25 back, not counted until read
    expect(budget.available()).toBe(5_980_000);
    // the venue's next figure counts both: the spending since then starts from zero
    venue.balance = 10_000_000 - 4_000_000 - 20_000 + 2_250_000;
    await budget.read();
    expect(budget.available()).toBe(8_230_000);
    expect(budget.lastRead()).toBe(8_230_000);
  });

  it('a fill while a read is out counts as spent after its answer (the answer may not include it)', async () => {
    const { positions, venue, budget } = setup();
    venue.hold = true;
    const first = budget.read();
    // a second caller shares the read out
    const second = budget.read(true);
    expect(venue.reads).toBe(1);
    positions.apply('N', 'BUY', 5000, 1000, 0);
    venue.release.shift()?.();
    await Promise.all([first, second]);
    expect(budget.available()).toBe(5_000_000);
    expect(venue.refreshes).toBe(0);
  });

  it('a failed read keeps the last figure; `refresh` asks the venue to re-read first; reads every period once scheduled, none after close', async () => {
    const { clock, venue, budget } = setup(1000);
    await budget.read();
    venue.fail = true;
    venue.balance = 1;
    await budget.read(true);
    expect(venue.refreshes).toBe(1);
    expect(budget.available()).toBe(10_000_000);
    expect(budget.readFailures).toBe(1);
    venue.fail = false;
    venue.balance = 7_000_000;
    budget.schedule();
    clock.advanceTo(999);
    expect(venue.reads).toBe(2);
    clock.advanceTo(1000);
    await new Promise((r) => setImmediate(r));
    expect(venue.reads).toBe(3);
    expect(budget.available()).toBe(7_000_000);
    clock.advanceTo(2000);
    await new Promise((r) => setImmediate(r));
    expect(venue.reads).toBe(4);
    budget.close();
    clock.advanceTo(10_000);
    await new Promise((r) => setImmediate(r));
    expect(venue.reads).toBe(4);
  });

  it('soon(): one read SOON_MS later however many ask before it; none after close', async () => {
    const { clock, venue, budget } = setup();
    budget.soon();
    budget.soon();
    clock.advanceTo(SOON_MS - 1);
    expect(venue.reads).toBe(0);
    clock.advanceTo(SOON_MS);
    await new Promise((r) => setImmediate(r));
    expect(venue.reads).toBe(1);
    budget.soon();
    budget.close();
    clock.advanceTo(10 * SOON_MS);
    await new Promise((r) => setImmediate(r));
    expect(venue.reads).toBe(1);
  });

  it('a venue read or refresh that throws before any request is a failed read, logged: never a rejection for the caller', async () => {
    const clock = new VirtualClock(0);
    const budget = new CollateralBudget({
      clock,
      log: silentLogger,
      read: () => {
        throw new Error('read: bug');
      },
      refresh: () => {
        throw new Error('refresh: bug');
      },
      spent: () => 0,
      everyMs: 0,
    });
    await expect(budget.read(true)).resolves.toBeUndefined();
    expect(budget.readFailures).toBe(1);
    expect(budget.available()).toBe(Infinity);
  });

  it("awaitFills: an ended BUY's cost is held until its fills are reported, or a read begun after answers (SOON_MS later)", async () => {
    const { clock, positions, venue, budget } = setup();
    await budget.read();
    budget.awaitFills('o1', 4_600_000);
    expect(budget.available()).toBe(5_400_000);
    // part of it reported: that part is spent, the rest still held
    positions.apply('Y', 'BUY', 4600, 500, 0);
    budget.filled('o1', 2_300_000);
    expect(budget.available()).toBe(5_400_000);
    // a read begins (the venue's figure has the $4.60 match in it); o2 ends while it is out: the
    // answer drops o1's reservation (matched before the read began), not o2's
    venue.balance = 5_400_000;
    venue.hold = true;
    const out = budget.read();
    budget.awaitFills('o2', 1_000_000);
    expect(budget.available()).toBe(4_400_000);
    venue.release.shift()?.();
    await out;
    expect(budget.available()).toBe(4_400_000);
    // the read SOON_MS after the first reservation has o2's match in it: nothing held any more
    venue.hold = false;
    venue.balance = 4_400_000;
    clock.advanceTo(SOON_MS);
    await new Promise((r) => setImmediate(r));
    expect(venue.reads).toBe(3);
    expect(budget.available()).toBe(4_400_000);
    budget.filled('o2', 1_000_000);
    expect(budget.available()).toBe(4_400_000);
  });

  it('a venue figure that is not an amount is a failed read', async () => {
    const { venue, budget } = setup();
    venue.balance = Number.NaN;
    await budget.read();
    expect(budget.available()).toBe(Infinity);
    expect(budget.readFailures).toBe(1);
  });
});

describe('engine: the collateral read after a SELL of ours settles', () => {
  it('a SELL fill reaching CONFIRMED reads the balance SOON_MS later (its proceeds are in it); a BUY fill does not', async () => {
    const clock = new VirtualClock(1_700_000_000_000);
    const venue = new RecordingVenue(() => clock.now());
    let reads = 0;
    Object.assign(venue, { collateral: async () => (reads++, 10_000_000) });
    const { engine } = await bandsEngine({ clock, venue, params: {} });
    await engine.collateral.read();
    expect(reads).toBe(1);
    for (const [i, side] of (['BUY', 'SELL'] as const).entries()) {
      const orderId = `o${i}`;
      engine.orders.create({ clientId: `c${i}`, tokenId: Y, market: M, side, price: 5000, size: 1000, createdMs: clock.now() });
      engine.orders.placeResult({ clientId: `c${i}`, ok: true, orderId, status: 'live' }, clock.now());
      for (const status of ['MATCHED', 'CONFIRMED'] as const) engine.handleUserEvent(makerTrade(`t${i}`, orderId, side, status, clock.now()));
      clock.advanceTo(clock.now() + SOON_MS);
      await settle(5);
      expect(reads).toBe(side === 'BUY' ? 1 : 2);
    }
    await engine.stop();
  });
});

describe('engine: one answer refusing several BUYs for balance', () => {
  it('is one refusal of the collateral: one wait of 1 s (not doubled per BUY), one count, one re-read', async () => {
    const clock = new VirtualClock(1_700_000_000_000);
    const venue = new RecordingVenue(() => clock.now());
    let refuse = true;
    refuseForBalance(venue, 'BUY', () => refuse);
    let refreshes = 0;
    Object.assign(venue, { collateral: async () => 10_000_000, refreshBalance: async () => void refreshes++ });
    const { engine, mirror } = await bandsEngine({ clock, venue, params: { fair: 'mid', bands: [{ distance: 0.02, size: 10 }], skewPerShare: 0 } });
    const buys = () => venue.calls.filter((c) => c.reqs?.some((r) => r.side === 'BUY'));
    deliver(mirror, engine, books(4900, 5100, clock.now()));
    engine.start();
    await settle(10);
    const t0 = clock.now();
    // the bid and the ask (a BUY of the complement: no shares) in one request, both refused
    expect(buys().map((c) => c.reqs?.filter((r) => r.side === 'BUY').length)).toEqual([2]);
    expect(engine.counters.buyWaits).toBe(1);
    expect(refreshes).toBe(1);
    refuse = false;
    // a 1 s wait: the housekeeping requote after it sends the BUYs again (a doubled one would hold them to t0 + 2 s)
    clock.advanceTo(t0 + 1500);
    await settle(10);
    expect(buys()).toHaveLength(2);
    expect(buys()[1].t).toBeLessThan(t0 + 2000);
    await engine.stop();
  });
});

describe('engine: a BUY the venue would not cancel (matched, its trade not yet reported)', () => {
  it('keeps its cost out of the collateral until its fill is reported', async () => {
    const clock = new VirtualClock(1_700_000_000_000);
    const venue = new RecordingVenue(() => clock.now());
    Object.assign(venue, { collateral: async () => 10_000_000 });
    const { engine, mirror } = await bandsEngine({ clock, venue, params: { fair: 'mid', bands: [{ distance: 0.02, size: 10 }], skewPerShare: 0 } });
    await engine.collateral.read();
    deliver(mirror, engine, books(4900, 5100, clock.now()));
    engine.start();
    await settle(10);
    const bid = [...engine.orders.open()].find((o) => o.side === 'BUY' && o.tokenId === Y);
    expect(bid?.orderId).toBeDefined();
    const cost = bid!.price * bid!.size;
    // the venue matched the bid; the trade's report is still on its way when the book moves and
    // the requote cancels it: "not found" (already canceled or matched)
    venue.live.delete(bid!.orderId!);
    clock.advanceTo(clock.now() + 100);
    deliver(mirror, engine, books(5200, 5400, clock.now()));
    await settle(10);
    expect(bid!.state).toBe('canceled');
    // its cost is still spent as far as we know: not free for another BUY
    expect(engine.collateral.available()).toBe(10_000_000 - cost);
    // the report comes: the fill is spent, the reservation gone (not counted twice)
    engine.handleUserEvent(makerTrade('t1', bid!.orderId!, 'BUY', 'MATCHED', clock.now(), { price: bid!.price, size: bid!.size }));
    expect(engine.collateral.available()).toBe(10_000_000 - cost);
    await engine.stop();
  });
});
