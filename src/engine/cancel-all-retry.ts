// Orders whose cancel the venue did not confirm (a failed or overdue cancel), and the cancel-all
// retried every second until the venue confirms one: meanwhile no market places (the engine's
// marketBlock), since those orders may still rest at the venue. A halt sends its cancel-all here too.
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import type { OrderScheduler } from './scheduler.js';
import { TERMINAL, type OrderTracker } from './orders.js';

/** What the retry needs of the engine. */
export interface CancelAllHost {
  clock: Clock;
  log: Logger;
  scheduler: OrderScheduler;
  orders: OrderTracker;
  /** Every market requotes (blocked or unblocked by the change). */
  requoteAll(): void;
  stopping(): boolean;
  /** A halt's cancel-all is retried until it lands, whatever else has ended. */
  halted(): boolean;
}

export class CancelAllRetry {
  /** Venue ids of orders whose cancel is not confirmed. */
  private readonly ids = new Set<string>();
  private retrying = false;

  constructor(private readonly h: CancelAllHost) {}

  /** Orders are unconfirmed (no market places until a cancel-all is confirmed, or each has ended). */
  get blocking(): boolean {
    if (this.ids.size === 0) return false;
    this.forgetEnded();
    return this.ids.size > 0;
  }

  /** True when `orderId`'s cancel is the cancel-all's to confirm (sent again on its own it would only fail again). */
  has(orderId: string): boolean {
    return this.ids.size > 0 && this.ids.has(orderId);
  }

  /** Cancels of these orders failed or ran past their deadline; the cancel-all starts (or goes on) retrying. */
  add(orderIds: readonly string[]): void {
    const first = this.ids.size === 0;
    for (const id of orderIds) this.ids.add(id);
    if (first) {
      this.h.log.error({ orders: [...this.ids] }, 'engine: cancels not confirmed by the venue; no new orders until a cancel-all is');
      this.h.requoteAll();
    }
    this.untilDone();
  }

  /** Venue ids of the unconfirmed orders still open. */
  open(): string[] {
    this.forgetEnded();
    return [...this.ids];
  }

  /** Forgets the unconfirmed orders that have ended since (the user channel said so): they rest nowhere. */
  private forgetEnded(): void {
    for (const id of this.ids) {
      const o = this.h.orders.byVenueId(id);
      if (!o || TERMINAL.has(o.state)) this.ids.delete(id);
    }
  }

  /** A cancel-all retried every second until the venue confirms one (a halt or unconfirmed cancels come from a failing venue). */
  untilDone(): void {
    if (this.retrying) return;
    this.retrying = true;
    const h = this.h;
    // what this cancel-all answers for: an order whose cancel fails after it is sent may have
    // rested after it reached the venue, and waits for the next one
    const covered = [...this.ids];
    void h.scheduler.cancelAll().then((res) => {
      this.retrying = false;
      if (res) {
        // everything of ours at the venue when it arrived is cancelled
        for (const id of covered) {
          h.orders.canceled(id, h.clock.now());
          this.ids.delete(id);
        }
        if (this.ids.size) {
          h.log.warn({ orders: [...this.ids] }, 'engine: cancel-all confirmed, but cancels failed after it was sent; another follows');
          this.untilDone();
          return;
        }
        if (covered.length) h.log.info({ orders: covered }, 'engine: cancel-all confirmed; quoting again');
        h.requoteAll();
        return;
      }
      if (h.stopping()) return;
      // every order it was for has ended since (the user channel said so), and no halt needs it:
      // retried, it would only wipe the quotes placed again meanwhile
      if (!h.halted() && !this.blocking) {
        h.log.info('engine: cancel-all failed, but every order it was for has ended since; not retried');
        return;
      }
      h.log.warn('engine: cancel-all failed; retrying in 1 s');
      h.clock.schedule(h.clock.now() + 1000, () => this.untilDone());
    });
  }
}
