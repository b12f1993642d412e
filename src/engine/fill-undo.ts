// A FAILED trade's fill taken out of its token's position as the store takes it out (store.ts
// reverse: the basis rebuilt from the token's other fills), not as the opposite trade: average cost
// does not undo that way (long 20 at 0.50, a SELL of 10 at 0.70 reversed as a BUY at 0.70 left +$2
// realized and a cost of $12, where the store has 0 and $10). Per token it keeps the fills since the
// oldest one that may still fail, each with the basis before it; undoing one restores that basis
// and folds the later ones again.
import type { Side } from '../core/events.js';
import { foldFill, type CostBasis } from '../core/accounting.js';

interface Entry {
  key: string;
  side: Side;
  price: number;
  size: number;
  before: CostBasis;
  /** It may still fail (its trade is not settled). */
  open: boolean;
}

/** Entries kept per token at most: a trade that never settles must not grow memory for ever (the oldest is then undone as the opposite trade). */
const MAX_ENTRIES = 10_000;

export class FillUndo {
  private readonly log = new Map<string, Entry[]>();

  /** Fills remembered, every token (tests, status). */
  get size(): number {
    let n = 0;
    for (const l of this.log.values()) n += l.length;
    return n;
  }

  /** Whether a fill of the token is remembered (one may still fail, or follows one that may). */
  has(tokenId: string): boolean {
    return this.log.has(tokenId);
  }

  /** Before a fill is folded into `p`: remembered when it may fail, or when an earlier fill of the token may. */
  before(tokenId: string, key: string, side: Side, price: number, size: number, p: CostBasis, mayFail: boolean): void {
    let l = this.log.get(tokenId);
    if (!mayFail && l === undefined) return;
    if (l === undefined) this.log.set(tokenId, (l = []));
    l.push({ key, side, price, size, before: { qty: p.qty, cost: p.cost, realized: p.realized }, open: mayFail });
    if (l.length > MAX_ENTRIES) l.shift();
    this.trim(tokenId, l);
  }

  /** The fill `key` settled: it will not fail (the log forgets what no open fill precedes). */
  settled(tokenId: string, key: string): void {
    const l = this.log.get(tokenId);
    if (l === undefined) return;
    for (const e of l) if (e.key === key) e.open = false;
    this.trim(tokenId, l);
  }

  /** The fill `key` failed: `p` becomes the basis of the token's other fills; false when it is not remembered. */
  undo(tokenId: string, key: string, p: CostBasis): boolean {
    const l = this.log.get(tokenId);
    const i = l === undefined ? -1 : l.findIndex((e) => e.key === key);
    if (l === undefined || i < 0) return false;
    const b = l[i].before;
    p.qty = b.qty;
    p.cost = b.cost;
    p.realized = b.realized;
    l.splice(i, 1);
    for (let k = i; k < l.length; k++) {
      const e = l[k];
      e.before = { qty: p.qty, cost: p.cost, realized: p.realized };
      foldFill(p, e.side, e.price, e.size);
    }
    this.trim(tokenId, l);
    return true;
  }

  private trim(tokenId: string, l: Entry[]): void {
    let n = 0;
    while (n < l.length && !l[n].open) n++;
    if (n === l.length) this.log.delete(tokenId);
    else if (n > 0) l.splice(0, n);
  }
}
