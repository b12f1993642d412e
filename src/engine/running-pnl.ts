// The PnL the engine's daily-loss check reads: cash plus each held token at its mark, revalued only
// for the markets flagged since the last reading (an event, an order change or a fill of theirs)
// and for the tokens held outside every market that moved, so a check costs the same at 1 or 1,000
// markets, and after weeks of markets leaving the set with shares.
import type { MarketState } from './market-state.js';
import type { Positions } from './positions.js';

export class RunningPnl {
  /** Markets whose marks or positions may have moved since they were last revalued (each flagged marksMoved). */
  private readonly moved: MarketState[] = [];
  /**
   * Tokens held outside every market whose mark or position may have moved since the last reading
   * (every change of either flags them here; the periodic remarkAll catches a book dropped silently).
   */
  private readonly orphans = new Set<string>();
  /** The next reading re-marks every held token (start, housekeeping: a book dropped where no event says so). */
  private all = true;

  constructor(
    private readonly positions: Positions,
    private readonly mark: (tokenId: string) => number,
  ) {}

  remarkAll(): void {
    this.all = true;
  }

  /** A market's marks or positions may have moved: its tokens are revalued at the next reading. */
  marketMoved(st: MarketState): void {
    if (st.marksMoved) return;
    st.marksMoved = true;
    this.moved.push(st);
  }

  /** `tokenId` is held, belongs to no market (it left the set, or never was in it), and may have moved. */
  orphan(tokenId: string): void {
    this.orphans.add(tokenId);
  }

  /** A market took `tokenId` in: revalued with it from now on. */
  adopt(tokenId: string): void {
    this.orphans.delete(tokenId);
  }

  /** Micro-dollars: revalues what moved, then cash plus the held values (Engine.pnlMicros, computed in full, is equal). */
  value(): number {
    const pos = this.positions;
    const moved = this.moved;
    const mark = this.mark;
    if (this.all) {
      this.all = false;
      for (let i = 0; i < moved.length; i++) moved[i].marksMoved = false;
      moved.length = 0;
      this.orphans.clear();
      pos.revalueAll(mark);
      return pos.runningPnl();
    }
    for (let i = 0; i < moved.length; i++) {
      const st = moved[i];
      st.marksMoved = false;
      const a = st.meta.tokenId;
      const b = st.meta.complementId;
      if (pos.has(a)) pos.revalue(a, mark(a));
      if (pos.has(b)) pos.revalue(b, mark(b));
    }
    moved.length = 0;
    if (this.orphans.size) {
      for (const t of this.orphans) pos.revalue(t, mark(t));
      this.orphans.clear();
    }
    return pos.runningPnl();
  }
}
