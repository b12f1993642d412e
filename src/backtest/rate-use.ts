// Rate-limit use over a backtest: the limiter's windows sampled once per virtual second, keeping
// each scope's peak (requests in its window, against its limit) and the longest wait queue.
import type { Limiter } from '../api/limiter.js';

export interface ScopeUse {
  scope: string;
  /** Most requests seen in one window. */
  peakUsed: number;
  limit: number;
  windowMs: number;
  /** peakUsed / limit. */
  peakShare: number;
}

export class RateUse {
  private readonly peak = new Map<string, ScopeUse>();
  peakWaiting = 0;
  constructor(private readonly limiter: Limiter) {}

  sample(): void {
    for (const u of this.limiter.usage()) {
      const p = this.peak.get(u.scope);
      if (!p) this.peak.set(u.scope, { scope: u.scope, peakUsed: u.used, limit: u.limit, windowMs: u.windowMs, peakShare: 0 });
      else if (u.used > p.peakUsed) p.peakUsed = u.used;
    }
    if (this.limiter.waiting > this.peakWaiting) this.peakWaiting = this.limiter.waiting;
  }

  peaks(): ScopeUse[] {
    return [...this.peak.values()]
      .map((p) => ({ ...p, peakShare: p.limit > 0 ? Math.round((p.peakUsed / p.limit) * 1e6) / 1e6 : 0 }))
      .sort((a, b) => (a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : 0));
  }
}
