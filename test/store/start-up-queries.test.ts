// What every start-up reads from the store before the first quote: the orders to restore and the
// last activity. The orders table holds 24 h of a busy daemon's orders (millions of rows, ~1 GB a
// day at 20 markets), so both must be searches through an index, never a scan of the table.
import { describe, it, expect } from 'vitest';
import { Store } from '../../src/store/store.js';
import { silentLogger } from '../../src/core/log.js';
import { SeededRng } from '../../src/core/rng.js';
import { TERMINAL, type OrderState, type TrackedOrder } from '../../src/engine/orders.js';
import { tempDbs } from './temp-db.js';

const dbPath = tempDbs('start-up');
const STATES: OrderState[] = ['pending_new', 'live', 'partially_filled', 'pending_cancel', 'ambiguous', 'canceled', 'filled', 'rejected'];
const order = (id: string, state: OrderState, updatedMs: number): TrackedOrder => ({
  clientId: id,
  orderId: state === 'pending_new' || state === 'ambiguous' ? undefined : `v-${id}`,
  tokenId: 'Y',
  market: 'm',
  side: 'BUY',
  price: 5000,
  size: 1000,
  filled: state === 'filled' ? 1000 : 0,
  state,
  createdMs: 0,
  updatedMs,
});
/** Mostly finished orders, as a running daemon leaves them, over 24 h; returns them in write order. */
function fill(s: Store, n: number, seed = 1): TrackedOrder[] {
  const r = new SeededRng(seed);
  const out: TrackedOrder[] = [];
  for (let i = 0; i < n; i++) {
    const state = r.next() < 0.9 ? 'canceled' : STATES[r.int(0, STATES.length - 1)];
    out.push(order(`c${i}`, state, r.int(0, 24 * 3_600_000)));
  }
  s.writeBatch(out.map((o) => ({ kind: 'order' as const, order: o })));
  return out;
}

describe('start-up queries', () => {
  it('ordersToRestore and lastActivityMs search the orders table through indexes, no scan', () => {
    const s = new Store(dbPath(), silentLogger);
    const written = fill(s, 3000);
    const restore = s.queryPlan('ordersToRestore');
    expect(restore).not.toMatch(/SCAN orders\b/);
    expect(restore).toMatch(/SEARCH orders USING (COVERING )?INDEX orders_state \(state=\?\)/);
    expect(restore).toMatch(/SEARCH orders USING (COVERING )?INDEX orders_updated \(updated_ms>\?\)/);
    const last = s.queryPlan('lastActivityMs');
    expect(last).not.toMatch(/SCAN orders\b/);
    expect(last).toMatch(/SEARCH orders USING COVERING INDEX orders_updated/);
    expect(s.lastActivityMs()).toBe(Math.max(...written.map((o) => o.updatedMs)));
    s.close();
  });

  it('restores what it did before the rewrite: every open order, and the finished ones changed since, once each, in row order', () => {
    const s = new Store(dbPath(), silentLogger);
    const since = 5_000;
    // every state before, at and after `since`, written in a shuffled order
    const r = new SeededRng(7);
    const orders: TrackedOrder[] = [];
    for (const state of STATES) for (const t of [0, since - 1, since, since + 1]) orders.push(order(`${state}@${t}`, state, t));
    for (let i = orders.length - 1; i > 0; i--) {
      const j = r.int(0, i);
      [orders[i], orders[j]] = [orders[j], orders[i]];
    }
    s.writeBatch(orders.map((o) => ({ kind: 'order' as const, order: o })));
    // later changes keep an order's row: one open ends long ago, one finished is working again
    const ended = orders.find((o) => o.clientId === `live@${since + 1}`) as TrackedOrder;
    Object.assign(ended, { state: 'canceled', updatedMs: 1 });
    const reopened = orders.find((o) => o.clientId === 'canceled@0') as TrackedOrder;
    Object.assign(reopened, { state: 'live', updatedMs: 2 });
    s.writeBatch([
      { kind: 'order', order: ended },
      { kind: 'order', order: reopened },
    ]);
    // the old query's rule: not finished, or changed since
    const expected = orders.filter((o) => !TERMINAL.has(o.state) || o.updatedMs >= since);
    const got = s.ordersToRestore(since);
    expect(got).toEqual(expected);
    expect(new Set(got.map((o) => o.clientId)).size).toBe(got.length);
    expect(got.map((o) => o.clientId)).not.toContain(`live@${since + 1}`);
    expect(got.map((o) => o.clientId)).toContain('canceled@0');
    // the store's own old query, side by side
    const old = s.db.prepare(`SELECT client_id FROM orders WHERE state NOT IN ('canceled','filled','rejected') OR updated_ms >= ?`).all(since) as Array<{ client_id: string }>;
    expect(got.map((o) => o.clientId)).toEqual(old.map((o) => o.client_id));
    s.close();
  });

  it('a database of the previous schema gets the updated-time index in place, its orders kept', () => {
    const path = dbPath();
    let s = new Store(path, silentLogger);
    const written = fill(s, 200);
    // back to the schema before the index, as a store written by the previous release
    s.db.exec(`DROP INDEX IF EXISTS orders_updated`);
    s.db.exec(`ALTER TABLE fills DROP COLUMN size_micros`);
    s.db.pragma('user_version = 4');
    s.close();
    s = new Store(path, silentLogger);
    expect(s.db.pragma('user_version', { simple: true })).toBe(6);
    expect(s.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'orders_updated'`).all()).toHaveLength(1);
    expect((s.db.prepare(`SELECT COUNT(*) AS n FROM orders`).get() as { n: number }).n).toBe(written.length);
    expect(s.queryPlan('ordersToRestore')).not.toMatch(/SCAN orders\b/);
    s.close();
  });
});
