// Up to when the venue's trades have been read and their fills stored, noted in the store: start-up
// looks back from there (recoveryStart), so a run's own writes (a cancel-all's) never move the next
// window past trades nobody read. Reads that leave a gap (a look-up from after the noted time) do not
// move it; a catch-up read from the noted time is asked for instead, and after MAX_CATCH_UPS failed
// the gap is given up on, loudly, so that every later start does not read back to it.
import type { Logger } from '../core/log.js';

/** The store's side (Store.tradesReadThrough / setTradesReadThrough). */
export interface TradesReadStore {
  tradesReadThrough(): number | undefined;
  setTradesReadThrough(ms: number): void;
}

/** Catch-up reads asked for one gap before it is given up on. */
export const MAX_CATCH_UPS = 3;

export class TradesReadNote {
  private catchUps = 0;

  constructor(
    private readonly o: {
      store: TradesReadStore;
      /** Asks for a read of the trades from `fromMs` (VenueLookUps.catchUpFrom). */
      catchUp: (fromMs: number) => void;
      log: Logger;
      /**
       * Records the journal holds unwritten (StoreJournal.pending): while any is, the note stays, for a
       * fill a read found may be among them, and a kill before their retry must leave it to the next start's read.
       */
      unwritten?: () => number;
    },
  ) {}

  /** The trades from `sinceMs` to `throughMs` were read and their fills stored. A failed write only leaves the next window wider. */
  read(sinceMs: number, throughMs: number): void {
    if ((this.o.unwritten?.() ?? 0) > 0) return;
    try {
      const noted = this.o.store.tradesReadThrough();
      if (noted !== undefined && sinceMs > noted) {
        if (this.catchUps < MAX_CATCH_UPS) {
          this.catchUps++;
          this.o.catchUp(noted);
          return;
        }
        this.o.log.error({ fromMs: noted, toMs: sinceMs }, "look-ups: the venue's trades of this interval could not be read; fills the user channel missed then are not recorded");
      }
      this.catchUps = 0;
      this.o.store.setTradesReadThrough(throughMs);
    } catch (err) {
      this.o.log.warn({ err }, 'store: the time the trades were read through could not be noted; the next start looks further back');
    }
  }
}
