// A live daemon refuses a database that holds another account's orders and fills (an operator who
// changed keys but not MAKERD_DB): restored, their positions would be taken for ours, SELLs sent
// for shares we do not hold and the loss limit counted from someone else's PnL. A new database
// (or one from before the check) is marked with the account that first trades on it.
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { ConfigError } from '../../src/core/errors.js';
import { specProfile } from '../../src/api/clob-profile.js';
import { Store } from '../../src/store/store.js';
import { KEY, startDaemon } from '../status/daemon-fixture.js';
import { tempDbs } from '../store/temp-db.js';

const dbPath = tempDbs('owner');

describe('the store belongs to one account', () => {
  it("names the account without its secret: the API key's fingerprint", () => {
    const a = specProfile(KEY).account;
    expect(a).toMatch(/^key:[0-9a-f]{16}$/);
    expect(a).not.toContain(KEY);
    expect(specProfile('another-key').account).not.toBe(a);
    expect(specProfile().account).toBeUndefined();
  });

  it('a daemon marks a new database with its account, and refuses one of another account (store.path)', async () => {
    const db = dbPath();
    const r = await startDaemon(1, { seed: 5, db, waitQuoting: false });
    try {
      expect(r.daemon.store.owner()).toBe(specProfile(KEY).account);
    } finally {
      await r.close();
    }
    const other = dbPath();
    const pre = new Store(other, silentLogger);
    pre.setOwner('key:0123456789abcdef');
    pre.close();
    const err = await startDaemon(1, { seed: 5, db: other, waitQuoting: false }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).key).toBe('store.path');
    expect((err as ConfigError).message).toMatch(/another account \(key:0123456789abcdef\)/);
  }, 60_000);

  it('a database it cannot mark is refused the same way, with the reason (store.path), not a stack trace', async () => {
    const db = dbPath();
    const pre = new Store(db, silentLogger);
    // the write of the owner fails, as on a full or failing disk
    pre.db.exec(`CREATE TRIGGER refuse BEFORE INSERT ON store_meta BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END;`);
    pre.close();
    const err = await startDaemon(1, { seed: 5, db, waitQuoting: false }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).key).toBe('store.path');
    expect((err as ConfigError).reason).toMatch(/cannot write .*database or disk is full/);
  }, 60_000);
});
