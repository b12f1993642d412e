// Up to when the venue's trades were read (session/trades-read.ts) on a real store: reads that leave
// nothing unread move it forward only; one that leaves a gap asks for a catch-up from the noted time
// instead (a look-up from after it: the look-ups failed past the hour), and after the catch-ups fail
// the gap is given up on with an error, so that every later start does not read back to it.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/log.js';
import { Store } from '../../src/store/store.js';
import { MAX_CATCH_UPS, TradesReadNote } from '../../src/session/trades-read.js';
import { StoreJournal } from '../../src/store/journal.js';
import { tempDbs } from '../store/temp-db.js';
import Database from 'better-sqlite3';

const dbPath = tempDbs('trades-read');
const H = 3_600_000;

describe('the trades-read-through note', () => {
  it('moves forward with reads that leave nothing unread, asks a catch-up over a gap, gives it up after the catch-ups fail', () => {
    const store = new Store(dbPath(), createLogger({ level: 'silent' }));
    const lines: string[] = [];
    const log = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(s) } });
    const asked: number[] = [];
    const note = new TradesReadNote({ store, catchUp: (from) => asked.push(from), log });
    try {
      const t = 1_700_000_000_000;
      expect(store.tradesReadThrough()).toBeUndefined();
      note.read(t - 24 * H, t);
      expect(store.tradesReadThrough()).toBe(t);
      // overlapping reads move it forward, never back
      note.read(t - 60_000, t + 120_000);
      note.read(t - H, t + 60_000);
      expect(store.tradesReadThrough()).toBe(t + 120_000);
      // the look-ups failed for two hours: the next read starts an hour back, after the note
      note.read(t + 3 * H, t + 4 * H);
      expect(store.tradesReadThrough()).toBe(t + 120_000);
      expect(asked).toEqual([t + 120_000]);
      // the catch-up went through: from the note on
      note.read(t + 120_000, t + 4 * H + 60_000);
      expect(store.tradesReadThrough()).toBe(t + 4 * H + 60_000);
      // another gap, whose catch-ups all fail: given up on, with an error naming it
      const gapFrom = t + 4 * H + 60_000;
      for (let i = 0; i < MAX_CATCH_UPS; i++) note.read(t + 7 * H, t + 8 * H);
      expect(store.tradesReadThrough()).toBe(gapFrom);
      expect(asked).toHaveLength(1 + MAX_CATCH_UPS);
      note.read(t + 7 * H, t + 8 * H);
      expect(store.tradesReadThrough()).toBe(t + 8 * H);
      expect(lines.filter((l) => l.includes('"level":50') && l.includes(String(gapFrom)))).toHaveLength(1);
    } finally {
      store.close();
    }
  });

  it('does not move past fills the journal still holds unwritten: a kill before their retry would leave them unread and unstored', () => {
    const path = dbPath();
    const silent = createLogger({ level: 'silent' });
    const store = new Store(path, silent);
    const journal = new StoreJournal(store, { log: silent, onFailure: () => undefined });
    const note = new TradesReadNote({ store, catchUp: () => undefined, log: silent, unwritten: () => journal.pending().length });
    const other = new Database(path);
    try {
      const t = 1_700_000_000_000;
      note.read(t - H, t);
      expect(store.tradesReadThrough()).toBe(t);
      // another program holds the store: a fill a look-up found is kept in memory, unwritten
      other.exec('BEGIN IMMEDIATE');
      journal.fill({ tradeId: 'tr1', orderId: 'o1', tokenId: 'tok', market: 'm', side: 'BUY', price: 500, size: 1000, fee: 0, liquidity: 'MAKER', status: 'MATCHED', timeMs: t + 30_000 });
      other.exec('ROLLBACK');
      expect(journal.pending()).toHaveLength(1);
      // that look-up's read ends with the store free again: the note stays where the fill is still unread for a next start
      note.read(t - 60_000, t + 60_000);
      expect(store.tradesReadThrough()).toBe(t);
      // written: the next read moves it
      expect(journal.retry()).toBe(true);
      note.read(t - 60_000, t + 90_000);
      expect(store.tradesReadThrough()).toBe(t + 90_000);
    } finally {
      other.close();
      store.close();
    }
  });

  it('a note the store cannot write (another program holds it) is a warning, never a throw: the next start looks further back', () => {
    const path = dbPath();
    const lines: string[] = [];
    const log = createLogger({ level: 'info', destination: { write: (l: string) => void lines.push(l) } });
    const store = new Store(path, createLogger({ level: 'silent' }));
    const note = new TradesReadNote({ store, catchUp: () => undefined, log });
    const other = new Database(path);
    try {
      const t = 1_700_000_000_000;
      note.read(t - H, t);
      other.exec('BEGIN IMMEDIATE');
      expect(() => note.read(t - 60_000, t + 60_000)).not.toThrow();
      other.exec('ROLLBACK');
      expect(store.tradesReadThrough()).toBe(t);
      expect(lines.filter((l) => l.includes('"level":40') && l.includes('could not be noted'))).toHaveLength(1);
    } finally {
      other.close();
      store.close();
    }
  });
});
