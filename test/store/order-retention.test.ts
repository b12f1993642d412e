// Orders that ended without a fill are deleted once older than store.orderRetentionMs, on a real
// SQLite file: a daemon sends ~5 orders a second per 20 markets and ~95% end cancelled unfilled
// (soak 12: 8,200 orders in 5 min at 20 markets, 470 bytes each), so without this the database
// grows ~1 GB a day until the disk is full and trading halts. Orders with any fill, orders still
// open, orders inside the start-up recovery window and every fill are kept; the delete works
// through the partial index (no scan of the kept history) in bounded batches.
import { describe, it, expect } from 'vitest';
import { Store } from '../../src/store/store.js';
import { OrderRetention } from '../../src/store/order-retention.js';
import { createLogger, silentLogger } from '../../src/core/log.js';
import { VirtualClock } from '../../src/core/clock.js';
import type { TrackedOrder } from '../../src/engine/orders.js';
import type { Fill } from '../../src/engine/fills.js';
import { tempDbs } from './temp-db.js';
import { recoveryStart } from '../../src/session/startup.js';

const HOUR = 3_600_000;
const dbPath = tempDbs('retention');
const store = (clock: VirtualClock): Store => new Store(dbPath(), silentLogger, () => clock.now());
const order = (id: string, over: Partial<TrackedOrder>): TrackedOrder => ({
  clientId: id,
  orderId: `o-${id}`,
  tokenId: 'Y',
  market: 'm',
  side: 'BUY',
  price: 5000,
  size: 1000,
  filled: 0,
  state: 'canceled',
  createdMs: 0,
  updatedMs: 0,
  ...over,
});
const fill = (orderId: string): Fill => ({
  tradeId: `t-${orderId}`,
  orderId,
  tokenId: 'Y',
  market: 'm',
  side: 'BUY',
  price: 5000,
  size: 500,
  fee: 0,
  liquidity: 'MAKER',
  status: 'CONFIRMED',
  timeMs: 1,
});
const ids = (s: Store): string[] => (s.db.prepare(`SELECT client_id FROM orders ORDER BY client_id`).all() as Array<{ client_id: string }>).map((r) => r.client_id);

describe('order retention', () => {
  it('deletes only orders ended unfilled before the cutoff; keeps filled, open, recent ones and every fill', async () => {
    const clock = new VirtualClock(100 * HOUR);
    const s = store(clock);
    const old = 100 * HOUR - 25 * HOUR;
    s.writeBatch([
      { kind: 'order', order: order('a-cancelled-old', { updatedMs: old }) },
      { kind: 'order', order: order('b-rejected-old', { state: 'rejected', orderId: undefined, updatedMs: old }) },
      { kind: 'order', order: order('c-cancelled-part-filled-old', { filled: 500, updatedMs: old }) },
      { kind: 'order', order: order('d-filled-old', { state: 'filled', filled: 1000, updatedMs: old }) },
      { kind: 'order', order: order('e-live-old', { state: 'live', updatedMs: old }) },
      { kind: 'order', order: order('f-cancelled-recent', { updatedMs: 100 * HOUR - 23 * HOUR }) },
      { kind: 'fill', fill: fill('o-c-cancelled-part-filled-old') },
    ]);
    const r = new OrderRetention({ store: s, clock, retentionMs: 24 * HOUR, keepAtLeastMs: 0, log: silentLogger });
    expect(await r.runOnce()).toBe(2);
    expect(ids(s)).toEqual(['c-cancelled-part-filled-old', 'd-filled-old', 'e-live-old', 'f-cancelled-recent']);
    expect(s.fillCount()).toBe(1);
    // an hour on, the recent one is past the cutoff too
    clock.advanceTo(clock.now() + 2 * HOUR);
    expect(await r.runOnce()).toBe(1);
    expect(ids(s)).toEqual(['c-cancelled-part-filled-old', 'd-filled-old', 'e-live-old']);
  });

  it('never deletes inside the start-up recovery window (daemon.recoveryWindowMs beyond the retention)', async () => {
    const clock = new VirtualClock(100 * HOUR);
    const s = store(clock);
    s.writeBatch([{ kind: 'order', order: order('a', { updatedMs: 100 * HOUR - 30 * HOUR }) }]);
    const r = new OrderRetention({ store: s, clock, retentionMs: 24 * HOUR, keepAtLeastMs: 48 * HOUR, log: silentLogger });
    expect(await r.runOnce()).toBe(0);
    expect(ids(s)).toEqual(['a']);
  });

  it("never deletes what the next start-up's trade read reaches (an hour before the trades read-through): a trade read late must find its order", async () => {
    // the venue's trades unread for 3 hours (a failing endpoint): a fill the user channel dropped, of an
    // order cancelled unfilled 2 hours ago, is found by the next read; deleted, its trade named no order
    const clock = new VirtualClock(100 * HOUR);
    const s = store(clock);
    s.setTradesReadThrough(100 * HOUR - 3 * HOUR);
    s.writeBatch([
      { kind: 'order', order: order('a-inside-the-read', { updatedMs: 100 * HOUR - 2 * HOUR }) },
      { kind: 'order', order: order('b-before-the-read', { updatedMs: 100 * HOUR - 5 * HOUR }) },
    ]);
    // as the daemon gives it: where a start-up now would read from
    const r = new OrderRetention({ store: s, clock, retentionMs: HOUR, keepAtLeastMs: 0, keepFrom: () => recoveryStart(clock.now(), 0, s.recoveryAnchorMs()), log: silentLogger });
    expect(await r.runOnce()).toBe(1);
    expect(ids(s)).toEqual(['a-inside-the-read']);
    // read through now: its window has passed it
    s.setTradesReadThrough(clock.now());
    expect(await r.runOnce()).toBe(1);
    expect(ids(s)).toEqual([]);
  });

  it('works in batches through the partial index, not a scan of the kept orders', async () => {
    const clock = new VirtualClock(100 * HOUR);
    const s = store(clock);
    const batch = [];
    for (let i = 0; i < 2500; i++) batch.push({ kind: 'order' as const, order: order(`x${String(i).padStart(5, '0')}`, { updatedMs: i }) });
    for (let i = 0; i < 300; i++) batch.push({ kind: 'order' as const, order: order(`kept${i}`, { state: 'filled', filled: 1000, updatedMs: i }) });
    s.writeBatch(batch);
    const r = new OrderRetention({ store: s, clock, retentionMs: 24 * HOUR, keepAtLeastMs: 0, log: silentLogger, batch: 1000 });
    const plan = s.queryPlan('pruneOrders');
    expect(plan).toMatch(/USING (COVERING )?INDEX orders_prunable/);
    expect(plan).not.toMatch(/SCAN orders\b/);
    expect(s.pruneOrders(100 * HOUR, 1000)).toBe(1000); // one batch holds at most `batch` rows
    expect(await r.runOnce()).toBe(1500);
    expect(ids(s).filter((id) => id.startsWith('x'))).toEqual([]);
    expect(ids(s)).toHaveLength(300);
  });

  it('a store that cannot write: the run logs, deletes nothing and throws nothing; the next run catches up', async () => {
    const clock = new VirtualClock(100 * HOUR);
    const s = store(clock);
    s.writeBatch([{ kind: 'order', order: order('old', { updatedMs: 0 }) }]);
    const lines: string[] = [];
    const log = createLogger({ level: 'warn', destination: { write: (l: string) => void lines.push(l) } });
    const r = new OrderRetention({ store: s, clock, retentionMs: 24 * HOUR, keepAtLeastMs: 0, log });
    s.db.pragma('query_only = ON'); // writes refused, as on a failing disk
    expect(await r.runOnce()).toBe(0);
    expect(lines.join('')).toMatch(/deleting old unfilled orders failed/);
    expect(ids(s)).toEqual(['old']);
    s.db.pragma('query_only = OFF');
    expect(await r.runOnce()).toBe(1);
  });
});
