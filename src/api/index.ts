// The API layer's entry point: one client per API over transports that share ONE limiter, so
// every request of the process counts in the same rate windows (README, "HTTP clients and rate limits").
import type { Config } from '../config.js';
import type { Logger } from '../core/log.js';
import { WallClock, type Clock } from '../core/clock.js';
import { ClobClient } from './clob-client.js';
import { ContentClient } from './content-client.js';
import { DataClient } from './data-client.js';
import { GammaClient } from './gamma-client.js';
import { Limiter } from './limiter.js';
import { Transport, type ExchangeObserver } from './transport.js';
import { specProfile, type ClobProfile } from './clob-profile.js';

export interface Clients {
  clob: ClobClient;
  gamma: GammaClient;
  data: DataClient;
  content: ContentClient;
  limiter: Limiter;
  /** Every HTTP attempt of every API is told to `fn` (the status layer's latency metrics). */
  observeHttp(fn: ExchangeObserver | undefined): void;
  /** Closes every connection pool. */
  close(): Promise<void>;
}

/** `venue`: the CLOB's profile, or an API key for the spec profile (none: public calls only). The limiter's `clock` is monotonic by default: a step of the system clock must not hold or release a rate window. */
export function createClients(config: Config, venue?: ClobProfile | string, logger?: Logger, clock: Clock = new WallClock({ keepAlive: true, monotonic: true })): Clients {
  const profile = typeof venue === 'object' ? venue : specProfile(venue);
  // The venue's per-signer buckets: at Standard, the tightest tier, until its first trading answer
  // names the account's; in paper mode at sim.signerTier when one is set (no answer ever names one)
  const simTier = config.mode === 'paper' && config.sim.signerTier !== 'none' ? config.sim.signerTier : undefined;
  const limiter = new Limiter({ clock, scale: config.limits.scale, windowScale: config.limits.windowScale, signerTier: simTier ?? (profile.signerBuckets ? 'standard' : undefined) });
  const make = (api: 'clob' | 'gamma' | 'data' | 'content') =>
    // the trading credentials go to the CLOB only: the metadata, data and content APIs are public
    new Transport({ api, baseUrl: config.urls[api], http: config.http, retry: config.retry, limiter, auth: api === 'clob' ? profile.authHeaders : undefined, logger });
  const t = { clob: make('clob'), gamma: make('gamma'), data: make('data'), content: make('content') };
  return {
    clob: new ClobClient(t.clob, profile),
    gamma: new GammaClient(t.gamma),
    data: new DataClient(t.data),
    content: new ContentClient(t.content),
    limiter,
    observeHttp: (fn) => {
      for (const x of Object.values(t)) x.observer = fn;
    },
    close: async () => {
      await Promise.all(Object.values(t).map((x) => x.close()));
    },
  };
}

export { specProfile, type ClobProfile } from './clob-profile.js';
export { ClobClient, GammaClient, DataClient, ContentClient, Limiter, Transport };
export { scopesFor, scaleScope, ALL_SCOPES, type Scope, type ApiName } from './limit-table.js';
export { SlidingWindow } from './sliding-window.js';
export type { ExchangeObserver } from './transport.js';
export { PRIORITY } from './limiter.js';
