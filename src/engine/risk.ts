// Risk gate: every limit comes from config.risk; every block is logged with its reason and
// counted. Per-order checks (size, position per token and per market with YES and NO netted,
// total notional, open orders, price collar), a per-token stale-book guard, and two halts that
// cancel everything and stop quoting while the daemon stays up: the daily-loss kill switch and
// the order-error-rate breaker.
import type { Logger } from '../core/log.js';
import type { Config } from '../config.js';
import type { BookView } from '../book/view.js';
import { PRICE_SCALE, SIZE_SCALE } from '../core/units.js';
import type { MarketMeta, Quote } from './strategy.js';

export type RiskConfig = Config['risk'];

/** What the gate reads of the engine's state. Sizes in size units, notional in micro-dollars. */
export interface RiskInputs {
  qty(tokenId: string): number;
  /** Remaining size of our open BUY orders on a token (including in-flight ones). */
  openBuy(tokenId: string): number;
  /** Remaining size of our open SELL orders on a token (shares already promised), but those on their way out (risk-inputs.ts). */
  openSell(tokenId: string): number;
  openNotional(): number;
  openOrders(): number;
  /** Mid of a token in price units, NaN when unknown. */
  mid(tokenId: string): number;
}

const DAY_MS = 86_400_000;

/** The one rule for "may we quote off this book" (risk gate and /health): in sync and updated within staleBookMs. */
export function bookFreshness(book: BookView | undefined, nowMs: number, staleBookMs: number): 'fresh' | 'out_of_sync' | 'stale' {
  if (!book || !book.inSync()) return 'out_of_sync';
  return nowMs - book.updatedAt() > staleBookMs ? 'stale' : 'fresh';
}

export class RiskGate {
  readonly blocks = new Map<string, number>();
  halted: string | undefined;
  haltedAtMs = 0;
  private dayStart = -1;
  private dayStartPnl = 0;
  /** Recent order results (time and ok), oldest first from resultsHead. */
  private readonly results: Array<{ t: number; ok: boolean }> = [];
  /** First result still inside the window, and how many from there on failed. */
  private resultsHead = 0;
  private resultErrors = 0;
  private readonly batchBuy = new Map<string, number>();
  private readonly batchSell = new Map<string, number>();
  private batchNotional = 0;
  private batchOrders = 0;
  private readonly logged = new Map<string, number>();

  constructor(
    private readonly cfg: RiskConfig,
    private readonly log: Logger,
  ) {}

  private block(reason: string, detail: Record<string, unknown>, nowMs: number, level: 'info' | 'warn' = 'warn'): string {
    this.blocks.set(reason, (this.blocks.get(reason) ?? 0) + 1);
    // Log each reason at most once a second: a blocked quote repeats on every book update.
    const last = this.logged.get(reason) ?? -Infinity;
    if (nowMs - last >= 1000) {
      this.logged.set(reason, nowMs);
      this.log[level]({ reason, ...detail, count: this.blocks.get(reason) }, 'risk: blocked');
    }
    return reason;
  }

  /** Why a token may not be quoted now (undefined = fine). Its orders must be cancelled. */
  tokenBlock(tokenId: string, book: BookView | undefined, feedLive: boolean, nowMs: number): string | undefined {
    if (this.tokenFresh(book, feedLive, nowMs)) return undefined;
    // A token waiting for its feed or snapshot is a state (info); the engine logs the change.
    if (!feedLive) return this.block('feed_not_live', { tokenId }, nowMs, 'info');
    const f = bookFreshness(book, nowMs, this.cfg.staleBookMs);
    if (f === 'out_of_sync') return this.block('book_out_of_sync', { tokenId }, nowMs, 'info');
    if (f === 'stale') return this.block('book_stale', { tokenId, ageMs: nowMs - (book as BookView).updatedAt() }, nowMs, 'info');
    return undefined;
  }

  /** Whether tokenBlock would pass the token, without counting or logging anything. */
  tokenFresh(book: BookView | undefined, feedLive: boolean, nowMs: number): boolean {
    return feedLive && bookFreshness(book, nowMs, this.cfg.staleBookMs) === 'fresh';
  }

  /** Starts a batch of checks: orders accepted within it count against the limits of the next. */
  begin(): void {
    // clear() allocates a fresh table even when empty; most batches accept nothing on one side.
    if (this.batchBuy.size) this.batchBuy.clear();
    if (this.batchSell.size) this.batchSell.clear();
    this.batchNotional = 0;
    this.batchOrders = 0;
  }

  /** Why this order may not be placed (undefined = accepted and counted in the batch). */
  checkPlace(q: Quote, m: MarketMeta, s: RiskInputs, nowMs: number): string | undefined {
    const c = this.cfg;
    if (this.halted) return this.block('halted', { halt: this.halted }, nowMs);
    if (q.size > c.maxOrderSize * SIZE_SCALE) return this.block('max_order_size', { tokenId: q.tokenId, size: q.size }, nowMs);
    if (s.openOrders() + this.batchOrders + 1 > c.maxOpenOrders) return this.block('max_open_orders', { open: s.openOrders() + this.batchOrders }, nowMs);
    const notional = q.price * q.size;
    if ((s.openNotional() + this.batchNotional + notional) / (PRICE_SCALE * SIZE_SCALE) > c.maxTotalNotional) {
      return this.block('max_total_notional', { tokenId: q.tokenId }, nowMs);
    }
    const mid = s.mid(q.tokenId);
    if (!(mid === mid)) return this.block('no_mid', { tokenId: q.tokenId }, nowMs);
    if (Math.abs(q.price - mid) > c.priceCollar * PRICE_SCALE) return this.block('price_collar', { tokenId: q.tokenId, price: q.price, mid }, nowMs);
    if (q.side === 'BUY') {
      // Worst case: every open BUY fills.
      const other = q.tokenId === m.tokenId ? m.complementId : m.tokenId;
      const long = s.qty(q.tokenId) + s.openBuy(q.tokenId) + (this.batchBuy.get(q.tokenId) ?? 0) + q.size;
      if (long > c.maxPositionPerToken * SIZE_SCALE) return this.block('max_position_token', { tokenId: q.tokenId, worstCase: long }, nowMs);
      const net = long - s.qty(other);
      if (Math.abs(net) > c.maxPositionPerMarket * SIZE_SCALE) return this.block('max_position_market', { market: m.conditionId, worstCaseNet: net }, nowMs);
      this.batchBuy.set(q.tokenId, (this.batchBuy.get(q.tokenId) ?? 0) + q.size);
    } else {
      const promised = s.openSell(q.tokenId) + (this.batchSell.get(q.tokenId) ?? 0) + q.size;
      if (promised > s.qty(q.tokenId)) return this.block('sell_exceeds_position', { tokenId: q.tokenId, size: q.size, held: s.qty(q.tokenId) }, nowMs);
      this.batchSell.set(q.tokenId, (this.batchSell.get(q.tokenId) ?? 0) + q.size);
    }
    this.batchNotional += notional;
    this.batchOrders++;
    return undefined;
  }

  /** Counts an order result for the error-rate breaker; returns the halt reason when it trips. */
  recordResult(ok: boolean, nowMs: number): string | undefined {
    const r = this.results;
    r.push({ t: nowMs, ok });
    if (!ok) this.resultErrors++;
    // Results older than the window leave at the head (an index: a splice per result would copy the window).
    const from = nowMs - this.cfg.errorRateWindowMs;
    let head = this.resultsHead;
    while (head < r.length && r[head].t < from) {
      if (!r[head].ok) this.resultErrors--;
      head++;
    }
    if (head > 1024 && head * 2 > r.length) {
      r.copyWithin(0, head);
      r.length -= head;
      head = 0;
    }
    this.resultsHead = head;
    const n = r.length - head;
    if (this.halted || n < this.cfg.errorRateMinSamples) return undefined;
    const rate = this.resultErrors / n;
    if (rate > this.cfg.errorRateMax) return this.halt(`order error rate ${(rate * 100).toFixed(0)}% over ${n} orders in ${this.cfg.errorRateWindowMs} ms`, nowMs);
    return undefined;
  }

  /** Daily-loss kill switch; `pnlMicros` is the running PnL. Returns the halt reason when it trips. */
  checkLoss(pnlMicros: number, nowMs: number): string | undefined {
    // every comparison with NaN is false: a PnL that is not a number must stop, not disarm, the check
    if (!Number.isFinite(pnlMicros)) return this.halted ? undefined : this.halt(`PnL is not a finite number (${pnlMicros})`, nowMs);
    const day = Math.floor(nowMs / DAY_MS);
    if (day !== this.dayStart) {
      this.dayStart = day;
      this.dayStartPnl = pnlMicros;
    }
    if (this.halted) return undefined;
    const loss = (this.dayStartPnl - pnlMicros) / (PRICE_SCALE * SIZE_SCALE);
    if (loss > this.cfg.dailyLossLimit) return this.halt(`daily loss ${loss.toFixed(2)} exceeds limit ${this.cfg.dailyLossLimit}`, nowMs);
    return undefined;
  }

  halt(reason: string, nowMs: number): string {
    if (!this.halted) {
      this.halted = reason;
      this.haltedAtMs = nowMs;
      this.blocks.set('halt', (this.blocks.get('halt') ?? 0) + 1);
      this.log.error({ reason }, 'risk: HALT: cancelling all orders and quoting nothing');
    }
    return this.halted;
  }
}
