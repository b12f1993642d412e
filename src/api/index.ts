// The API layer's entry point: one client per API over transports that share ONE limiter, so
// every request of the process counts in the same rate windows (DESIGN.md rule 7).
import type { Config } from '../config.js';
import type { Logger } from '../core/log.js';
import type { Clock } from '../engine/clock.js';
import { ClobClient } from './clob-client.js';
import { ContentClient } from './content-client.js';
import { DataClient } from './data-client.js';
import { GammaClient } from './gamma-client.js';
import { Limiter } from './limiter.js';
import { Transport } from './transport.js';

export interface Clients {
  clob: ClobClient;
  gamma: GammaClient;
  data: DataClient;
  content: ContentClient;
  limiter: Limiter;
  /** Closes every connection pool. */
  close(): Promise<void>;
}

/**
 * Wall time whose timers keep the process alive (a request waiting for a rate-limit slot must
 * not let a CLI command exit silently; WallClock's timers are unref'd).
 */
export class RefWallClock implements Clock {
  private next = 1;
  private readonly timers = new Map<number, NodeJS.Timeout>();
  now(): number {
    return Date.now();
  }
  schedule(atMs: number, fn: () => void): number {
    const h = this.next++;
    this.timers.set(
      h,
      setTimeout(() => {
        this.timers.delete(h);
        fn();
      }, Math.max(0, atMs - Date.now())),
    );
    return h;
  }
  cancel(handle: number): void {
    clearTimeout(this.timers.get(handle));
    this.timers.delete(handle);
  }
}

export function createClients(config: Config, apiKey?: string, logger?: Logger, clock: Clock = new RefWallClock()): Clients {
  const limiter = new Limiter({ clock, scale: config.limits.scale, windowScale: config.limits.windowScale });
  const make = (api: 'clob' | 'gamma' | 'data' | 'content') =>
    new Transport({ api, baseUrl: config.urls[api], http: config.http, retry: config.retry, limiter, apiKey, logger });
  const t = { clob: make('clob'), gamma: make('gamma'), data: make('data'), content: make('content') };
  return {
    clob: new ClobClient(t.clob),
    gamma: new GammaClient(t.gamma),
    data: new DataClient(t.data),
    content: new ContentClient(t.content),
    limiter,
    close: async () => {
      await Promise.all(Object.values(t).map((x) => x.close()));
    },
  };
}

export { ClobClient, GammaClient, DataClient, ContentClient, Limiter, Transport };
export { scopesFor, scaleScope, ALL_SCOPES, type Scope, type ApiName } from './limit-table.js';
export { SlidingWindow } from './sliding-window.js';
export { PRIORITY } from './limiter.js';
