// The level decreases of one token's book in the last PAIR_WINDOW_MS that no trade print has
// explained yet. The real feed shows a trade in the book first and prints it up to ~200 ms later,
// with a later timestamp (py-clob-client-v2 issue #117: 67 ms), so an order of ours that joined a
// level in between saw a book the trade had already left: when the print comes, the simulated venue
// asks here whether it is that trade (then it never met the order) or a new one.
import type { Side } from '../core/events.js';
import { PAIR_WINDOW_MS } from './queue-model.js';

/** Decreases kept at once (a ring: past it the oldest are forgotten, which only makes fills likelier). */
const SLOTS = 64;

export class RecentDecreases {
  private readonly key = new Int32Array(SLOTS).fill(-1);
  private readonly amount = new Float64Array(SLOTS);
  private readonly ts = new Float64Array(SLOTS);
  private next = 0;
  /** Printed volume no decrease has shown yet (a print before its update), by key; usually empty. */
  private readonly printed: Array<{ key: number; amount: number; ts: number }> = [];

  /** The level `side`/`price` fell by `amount` in an update at feed time `ts`. */
  add(side: Side, price: number, amount: number, ts: number): void {
    const key = keyOf(side, price);
    if (this.printed.length > 0) amount = this.offsetByPrinted(key, amount, ts);
    if (!(amount > 0)) return;
    const i = this.next;
    this.key[i] = key;
    this.amount[i] = amount;
    this.ts[i] = ts;
    this.next = i + 1 === SLOTS ? 0 : i + 1;
  }

  /** The time of the newest decrease the last amountAt counted (-Infinity: none). */
  newestTs = -Infinity;

  /** The unexplained decrease at `side`/`price` shown at or before `before`, of updates within the window of `at` (a print's time). */
  amountAt(side: Side, price: number, at: number, before = at): number {
    const key = keyOf(side, price);
    let amount = 0;
    let newest = -Infinity;
    for (let i = 0; i < SLOTS; i++) {
      if (this.key[i] !== key) continue;
      const ts = this.ts[i];
      if (ts > before || at - ts > PAIR_WINDOW_MS) continue;
      amount += this.amount[i];
      if (ts > newest) newest = ts;
    }
    this.newestTs = newest;
    return amount;
  }

  /**
   * A print of `size` at `side`/`price` (the resting side it met) at `ts`: it explains decreases
   * there, oldest first (trades print in the order made); the rest waits for its update.
   */
  explain(side: Side, price: number, size: number, ts: number): void {
    const key = keyOf(side, price);
    let left = size;
    for (let pass = 0; pass < SLOTS && left > 0; pass++) {
      // oldest first: the slot after the newest, round the ring
      const i = (this.next + pass) % SLOTS;
      if (this.key[i] !== key || ts - this.ts[i] > PAIR_WINDOW_MS) continue;
      const take = left < this.amount[i] ? left : this.amount[i];
      this.amount[i] -= take;
      left -= take;
      if (this.amount[i] === 0) this.key[i] = -1;
    }
    if (left > 0) {
      this.offsetByPrinted(-1, 0, ts);
      this.printed.push({ key, amount: left, ts });
    }
  }

  /** A fresh snapshot: what came before it is no longer told apart. */
  clear(): void {
    this.key.fill(-1);
    this.printed.length = 0;
  }

  /**
   * Takes `amount` of a decrease at `key` out of the printed volume waiting for its update, and drops
   * what is spent or out of the window of `ts`, in place (no allocation: this runs per decrease while
   * prints wait); returns what of `amount` is left. With amount 0 it only drops.
   */
  private offsetByPrinted(key: number, amount: number, ts: number): number {
    const ps = this.printed;
    let k = 0;
    for (let i = 0; i < ps.length; i++) {
      const p = ps[i];
      if (ts - p.ts > PAIR_WINDOW_MS || p.ts - ts > PAIR_WINDOW_MS) continue;
      if (p.key === key && amount > 0) {
        const take = amount < p.amount ? amount : p.amount;
        p.amount -= take;
        amount -= take;
      }
      if (p.amount > 0) ps[k++] = p;
    }
    ps.length = k;
    return amount;
  }
}

/** A level's slot key (an empty slot is -1). */
function keyOf(side: Side, price: number): number {
  return price * 2 + (side === 'BUY' ? 0 : 1);
}
