// What the status server reports, computed from the running daemon on each request.
import { formatPrice, formatSize } from '../core/units.js';
import { microsToDollars } from '../core/units.js';
import type { StatusSource } from './source.js';
import { bookFreshness } from '../engine/risk.js';
import type { DenseBook } from '../book/book.js';

export interface Health {
  ok: boolean;
  reasons: string[];
}

export function health(d: StatusSource): Health {
  const reasons: string[] = [];
  const conns = d.feed.marketStates();
  const notLive = conns.filter((s) => s !== 'live').length;
  if (d.feedStates.market !== 'live') reasons.push(`market feed ${d.feedStates.market}${conns.length > 1 ? ` (${notLive} of ${conns.length} connections not live)` : ''}`);
  if (d.feedStates.user !== undefined && d.feedStates.user !== 'live') reasons.push(`user feed ${d.feedStates.user}`);
  const now = d.clock.now();
  const staleMs = d.config.risk.staleBookMs;
  for (const m of d.markets) {
    for (const t of [m.tokenId, m.complementId]) {
      const b = d.feed.book(t);
      const f = bookFreshness(b, now, staleMs);
      if (f === 'out_of_sync') reasons.push(`book ${t} not in sync`);
      else if (f === 'stale') reasons.push(`book ${t} stale (${now - (b as DenseBook).updatedAt()} ms without an update)`);
    }
  }
  if (d.engine?.risk.halted) reasons.push(`halted: ${d.engine.risk.halted}`);
  const unwritten = d.journal?.pending().length ?? 0;
  if (unwritten) reasons.push(`store: ${unwritten} records unwritten`);
  const unconfirmed = d.engine?.unconfirmedCancels() ?? [];
  if (unconfirmed.length) reasons.push(`cancels not confirmed by the venue: ${unconfirmed.join(',')}`);
  const heartbeat = d.heartbeats?.failing();
  if (heartbeat) reasons.push(heartbeat);
  return { ok: reasons.length === 0, reasons };
}

const px = (p: number) => (p >= 0 ? formatPrice(p) : null);
const inSyncShare = (inMs: number, totalMs: number): number => (totalMs > 0 ? Math.round((inMs / totalMs) * 10_000) / 10_000 : 0);

export interface StatusOptions {
  /** Counts instead of the per-market, per-token, per-order and per-position lists (cheap at 1,000 markets). */
  brief?: boolean;
  /** Starts a new event-loop lag interval after reading this one (process.loop). */
  resetLoop?: boolean;
}

/** Markets not blocked, and markets with a resting bid and a resting ask (in the first token's terms). */
function quoteCounts(d: StatusSource): { quoting: number; bothSides: number } {
  const e = d.engine;
  let quoting = 0;
  for (const m of d.markets) {
    const st = e.markets.get(m.conditionId);
    if (st !== undefined && st.blocked === undefined) quoting++;
  }
  // bit 1: a bid (BUY first token or SELL complement), bit 2: an ask (SELL first token or BUY complement)
  const sides = new Map<string, number>();
  const tokenOf = new Map<string, { market: string; first: boolean }>();
  for (const m of d.markets) {
    tokenOf.set(m.tokenId, { market: m.conditionId, first: true });
    tokenOf.set(m.complementId, { market: m.conditionId, first: false });
  }
  for (const o of e.orders.open()) {
    if (o.state !== 'live' && o.state !== 'partially_filled') continue;
    const t = tokenOf.get(o.tokenId);
    if (!t) continue;
    const bit = (o.side === 'BUY') === t.first ? 1 : 2;
    sides.set(t.market, (sides.get(t.market) ?? 0) | bit);
  }
  let bothSides = 0;
  for (const v of sides.values()) if (v === 3) bothSides++;
  return { quoting, bothSides };
}

export function statusJson(d: StatusSource, opts: StatusOptions = {}): Record<string, unknown> {
  const e = d.engine;
  const now = d.clock.now();
  const r = e.results();
  const fc = d.feed.counters();
  const mem = process.memoryUsage();
  const head = {
    mode: d.mode,
    uptimeSec: Math.round((Date.now() - d.startedMs) / 1000),
    quoting: e.isQuoting,
    haltReason: e.risk.halted ?? null,
    feeds: {
      ...d.feedStates,
      marketConnections: d.feed.marketStates(),
      reconnects: { market: fc.market_ws_reconnects ?? 0, user: fc.user_ws_reconnects ?? 0 },
      frames: { market: fc.market_ws_frames ?? 0, user: fc.user_ws_frames ?? 0 },
    },
    process: {
      rssMb: Math.round(mem.rss / 2 ** 20),
      heapUsedMb: Math.round(mem.heapUsed / 2 ** 20),
      loop: d.loopDelay?.read(opts.resetLoop) ?? null,
    },
    health: health(d),
  };
  const tail = {
    referencePrices: d.config.feed.priceSymbols.map((sym) => e.referencePrices.get(sym, now) ?? { symbol: sym, value: null }),
    pnl: { cash: microsToDollars(r.cashMicros), pnl: microsToDollars(r.pnlMicros), fees: microsToDollars(r.feesMicros), volume: microsToDollars(r.volumeMicros) },
    fills: r.fills,
    orders: r.scheduler,
    riskBlocks: r.riskBlocks,
    bookResync: { ...d.feed.resync.stats, inFlight: d.feed.resync.inFlight() },
    rateLimits: d.clients.limiter.usage().filter((u) => u.used > 0 || u.scope.startsWith('clob:POST /orders') || u.scope.startsWith('clob:DELETE /orders')),
  };
  if (opts.brief) {
    const q = quoteCounts(d);
    let positions = 0;
    for (const [, p] of e.positions.entries()) if (p.qty !== 0) positions++;
    const counts = { markets: d.markets.length, marketsQuoting: q.quoting, marketsQuotingBothSides: q.bothSides, openOrders: r.openOrders, positions };
    return { ...head, counts, ...tail };
  }
  const tokens = [];
  for (const m of d.markets) {
    for (const t of [m.tokenId, m.complementId]) {
      const b = d.feed.book(t);
      const sync = d.feed.mirror.syncInfo(t);
      tokens.push({
        tokenId: t,
        market: m.conditionId,
        bestBid: b ? px(b.bestBid()) : null,
        bestAsk: b ? px(b.bestAsk()) : null,
        bookAgeMs: b && b.updatedAt() > 0 ? now - b.updatedAt() : null,
        inSync: b ? b.inSync() : false,
        // why and since when; the share of time in sync since the token was first seen
        syncReason: sync?.reason ?? null,
        syncSince: sync ? new Date(sync.sinceMs).toISOString() : null,
        inSyncShare: sync ? inSyncShare(sync.inSyncMs, now - sync.firstSeenMs) : null,
        outOfSyncEpisodes: sync?.episodes ?? 0,
        lastOutOfSync: sync?.last ?? null,
      });
    }
  }
  // per market: quoting, or why not (book out of sync, stale, halted, tick in doubt, ...)
  const markets = [];
  for (const m of d.markets) {
    const st = e.markets.get(m.conditionId);
    markets.push({ conditionId: m.conditionId, quoting: st !== undefined && st.blocked === undefined, notQuoting: st ? (st.blocked ?? null) : 'unknown market' });
  }
  const orders = [];
  for (const o of e.orders.open()) {
    orders.push({
      clientId: o.clientId,
      orderId: o.orderId ?? null,
      tokenId: o.tokenId,
      side: o.side,
      price: formatPrice(o.price),
      size: formatSize(o.size),
      filled: formatSize(o.filled),
      state: o.state,
    });
  }
  const positions = [];
  for (const [tokenId, p] of e.positions.entries()) {
    positions.push({ tokenId, qty: formatSize(p.qty), avgPrice: p.qty > 0 ? +(p.cost / p.qty / 10_000).toFixed(6) : null, realized: microsToDollars(p.realized) });
  }
  const { referencePrices, ...rest } = tail;
  return { ...head, markets, tokens, openOrders: orders, referencePrices, positions, ...rest };
}

function esc(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

export function metricsText(d: StatusSource): string {
  const lines: string[] = [];
  const g = (name: string, help: string, type: 'gauge' | 'counter', samples: Array<[Record<string, string>, number]>) => {
    lines.push(`# HELP makerd_${name} ${help}`, `# TYPE makerd_${name} ${type}`);
    for (const [labels, v] of samples) {
      const l = Object.entries(labels)
        .map(([k, x]) => `${k}="${esc(x)}"`)
        .join(',');
      lines.push(`makerd_${name}${l ? `{${l}}` : ''} ${Number.isFinite(v) ? v : 0}`);
    }
  };
  const e = d.engine;
  const r = e.results();
  const h = health(d);
  g('up', 'Health: 1 when feeds are live and books in sync.', 'gauge', [[{}, h.ok ? 1 : 0]]);
  g('quoting', '1 while quoting.', 'gauge', [[{}, e.isQuoting ? 1 : 0]]);
  g('halted', '1 after a kill switch or breaker halt.', 'gauge', [[{}, e.risk.halted ? 1 : 0]]);
  g('open_orders', 'Orders not in a terminal state.', 'gauge', [[{}, r.openOrders]]);
  g('fills_total', 'Fills recorded.', 'counter', [[{}, r.fills]]);
  g('pnl_dollars', 'Cash plus holdings at mid.', 'gauge', [[{}, microsToDollars(r.pnlMicros)]]);
  g('fees_dollars', 'Fees paid.', 'counter', [[{}, microsToDollars(r.feesMicros)]]);
  const s = r.scheduler;
  g('orders_sent_total', 'Orders sent.', 'counter', [[{}, s.ordersSent]]);
  g('cancels_sent_total', 'Cancels sent.', 'counter', [[{}, s.cancelsSent]]);
  g('requests_total', 'Order requests by endpoint.', 'counter', [
    [{ endpoint: 'POST /orders' }, s.placeBatches],
    [{ endpoint: 'POST /order' }, s.placeSingles],
    [{ endpoint: 'DELETE /orders' }, s.cancelBatches],
    [{ endpoint: 'DELETE /order' }, s.cancelSingles],
    [{ endpoint: 'DELETE /cancel-all' }, s.cancelAlls],
  ]);
  g('coalesced_total', 'Unsent intents replaced by newer ones.', 'counter', [
    [{ kind: 'place' }, s.coalescedPlaces],
    [{ kind: 'cancel' }, s.coalescedCancels],
  ]);
  g(
    'risk_blocks_total',
    'Orders or tokens blocked by the risk gate, by reason.',
    'counter',
    Object.entries(r.riskBlocks).map(([reason, n]) => [{ reason }, n]),
  );
  const usage = d.clients.limiter.usage();
  g(
    'rate_limit_used',
    'Requests in the current sliding window, per scope.',
    'gauge',
    usage.map((u) => [{ scope: u.scope }, u.used]),
  );
  g(
    'rate_limit_limit',
    'Window limit, per scope.',
    'gauge',
    usage.map((u) => [{ scope: u.scope }, u.limit]),
  );
  g('engine_events_total', 'Events handled by the engine.', 'counter', [
    [{ kind: 'market' }, e.counters.marketEvents],
    [{ kind: 'user' }, e.counters.userEvents],
  ]);
  g('engine_requotes_total', 'Strategy evaluations.', 'counter', [[{}, e.counters.requotes]]);
  g('engine_errors_total', 'Errors caught in the engine loop.', 'counter', [[{}, e.counters.errors]]);
  g('engine_bad_trades_total', 'Trades naming our orders that failed the fill checks (not taken as fills).', 'counter', [[{}, e.counters.badTrades]]);
  g('engine_tick_rejects_total', 'Orders refused off the tick grid (INVALID_ORDER_MIN_TICK_SIZE), the tick refreshes they started, and refreshes that timed out.', 'counter', [
    [{ kind: 'rejected' }, e.counters.tickRejects],
    [{ kind: 'refresh' }, e.counters.tickRefreshes],
    [{ kind: 'timeout' }, e.counters.tickRefreshTimeouts],
  ]);
  const now = d.clock.now();
  const ages: Array<[Record<string, string>, number]> = [];
  const sync: Array<[Record<string, string>, number]> = [];
  const share: Array<[Record<string, string>, number]> = [];
  const checks: Array<[Record<string, string>, number]> = [];
  for (const m of d.markets) {
    for (const t of [m.tokenId, m.complementId]) {
      const b = d.feed.book(t);
      ages.push([{ token: t }, b && b.updatedAt() > 0 ? (now - b.updatedAt()) / 1000 : -1]);
      sync.push([{ token: t }, b && b.inSync() ? 1 : 0]);
      const si = d.feed.mirror.syncInfo(t);
      if (si) share.push([{ token: t }, inSyncShare(si.inSyncMs, now - si.firstSeenMs)]);
      const st = d.feed.mirror.stats(t);
      if (st)
        checks.push(
          [{ token: t, result: 'verified' }, st.hashesVerified],
          [{ token: t, result: 'ltp_recovered' }, st.ltpRecovered],
          [{ token: t, result: 'mismatch' }, st.mismatches + st.bestMismatches],
        );
    }
  }
  g('book_age_seconds', 'Time since the last book update, per token.', 'gauge', ages);
  g('book_in_sync', '1 when the book is verified in sync, per token.', 'gauge', sync);
  g('book_in_sync_ratio', 'Share of time the book was in sync since the token was first seen.', 'gauge', share);
  g('book_hash_checks_total', 'Book hash checks by result (ltp_recovered: passed once the hashed last trade price was recovered).', 'counter', checks);
  g(
    'book_out_of_sync_total',
    'Out-of-sync episodes, by reason.',
    'counter',
    [...d.feed.outOfSync].map(([reason, n]) => [{ reason }, n]),
  );
  const rs = d.feed.resync.stats;
  g('book_resync_attempts_total', 'Resync attempts, by method.', 'counter', [
    [{ method: 'resubscribe' }, rs.attempts.resubscribe],
    [{ method: 'rest' }, rs.attempts.rest],
  ]);
  g('book_resync_timeouts_total', 'Resync attempts without a verified book by the deadline.', 'counter', [[{}, rs.timeouts]]);
  g('book_resync_completed_total', 'Out-of-sync episodes that ended with a verified book.', 'counter', [[{}, rs.completed]]);
  g('book_resync_seconds_max', 'Longest time from a resync request to a verified book.', 'gauge', [[{}, rs.maxMs / 1000]]);
  g('book_resync_seconds_last', 'Time from the last resync request to a verified book.', 'gauge', [[{}, rs.lastMs / 1000]]);
  const fc = d.feed.counters();
  g(
    'feed',
    'Feed decoder and connection counters.',
    'counter',
    Object.entries(fc).map(([k, v]) => [{ counter: k }, v]),
  );
  return lines.join('\n') + '\n';
}
