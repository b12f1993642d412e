// Reconciler: turns "quotes wanted" and "orders working" into cancels and places, per token and
// side. An order within tolerance of a wanted quote is kept (it keeps its queue position: a
// needless cancel-and-replace is a defect). Orders in flight are never touched, and count toward
// the per-side cap so we never have more than maxOrdersPerSide working.
import type { Side } from '../feed/events.js';
import type { Quote } from './strategy.js';
import type { TrackedOrder } from './orders.js';

export interface ReconcilerConfig {
  priceToleranceTicks: number;
  /** Fraction of the wanted size a working order's remaining size may differ by. */
  sizeTolerance: number;
  maxOrdersPerSide: number;
}

export interface ReconcileResult {
  cancels: TrackedOrder[];
  places: Quote[];
  kept: number;
}

/** Orders we can cancel or keep: acknowledged by the venue and still working. */
function isWorking(o: TrackedOrder): boolean {
  return (o.state === 'live' || o.state === 'partially_filled') && o.orderId !== undefined;
}
/** Sent, answer not yet in (or unclear): leave alone, but count it. */
function isInFlight(o: TrackedOrder): boolean {
  return o.state === 'pending_new' || o.state === 'ambiguous' || (o.state === 'live' && o.orderId === undefined);
}

/** Better price first: higher bids, lower asks. */
const better = (side: Side) => (a: { price: number }, b: { price: number }) => (side === 'BUY' ? b.price - a.price : a.price - b.price);

export class Reconciler {
  constructor(private readonly cfg: ReconcilerConfig) {}

  /**
   * `wanted` and `orders` may cover several tokens (a market's both outcomes); each token+side is
   * reconciled on its own. `tickOf` gives each token's tick.
   */
  reconcile(wanted: readonly Quote[], orders: Iterable<TrackedOrder>, tickOf: (tokenId: string) => number, out?: ReconcileResult): ReconcileResult {
    const res = out ?? { cancels: [], places: [], kept: 0 };
    res.cancels.length = 0;
    res.places.length = 0;
    res.kept = 0;
    const groups = new Map<string, { token: string; side: Side; want: Quote[]; work: TrackedOrder[]; inflight: number }>();
    const group = (token: string, side: Side) => {
      const k = token + side;
      let g = groups.get(k);
      if (!g) {
        g = { token, side, want: [], work: [], inflight: 0 };
        groups.set(k, g);
      }
      return g;
    };
    for (const q of wanted) group(q.tokenId, q.side).want.push(q);
    for (const o of orders) {
      if (isWorking(o)) group(o.tokenId, o.side).work.push(o);
      else if (isInFlight(o)) group(o.tokenId, o.side).inflight++;
    }
    for (const g of groups.values()) this.side(g.want, g.work, g.inflight, tickOf(g.token), g.side, res);
    return res;
  }

  private side(want: Quote[], work: TrackedOrder[], inflight: number, tick: number, side: Side, res: ReconcileResult): void {
    const cfg = this.cfg;
    want.sort(better(side));
    if (want.length > cfg.maxOrdersPerSide) want.length = cfg.maxOrdersPerSide;
    const priceTol = cfg.priceToleranceTicks * (tick > 0 ? tick : 1);
    const keep = new Array<boolean>(work.length).fill(false);
    const satisfied = new Array<boolean>(want.length).fill(false);
    // Two passes: exact price first, so a tolerance match never steals an exact one.
    for (let pass = 0; pass < 2; pass++) {
      for (let i = 0; i < want.length; i++) {
        if (satisfied[i]) continue;
        const q = want[i];
        for (let j = 0; j < work.length; j++) {
          if (keep[j]) continue;
          const o = work[j];
          const dp = Math.abs(o.price - q.price);
          if (pass === 0 ? dp !== 0 : dp > priceTol) continue;
          const remaining = o.size - o.filled;
          if (Math.abs(remaining - q.size) > cfg.sizeTolerance * q.size) continue;
          keep[j] = true;
          satisfied[i] = true;
          break;
        }
      }
    }
    let kept = 0;
    for (let j = 0; j < work.length; j++) {
      if (keep[j]) kept++;
      else res.cancels.push(work[j]);
    }
    res.kept += kept;
    // Orders in flight may become live: the cap counts them.
    let room = cfg.maxOrdersPerSide - kept - inflight;
    for (let i = 0; i < want.length && room > 0; i++) {
      if (satisfied[i]) continue;
      res.places.push(want[i]);
      room--;
    }
  }
}
