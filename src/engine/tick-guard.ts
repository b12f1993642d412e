// A market's tick, and what happens when it is in doubt: an order refused off the tick grid holds
// the market's quotes while the engine's owner asks the venue for the tick (bounded by a timeout);
// its answer, like a tick_size_change frame, sets the tick strategies round to.
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import type { MarketEvent } from '../core/events.js';
import { formatPrice } from '../core/units.js';
import type { MarketMeta } from './strategy.js';
import type { MarketState } from './market-state.js';

/** What the guard needs of the engine. */
export interface TickHost {
  clock: Clock;
  log: Logger;
  counters: { tickRejects: number; tickRefreshes: number; tickRefreshTimeouts: number; errors: number };
  marketOf(tokenId: string): MarketState | undefined;
  requote(st: MarketState): void;
  /** The market with a new tick (Engine.addMarket of its meta). */
  retick(meta: MarketMeta): void;
  /** The books take a tick change no feed frame carried (and the token's mark may move). */
  applyTickChange(ev: MarketEvent & { type: 'tick_size_change' }): void;
  stopping(): boolean;
}

export class TickGuard {
  constructor(
    private readonly h: TickHost,
    /** Engine option onTickSuspect: unset, a rejection is only counted. */
    private readonly onSuspect: ((tokenId: string, market: MarketMeta) => void) | undefined,
    private readonly timeoutMs: number,
  ) {}

  /** The venue changed a market's tick: strategies round to the new one from now on. */
  set(assetId: string, tick: number): void {
    const st = this.h.marketOf(assetId);
    if (!st || !(tick > 0) || st.meta.tick === tick) return;
    this.h.log.info({ market: st.meta.conditionId, from: formatPrice(st.meta.tick), to: formatPrice(tick) }, 'engine: tick size changed');
    this.h.retick({ ...st.meta, tick });
  }

  /**
   * An order of `tokenId` was refused with INVALID_ORDER_MIN_TICK_SIZE: the tick changed and we
   * missed the tick_size_change frame (or it is late). Rather than keep placing on the old grid,
   * the market holds its quotes and asks the owner for the tick, bounded by the timeout.
   */
  rejected(tokenId: string): void {
    const h = this.h;
    h.counters.tickRejects++;
    const st = h.marketOf(tokenId);
    const hook = this.onSuspect;
    if (!st || !hook || st.tickSuspect !== undefined || h.stopping()) return;
    h.counters.tickRefreshes++;
    const wait = this.timeoutMs;
    h.log.warn({ market: st.meta.conditionId, tokenId, tick: formatPrice(st.tickOf(tokenId)) }, 'engine: order refused off the tick grid; holding quotes and refreshing the tick');
    st.tickSuspect = h.clock.schedule(h.clock.now() + wait, () => {
      st.tickSuspect = undefined;
      h.counters.tickRefreshTimeouts++;
      h.log.warn({ market: st.meta.conditionId, tokenId, tick: formatPrice(st.tickOf(tokenId)), waitedMs: wait }, 'engine: tick refresh not answered in time; quoting again with the tick we had');
      h.requote(st);
    });
    h.requote(st);
    try {
      hook(tokenId, st.meta);
    } catch (err) {
      h.counters.errors++;
      h.log.error({ err, market: st.meta.conditionId }, 'engine: tick refresh hook failed');
    }
  }

  /**
   * The venue's answer to onSuspect: `tick` of `tokenId` in price units. A different tick is
   * applied as the venue's tick_size_change would be (the books drop and re-sync; strategies
   * round to it); then the market quotes again. A late answer (after the timeout) still applies.
   */
  refreshed(tokenId: string, tick: number): void {
    const h = this.h;
    const st = h.marketOf(tokenId);
    if (!st || h.stopping()) return;
    this.clear(st);
    if (tick > 0 && tick !== st.tickOf(tokenId)) {
      const m = st.meta;
      for (const t of [m.tokenId, m.complementId]) {
        h.applyTickChange({
          type: 'tick_size_change',
          market: m.conditionId,
          assetId: t,
          oldTickSize: st.tickOf(t),
          newTickSize: tick,
          newTickSizeStr: formatPrice(tick),
          timestampMs: h.clock.now(),
        });
      }
      this.set(tokenId, tick);
    }
    h.requote(st);
  }

  /** The market's tick is no longer in doubt (a tick change came, or it leaves): its timeout is dropped. */
  clear(st: MarketState | undefined): void {
    if (!st || st.tickSuspect === undefined) return;
    this.h.clock.cancel(st.tickSuspect);
    st.tickSuspect = undefined;
  }
}
