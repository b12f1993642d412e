// What a store must be to be opened (review findings): one a later makerd wrote (its schema newer
// than ours) is refused, not run with tables this version does not know; the one-daemon lock is the
// real file's, however the path reaches it (a symlink); a database another process holds in a write
// transaction fails our write at once, instead of blocking the event loop (heartbeats, feeds, the
// halt's cancel-all) for seconds per attempt.
import { symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { Store } from '../../src/store/store.js';
import { StoreLock, StoreLockedError } from '../../src/store/store-lock.js';
import { tempDbs } from './temp-db.js';

const dbPath = tempDbs('store-open');

describe('opening a store', () => {
  it('refuses a store whose schema a later makerd wrote, and leaves it as it was', () => {
    const path = dbPath();
    new Store(path, silentLogger).close();
    const raw = new Database(path);
    raw.pragma('user_version = 99');
    raw.close();
    expect(() => new Store(path, silentLogger)).toThrow(/schema version 99.*newer/);
    const again = new Database(path, { readonly: true });
    expect(again.pragma('user_version', { simple: true })).toBe(99);
    again.close();
  });

  it('takes the lock of the real file: a second taker through a symlink is refused', () => {
    const path = dbPath();
    new Store(path, silentLogger).close();
    const link = join(dirname(path), 'link.sqlite');
    symlinkSync(path, link);
    const held = StoreLock.acquire(path);
    try {
      expect(() => StoreLock.acquire(link)).toThrow(StoreLockedError);
    } finally {
      held.release();
    }
    // and the other way round
    const viaLink = StoreLock.acquire(link);
    try {
      expect(() => StoreLock.acquire(path)).toThrow(StoreLockedError);
    } finally {
      viaLink.release();
    }
  });

  it('a write while another process holds a write transaction fails within a moment, not after seconds', () => {
    const path = dbPath();
    const store = new Store(path, silentLogger);
    const other = new Database(path);
    other.exec('BEGIN IMMEDIATE');
    try {
      const t0 = performance.now();
      expect(() => store.startRun('live', 'bands', ['1'])).toThrow(/busy|locked/i);
      expect(performance.now() - t0).toBeLessThan(1000);
    } finally {
      other.exec('ROLLBACK');
      other.close();
      store.close();
    }
  });
});
