// What the status server reads of a running daemon, as an interface of its own: status/ depends
// on the parts it shows (engine, feed, journal, limiter), never on the daemon that wires them.
import type { DecodeStats } from '../feed/decode-stats.js';
import type { Config } from '../config.js';
import type { Clock } from '../core/clock.js';
import type { Engine } from '../engine/engine.js';
import type { MarketMeta } from '../engine/strategy.js';
import type { MarketFeed } from '../feed/market-feed.js';
import type { ConnectionState } from '../feed/connection.js';
import type { Limiter } from '../api/limiter.js';
import type { StoreJournal } from '../store/journal.js';
import type { LoopDelay } from './loop-delay.js';
import type { SessionHistory } from './history.js';

export interface FeedStates {
  market: ConnectionState;
  user: ConnectionState | undefined;
  /** The crypto price stream's, when feed.priceSymbols names any (strategies read its prices). */
  prices?: ConnectionState;
}

export interface StatusSource {
  readonly mode: Config['mode'];
  readonly config: Config;
  readonly clock: Clock;
  readonly startedMs: number;
  readonly markets: readonly MarketMeta[];
  readonly feedStates: FeedStates;
  readonly feed: MarketFeed;
  /** The crypto price stream, when feed.priceSymbols names any: its connection and decoder counters on /metrics. */
  readonly prices?: { readonly connection: { readonly counters: Readonly<Record<string, number>> }; readonly stats: DecodeStats };
  readonly engine: Engine;
  readonly journal: StoreJournal | undefined;
  readonly clients: { readonly limiter: Limiter };
  /** The venue's dead-man switch (polymarket profile, live); undefined elsewhere. */
  readonly heartbeats?: { failing(): string | undefined };
  /** Since when quoting waits for the look-up of a user-channel gap (clock ms); undefined when it does not. */
  readonly catchingUpSinceMs?: number;
  /** Our clock minus the venue's at the last read, ms (live, polymarket profile); undefined before it or elsewhere. */
  readonly clockSkewMs?: number;
  /** The event-loop lag monitor (the daemon's); /status shows it under process.loop. */
  readonly loopDelay?: LoopDelay;
  /** The daemon's metrics with the taps it installed (metrics.ts; the status server makes one without taps when absent). */
  readonly metrics?: MetricsView;
}

/** What the status server reads of the metrics (metrics.ts StatusMetrics). */
export interface MetricsView {
  /** PnL samples and the last fills (the live page). */
  readonly history: SessionHistory;
  /** The exposition's content type. */
  readonly contentType: string;
  /** The exposition (GET /metrics) in pieces, a loop turn apart; joined, the whole text. */
  pieces(): AsyncIterable<string>;
}
