// The journal over the store (issue 10, items 2 and 3): the writes of one unit are one
// transaction; a failed write is kept in order, reported once, and retried.
import { describe, it, expect, afterEach } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../src/store/store.js';
import { StoreJournal } from '../../src/store/journal.js';
import { silentLogger } from '../../src/core/log.js';
import type { Fill } from '../../src/engine/fills.js';
import type { TrackedOrder } from '../../src/engine/orders.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function store(): Store {
  const d = mkdtempSync(join(tmpdir(), 'makerd-journal-'));
  dirs.push(d);
  return new Store(join(d, 'j.sqlite'), silentLogger);
}
const order = (over: Partial<TrackedOrder> = {}): TrackedOrder => ({
  clientId: 'c1',
  orderId: 'o1',
  tokenId: 'Y',
  market: 'm',
  side: 'BUY',
  price: 5000,
  size: 1000,
  filled: 1000,
  state: 'filled',
  createdMs: 1,
  updatedMs: 2,
  ...over,
});
const fill = (over: Partial<Fill> = {}): Fill => ({
  tradeId: 't1',
  orderId: 'o1',
  tokenId: 'Y',
  market: 'm',
  side: 'BUY',
  price: 5000,
  size: 1000,
  fee: 0,
  liquidity: 'MAKER',
  status: 'MATCHED',
  timeMs: 1000,
  ...over,
});
const rows = (s: Store, table: string) => (s.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;

describe('store journal', () => {
  it("an order's new state and its fill are stored together or not at all", () => {
    const s = store();
    const failures: unknown[] = [];
    const j = new StoreJournal(s, { log: silentLogger, onFailure: (e) => failures.push(e) });
    // the fill's insert fails: the order row written before it in the unit is rolled back
    s.db.exec(`CREATE TRIGGER refuse_fills BEFORE INSERT ON fills BEGIN SELECT RAISE(ABORT, 'no room'); END`);
    j.unit(() => {
      j.orderChanged(order());
      j.fill(fill());
    });
    expect(failures).toHaveLength(1);
    expect(rows(s, 'orders')).toBe(0);
    expect(rows(s, 'fills')).toBe(0);
    expect(j.pending().map((r) => r.kind)).toEqual(['order', 'fill']);
    s.close();
  });

  it('later writes queue behind unwritten ones and the retry stores them all in order', () => {
    const s = store();
    let failures = 0;
    let recovered = 0;
    const j = new StoreJournal(s, { log: silentLogger, onFailure: () => failures++, onRecovered: () => recovered++ });
    const pages = s.db.pragma('page_count', { simple: true }) as number;
    s.db.pragma(`max_page_count = ${pages}`);
    // fill rows until the file needs a page it may not have
    let n = 0;
    while (failures === 0 && n < 10_000) j.unit(() => j.fill(fill({ tradeId: `t${n++}` })));
    expect(failures).toBe(1);
    const stuck = j.pending().length;
    expect(stuck).toBe(1);
    // the order moves on while the store is full: queued behind, never written ahead of the fill
    j.orderChanged(order({ state: 'live', filled: 0 }));
    j.orderChanged(order({ state: 'filled' }));
    expect(failures).toBe(1); // one failure reported per episode
    expect(j.pending()).toHaveLength(3);
    expect(j.retry()).toBe(false);
    s.db.pragma('max_page_count = 1073741823');
    expect(j.retry()).toBe(true);
    expect(recovered).toBe(1);
    expect(j.pending()).toHaveLength(0);
    expect(rows(s, 'fills')).toBe(n);
    expect((s.db.prepare(`SELECT state FROM orders WHERE client_id = 'c1'`).get() as { state: string }).state).toBe('filled');
    s.close();
  });
});
