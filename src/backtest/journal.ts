// The backtest's engine Journal: instead of SQLite it feeds the statistics. Fills go straight to
// the collector; order changes give the orders and cancels sent and our resting quotes, expressed
// in the market's priced token (a BUY of the complement at q is an ask at 1 - q), so quote uptime
// means "a bid and an ask on the market", however the strategy expresses them.
import type { Journal } from '../engine/engine.js';
import type { TrackedOrder } from '../engine/orders.js';
import type { Fill } from '../engine/fills.js';
import type { MarketMeta } from '../engine/strategy.js';
import type { Clock } from '../core/clock.js';
import type { StatsCollector } from '../report/stats.js';
import { PRICE_SCALE } from '../core/units.js';

const RESTING = new Set(['live', 'partially_filled', 'pending_cancel']);

interface MarketQuotes {
  meta: MarketMeta;
  resting: Map<string, TrackedOrder>;
}

export class StatsJournal implements Journal {
  private readonly markets = new Map<string, MarketQuotes>();
  private readonly lastState = new Map<string, string>();
  fills = 0;

  constructor(
    private readonly stats: StatsCollector,
    private readonly clock: Clock,
    private readonly onFill?: (f: Fill) => void,
  ) {}

  addMarket(meta: MarketMeta): void {
    this.markets.set(meta.conditionId, { meta, resting: new Map() });
  }

  orderChanged(o: TrackedOrder): void {
    const prev = this.lastState.get(o.clientId);
    if (prev === o.state) return;
    if (o.state === 'pending_new') this.stats.order(o.tokenId);
    if (o.state === 'pending_cancel') this.stats.cancel(o.tokenId);
    const m = this.markets.get(o.market);
    if (m) {
      const was = m.resting.has(o.clientId);
      const is = RESTING.has(o.state);
      if (is) m.resting.set(o.clientId, o);
      else m.resting.delete(o.clientId);
      if (was || is) this.publish(m);
    }
    if (o.state === 'canceled' || o.state === 'filled' || o.state === 'rejected') this.lastState.delete(o.clientId);
    else this.lastState.set(o.clientId, o.state);
  }

  fill(f: Fill): void {
    this.fills++;
    this.stats.fill(f);
    this.onFill?.(f);
  }

  fillStatus(): void {
    // The simulated venue never fails a trade; nothing to undo.
  }

  private publish(m: MarketQuotes): void {
    let bid = -1;
    let ask = -1;
    const yes = m.meta.tokenId;
    for (const o of m.resting.values()) {
      // in the priced token's terms
      const isBid = (o.tokenId === yes) === (o.side === 'BUY');
      const p = o.tokenId === yes ? o.price : PRICE_SCALE - o.price;
      if (isBid) bid = bid < 0 || p > bid ? p : bid;
      else ask = ask < 0 || p < ask ? p : ask;
    }
    this.stats.quotes(yes, this.clock.now(), bid, ask);
  }
}
