// The engine's journal over the store, part of the trading loop: the writes one event causes (an
// order's new state and the fill that caused it) go to SQLite in one transaction; a write that
// fails is kept in memory, in order, retried, and reported at once (the owner halts quoting).
import type { Logger } from '../core/log.js';
import type { Journal } from '../engine/engine.js';
import type { TrackedOrder } from '../engine/orders.js';
import type { Fill } from '../engine/fills.js';
import type { JournalRecord, Store } from './store.js';

export type { JournalRecord } from './store.js';

export interface StoreJournalOptions {
  log: Logger;
  /** The first failed write of an episode (the daemon halts: cancel-all, /health 503). */
  onFailure: (err: unknown) => void;
  /** Every unwritten record is now stored. */
  onRecovered?: () => void;
  /** Wall time for the reminder's rate limit. */
  now?: () => number;
  /** At most one reminder line per this many ms while records stay unwritten; default 60 s. */
  remindEveryMs?: number;
}

export class StoreJournal implements Journal {
  private depth = 0;
  private batch: JournalRecord[] = [];
  private readonly unwritten: JournalRecord[] = [];
  private lastReminder = 0;
  private readonly now: () => number;
  /** Write failures seen (each failed transaction once). */
  failures = 0;

  constructor(
    private readonly store: Store,
    private readonly o: StoreJournalOptions,
  ) {
    this.now = o.now ?? Date.now;
  }

  orderChanged(o: TrackedOrder): void {
    this.add({ kind: 'order', order: { ...o } });
  }
  fill(f: Fill): void {
    this.add({ kind: 'fill', fill: { ...f } });
  }
  fillStatus(f: Fill): void {
    this.add({ kind: 'fillStatus', fill: { ...f } });
  }

  /** Every write `fn` makes goes to the store in one transaction, when the outermost unit ends. */
  unit<T>(fn: () => T): T {
    this.depth++;
    try {
      return fn();
    } finally {
      if (--this.depth === 0) this.flush();
    }
  }

  /** Records not yet in the store, oldest first. */
  pending(): readonly JournalRecord[] {
    return this.unwritten;
  }

  /** Writes the unwritten records (in one transaction); true when none is left. */
  retry(): boolean {
    if (!this.unwritten.length) return true;
    try {
      this.store.writeBatch(this.unwritten);
    } catch (err) {
      const now = this.now();
      if (now - this.lastReminder >= (this.o.remindEveryMs ?? 60_000)) {
        this.lastReminder = now;
        this.o.log.error({ err: String(err), unwritten: this.unwritten.length }, 'store: records still unwritten; quoting stays halted');
      }
      return false;
    }
    this.o.log.info({ written: this.unwritten.length }, 'store: unwritten records written');
    this.unwritten.length = 0;
    this.o.onRecovered?.();
    return true;
  }

  private add(r: JournalRecord): void {
    this.batch.push(r);
    if (this.depth === 0) this.flush();
  }

  private flush(): void {
    const b = this.batch;
    if (!b.length) return;
    this.batch = [];
    // behind records already waiting: in order, so an older state never overwrites a newer one
    if (this.unwritten.length) {
      for (const r of b) this.unwritten.push(r);
      return;
    }
    try {
      this.store.writeBatch(b);
    } catch (err) {
      for (const r of b) this.unwritten.push(r);
      this.failures++;
      this.lastReminder = this.now();
      this.o.log.error({ err: String(err), records: b.map(describe) }, 'store: a write failed; records kept in memory and retried');
      this.o.onFailure(err);
    }
  }
}

/** One record in a log line: what it is without every field. */
export function describe(r: JournalRecord): string {
  if (r.kind === 'order') return `order ${r.order.clientId} ${r.order.state}`;
  return `${r.kind} ${r.fill.tradeId}|${r.fill.orderId} ${r.fill.status}`;
}
