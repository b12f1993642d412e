// In-memory inventory and cash for the hot path, in integers: shares in size units, cash in
// micro-dollars (price units x size units). Positions fold fills with core/accounting.ts, as the
// store and the report do, so all three agree to the micro-dollar.
import type { Side } from '../core/events.js';
import type { MarketMeta, PositionView } from './strategy.js';
import { InvariantError } from '../core/errors.js';
import { foldFill, type CostBasis } from '../core/accounting.js';
import { FillUndo } from './fill-undo.js';
import { MICROS_PER_UNIT } from '../core/units.js';

/** A token's position on the average-cost basis (core/accounting.ts: the one fold). */
export type TokenPosition = CostBasis;

/** A position and its value at the mark it was last revalued at (at cost: held with no mark). */
interface ValuedPosition {
  tokenId: string;
  p: TokenPosition;
  value: number;
  atCost: boolean;
  /**
   * The last mark the token had: a holding whose book loses a side (no mid) keeps it rather than
   * going back to cost, which would hide a loss already seen from the daily-loss check.
   */
  lastMark: number;
}

/** What a fill moves in a position. */
export interface FillTerms {
  tokenId: string;
  side: Side;
  price: number;
  size: number;
  fee: number;
  /** The venue's size exactly, millionths of a share, when finer than `size`'s 0.01 share. */
  sizeMicros?: number;
}

/** Integers in range or nothing: a NaN or Infinity here would disarm every limit computed from it. */
function checkUnits(tokenId: string, price: number, size: number, fee: number): void {
  if (!Number.isSafeInteger(price) || !Number.isSafeInteger(size) || !Number.isSafeInteger(fee) || !Number.isSafeInteger(price * size)) {
    throw new InvariantError(`position: fill of ${tokenId} with price ${price}, size ${size}, fee ${fee} is not in integer units`);
  }
}

export class Positions {
  private readonly tokens = new Map<string, TokenPosition>();
  /** The same positions in an array, each with its value at the mark it was last revalued at. */
  private readonly list: Array<ValuedPosition> = [];
  private readonly entry = new Map<string, ValuedPosition>();
  private readonly undo = new FillUndo();
  /** Per token, millionths of a share the position counts beyond the venue's exact fills (their sizes rounded to 0.01; negative: fewer). */
  private readonly rounding = new Map<string, number>();
  /**
   * Sum of the list's values: the holdings as last revalued (revalue), so the running PnL
   * (runningPnl) costs O(1) and the owner revalues only the tokens whose mark or position moved.
   */
  private held = 0;
  /** Holdings valued at cost at their last revaluation (no mark): their first mark moves the PnL. */
  private atCost = 0;
  /** Told the token of every fill applied (its position, hence its value, changed). */
  onApply: ((tokenId: string) => void) | undefined;
  /** Cash change since the start, micro-dollars (sells add, buys and fees subtract). */
  cash = 0;
  fees = 0;
  volume = 0;
  /** Micro-dollars paid out since the start: BUY notional and every fee (the collateral budget's spending). */
  spent = 0;

  get(tokenId: string): TokenPosition {
    let p = this.tokens.get(tokenId);
    if (!p) {
      p = { qty: 0, cost: 0, realized: 0 };
      this.tokens.set(tokenId, p);
      const e: ValuedPosition = { tokenId, p, value: 0, atCost: false, lastMark: NaN };
      this.list.push(e);
      this.entry.set(tokenId, e);
    }
    return p;
  }

  qty(tokenId: string): number {
    return this.tokens.get(tokenId)?.qty ?? 0;
  }

  entries(): IterableIterator<[string, TokenPosition]> {
    return this.tokens.entries();
  }

  /** Applies a fill (or, with sign -1, reverses one as the opposite trade: see reverseFill). Fee in micro-dollars. */
  apply(tokenId: string, side: Side, price: number, size: number, fee: number, sign: 1 | -1 = 1): void {
    checkUnits(tokenId, price, size, fee);
    this.fold(tokenId, side, price, size, fee, sign);
  }

  /** apply() past its unit check. */
  private fold(tokenId: string, side: Side, price: number, size: number, fee: number, sign: 1 | -1): void {
    const p = this.get(tokenId);
    this.book(side, price, size, fee, sign);
    // a reversal (sign -1) is the opposite trade at the same price
    const buy = (side === 'BUY') === (sign === 1);
    foldFill(p, buy ? 'BUY' : 'SELL', price, size);
    this.onApply?.(tokenId);
  }

  /** A fill of ours, `key` its trade and order: applied, and remembered while it may fail (`mayFail`: not settled) or an earlier fill of its token may. */
  applyFill(f: FillTerms, key: string, mayFail: boolean): void {
    checkUnits(f.tokenId, f.price, f.size, f.fee);
    this.undo.before(f.tokenId, key, f.side, f.price, f.size, this.get(f.tokenId), mayFail);
    this.fold(f.tokenId, f.side, f.price, f.size, f.fee, 1);
    this.countRounding(f, 1);
  }

  /** What a fill's size rounding added to the position (BUY) or took from it (SELL), millionths of a share. */
  private countRounding(f: FillTerms, sign: 1 | -1): void {
    const exact = f.sizeMicros;
    if (exact === undefined || !Number.isSafeInteger(exact)) return;
    const added = (f.size * MICROS_PER_UNIT - exact) * (f.side === 'BUY' ? 1 : -1) * sign;
    const v = (this.rounding.get(f.tokenId) ?? 0) + added;
    if (v === 0) this.rounding.delete(f.tokenId);
    else this.rounding.set(f.tokenId, v);
  }

  /** A piece of our fill rounded to nothing on the 0.01 grid: its exact shares (millionths) moved the wallet, not the position. */
  roundedAway(tokenId: string, side: Side, micros: number): void {
    if (Number.isSafeInteger(micros) && micros > 0) this.countRounding({ tokenId, side, price: 0, size: 0, fee: 0, sizeMicros: micros }, 1);
  }

  /**
   * Size units the position counts beyond what the venue holds for us (its fills' sizes rounded up
   * to 0.01 share): not ours to sell. 0 when the rounding took as much as it added.
   */
  overstated(tokenId: string): number {
    const v = this.rounding.get(tokenId) ?? 0;
    return v > 0 ? Math.ceil(v / MICROS_PER_UNIT) : 0;
  }

  /** The fill `key` settled (CONFIRMED): it will not be reversed. */
  settleFill(tokenId: string, key: string): void {
    this.undo.settled(tokenId, key);
  }

  /**
   * The fill `key`, whose trade FAILED, taken out: cash and fees as before it, the basis as if it
   * had never been (fill-undo.ts; as the store rebuilds it). One no longer remembered is taken out
   * as the opposite trade.
   */
  reverseFill(f: FillTerms, key: string): void {
    checkUnits(f.tokenId, f.price, f.size, f.fee);
    this.countRounding(f, -1);
    const p = this.get(f.tokenId);
    if (!this.undo.undo(f.tokenId, key, p)) return this.fold(f.tokenId, f.side, f.price, f.size, f.fee, -1);
    this.book(f.side, f.price, f.size, f.fee, -1);
    this.onApply?.(f.tokenId);
  }

  /** Fills remembered for an exact reversal (fill-undo.ts). */
  get undoable(): number {
    return this.undo.size;
  }

  /** Cash, fees, volume and spending of a fill (sign 1) or its reversal (-1). */
  private book(side: Side, price: number, size: number, fee: number, sign: 1 | -1): void {
    const notional = price * size;
    const buy = (side === 'BUY') === (sign === 1);
    this.volume += sign * notional;
    this.fees += sign * fee;
    this.cash -= sign * fee;
    this.cash += buy ? -notional : notional;
    this.spent += sign * (fee + (side === 'BUY' ? notional : 0));
  }

  /**
   * Forgets a token held no more whose fills cannot fail any more (its market left the set): kept,
   * every token ever traded stayed listed, and each /status and /metrics read walked them all, for
   * as long as markets rotate. Its realized PnL stays in the cash. False (kept) otherwise.
   */
  forget(tokenId: string): boolean {
    const p = this.tokens.get(tokenId);
    if (!p || p.qty !== 0 || this.undo.has(tokenId)) return false;
    const e = this.entry.get(tokenId) as ValuedPosition;
    this.held -= e.value;
    if (e.atCost) this.atCost--;
    this.tokens.delete(tokenId);
    this.entry.delete(tokenId);
    this.rounding.delete(tokenId);
    this.list.splice(this.list.indexOf(e), 1);
    return true;
  }

  /** Whether the token is held, or may be again (a fill of it may still fail): what a mark is kept for. */
  mayHold(tokenId: string): boolean {
    return this.qty(tokenId) !== 0 || this.undo.has(tokenId);
  }

  /** The last finite mark the token was valued at (NaN if none yet). */
  lastMarkOf(tokenId: string): number {
    return this.entry.get(tokenId)?.lastMark ?? NaN;
  }

  /** Whether the token has a position entry (held or once held). */
  has(tokenId: string): boolean {
    return this.tokens.has(tokenId);
  }

  /**
   * Values the token's holding at `mark` (price units; NaN -> its last mark, else cost, as markValue) and moves the
   * running sum by the change. Values are integers or halves (a mid), so the sum stays exact.
   */
  revalue(tokenId: string, mark: number): void {
    const e = this.entry.get(tokenId);
    if (!e) return;
    if (mark === mark) e.lastMark = mark;
    else mark = e.lastMark;
    const p = e.p;
    const v = p.qty === 0 ? 0 : mark === mark ? mark * p.qty : p.cost;
    const atCost = p.qty !== 0 && mark !== mark;
    if (atCost !== e.atCost) {
      e.atCost = atCost;
      this.atCost += atCost ? 1 : -1;
    }
    if (v === e.value) return;
    this.held += v - e.value;
    e.value = v;
  }

  /** Revalues every token (a full re-mark, as pnl does) and resets the running sum to it. */
  revalueAll(mark: (tokenId: string) => number): void {
    let held = 0;
    let atCost = 0;
    const list = this.list;
    for (let i = 0; i < list.length; i++) {
      const e = list[i];
      const p = e.p;
      e.atCost = false;
      if (p.qty === 0) {
        e.value = 0;
        continue;
      }
      let m = mark(e.tokenId);
      if (m === m) e.lastMark = m;
      else m = e.lastMark;
      e.atCost = m !== m;
      if (e.atCost) atCost++;
      e.value = m === m ? m * p.qty : p.cost;
      held += e.value;
    }
    this.held = held;
    this.atCost = atCost;
  }

  /** Holdings valued at cost when last revalued (no mark yet, or none any more). */
  heldAtCost(): number {
    return this.atCost;
  }

  /** Cash plus the holdings as last revalued, micro-dollars: pnl(mark) once every moved token is revalued. */
  runningPnl(): number {
    return this.cash + this.held;
  }

  /** Market value of the holdings, micro-dollars, at the given marks (price units; NaN -> the last mark, else cost). */
  markValue(mark: (tokenId: string) => number): number {
    let v = 0;
    const list = this.list;
    for (let i = 0; i < list.length; i++) {
      const p = list[i].p;
      if (p.qty === 0) continue;
      let m = mark(list[i].tokenId);
      if (m !== m) m = list[i].lastMark;
      v += m === m ? m * p.qty : p.cost;
    }
    return v;
  }

  /** PnL in micro-dollars: cash plus holdings at the marks. */
  pnl(mark: (tokenId: string) => number): number {
    return this.cash + this.markValue(mark);
  }

  /** A PositionView for one market's strategy; `sellable`: PositionView.sellable (default: every share held). */
  view(m: MarketMeta, sellable: (tokenId: string) => number = (t) => this.qty(t)): PositionView {
    return {
      qty: (t) => this.qty(t),
      sellable,
      net: () => this.qty(m.tokenId) - this.qty(m.complementId),
    };
  }
}
