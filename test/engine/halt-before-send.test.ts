// A store write that fails while a batch of places is being recorded halts quoting (cancel-all) at
// once; that batch must then not be sent behind the cancel-all (found in review: on a full disk,
// order writes are the first to fail, and the POST went out right after the DELETE /cancel-all, so
// orders could rest after the halt, unstored).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/log.js';
import type { Engine } from '../../src/engine/engine.js';
import { Store } from '../../src/store/store.js';
import { StoreJournal } from '../../src/store/journal.js';
import { RecordingVenue, bandsEngine, books, deliver, settle } from './helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('engine: a halt while places are being recorded', () => {
  it('a failed write of the batch halts, and the batch is not sent after the cancel-all; its orders end unsent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'makerd-halt-'));
    dirs.push(dir);
    const store = new Store(join(dir, 'db.sqlite'), silentLogger);
    const ref: { engine?: Engine } = {};
    const journal = new StoreJournal(store, { log: silentLogger, onFailure: (err) => ref.engine?.halt(`store write failed: ${String(err)}`) });
    const clock = new VirtualClock(1_700_000_000_000);
    const venue = new RecordingVenue(() => clock.now());
    const made = await bandsEngine({ clock, venue, params: { fair: 'mid', bands: [{ distance: 0.02, size: 10 }], skewPerShare: 0 }, journal });
    const engine = (ref.engine = made.engine);
    // the disk is full from now on
    store.writeBatch = () => {
      throw new Error('SQLITE_FULL: database or disk is full');
    };
    deliver(made.mirror, engine, books(4900, 5100, clock.now()));
    engine.start();
    await settle(10);
    const kinds = venue.calls.map((c) => c.kind);
    expect(kinds).toContain('cancelAll');
    expect(kinds.filter((k) => k === 'placeOrders' || k === 'placeOrder')).toEqual([]);
    expect([...engine.orders.open()]).toEqual([]);
    await engine.stop();
    store.close();
  });
});
