// The SQLite store (better-sqlite3, WAL): orders as they change, every fill when it arrives
// (INSERT OR IGNORE on (trade_id, order_id), so a replayed event is a no-op), positions and cash
// recomputed with decimal.js, PnL snapshots and runs. Every write is synchronous and durable to a
// process crash once the call returns (WAL, synchronous=NORMAL).
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { Decimal } from 'decimal.js';
import type { Logger } from '../core/log.js';
import { PRICE_SCALE, SIZE_SCALE, formatPrice, formatSize, parsePrice, parseSize } from '../core/units.js';
import type { Side, TradeStatus } from '../core/events.js';
import type { Journal } from '../engine/engine.js';
import type { StoredHistory } from '../engine/engine-sink.js';
import type { DayStarts } from '../engine/risk.js';
import type { TrackedOrder, OrderState } from '../engine/orders.js';
import type { Fill } from '../engine/fills.js';
import { migrate } from './migrations.js';
import { emptyBasis, foldFill, type CostBasis } from '../core/accounting.js';

/** How long a write waits on a lock another process holds before it fails (SQLITE_BUSY), ms. */
const BUSY_TIMEOUT_MS = 100;

/** One write of the engine's journal (journal.ts queues them; writeBatch stores them together). */
export type JournalRecord = { kind: 'order'; order: TrackedOrder } | { kind: 'fill'; fill: Fill } | { kind: 'fillStatus'; fill: Fill };

export interface PositionRow {
  tokenId: string;
  market: string;
  qty: string;
  cost: string;
  realized: string;
}

export interface PnlSnapshot {
  kind: string;
  timeMs: number;
  cash: string;
  holdings: string;
  pnl: string;
  fees: string;
  fills: number;
}

const MICROS = new Decimal(1_000_000);

/**
 * Orders ended without a fill, changed before ?, oldest first, at most ?: through migration 2's
 * partial index, named (the planner otherwise takes orders_state and walks every cancelled order).
 */
const PRUNABLE = `SELECT rowid FROM orders INDEXED BY orders_prunable WHERE state IN ('canceled','rejected') AND filled = '0' AND updated_ms < ? ORDER BY updated_ms LIMIT ?`;

/**
 * Whether start-up restores an order of this state whatever its age: every state is listed (a new
 * one fails to compile), so the query below names the open ones and orders_state finds them.
 */
const ALWAYS_RESTORED: Record<OrderState, boolean> = {
  pending_new: true,
  live: true,
  partially_filled: true,
  pending_cancel: true,
  ambiguous: true,
  canceled: false,
  filled: false,
  rejected: false,
};
const OPEN_STATES = (Object.keys(ALWAYS_RESTORED) as OrderState[])
  .filter((st) => ALWAYS_RESTORED[st])
  .map((st) => `'${st}'`)
  .join(',');
/**
 * Start-up's orders: the open ones through orders_state, the others changed since ? through
 * migration 5's orders_updated. The two halves are disjoint (no order twice, no dedupe pass); no
 * ORDER BY, which SQLite would serve by scanning the table in rowid order: row_seq sorts afterwards.
 */
const ORDERS_TO_RESTORE = `SELECT rowid AS row_seq, * FROM orders WHERE state IN (${OPEN_STATES})
  UNION ALL SELECT rowid AS row_seq, * FROM orders WHERE updated_ms >= ? AND state NOT IN (${OPEN_STATES})`;
/** The latest change of an order, a fill or an earlier run's end: each a MAX through an index. */
const LAST_ACTIVITY = `SELECT MAX(t) AS t FROM (SELECT MAX(updated_ms) AS t FROM orders UNION ALL SELECT MAX(time_ms) FROM fills
  UNION ALL SELECT MAX(ended_ms) FROM runs WHERE id < ?)`;

/** A stored position row in integer units. */
function basisOf(row: { qty: string; cost: string; realized: string }): CostBasis {
  return {
    qty: new Decimal(row.qty).mul(SIZE_SCALE).round().toNumber(),
    cost: new Decimal(row.cost).mul(MICROS).round().toNumber(),
    realized: new Decimal(row.realized).mul(MICROS).round().toNumber(),
  };
}
const price = (units: number) => new Decimal(formatPrice(units));
const shares = (units: number) => new Decimal(formatSize(units));

interface FillRow {
  trade_id: string;
  order_id: string;
  token_id: string;
  market: string;
  side: Side;
  price: string;
  size: string;
  fee: string;
  liquidity: 'MAKER' | 'TAKER';
  status: TradeStatus;
  time_ms: number;
  /** Absent in rows read by a query that does not select it; null when the size is on the grid. */
  size_micros?: number | null;
}
/** A stored fill in engine units. */
function fillOf(r: FillRow): Fill {
  const f: Fill = {
    tradeId: r.trade_id,
    orderId: r.order_id,
    tokenId: r.token_id,
    market: r.market,
    side: r.side,
    price: parsePrice(r.price),
    size: parseSize(r.size),
    fee: new Decimal(r.fee).mul(MICROS).round().toNumber(),
    liquidity: r.liquidity,
    status: r.status,
    timeMs: r.time_ms,
  };
  if (typeof r.size_micros === 'number' && Number.isSafeInteger(r.size_micros) && r.size_micros > 0) f.sizeMicros = r.size_micros;
  return f;
}

/** Every fill, oldest first: through migration 4's index, no sort of the table. */
const FILLS_IN_TIME_ORDER = `SELECT * FROM fills ORDER BY time_ms, id`;

/** What a stored fill's reversal takes back. */
interface StoredFillTerms {
  status: string;
  side: Side;
  price: string;
  size: string;
  fee: string;
}

interface OrderRow {
  client_id: string;
  order_id: string | null;
  token_id: string;
  market: string;
  side: Side;
  price: string;
  size: string;
  filled: string;
  state: OrderState;
  error: string | null;
  created_ms: number;
  updated_ms: number;
}

/** A stored order in engine units. */
function orderOf(r: OrderRow): TrackedOrder {
  return {
    clientId: r.client_id,
    orderId: r.order_id ?? undefined,
    tokenId: r.token_id,
    market: r.market,
    side: r.side,
    price: parsePrice(r.price),
    size: parseSize(r.size),
    filled: parseSize(r.filled),
    state: r.state,
    error: r.error ?? undefined,
    createdMs: r.created_ms,
    updatedMs: r.updated_ms,
  };
}

export class Store implements Journal, DayStarts, StoredHistory {
  readonly db: Database.Database;
  private runId: number | null = null;
  private readonly st;
  /** Fills written (inserted) by this process. */
  written = 0;

  constructor(
    path: string,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    try {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
      // the store is this process's alone (store-lock.ts): a lock held elsewhere (an operator's
      // sqlite3 left in a write transaction) fails a write at once, to be retried (journal.ts),
      // instead of blocking the event loop (heartbeats, feeds, a halt's cancel-all) for seconds
      this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      migrate(this.db);
    } catch (e) {
      this.db.close();
      throw e;
    }
    const d = this.db;
    this.st = {
      upsertOrder: d.prepare(
        `INSERT INTO orders (client_id, order_id, run_id, token_id, market, side, price, size, filled, state, error, created_ms, updated_ms)
         VALUES (@client_id, @order_id, @run_id, @token_id, @market, @side, @price, @size, @filled, @state, @error, @created_ms, @updated_ms)
         ON CONFLICT(client_id) DO UPDATE SET order_id = excluded.order_id, filled = excluded.filled, state = excluded.state,
           error = excluded.error, updated_ms = excluded.updated_ms`,
      ),
      releaseOrderId: d.prepare(`UPDATE orders SET order_id = NULL WHERE order_id = ? AND client_id <> ?`),
      insertFill: d.prepare(
        `INSERT OR IGNORE INTO fills (trade_id, order_id, token_id, market, side, price, size, size_micros, fee, liquidity, status, time_ms, recorded_ms)
         VALUES (@trade_id, @order_id, @token_id, @market, @side, @price, @size, @size_micros, @fee, @liquidity, @status, @time_ms, @recorded_ms)`,
      ),
      fillStatus: d.prepare(`UPDATE fills SET status = ? WHERE trade_id = ? AND order_id = ?`),
      getFill: d.prepare(`SELECT status, side, price, size, fee FROM fills WHERE trade_id = ? AND order_id = ?`),
      position: d.prepare(`SELECT qty, cost, realized FROM positions WHERE token_id = ?`),
      putPosition: d.prepare(
        `INSERT INTO positions (token_id, market, qty, cost, realized, updated_ms) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT(token_id) DO UPDATE SET qty = excluded.qty, cost = excluded.cost, realized = excluded.realized, updated_ms = excluded.updated_ms`,
      ),
      account: d.prepare(`SELECT cash, fees FROM account WHERE id = 1`),
      putAccount: d.prepare(`UPDATE account SET cash = ?, fees = ?, updated_ms = ? WHERE id = 1`),
      tokenFills: d.prepare(`SELECT side, price, size, fee, status FROM fills WHERE token_id = ? ORDER BY time_ms, id`),
      pruneOrders: d.prepare(`DELETE FROM orders WHERE rowid IN (${PRUNABLE})`),
      dayStart: d.prepare(`SELECT start_pnl_micros AS pnl FROM risk_days WHERE day = ?`),
      forgetMark: d.prepare(`DELETE FROM last_marks WHERE token_id = ?`),
      putMark: d.prepare(`INSERT INTO last_marks (token_id, mark, set_ms) VALUES (?, ?, ?) ON CONFLICT(token_id) DO UPDATE SET mark = excluded.mark, set_ms = excluded.set_ms`),
      putDayStart: d.prepare(
        `INSERT INTO risk_days (day, start_pnl_micros, set_ms) VALUES (?, ?, ?) ON CONFLICT(day) DO UPDATE SET start_pnl_micros = excluded.start_pnl_micros, set_ms = excluded.set_ms`,
      ),
    };
    this.fillTx = d.transaction((f: Fill) => this.writeFill(f));
    this.batchTx = d.transaction((rs: readonly JournalRecord[]) => {
      for (const r of rs) {
        if (r.kind === 'order') this.orderChanged(r.order);
        else if (r.kind === 'fill') this.writeFill(r.fill);
        else this.writeFillStatus(r.fill);
      }
    });
  }

  /** Records in one transaction: all stored, or none (the error is thrown). */
  writeBatch(records: readonly JournalRecord[]): void {
    this.batchTx(records);
  }

  private readonly batchTx: (rs: readonly JournalRecord[]) => void;

  startRun(mode: string, strategy: string, markets: string[]): number {
    const r = this.db.prepare(`INSERT INTO runs (started_ms, mode, strategy, markets) VALUES (?, ?, ?, ?)`).run(this.now(), mode, strategy, markets.join(','));
    this.runId = Number(r.lastInsertRowid);
    return this.runId;
  }

  /**
   * Ends the run: its end time is the last activity the next start looks up from (lastActivityMs).
   * With `unstamped` (why the end time would mislead: records the store never took, a start stopped
   * before its check with the venue) the reason only, `unstamped` after it, and no end time: the
   * next start's window then begins from the last record the store did take, so the venue's trades
   * since (a crash's downtime before this run) are looked up.
   */
  endRun(reason: string, unstamped?: string): void {
    if (this.runId === null) return;
    if (unstamped === undefined) this.db.prepare(`UPDATE runs SET ended_ms = ?, end_reason = ? WHERE id = ?`).run(this.now(), reason, this.runId);
    else this.db.prepare(`UPDATE runs SET end_reason = ? WHERE id = ?`).run(`${reason} (${unstamped})`, this.runId);
  }

  orderChanged(o: TrackedOrder): void {
    const row = {
      client_id: o.clientId,
      order_id: o.orderId ?? null,
      run_id: this.runId,
      token_id: o.tokenId,
      market: o.market,
      side: o.side,
      price: formatPrice(o.price),
      size: formatSize(o.size),
      filled: formatSize(o.filled),
      state: o.state,
      error: o.error ?? null,
      created_ms: o.createdMs,
      updated_ms: o.updatedMs,
    };
    try {
      this.st.upsertOrder.run(row);
    } catch (e) {
      // the venue id is another stored row's: the same venue order, known now under this client id
      // (start-up adopted an order the store had settled as finished). The id goes to this row; the
      // failed write would otherwise block every record after it for good
      if (o.orderId === undefined || (e as { code?: string }).code !== 'SQLITE_CONSTRAINT_UNIQUE' || !String(e).includes('orders.order_id')) throw e;
      this.st.releaseOrderId.run(o.orderId, o.clientId);
      this.st.upsertOrder.run(row);
    }
  }

  /** Writes a fill once; returns false when it was already there. Positions and cash follow in the same transaction. */
  fill(f: Fill): boolean {
    return this.fillTx(f);
  }

  /** The fill write in one transaction, built once (better-sqlite3 wraps BEGIN/COMMIT around it). */
  private readonly fillTx: (f: Fill) => boolean;

  private writeFill(f: Fill): boolean {
    const r = this.st.insertFill.run({
      trade_id: f.tradeId,
      order_id: f.orderId,
      token_id: f.tokenId,
      market: f.market,
      side: f.side,
      price: formatPrice(f.price),
      size: formatSize(f.size),
      size_micros: f.sizeMicros ?? null,
      fee: new Decimal(f.fee).div(MICROS).toString(),
      liquidity: f.liquidity,
      status: f.status,
      time_ms: f.timeMs,
      recorded_ms: this.now(),
    });
    if (r.changes === 0) return false;
    this.written++;
    if (f.status !== 'FAILED') this.applyToPosition(f.tokenId, f.market, f.side, price(f.price), shares(f.size), new Decimal(f.fee).div(MICROS), 1);
    return true;
  }

  /** A fill's trade status moved; FAILED reverses it in positions and cash. */
  fillStatus(f: Fill): void {
    this.db.transaction(() => this.writeFillStatus(f))();
  }

  private writeFillStatus(f: Fill): void {
    const row = this.st.getFill.get(f.tradeId, f.orderId) as StoredFillTerms | undefined;
    if (!row) {
      this.writeFill(f);
      return;
    }
    if (row.status === f.status || row.status === 'FAILED') return;
    this.st.fillStatus.run(f.status, f.tradeId, f.orderId);
    if (f.status === 'FAILED') this.reverse(f.tokenId, f.market, row);
  }

  private applyToPosition(tokenId: string, market: string, side: Side, px: Decimal, size: Decimal, fee: Decimal, sign: 1 | -1): void {
    const row = this.st.position.get(tokenId) as { qty: string; cost: string; realized: string } | undefined;
    const basis = row ? basisOf(row) : emptyBasis();
    const acct = this.st.account.get() as { cash: string; fees: string };
    const notional = px.mul(size);
    const buy = (side === 'BUY') === (sign === 1);
    const cash = new Decimal(acct.cash).sub(fee.mul(sign)).add(buy ? notional.neg() : notional);
    const fees = new Decimal(acct.fees).add(fee.mul(sign));
    // the one average-cost fold, in integer units (a reversal is the opposite trade)
    foldFill(basis, buy ? 'BUY' : 'SELL', px.mul(PRICE_SCALE).toNumber(), size.mul(SIZE_SCALE).toNumber());
    const now = this.now();
    this.putBasis(tokenId, market, basis, now);
    this.st.putAccount.run(cash.toString(), fees.toString(), now);
  }

  private putBasis(tokenId: string, market: string, b: CostBasis, now: number): void {
    this.st.putPosition.run(tokenId, market, new Decimal(b.qty).div(SIZE_SCALE).toString(), new Decimal(b.cost).div(MICROS).toString(), new Decimal(b.realized).div(MICROS).toString(), now);
  }

  /**
   * A fill that FAILED: its token's position is rebuilt from the token's other fills (average cost
   * depends on their order), and its cash and fee are taken back from the account, exactly (the
   * stored decimals). Never a pass over every fill of every token: that held the loop for seconds
   * on a long history.
   */
  private reverse(tokenId: string, market: string, failed: StoredFillTerms): void {
    const rows = this.st.tokenFills.all(tokenId) as Array<{ side: Side; price: string; size: string; fee: string; status: string }>;
    const basis = emptyBasis();
    for (const r of rows) if (r.status !== 'FAILED') foldFill(basis, r.side, parsePrice(r.price), parseSize(r.size));
    const acct = this.st.account.get() as { cash: string; fees: string };
    const notional = new Decimal(failed.price).mul(failed.size);
    const cash = new Decimal(acct.cash).add(failed.fee).add(failed.side === 'BUY' ? notional : notional.neg());
    const fees = new Decimal(acct.fees).sub(failed.fee);
    const now = this.now();
    this.putBasis(tokenId, market, basis, now);
    this.st.putAccount.run(cash.toString(), fees.toString(), now);
  }

  positions(): PositionRow[] {
    const rows = this.db.prepare(`SELECT token_id, market, qty, cost, realized FROM positions ORDER BY token_id`).all() as Array<{
      token_id: string;
      market: string;
      qty: string;
      cost: string;
      realized: string;
    }>;
    return rows.map((r) => ({ tokenId: r.token_id, market: r.market, qty: r.qty, cost: r.cost, realized: r.realized }));
  }

  account(): { cash: string; fees: string } {
    return this.st.account.get() as { cash: string; fees: string };
  }

  /** Every fill, oldest first, in engine units. */
  fills(): Fill[] {
    return [...this.eachFill()];
  }

  /**
   * Every fill, oldest first, read row by row (start-up rebuilds positions from them without
   * holding a long history at once). Nothing may write to the store until the iteration ends.
   */
  *eachFill(): Generator<Fill> {
    for (const r of this.db.prepare(FILLS_IN_TIME_ORDER).iterate() as IterableIterator<FillRow>) yield fillOf(r);
  }

  fillCount(): number {
    return (this.db.prepare(`SELECT COUNT(*) AS n FROM fills`).get() as { n: number }).n;
  }

  /** The order with this venue id, `unseen` set as start-up sets it (filled beyond its stored fills); undefined when not stored (StoredHistory). */
  orderByVenueId(orderId: string): TrackedOrder | undefined {
    const row = this.db.prepare(`SELECT * FROM orders WHERE order_id = ?`).get(orderId) as OrderRow | undefined;
    if (!row) return undefined;
    const o = orderOf(row);
    // its fills by its token's index (fills has none by order)
    const fills = this.db.prepare(`SELECT size FROM fills WHERE token_id = ? AND order_id = ? AND status != 'FAILED'`).all(o.tokenId, orderId) as Array<{ size: string }>;
    let stored = 0;
    for (const f of fills) stored += parseSize(f.size);
    if (o.filled > stored) o.unseen = o.filled - stored;
    if (fills.length) o.pieces = fills.length;
    return o;
  }

  /** Whether this fill is stored (StoredHistory). */
  hasFill(tradeId: string, orderId: string): boolean {
    return this.st.getFill.get(tradeId, orderId) !== undefined;
  }

  /** Orders not in a terminal state (to resume tracking at startup). */
  openOrders(): TrackedOrder[] {
    return this.orderRows(`SELECT * FROM orders WHERE state IN (${OPEN_STATES})`);
  }

  /**
   * What start-up tracks: every order not finished, and the finished ones last changed since
   * `sinceMs` (a trade of theirs the store missed is still recognised as ours).
   */
  ordersToRestore(sinceMs: number): TrackedOrder[] {
    const rows = this.db.prepare(ORDERS_TO_RESTORE).all(sinceMs) as Array<OrderRow & { row_seq: number }>;
    // in row (first write) order, as the one scan this replaces gave them: the tracker's open and
    // unbound sets keep the order they are restored in
    rows.sort((a, b) => a.row_seq - b.row_seq);
    return rows.map(orderOf);
  }

  /**
   * Deletes up to `max` orders that ended without a fill (cancelled or rejected, nothing matched)
   * and last changed before `beforeMs`, oldest first; returns how many. Their rows are what a
   * running daemon mostly writes, and no fill refers to them. Every fill is kept.
   */
  pruneOrders(beforeMs: number, max: number): number {
    return this.st.pruneOrders.run(beforeMs, max).changes;
  }

  /** The PnL (micro-dollars) UTC day `day` (days since the epoch) began at, as the risk gate first saw it. */
  dayStartPnl(day: number): number | undefined {
    const r = this.st.dayStart.get(day) as { pnl: number } | undefined;
    return r?.pnl;
  }

  setDayStartPnl(day: number, pnlMicros: number): void {
    this.st.putDayStart.run(day, pnlMicros, this.now());
  }

  /** The account whose orders and fills the store holds (ClobProfile.account); undefined until one trades on it. */
  owner(): string | undefined {
    return this.meta('account');
  }

  setOwner(account: string): void {
    this.setMeta('account', account);
  }

  /** A store_meta value; undefined when never set. */
  private meta(key: string): string | undefined {
    const r = this.db.prepare(`SELECT value FROM store_meta WHERE key = ?`).get(key) as { value: string } | undefined;
    return r?.value;
  }

  private setMeta(key: string, value: string): void {
    this.db.prepare(`INSERT INTO store_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`).run(key, value);
  }

  /** The mark a held token kept when its market left the set (price units), for a restart. */
  keepMark(tokenId: string, mark: number): void {
    this.st.putMark.run(tokenId, mark, this.now());
  }

  /**
   * Keeps the held tokens' marks and forgets those of tokens gone flat, in one transaction (now and
   * then and at a stop): a restart values a holding outside its markets at its kept mark, and a
   * token bought again after it went flat starts at cost, not at the mark of the earlier holding.
   */
  keepMarks(marks: ReadonlyArray<readonly [string, number]>, flat: readonly string[] = []): void {
    if (marks.length === 0 && flat.length === 0) return;
    const now = this.now();
    this.db.transaction(() => {
      for (const [t, m] of marks) this.st.putMark.run(t, m, now);
      for (const t of flat) this.st.forgetMark.run(t);
    })();
  }

  /** Every kept mark, by token. */
  keptMarks(): Map<string, number> {
    const rows = this.db.prepare(`SELECT token_id, mark FROM last_marks`).all() as Array<{ token_id: string; mark: number }>;
    return new Map(rows.map((r) => [r.token_id, r.mark]));
  }

  /**
   * SQLite's plan of a query that must go through an index (tests): pruneOrders' search, eachFill's
   * read, start-up's ordersToRestore and lastActivityMs.
   */
  queryPlan(q: 'pruneOrders' | 'eachFill' | 'ordersToRestore' | 'lastActivityMs'): string {
    const [sql, params] = {
      pruneOrders: [PRUNABLE, [0, 1]],
      eachFill: [FILLS_IN_TIME_ORDER, []],
      ordersToRestore: [ORDERS_TO_RESTORE, [0]],
      lastActivityMs: [LAST_ACTIVITY, [0]],
    }[q] as [string, number[]];
    const rows = this.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>;
    return rows.map((r) => r.detail).join('; ');
  }

  /**
   * Whence start-up looks for trades, less its margin (recoveryStart): the time up to which the
   * venue's trades are known read (tradesReadThrough), else, in a store from before that was kept,
   * the last thing an earlier run stored. A run's own writes (a cancel-all's order changes) do not
   * move it past trades nobody read.
   */
  recoveryAnchorMs(): number | undefined {
    return this.tradesReadThrough() ?? this.lastActivityMs();
  }

  /** Up to when the venue's trades have been read and their fills stored (a look-up that went through); undefined when never noted. */
  tradesReadThrough(): number | undefined {
    const r = this.meta('trades_read_through');
    const v = r === undefined ? NaN : Number(r);
    return Number.isFinite(v) ? v : undefined;
  }

  /** Notes the venue's trades read up to `ms` (only ever forward). */
  setTradesReadThrough(ms: number): void {
    if (!Number.isFinite(ms) || ms <= (this.tradesReadThrough() ?? -Infinity)) return;
    this.setMeta('trades_read_through', String(Math.floor(ms)));
  }

  /** The last thing an earlier run stored (an order change, a fill, a run's end); undefined when nothing. */
  lastActivityMs(): number | undefined {
    const r = this.db.prepare(LAST_ACTIVITY).get(this.runId ?? Number.MAX_SAFE_INTEGER) as { t: number | null };
    return r.t ?? undefined;
  }

  private orderRows(sql: string, ...params: unknown[]): TrackedOrder[] {
    return (this.db.prepare(sql).all(...params) as OrderRow[]).map(orderOf);
  }

  snapshotPnl(kind: string, holdingsMicros: number, fills: number): PnlSnapshot {
    const a = this.account();
    const holdings = new Decimal(holdingsMicros).div(MICROS);
    const snap: PnlSnapshot = {
      kind,
      timeMs: this.now(),
      cash: a.cash,
      holdings: holdings.toString(),
      pnl: new Decimal(a.cash).add(holdings).toString(),
      fees: a.fees,
      fills,
    };
    this.db
      .prepare(`INSERT INTO pnl_snapshots (run_id, time_ms, kind, cash, holdings, pnl, fees, fills) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(this.runId, snap.timeMs, kind, snap.cash, snap.holdings, snap.pnl, snap.fees, fills);
    return snap;
  }

  /** Flushes the WAL into the database file and closes. */
  close(): void {
    try {
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    } catch (err) {
      this.log.warn({ err }, 'store: checkpoint failed');
    }
    this.db.close();
  }
}
