// What the live page shows over the session: PnL samples (total and per market), kept at bounded
// memory by halving the resolution when full (the whole session stays covered), and the last fills.
import { formatPrice, formatSize, microsToDollars } from '../core/units.js';
import type { Fill } from '../engine/fills.js';

/** Points kept per series; when full, every other one is dropped and the sampling interval doubles. */
const MAX_POINTS = 600;
const LAST_FILLS = 25;

export interface FillView {
  time: string;
  market: string;
  tokenId: string;
  side: string;
  price: string;
  size: string;
  fee: number;
  liquidity: string;
}

/** A time series of [ms, value] points at a resolution that halves when it fills. */
export class Series {
  readonly points: Array<[number, number]> = [];
  private every = 1;
  private n = 0;

  add(t: number, v: number): void {
    if (this.n++ % this.every !== 0) return;
    this.points.push([t, v]);
    if (this.points.length >= MAX_POINTS) {
      let k = 0;
      for (let i = 0; i < this.points.length; i += 2) this.points[k++] = this.points[i];
      this.points.length = k;
      this.every *= 2;
    }
  }
}

/** What marketsKept reads of the running daemon (StatusSource has it). */
export interface MarketsHeld {
  readonly markets: ReadonlyArray<{ readonly conditionId: string }>;
  readonly engine?: { readonly markets: ReadonlyMap<string, unknown> };
}

/**
 * Whether the status layer keeps a market's own state (its PnL series, its fill counters): while it
 * is in the daemon's set, or out of it with orders still open (the engine holds a retired market
 * until none is). Not for shares still held: the engine keeps a dropped market's position for ever
 * (a resolved market's too), so a daemon rotating markets would keep nearly all of them; /status
 * lists those positions still.
 */
export function marketsKept(d: MarketsHeld): (market: string) => boolean {
  // the engine holds every market of the set as well; the set is read only for one it does not
  let inSet: Set<string> | undefined;
  return (m) => d.engine?.markets.has(m) === true || (inSet ??= new Set(d.markets.map((x) => x.conditionId))).has(m);
}

export class SessionHistory {
  readonly pnl = new Series();
  readonly marketPnl = new Map<string, Series>();
  private readonly fills: FillView[] = [];

  /** One sample: the total PnL and each market's, in dollars. */
  sample(t: number, total: number, perMarket: ReadonlyMap<string, number>): void {
    if (Number.isFinite(total)) this.pnl.add(t, total);
    for (const [m, v] of perMarket) {
      if (!Number.isFinite(v)) continue;
      let s = this.marketPnl.get(m);
      if (!s) this.marketPnl.set(m, (s = new Series()));
      s.add(t, v);
    }
  }

  /** Drops the series of the markets `keep` refuses (gone from the daemon's set): markets come and go for weeks. */
  retain(keep: (market: string) => boolean): void {
    for (const m of this.marketPnl.keys()) if (!keep(m)) this.marketPnl.delete(m);
  }

  fill(f: Fill): void {
    this.fills.push({
      time: new Date(f.timeMs).toISOString(),
      market: f.market,
      tokenId: f.tokenId,
      side: f.side,
      price: formatPrice(f.price),
      size: formatSize(f.size),
      fee: microsToDollars(f.fee),
      liquidity: f.liquidity,
    });
    if (this.fills.length > LAST_FILLS) this.fills.shift();
  }

  /** The last fills, newest first. */
  lastFills(): FillView[] {
    return [...this.fills].reverse();
  }
}
