// In-memory inventory and cash for the hot path, in integers: shares in size units, cash in
// micro-dollars (price units x size units). Positions fold fills with core/accounting.ts, as the
// store and the report do, so all three agree to the micro-dollar.
import type { Side } from '../core/events.js';
import type { MarketMeta, PositionView } from './strategy.js';
import { InvariantError } from '../core/errors.js';
import { foldFill, type CostBasis } from '../core/accounting.js';

/** A token's position on the average-cost basis (core/accounting.ts: the one fold). */
export type TokenPosition = CostBasis;

export class Positions {
  private readonly tokens = new Map<string, TokenPosition>();
  /** The same positions in an array: the mark-to-market walks it on every requote (loss check). */
  private readonly list: Array<{ tokenId: string; p: TokenPosition }> = [];
  /** Cash change since the start, micro-dollars (sells add, buys and fees subtract). */
  cash = 0;
  fees = 0;
  volume = 0;

  get(tokenId: string): TokenPosition {
    let p = this.tokens.get(tokenId);
    if (!p) {
      p = { qty: 0, cost: 0, realized: 0 };
      this.tokens.set(tokenId, p);
      this.list.push({ tokenId, p });
    }
    return p;
  }

  qty(tokenId: string): number {
    return this.tokens.get(tokenId)?.qty ?? 0;
  }

  entries(): IterableIterator<[string, TokenPosition]> {
    return this.tokens.entries();
  }

  /** Applies a fill (or, with sign -1, reverses one). Fee in micro-dollars. */
  apply(tokenId: string, side: Side, price: number, size: number, fee: number, sign: 1 | -1 = 1): void {
    // integers in range or nothing: a NaN or Infinity here would disarm every limit computed from it
    if (!Number.isSafeInteger(price) || !Number.isSafeInteger(size) || !Number.isSafeInteger(fee) || !Number.isSafeInteger(price * size)) {
      throw new InvariantError(`position: fill of ${tokenId} with price ${price}, size ${size}, fee ${fee} is not in integer units`);
    }
    const p = this.get(tokenId);
    const notional = price * size;
    // a reversal (sign -1) is the opposite trade at the same price
    const buy = (side === 'BUY') === (sign === 1);
    this.volume += sign * notional;
    this.fees += sign * fee;
    this.cash -= sign * fee;
    this.cash += buy ? -notional : notional;
    foldFill(p, buy ? 'BUY' : 'SELL', price, size);
  }

  /** Market value of the holdings, micro-dollars, at the given marks (price units; NaN -> cost). */
  markValue(mark: (tokenId: string) => number): number {
    let v = 0;
    const list = this.list;
    for (let i = 0; i < list.length; i++) {
      const p = list[i].p;
      if (p.qty === 0) continue;
      const m = mark(list[i].tokenId);
      v += m === m ? m * p.qty : p.cost;
    }
    return v;
  }

  /** PnL in micro-dollars: cash plus holdings at the marks. */
  pnl(mark: (tokenId: string) => number): number {
    return this.cash + this.markValue(mark);
  }

  /** A PositionView for one market's strategy. */
  view(m: MarketMeta): PositionView {
    return {
      qty: (t) => this.qty(t),
      net: () => this.qty(m.tokenId) - this.qty(m.complementId),
    };
  }
}
