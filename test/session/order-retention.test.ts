// The daemon keeps its store bounded (live, in process, against the emulator on loopback): a store
// holding two days of orders that ended unfilled (what a running daemon mostly writes) has them
// deleted at start, while the one that filled, its fill and the orders within the retention stay.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, expect } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { Store } from '../../src/store/store.js';
import type { TrackedOrder } from '../../src/engine/orders.js';
import { sleep, startDaemon } from '../status/daemon-fixture.js';

const HOUR = 3_600_000;
const order = (id: string, updatedMs: number, over: Partial<TrackedOrder> = {}): TrackedOrder => ({
  clientId: id,
  orderId: `0x${id}`,
  tokenId: '1',
  market: '0xold',
  side: 'BUY',
  price: 5000,
  size: 1000,
  filled: 0,
  state: 'canceled',
  createdMs: updatedMs,
  updatedMs,
  ...over,
});

describe('daemon: the store stays bounded', () => {
  it('deletes orders that ended unfilled past store.orderRetentionMs at start; keeps filled ones, fills and recent ones', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'makerd-retention-e2e-'));
    const db = join(dir, 'r.sqlite');
    const now = Date.now();
    const pre = new Store(db, silentLogger);
    const old = Array.from({ length: 1200 }, (_, i) => ({ kind: 'order' as const, order: order(`old${i}`, now - 48 * HOUR + i) }));
    pre.writeBatch([
      ...old,
      { kind: 'order', order: order('filled', now - 48 * HOUR, { state: 'filled', filled: 1000 }) },
      { kind: 'order', order: order('recent', now - 2 * HOUR) },
      {
        kind: 'fill',
        fill: { tradeId: 't1', orderId: '0xfilled', tokenId: '1', market: '0xold', side: 'BUY', price: 5000, size: 1000, fee: 0, liquidity: 'MAKER', status: 'CONFIRMED', timeMs: now - 48 * HOUR },
      },
    ]);
    pre.close();
    const r = await startDaemon(1, { seed: 5, db, overrides: { store: { orderRetentionMs: 24 * HOUR } } });
    try {
      const left = () => r.daemon.store.db.prepare(`SELECT client_id FROM orders WHERE market = '0xold' ORDER BY client_id`).all() as Array<{ client_id: string }>;
      const end = Date.now() + 10_000;
      while (left().length > 2 && Date.now() < end) await sleep(50);
      expect(left().map((x) => x.client_id)).toEqual(['filled', 'recent']);
      expect(r.daemon.store.fillCount()).toBeGreaterThanOrEqual(1);
      expect((r.daemon.store.db.prepare(`SELECT COUNT(*) AS n FROM fills WHERE trade_id = 't1'`).get() as { n: number }).n).toBe(1);
    } finally {
      await r.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
