// The collateral our BUYs may promise. The venue refuses a BUY whose cost, with every open BUY's,
// exceeds our balance ("not enough balance / allowance"), and each refusal counts toward the
// order-error-rate halt; so the risk gate keeps BUYs within the balance as last read
// (Venue.collateral), less what was paid out since that read began: BUY fills and fees
// (Positions.spent). The read may or may not count them, so they count as spent until the next
// one; a SELL's proceeds count from the next read. Read at start-up, every `everyMs`, SOON_MS after
// a SELL of ours settles (its proceeds are then in the balance: `soon`), and after a BUY refused for
// balance (the venue asked to re-read it first). No read answered yet, or a venue that has none (the
// spec profile, a simulated venue without sim.cashUsd): not capped. A BUY the venue would not cancel
// (already matched) ends before its trade is reported: its cost stays out of the budget until the
// fill is, or a read begun after answers (`awaitFills`).
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';

/** A settled SELL's read waits this long, so the SELLs settling together share one read. */
export const SOON_MS = 2000;

export interface CollateralOptions {
  clock: Clock;
  log: Logger;
  /** Our collateral balance at the venue, micro-dollars; undefined when the venue cannot say. */
  read: (() => Promise<number>) | undefined;
  /** Asks the venue to re-read the balance (Venue.refreshBalance without a token). */
  refresh: (() => Promise<void>) | undefined;
  /** Micro-dollars paid out since start (Positions.spent): only its changes count. */
  spent: () => number;
  /** Period of the reads, ms (0: read at start-up and after a refusal only). */
  everyMs: number;
}

export class CollateralBudget {
  private balance = Infinity;
  private spentAtRead = 0;
  private reading: Promise<void> | undefined;
  private timer: number | undefined;
  private soonTimer: number | undefined;
  private closed = false;
  /** Reads begun so far (a reservation is dropped by the answer of a read begun after it). */
  private readsBegun = 0;
  /** Cost of ended BUYs whose fills may not be reported yet, by order id: [micro-dollars, reads begun when made]. */
  private readonly unreported = new Map<string, [number, number]>();
  private unreportedSum = 0;
  /** Reads answered and failed (metrics collateral_reads_total). */
  reads = 0;
  readFailures = 0;

  constructor(private readonly o: CollateralOptions) {}

  /** Micro-dollars all our open BUYs may cost together; Infinity when not capped. */
  available(): number {
    return this.balance - (this.o.spent() - this.spentAtRead) - this.unreportedSum;
  }

  /**
   * A BUY of ours ended without its cancel (the venue: already matched): `micros` of it may have
   * been paid with the trade not yet reported. Held out of the budget until its fills are
   * (`filled`) or a read begun after answers, SOON_MS from now.
   */
  awaitFills(orderId: string, micros: number): void {
    if (!this.o.read || this.closed || !(micros > 0)) return;
    this.release(orderId, Infinity);
    this.unreported.set(orderId, [micros, this.readsBegun]);
    this.unreportedSum += micros;
    this.soon();
  }

  /** A fill of a BUY of ours was reported (and counts as spent): what it paid is no longer held for it. */
  filled(orderId: string, micros: number): void {
    if (this.unreported.size > 0) this.release(orderId, micros);
  }

  private release(orderId: string, micros: number): void {
    const r = this.unreported.get(orderId);
    if (!r) return;
    const take = Math.min(r[0], micros);
    this.unreportedSum -= take;
    if (take >= r[0]) this.unreported.delete(orderId);
    else r[0] -= take;
  }

  /** The balance as last read, micro-dollars; undefined before the first answer. */
  lastRead(): number | undefined {
    return this.balance === Infinity ? undefined : this.balance;
  }

  /** Starts the periodic reads (the first read is the caller's: `read`, awaited at start-up). */
  schedule(): void {
    if (!this.o.read || this.o.everyMs <= 0 || this.closed) return;
    this.timer = this.o.clock.schedule(this.o.clock.now() + this.o.everyMs, () => {
      this.timer = undefined;
      void this.read().then(() => this.schedule());
    });
  }

  /** A read SOON_MS from now, unless one is already due by then (a SELL of ours settled). */
  soon(): void {
    const o = this.o;
    if (!o.read || this.closed || this.soonTimer !== undefined) return;
    this.soonTimer = o.clock.schedule(o.clock.now() + SOON_MS, () => {
      this.soonTimer = undefined;
      void this.read();
    });
  }

  /**
   * Reads the balance (after asking the venue to re-read it, with `refresh`); one read at a time.
   * Never rejects: a failure keeps the last figure and is logged.
   */
  read(refresh = false): Promise<void> {
    const o = this.o;
    if (!o.read || this.closed) return Promise.resolve();
    if (this.reading) return this.reading;
    const read = o.read;
    // fills from here on may or may not be in the answer: counted as spent after it
    const spentBefore = o.spent();
    const begun = this.readsBegun++;
    this.reading = (async () => {
      if (refresh && o.refresh) {
        try {
          await o.refresh();
        } catch (err) {
          o.log.warn({ err }, 'engine: asking the venue to re-read our collateral failed');
        }
      }
      try {
        const micros = await read();
        if (!Number.isFinite(micros) || micros < 0) throw new RangeError(`collateral balance ${micros} is not a non-negative amount`);
        this.balance = micros;
        this.spentAtRead = spentBefore;
        this.reads++;
        // what was matched before this read began is in its figure
        for (const [id, r] of this.unreported) if (r[1] <= begun) this.release(id, Infinity);
      } catch (err) {
        this.readFailures++;
        o.log.warn({ err, lastReadUsd: this.balance === Infinity ? null : this.balance / 1e6 }, 'engine: reading our collateral balance failed; BUYs stay within the last figure read');
      } finally {
        this.reading = undefined;
      }
    })();
    return this.reading;
  }

  close(): void {
    this.closed = true;
    if (this.timer !== undefined) this.o.clock.cancel(this.timer);
    if (this.soonTimer !== undefined) this.o.clock.cancel(this.soonTimer);
    this.timer = this.soonTimer = undefined;
  }
}
