// Orders of ours that ended matched (the venue would not cancel one: "already canceled or matched";
// or its order event said MATCHED) whose trades are not reported yet, one holder per side. A SELL's
// shares are likely sold: not offered again (the venue would refuse a SELL of them for balance). A
// BUY's shares are likely bought: they count toward the position limits as held, or a replacement
// BUY could take the position past them before the report came. Until the fill is reported or
// UNREPORTED_HOLD_MS passes, after which the venue cancelled the order after all. The collateral a
// BUY paid is held the same way by CollateralBudget.awaitFills.
import type { Clock } from '../core/clock.js';

/**
 * How long an order's shares wait for its trade's report: one comes in well under this. One the user
 * channel lost comes with the look-up the daemon makes when none is reported within
 * MISSING_GRACE_MS (live; missing-orders.ts), and a SELL refused for balance meanwhile starts its
 * token's wait (balance-backoff.ts).
 */
export const UNREPORTED_HOLD_MS = 10_000;

interface Held {
  tokenId: string;
  size: number;
  timer: number;
}

export class UnreportedFills {
  private readonly byOrder = new Map<string, Held>();
  private readonly byToken = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    /** The shares of `tokenId` held back changed (requote its market). */
    private readonly changed: (tokenId: string) => void,
  ) {}

  /** Shares of `tokenId` held back, size units. */
  shares(tokenId: string): number {
    return this.byOrder.size === 0 ? 0 : (this.byToken.get(tokenId) ?? 0);
  }

  /** `orderId` ended matched with `size` of it not reported as filled. */
  hold(orderId: string, tokenId: string, size: number): void {
    if (!(size > 0)) return;
    this.release(orderId, Infinity, false);
    const timer = this.clock.schedule(this.clock.now() + UNREPORTED_HOLD_MS, () => this.release(orderId, Infinity, true));
    this.byOrder.set(orderId, { tokenId, size, timer });
    this.byToken.set(tokenId, (this.byToken.get(tokenId) ?? 0) + size);
  }

  /** A fill of `orderId` was reported: `size` of it is no longer held (the position has it). */
  filled(orderId: string, size: number): void {
    if (this.byOrder.size > 0) this.release(orderId, size, false);
  }

  private release(orderId: string, size: number, notify: boolean): void {
    const h = this.byOrder.get(orderId);
    if (!h) return;
    const take = Math.min(h.size, size);
    const left = (this.byToken.get(h.tokenId) ?? 0) - take;
    if (left > 0) this.byToken.set(h.tokenId, left);
    else this.byToken.delete(h.tokenId);
    if (take >= h.size) {
      this.clock.cancel(h.timer);
      this.byOrder.delete(orderId);
    } else h.size -= take;
    if (notify) this.changed(h.tokenId);
  }

  close(): void {
    for (const h of this.byOrder.values()) this.clock.cancel(h.timer);
    this.byOrder.clear();
    this.byToken.clear();
  }
}
