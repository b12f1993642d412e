// Risk gate: every limit comes from config.risk; every block is counted by reason (/metrics
// risk_blocks_total, the PnL summary) and logged with prices and sizes in market units. Per-order
// checks (size, position per token and per market with YES and NO netted, total notional, open
// orders, price collar), a per-token stale-book guard, and two halts that cancel everything and
// stop quoting while the daemon stays up: the daily-loss kill switch and the order-error-rate
// breaker. A limit reached is the gate doing its job (a full position, nothing left to sell, a
// one-sided book): debug, at most once a second per reason, and an info line a minute summing the
// blocks up. WARN only for what an operator must act on (ACTIONABLE); a halt is an ERROR.
import type { Logger } from '../core/log.js';
import type { Config } from '../config.js';
import { STAMPED_AHEAD_MS, type BookView } from '../book/view.js';
import { PRICE_SCALE, SIZE_SCALE, formatPrice, formatSize } from '../core/units.js';
import type { MarketMeta, Quote } from './strategy.js';

export type RiskConfig = Config['risk'];

/** What the gate reads of the engine's state. Sizes in size units, notional in micro-dollars. */
export interface RiskInputs {
  qty(tokenId: string): number;
  /** Shares of a token in BUYs of ours that ended matched, their trades not reported yet: held as far as the limits go. */
  unreportedBuy(tokenId: string): number;
  /** Shares of a token in SELLs of ours that ended matched, their trades not reported yet: gone as far as the limits go. */
  unreportedSell(tokenId: string): number;
  /** Shares of a token bought in trades not yet settled (MATCHED, RETRYING): held, but the venue does not let us sell them yet. */
  unmined(tokenId: string): number;
  /** True while a SELL of the token refused for balance waits before the next (balance-backoff.ts). */
  sellWaiting(tokenId: string): boolean;
  /** Remaining size of our open BUY orders on a token (including in-flight ones). */
  openBuy(tokenId: string): number;
  /** Remaining size of our open SELL orders on a token (shares already promised), but those on their way out (risk-inputs.ts). */
  openSell(tokenId: string): number;
  /** The same with the SELLs on their way out: each may still fill until its cancel lands (the hedge a BUY of the other token nets against). */
  openSellAll(tokenId: string): number;
  openNotional(): number;
  /** Of openNotional, the open BUYs' (the collateral they promise at the venue), micro-dollars. */
  openBuyCost(): number;
  /** Micro-dollars our BUYs may promise in all (collateral.ts); Infinity when not capped. */
  collateral(): number;
  /** True while BUYs wait after one refused for balance (balance-backoff.ts). */
  buyWaiting(): boolean;
  openOrders(): number;
  /** Mid of a token in price units, NaN when unknown. */
  mid(tokenId: string): number;
}

const DAY_MS = 86_400_000;
/** How long the loss check (and a day's baseline) waits for every holding's mark (see checkLoss). */
const MARKS_WAIT_MS = 60_000;
/** How often a day's baseline the store could not read or keep is asked again (RiskGate.keepDayStart). */
const DAY_START_RETRY_MS = 1000;

/**
 * Blocks that say the strategy, the configuration or the wallet disagree, so such quotes are lost
 * until one of them changes (a strategy's order above risk.maxOrderSize; BUYs that together cost
 * more than our collateral): WARN with what to do, at most once per ACTIONABLE_EVERY_MS per reason
 * (debug in between).
 */
export const ACTIONABLE: ReadonlyMap<string, string> = new Map([
  ['max_order_size', 'risk: blocked (the strategy asks for what the risk configuration refuses)'],
  [
    'buy_exceeds_collateral',
    'risk: BUYs held back: with our open BUYs they would cost more than our collateral, the balance or the exchange allowance if lower (fund the wallet or approve more, or quote less: risk.maxTotalNotional, the strategy sizes)',
  ],
]);
const ACTIONABLE_EVERY_MS = 600_000;
/** Period of the info line summing up the blocks. */
const SUMMARY_MS = 60_000;

/** A price in market units ("0.52"); a mid may fall between two price units ("0.515"). */
function px(units: number): string {
  return Number.isInteger(units) ? formatPrice(units) : String(units / PRICE_SCALE);
}

/**
 * The one rule for "may we quote off this book" (risk gate and /health): in sync and updated within
 * staleBookMs. One stamped ahead of now (the system clock stepped back) is not fresh: its age is
 * unknown, and a frozen book would pass for the length of the step (its next update stamps it anew).
 */
export function bookFreshness(book: BookView | undefined, nowMs: number, staleBookMs: number): 'fresh' | 'out_of_sync' | 'stale' {
  if (!book || !book.inSync()) return 'out_of_sync';
  const age = nowMs - book.updatedAt();
  return age > staleBookMs || age < -STAMPED_AHEAD_MS ? 'stale' : 'fresh';
}

/** Where the PnL each UTC day began at is kept across restarts (the store); without it, this process only. */
export interface DayStarts {
  dayStartPnl(day: number): number | undefined;
  setDayStartPnl(day: number, pnlMicros: number): void;
}

export class RiskGate {
  readonly blocks = new Map<string, number>();
  halted: string | undefined;
  haltedAtMs = 0;
  private dayStart = -1;
  private dayStartPnl = 0;
  /** The day's baseline is settled with the store (read from it, or kept in it); else asked again (keepDayStart). */
  private dayStartKept = true;
  private dayStartTriedMs = -Infinity;
  private dayStartFailing = false;
  /** Since when some holding has had no mark (NaN: every one has). */
  private unmarkedSince = NaN;
  /**
   * The daily-loss check has compared the PnL with the day's start since this process began (every
   * holding marked, or MARKS_WAIT_MS passed). On a restart the same day (an earlier process kept the
   * day's start) no market quotes until then: the check may halt at once (a process halted on the
   * day's loss, restarted), and an order placed on the first book that came would rest through it.
   * A day's first start cannot halt at its first check (the day starts there): no wait.
   */
  private lossCompared = false;
  private restartedToday: boolean | undefined = undefined;

  /** Why no market may quote before the first loss check of a restart the same day, or undefined (see lossCompared). */
  lossCheckPending(nowMs: number): string | undefined {
    if (this.lossCompared) return undefined;
    this.restartedToday ??= this.keptToday(Math.floor(nowMs / DAY_MS));
    return this.restartedToday ? "restarted today: the daily loss check waits for every held token's mark" : undefined;
  }
  /** Recent order results (time and ok), oldest first from resultsHead. */
  private readonly results: Array<{ t: number; ok: boolean }> = [];
  /** First result still inside the window, and how many from there on failed. */
  private resultsHead = 0;
  private resultErrors = 0;
  private readonly batchBuy = new Map<string, number>();
  private readonly batchSell = new Map<string, number>();
  private batchNotional = 0;
  private batchBuyCost = 0;
  private batchOrders = 0;
  private readonly logged = new Map<string, number>();
  /** When each reason last held a quote back, and when a place last passed (health: nothing rests, every quote held back). */
  readonly blockedAtMs = new Map<string, number>();
  passedAtMs = -Infinity;
  private readonly warned = new Map<string, number>();
  /** The counts at the last summary line, and when it was (NaN: not yet). */
  private readonly summarized = new Map<string, number>();
  private summaryAt = NaN;

  constructor(
    private readonly cfg: RiskConfig,
    private readonly log: Logger,
    private readonly dayStarts?: DayStarts,
  ) {}

  private block(reason: string, detail: () => Record<string, unknown>, nowMs: number): string {
    const count = (this.blocks.get(reason) ?? 0) + 1;
    this.blocks.set(reason, count);
    const actionable = ACTIONABLE.get(reason);
    this.blockedAtMs.set(reason, nowMs);
    if (actionable !== undefined && !(nowMs - (this.warned.get(reason) ?? -Infinity) < ACTIONABLE_EVERY_MS)) {
      this.warned.set(reason, nowMs);
      this.logged.set(reason, nowMs);
      this.log.warn({ reason, ...detail(), count }, actionable);
      return reason;
    }
    // Log each reason at most once a second: a blocked quote repeats on every book update.
    const last = this.logged.get(reason) ?? -Infinity;
    if (nowMs - last >= 1000 && this.log.isLevelEnabled('debug')) {
      this.logged.set(reason, nowMs);
      this.log.debug({ reason, ...detail(), count }, 'risk: blocked');
    }
    return reason;
  }

  /**
   * The info line summing up the blocks since the last one, once per SUMMARY_MS (the engine's
   * housekeeping calls this every tick); nothing when nothing was blocked.
   */
  summarize(nowMs: number): void {
    // the first call starts the period (the engine's first housekeeping tick)
    if (this.summaryAt !== this.summaryAt) this.summaryAt = nowMs;
    if (nowMs - this.summaryAt < SUMMARY_MS) return;
    const periodS = Math.round((nowMs - this.summaryAt) / 1000);
    this.summaryAt = nowMs;
    let blocked: Record<string, number> | undefined;
    for (const [reason, n] of this.blocks) {
      const d = n - (this.summarized.get(reason) ?? 0);
      if (d > 0) (blocked ??= {})[reason] = d;
      this.summarized.set(reason, n);
    }
    if (blocked) this.log.info({ blocked, periodS }, 'risk: orders blocked in the last minute (limits reached; counted in /metrics risk_blocks_total)');
  }

  /** Why a token may not be quoted now (undefined = fine). Its orders must be cancelled. */
  tokenBlock(tokenId: string, book: BookView | undefined, feedLive: boolean, nowMs: number): string | undefined {
    if (this.tokenFresh(book, feedLive, nowMs)) return undefined;
    // A token waiting for its feed or snapshot is a state (info); the engine logs the change.
    if (!feedLive) return this.block('feed_not_live', () => ({ tokenId }), nowMs);
    const f = bookFreshness(book, nowMs, this.cfg.staleBookMs);
    if (f === 'out_of_sync') return this.block('book_out_of_sync', () => ({ tokenId }), nowMs);
    if (f === 'stale') return this.block('book_stale', () => ({ tokenId, ageMs: nowMs - (book as BookView).updatedAt() }), nowMs);
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
    this.batchBuyCost = 0;
    this.batchOrders = 0;
  }

  /** Why this order may not be placed (undefined = accepted and counted in the batch). */
  checkPlace(q: Quote, m: MarketMeta, s: RiskInputs, nowMs: number): string | undefined {
    const c = this.cfg;
    // The order in market units: every block line names it (a closure: built only when logged).
    const order = () => ({ tokenId: q.tokenId, side: q.side, price: formatPrice(q.price), shares: formatSize(q.size) });
    if (this.halted) return this.block('halted', () => ({ halt: this.halted }), nowMs);
    if (q.size > c.maxOrderSize * SIZE_SCALE) return this.block('max_order_size', () => ({ ...order(), maxShares: c.maxOrderSize }), nowMs);
    if (s.openOrders() + this.batchOrders + 1 > c.maxOpenOrders) {
      return this.block('max_open_orders', () => ({ ...order(), open: s.openOrders() + this.batchOrders, max: c.maxOpenOrders }), nowMs);
    }
    const notional = q.price * q.size;
    if ((s.openNotional() + this.batchNotional + notional) / (PRICE_SCALE * SIZE_SCALE) > c.maxTotalNotional) {
      return this.block('max_total_notional', () => ({ ...order(), openUsd: (s.openNotional() + this.batchNotional) / (PRICE_SCALE * SIZE_SCALE), maxUsd: c.maxTotalNotional }), nowMs);
    }
    const mid = s.mid(q.tokenId);
    if (!(mid === mid)) return this.block('no_mid', order, nowMs);
    if (Math.abs(q.price - mid) > c.priceCollar * PRICE_SCALE) return this.block('price_collar', () => ({ ...order(), mid: px(mid), collar: c.priceCollar }), nowMs);
    if (q.side === 'BUY') {
      // Worst case: every open BUY fills.
      const other = q.tokenId === m.tokenId ? m.complementId : m.tokenId;
      const long = s.qty(q.tokenId) + s.unreportedBuy(q.tokenId) + s.openBuy(q.tokenId) + (this.batchBuy.get(q.tokenId) ?? 0) + q.size;
      if (long > c.maxPositionPerToken * SIZE_SCALE) {
        return this.block('max_position_token', () => ({ ...order(), worstCaseShares: formatSize(long), maxShares: c.maxPositionPerToken }), nowMs);
      }
      // netted against the least the other token may come to: every open or batched SELL of it
      // filled, the unreported ones too, and those being cancelled (one may fill before its cancel
      // lands); never below none (a SELL beyond the shares held cannot fill: the leaving one and its
      // replacement do not both sell the same shares)
      const hedge = s.qty(other) - s.unreportedSell(other) - s.openSellAll(other) - (this.batchSell.get(other) ?? 0);
      const net = long - (hedge > 0 ? hedge : 0);
      // beyond the limit only where this BUY takes the net further from zero (one that lowers a short always goes)
      if (Math.abs(net) > c.maxPositionPerMarket * SIZE_SCALE && Math.abs(net) > Math.abs(net - q.size)) {
        return this.block('max_position_market', () => ({ ...order(), market: m.conditionId, worstCaseNetShares: formatSize(net), maxShares: c.maxPositionPerMarket }), nowMs);
      }
      // the venue's balance check: every open BUY's cost with this one within our collateral
      if (s.buyWaiting()) return this.block('buy_balance_backoff', order, nowMs);
      const cost = s.openBuyCost() + this.batchBuyCost + notional;
      if (cost > s.collateral()) {
        return this.block(
          'buy_exceeds_collateral',
          () => ({ ...order(), openBuyUsd: (cost - notional) / (PRICE_SCALE * SIZE_SCALE), collateralUsd: s.collateral() / (PRICE_SCALE * SIZE_SCALE) }),
          nowMs,
        );
      }
      this.batchBuyCost += notional;
      this.batchBuy.set(q.tokenId, (this.batchBuy.get(q.tokenId) ?? 0) + q.size);
    } else {
      if (s.sellWaiting(q.tokenId)) return this.block('sell_balance_backoff', order, nowMs);
      const selling = s.openSell(q.tokenId) + (this.batchSell.get(q.tokenId) ?? 0);
      if (selling + q.size > s.qty(q.tokenId)) {
        return this.block('sell_exceeds_position', () => ({ ...order(), held: formatSize(s.qty(q.tokenId)), alreadySelling: formatSize(selling) }), nowMs);
      }
      // selling one token nets the other up: beyond the market's limit only where it grows the exposure
      const other = q.tokenId === m.tokenId ? m.complementId : m.tokenId;
      // against the most the other token may come to: every open or batched BUY of it filled
      const otherMost = s.qty(other) + s.unreportedBuy(other) + s.openBuy(other) + (this.batchBuy.get(other) ?? 0);
      // and the least this one may come to: every SELL of it filled, those being cancelled too (one
      // may fill before its cancel lands, and its replacement goes first when the shares cover both),
      // never below none (SELLs beyond the shares held cannot all fill)
      const avail = s.qty(q.tokenId) - s.unreportedSell(q.tokenId);
      const sellingAll = s.openSellAll(q.tokenId) + (this.batchSell.get(q.tokenId) ?? 0);
      const before = avail - Math.max(0, Math.min(avail, sellingAll)) - otherMost;
      const after = avail - Math.max(0, Math.min(avail, sellingAll + q.size)) - otherMost;
      if (Math.abs(after) > c.maxPositionPerMarket * SIZE_SCALE && Math.abs(after) > Math.abs(before)) {
        return this.block('max_position_market', () => ({ ...order(), market: m.conditionId, worstCaseNetShares: formatSize(after), maxShares: c.maxPositionPerMarket }), nowMs);
      }
      // the venue's balance check counts settled shares only: refused there, and counted as an order error here
      const unmined = s.unmined(q.tokenId);
      if (unmined > 0 && selling + q.size > s.qty(q.tokenId) - unmined) {
        return this.block('sell_awaits_settlement', () => ({ ...order(), held: formatSize(s.qty(q.tokenId)), notSettled: formatSize(unmined), alreadySelling: formatSize(selling) }), nowMs);
      }
      this.batchSell.set(q.tokenId, (this.batchSell.get(q.tokenId) ?? 0) + q.size);
    }
    this.batchNotional += notional;
    this.batchOrders++;
    this.passedAtMs = nowMs;
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

  /**
   * Daily-loss kill switch; `pnlMicros` is the running PnL. Returns the halt reason when it trips.
   * `marked` says whether every holding has a mark. One valued at cost (a start before the books
   * came) moves the PnL by its first mark, not by trading: a day's baseline, and a restart's first
   * check, wait for the marks, MARKS_WAIT_MS at most, else that move would halt the daemon or hide
   * as much of the day's loss. Once compared, a holding without a mark is one bought since (a held
   * token keeps its last mark): its cost adds nothing either way, and the check goes on.
   */
  checkLoss(pnlMicros: number, nowMs: number, marked?: () => boolean): string | undefined {
    // every comparison with NaN is false: a PnL that is not a number must stop, not disarm, the check
    if (!Number.isFinite(pnlMicros)) return this.halted ? undefined : this.halt(`PnL is not a finite number (${pnlMicros})`, nowMs);
    const day = Math.floor(nowMs / DAY_MS);
    const baselineAhead = !this.lossCompared || day !== this.dayStart;
    if (baselineAhead && marked !== undefined && !marked()) {
      if (this.unmarkedSince !== this.unmarkedSince) this.unmarkedSince = nowMs;
      if (nowMs - this.unmarkedSince < MARKS_WAIT_MS) {
        // the day turned while compared: the day before's baseline still checks the loss meanwhile
        return this.lossCompared ? this.lossPastLimit(pnlMicros, nowMs) : undefined;
      }
    } else this.unmarkedSince = NaN;
    this.lossCompared = true;
    if (day !== this.dayStart) {
      this.dayStart = day;
      this.dayStartPnl = pnlMicros;
      this.dayStartKept = false;
      this.dayStartTriedMs = -Infinity;
    }
    if (!this.dayStartKept && nowMs - this.dayStartTriedMs >= DAY_START_RETRY_MS) this.keepDayStart(day, nowMs);
    return this.lossPastLimit(pnlMicros, nowMs);
  }

  /** The halt when the loss since the day's baseline is past the limit. */
  private lossPastLimit(pnlMicros: number, nowMs: number): string | undefined {
    if (this.halted) return undefined;
    const loss = (this.dayStartPnl - pnlMicros) / (PRICE_SCALE * SIZE_SCALE);
    if (loss > this.cfg.dailyLossLimit) return this.halt(`daily loss ${loss.toFixed(2)} exceeds limit ${this.cfg.dailyLossLimit}`, nowMs);
    return undefined;
  }

  /** Whether an earlier process kept `day`'s start (a store that cannot say is taken as yes: the wait is the safe side). */
  private keptToday(day: number): boolean {
    try {
      const kept = this.dayStarts?.dayStartPnl(day);
      return kept !== undefined && Number.isFinite(kept);
    } catch {
      return true;
    }
  }

  /**
   * The day's baseline against the store: the PnL `day` began at as an earlier process of the same
   * day kept it (a restart does not re-arm the whole limit), else this process's, kept for the next.
   * A store that fails is logged (once a streak) and asked again every DAY_START_RETRY_MS: the limit
   * counts from this process's baseline meanwhile, and a read that failed never lets the write
   * replace a baseline kept before.
   */
  private keepDayStart(day: number, nowMs: number): void {
    this.dayStartTriedMs = nowMs;
    let step = 'read';
    try {
      const kept = this.dayStarts?.dayStartPnl(day);
      if (kept !== undefined && Number.isFinite(kept)) this.dayStartPnl = kept;
      else {
        step = 'kept';
        this.dayStarts?.setDayStartPnl(day, this.dayStartPnl);
      }
      this.dayStartKept = true;
      if (this.dayStartFailing) this.log.info("risk: the day's starting PnL is in the store again");
      this.dayStartFailing = false;
    } catch (err) {
      if (!this.dayStartFailing) this.log.error({ err }, `risk: the day's starting PnL could not be ${step}; the loss limit counts from this process's start until it can`);
      this.dayStartFailing = true;
    }
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
