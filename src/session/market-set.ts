// A running daemon's market set changes (config.marketQuery's answer moves on the refreshMarkets
// cron): added markets are subscribed on the market connections with room (no reconnect), handed
// to the simulated venue in paper and quoted; removed ones stop quoting and cancel their orders,
// and are unsubscribed and forgotten (books too, the simulated venue's in paper) once none of
// their orders is open (a later refresh retries). A dropped market stays on the user channel for
// late trade reports until USER_LINGER_MS after it left and none of its trades is unsettled.
import type { Logger } from '../core/log.js';
import type { Engine } from '../engine/engine.js';
import type { MarketMeta } from '../engine/strategy.js';
import type { MarketFeed } from '../feed/market-feed.js';
import { simMarketOf, SimulatedVenue } from '../venue/simulated-venue.js';
import type { Venue } from '../venue/types.js';
import { tokenMetaOf } from './markets.js';

/** How often leaving markets are checked for open orders. */
const LEAVING_CHECK_MS = 2000;
/**
 * How long a dropped market stays on the user channel: a trade's later reports (MATCHED to
 * CONFIRMED or FAILED) come within minutes, and the venue look-ups (reconcile, hourly) read its
 * trades anyway. Without a bound, a daemon rotating markets for weeks would subscribe every market
 * it ever traded at each reconnect.
 */
export const USER_LINGER_MS = 3_600_000;
/** How often the dropped markets are checked for leaving the user channel. */
const USER_CHECK_MS = 60_000;

export interface MarketSetParts {
  feed: MarketFeed;
  engine: Engine;
  venue: Venue;
  log: Logger;
  /** The daemon's clock (ms). */
  now: () => number;
}

export interface MarketSetChange {
  added: string[];
  removed: string[];
  /** Removed earlier or now, still waiting for their orders to go (still subscribed). */
  leaving: string[];
}

export class MarketSet {
  /** Markets out of the set whose orders are not all gone yet, by condition id. */
  private readonly leaving = new Map<string, MarketMeta>();
  private timer: NodeJS.Timeout | undefined;
  /** Dropped markets still on the user channel, by condition id, with when they were dropped. */
  private readonly settling = new Map<string, { m: MarketMeta; droppedMs: number }>();
  private userTimer: NodeJS.Timeout | undefined;

  constructor(
    private current: MarketMeta[],
    private readonly p: MarketSetParts,
  ) {}

  get markets(): MarketMeta[] {
    return this.current;
  }

  /** Makes `fresh` the set: adds, refreshes and retires markets; drops the retired ones with no open order. */
  apply(fresh: readonly MarketMeta[]): MarketSetChange {
    const { feed, engine, venue, log } = this.p;
    const before = new Map(this.current.map((m) => [m.conditionId, m]));
    const now = new Map(fresh.map((m) => [m.conditionId, m]));
    const added: MarketMeta[] = [];
    for (const m of fresh) {
      if (!before.has(m.conditionId) && !this.leaving.has(m.conditionId)) added.push(m);
      this.leaving.delete(m.conditionId);
      this.settling.delete(m.conditionId);
      engine.addMarket(m);
    }
    const removed = this.current.filter((m) => !now.has(m.conditionId));
    for (const m of removed) {
      this.leaving.set(m.conditionId, m);
      engine.retireMarket(m.conditionId);
    }
    if (added.length) {
      for (const m of added) {
        for (const t of [m.tokenId, m.complementId]) feed.mirror.setMeta(t, tokenMetaOf(m));
        if (venue instanceof SimulatedVenue) venue.addMarket(simMarketOf(m));
      }
      feed.addTokens(added.flatMap((m) => [m.tokenId, m.complementId]));
      feed.addUserMarkets(added.map((m) => m.conditionId));
    }
    this.current = [...fresh];
    this.dropGone();
    // the leaving markets' cancels are answered within seconds: look again until all are gone
    if (this.leaving.size && !this.timer) {
      this.timer = setInterval(() => this.dropGone(), LEAVING_CHECK_MS);
      this.timer.unref();
    }
    const change = { added: added.map((m) => m.conditionId), removed: removed.map((m) => m.conditionId), leaving: [...this.leaving.keys()] };
    if (change.added.length || change.removed.length) log.info({ ...change, markets: this.current.length }, 'market set changed');
    return change;
  }

  /** Unsubscribes and forgets the leaving markets whose orders are all gone. */
  dropGone(): void {
    const gone: MarketMeta[] = [];
    for (const [id, m] of this.leaving) {
      if (!this.p.engine.dropMarket(id)) continue;
      this.leaving.delete(id);
      if (this.p.venue instanceof SimulatedVenue) this.p.venue.removeMarket(id);
      gone.push(m);
    }
    if (gone.length) {
      this.p.feed.removeTokens(gone.flatMap((m) => [m.tokenId, m.complementId]));
      const droppedMs = this.p.now();
      // (paper has no user channel)
      if (this.p.feed.user) for (const m of gone) this.settling.set(m.conditionId, { m, droppedMs });
      if (this.settling.size > 0 && !this.userTimer) {
        this.userTimer = setInterval(() => this.pruneUserMarkets(this.p.now()), USER_CHECK_MS);
        this.userTimer.unref();
      }
    }
    if (this.leaving.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /**
   * Takes off the user channel the dropped markets that left USER_LINGER_MS before `nowMs` and
   * have no unsettled trade; returns their condition ids.
   */
  pruneUserMarkets(nowMs: number): string[] {
    const due = [...this.settling.values()].filter((s) => nowMs - s.droppedMs >= USER_LINGER_MS);
    if (due.length === 0) return [];
    const ledger = this.p.engine.ledger;
    const out: string[] = [];
    for (const { m } of due) {
      if (ledger.unsettledIn(new Set([m.tokenId, m.complementId])) > 0) continue;
      this.settling.delete(m.conditionId);
      out.push(m.conditionId);
    }
    if (out.length) {
      this.p.feed.removeUserMarkets(out);
      this.p.log.info({ markets: out, userMarkets: this.p.feed.userMarkets().length }, 'dropped markets leave the user channel');
    }
    if (this.settling.size === 0) {
      clearInterval(this.userTimer);
      this.userTimer = undefined;
    }
    return out;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    clearInterval(this.userTimer);
    this.userTimer = undefined;
  }
}
