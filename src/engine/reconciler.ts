// Reconciler: turns "quotes wanted" and "orders working" into cancels and places, per token and
// side. An order within tolerance of a wanted quote is kept (it keeps its queue position: a
// needless cancel-and-replace is a defect). The rules for orders whose request is still out:
//  - In flight (pending_new, ambiguous, or live without a venue id yet): possibly live. It
//    satisfies a wanted quote it matches exactly like a working order would (never placed twice
//    when the order-entry latency exceeds the debounce), cannot be cancelled yet (no id), and
//    counts toward maxOrdersPerSide whether it matches or not.
//  - Pending cancel: on its way out. It matches nothing and is never cancelled again, and does
//    not count toward maxOrdersPerSide, so its replacement goes out at once. It may still fill,
//    so the risk gate keeps counting it (position and open-order limits, risk-inputs.ts).
//  - A wanted quote at the exact token/side/price of an order with a cancel out, or cancelled by
//    this very reconcile (a size change at one price), waits for the cancel to land (the engine
//    requotes on the answer): two of our orders never rest at one price.
// Wanted quotes at one token/side/price are merged into one order (sizes added).
import type { Side } from '../core/events.js';
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
  /** Wanted quotes satisfied by an order we have (working or in flight). */
  kept: number;
  /** Wanted quotes left out, beyond maxOrdersPerSide on their side (the best are kept). */
  cut: number;
  /** The most quotes one side wanted (after merging one price's), when any were cut. */
  cutFrom: number;
}

/** What the reconciler may do with an order. */
type Role = 'working' | 'inflight' | 'cancelling' | 'done';

function roleOf(o: TrackedOrder): Role {
  switch (o.state) {
    case 'live':
    case 'partially_filled':
      // Acknowledged without an id (the answer lacked one): cannot be cancelled yet.
      return o.orderId !== undefined ? 'working' : 'inflight';
    case 'pending_new':
    case 'ambiguous':
      return 'inflight';
    case 'pending_cancel':
      return 'cancelling';
    default:
      return 'done';
  }
}

interface SideGroup {
  token: string;
  side: Side;
  want: Quote[];
  /** Working orders first, then in-flight ones (a want prefers an order it can keep for sure). */
  working: TrackedOrder[];
  inflight: TrackedOrder[];
  /** Prices of our orders with a cancel out or cancelled now. */
  cancelling: number[];
}

/** Better price first: higher bids, lower asks. */
const bidsFirst = (a: { price: number }, b: { price: number }): number => b.price - a.price;
const asksFirst = (a: { price: number }, b: { price: number }): number => a.price - b.price;

export class Reconciler {
  /**
   * Side groups reused between calls (a market has at most four: two tokens, two sides); found by
   * a linear scan rather than a keyed map, which would build and hash a token+side string per
   * quote and order on every requote.
   */
  private readonly groups: SideGroup[] = [];
  private nGroups = 0;
  /** Scratch flags of side(): which orders are kept, which wants are satisfied. */
  private readonly keep: boolean[] = [];
  private readonly satisfied: boolean[] = [];

  constructor(private readonly cfg: ReconcilerConfig) {}

  /** The most orders kept on one token's side. */
  get maxOrdersPerSide(): number {
    return this.cfg.maxOrdersPerSide;
  }

  /**
   * `wanted` and `orders` may cover several tokens (a market's both outcomes); each token+side is
   * reconciled on its own, in the order the pair first appears. `tickOf` gives each token's tick.
   */
  reconcile(wanted: readonly Quote[], orders: Iterable<TrackedOrder>, tickOf: (tokenId: string) => number, out?: ReconcileResult): ReconcileResult {
    const res = out ?? { cancels: [], places: [], kept: 0, cut: 0, cutFrom: 0 };
    res.cancels.length = 0;
    res.places.length = 0;
    res.kept = 0;
    res.cut = 0;
    res.cutFrom = 0;
    this.nGroups = 0;
    for (let i = 0; i < wanted.length; i++) {
      const q = wanted[i];
      this.group(q.tokenId, q.side).want.push(q);
    }
    for (const o of orders) {
      const role = roleOf(o);
      if (role === 'working') this.group(o.tokenId, o.side).working.push(o);
      else if (role === 'inflight') this.group(o.tokenId, o.side).inflight.push(o);
      else if (role === 'cancelling') this.group(o.tokenId, o.side).cancelling.push(o.price);
    }
    const groups = this.groups;
    for (let i = 0; i < this.nGroups; i++) {
      const g = groups[i];
      this.side(g, tickOf(g.token), res);
    }
    // Drop the references the groups hold until the next call.
    for (let i = 0; i < this.nGroups; i++) clearGroup(groups[i]);
    return res;
  }

  private group(token: string, side: Side): SideGroup {
    const groups = this.groups;
    const n = this.nGroups;
    for (let i = 0; i < n; i++) {
      const g = groups[i];
      if (g.side === side && g.token === token) return g;
    }
    let g = groups[n];
    if (g === undefined) {
      g = { token, side, want: [], working: [], inflight: [], cancelling: [] };
      groups.push(g);
    } else {
      g.token = token;
      g.side = side;
    }
    this.nGroups = n + 1;
    return g;
  }

  private side(g: SideGroup, tick: number, res: ReconcileResult): void {
    const cfg = this.cfg;
    const want = mergeSamePrice(g.want.sort(g.side === 'BUY' ? bidsFirst : asksFirst));
    if (want.length > cfg.maxOrdersPerSide) {
      res.cut += want.length - cfg.maxOrdersPerSide;
      if (want.length > res.cutFrom) res.cutFrom = want.length;
      want.length = cfg.maxOrdersPerSide;
    }
    // The orders it may keep: working ones first, then in-flight ones (index j past nWorking).
    const working = g.working;
    const inflight = g.inflight;
    const nWorking = working.length;
    const nHave = nWorking + inflight.length;
    const priceTol = cfg.priceToleranceTicks * (tick > 0 ? tick : 1);
    const keep = this.keep;
    const satisfied = this.satisfied;
    for (let j = 0; j < nHave; j++) keep[j] = false;
    for (let i = 0; i < want.length; i++) satisfied[i] = false;
    // Two passes: exact price first, so a tolerance match never steals an exact one.
    for (let pass = 0; pass < 2; pass++) {
      for (let i = 0; i < want.length; i++) {
        if (satisfied[i]) continue;
        const q = want[i];
        for (let j = 0; j < nHave; j++) {
          if (keep[j]) continue;
          const o = j < nWorking ? working[j] : inflight[j - nWorking];
          const dp = Math.abs(o.price - q.price);
          if (pass === 0 ? dp !== 0 : dp > priceTol) continue;
          const remaining = o.size - o.filled;
          if (Math.abs(remaining - q.size) > cfg.sizeTolerance * q.size) continue;
          keep[j] = true;
          satisfied[i] = true;
          res.kept++;
          break;
        }
      }
    }
    let keptWorking = 0;
    for (let j = 0; j < nWorking; j++) {
      if (keep[j]) keptWorking++;
      else {
        res.cancels.push(working[j]);
        g.cancelling.push(working[j].price);
      }
    }
    // In-flight orders cannot be cancelled yet; matched or not, they may rest soon: the cap counts them.
    let room = cfg.maxOrdersPerSide - keptWorking - inflight.length;
    for (let i = 0; i < want.length && room > 0; i++) {
      if (satisfied[i]) continue;
      if (g.cancelling.length && g.cancelling.includes(want[i].price)) continue; // after the cancel lands
      res.places.push(want[i]);
      room--;
    }
  }
}

function clearGroup(g: SideGroup): void {
  g.want.length = 0;
  g.working.length = 0;
  g.inflight.length = 0;
  g.cancelling.length = 0;
}

/** Sorted wants with one entry per price: equal prices become one quote with the sizes added. */
function mergeSamePrice(want: Quote[]): Quote[] {
  let w = 0;
  for (let i = 0; i < want.length; i++) {
    const q = want[i];
    if (w > 0 && want[w - 1].price === q.price) {
      const prev = want[w - 1];
      want[w - 1] = { tokenId: prev.tokenId, side: prev.side, price: prev.price, size: prev.size + q.size };
    } else {
      want[w++] = q;
    }
  }
  want.length = w;
  return want;
}
