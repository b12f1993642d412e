// Schema migrations, applied in order; PRAGMA user_version holds the last one applied. Append a
// new entry to change the schema; never edit one that has shipped.
import type Database from 'better-sqlite3';
import { MakerdError } from '../core/errors.js';

const MIGRATIONS: string[] = [
  // 1: runs, orders, fills, positions, account, PnL snapshots
  `
  CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    started_ms INTEGER NOT NULL,
    ended_ms INTEGER,
    mode TEXT NOT NULL,
    strategy TEXT NOT NULL,
    markets TEXT NOT NULL,
    end_reason TEXT
  );
  CREATE TABLE orders (
    client_id TEXT PRIMARY KEY,
    order_id TEXT UNIQUE,
    run_id INTEGER,
    token_id TEXT NOT NULL,
    market TEXT NOT NULL,
    side TEXT NOT NULL CHECK (side IN ('BUY','SELL')),
    price TEXT NOT NULL,
    size TEXT NOT NULL,
    filled TEXT NOT NULL,
    state TEXT NOT NULL,
    error TEXT,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL
  );
  CREATE INDEX orders_state ON orders(state);
  -- One row per (trade, our order): a single trade can fill several of our orders at once.
  CREATE TABLE fills (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    trade_id TEXT NOT NULL,
    order_id TEXT NOT NULL,
    token_id TEXT NOT NULL,
    market TEXT NOT NULL,
    side TEXT NOT NULL CHECK (side IN ('BUY','SELL')),
    price TEXT NOT NULL,
    size TEXT NOT NULL,
    fee TEXT NOT NULL,
    liquidity TEXT NOT NULL,
    status TEXT NOT NULL,
    time_ms INTEGER NOT NULL,
    recorded_ms INTEGER NOT NULL,
    UNIQUE (trade_id, order_id)
  );
  CREATE INDEX fills_token ON fills(token_id);
  CREATE TABLE positions (
    token_id TEXT PRIMARY KEY,
    market TEXT NOT NULL,
    qty TEXT NOT NULL,
    cost TEXT NOT NULL,
    realized TEXT NOT NULL,
    updated_ms INTEGER NOT NULL
  );
  CREATE TABLE account (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    cash TEXT NOT NULL,
    fees TEXT NOT NULL,
    updated_ms INTEGER NOT NULL
  );
  INSERT INTO account (id, cash, fees, updated_ms) VALUES (1, '0', '0', 0);
  CREATE TABLE pnl_snapshots (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id INTEGER,
    time_ms INTEGER NOT NULL,
    kind TEXT NOT NULL,
    cash TEXT NOT NULL,
    holdings TEXT NOT NULL,
    pnl TEXT NOT NULL,
    fees TEXT NOT NULL,
    fills INTEGER NOT NULL
  );
  `,
  // 2: the orders retention deletes (order-retention.ts) find their rows without scanning the kept ones
  `
  CREATE INDEX orders_prunable ON orders(updated_ms) WHERE state IN ('canceled','rejected') AND filled = '0';
  `,
  // 3: what the PnL of the loss check needs across a restart: the PnL each UTC day began at, and the
  // mark of each held token whose market left the set (no book marks it any more); the store's owner
  `
  CREATE TABLE risk_days (
    day INTEGER PRIMARY KEY,
    start_pnl_micros REAL NOT NULL, -- micro-dollars, a half where a mid is
    set_ms INTEGER NOT NULL
  );
  CREATE TABLE last_marks (
    token_id TEXT PRIMARY KEY,
    mark REAL NOT NULL,
    set_ms INTEGER NOT NULL
  );
  -- whose orders and fills these are (the profile's account): a live daemon refuses another's
  CREATE TABLE store_meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  `,
  // 4: start-up reads every fill in time order (Store.eachFill) and the latest activity: through an
  // index, not a sort of the whole table (1,000,000 fills: 2.3 s against 3.2 s, MAX 0.1 ms against 130)
  `
  CREATE INDEX fills_time ON fills(time_ms, id);
  `,
  // 5: start-up's reads of the orders (Store.ordersToRestore's recent ones, lastActivityMs' MAX)
  // search by updated time instead of scanning a table of millions of rows (24 h kept)
  `
  CREATE INDEX orders_updated ON orders(updated_ms);
  `,
  // 6: a fill's exact size in millionths of a share when finer than the 0.01-share grid (size holds
  // it rounded): a restart rebuilds what the rounding added to a position, which is not ours to sell
  `
  ALTER TABLE fills ADD COLUMN size_micros INTEGER;
  `,
];

export function migrate(db: Database.Database): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  // a later makerd's store (a rollback after an upgrade): its tables may mean what this one does not know
  if (current > MIGRATIONS.length) {
    throw new MakerdError(`the store's schema version ${current} is newer than this makerd's ${MIGRATIONS.length}: a later makerd wrote it; run that one, or give this one a database of its own`);
  }
  for (let v = current; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
  return MIGRATIONS.length;
}
