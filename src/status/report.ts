// What the status server reports, computed from the running daemon on each request: /health's
// verdict and /status's JSON (the metrics are in metrics.ts and families.ts).
import { formatPrice, formatSize } from '../core/units.js';
import { microsToDollars } from '../core/units.js';
import type { StatusSource } from './source.js';
import { ACTIONABLE, bookFreshness } from '../engine/risk.js';
import type { DenseBook } from '../book/book.js';
import { LIVE_DEPTH_MAX, liveSection } from './live-view.js';
import { logWriteErrors } from '../core/log.js';
import type { Limiter, ScopeUsage } from '../api/limiter.js';

export interface Health {
  ok: boolean;
  reasons: string[];
}

/** A risk block this recent counts (a blocked quote is asked again at least once a second). */
const HELD_RECENT_MS = 10_000;
/** A reference price older than this many feed.quietMs (the stream's own data watchdog) is a reason. */
const PRICE_QUIET_FACTOR = 10;
/** Risk blocks whose cause /health names on its own (a feed, a book, a halt). */
const NAMED_ELSEWHERE: ReadonlySet<string> = new Set(['feed_not_live', 'book_out_of_sync', 'book_stale', 'halted']);

/** How long the look-up after a user-channel gap may take before /health counts it (it is retried every 2 s). */
export const CATCH_UP_GRACE_MS = 5000;

export function health(d: StatusSource): Health {
  const reasons: string[] = [];
  const conns = d.feed.marketStates();
  const notLive = conns.filter((s) => s !== 'live').length;
  if (d.feedStates.market !== 'live') reasons.push(`market feed ${d.feedStates.market}${conns.length > 1 ? ` (${notLive} of ${conns.length} connections not live)` : ''}`);
  if (d.feedStates.user !== undefined && d.feedStates.user !== 'live') reasons.push(`user feed ${d.feedStates.user}`);
  const prices = d.feedStates.prices;
  if (prices !== undefined && prices !== 'live') reasons.push(`price stream ${prices}: strategies read the last price it gave (referencePrices' ageMs on /status)`);
  const now = d.clock.now();
  if (prices === 'live' && d.engine) {
    // the stream is one socket for every symbol: one symbol can stop while the others flow
    const quietMs = Math.max(1000, PRICE_QUIET_FACTOR * d.config.feed.quietMs);
    for (const sym of d.config.feed.priceSymbols) {
      const p = d.engine.referencePrices.get(sym, now);
      const stale = p ? p.ageMs > quietMs : now - d.startedMs > quietMs;
      if (stale) reasons.push(`price ${sym.toLowerCase()} ${p ? `not updated for ${Math.round(p.ageMs / 1000)} s` : 'never received'}: strategies read it as it is`);
    }
  }
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
  // start-up's check with the venue (up to daemon.startupTimeoutMs), or a stop: the feeds may be good, nothing quotes
  const life = d.engine?.notRunning;
  if (life === 'stopping') reasons.push('stopping: cancelling our orders');
  else if (life !== undefined) reasons.push('not quoting yet: start-up is checking our orders and trades with the venue');
  // the user channel is live again but nothing is quoted until the look-up of its gap succeeds: a
  // look-up is a round trip, so only one that keeps failing is a reason
  const since = d.catchingUpSinceMs;
  if (since !== undefined && now - since >= CATCH_UP_GRACE_MS) {
    reasons.push(`user channel back ${Math.round((now - since) / 1000)} s ago: the look-up of what the venue did while it was away has not succeeded; quoting nothing`);
  }
  // a market quoting nothing for a cause of its own, not the feed's or the venue's
  for (const m of d.markets) {
    const st = d.engine?.markets.get(m.conditionId);
    if (st?.suspended) reasons.push(`market ${m.conditionId} ${st.suspended}`);
    const se = st?.strategyError;
    if (se) reasons.push(`strategy failing on market ${m.conditionId} (${se.failures} calls since ${new Date(se.sinceMs).toISOString()}): ${se.message}`);
    else if (st?.quotesInvalid) reasons.push(`strategy quoting nothing valid on market ${m.conditionId}: ${st.quotesInvalid}`);
  }
  // nothing of ours rests, no place passed the risk gate and it held quotes back lately, for causes
  // other than those named above (collateral, a limit below one order): every market "quoting",
  // none of them at the venue
  const e = d.engine;
  if (e && e.orders.openCount() === 0 && !(now - e.risk.passedAtMs <= HELD_RECENT_MS)) {
    const held: string[] = [];
    for (const [reason, at] of e.risk.blockedAtMs) if (now - at <= HELD_RECENT_MS && !NAMED_ELSEWHERE.has(reason)) held.push(reason);
    if (held.length) {
      const act = held.map((r) => ACTIONABLE.get(r)).filter((x) => x !== undefined);
      reasons.push(`nothing rests: every quote held back by the risk gate (${held.join(', ')})${act.length ? `: ${act.join('; ')}` : ''}`);
    }
  }
  const unwritten = d.journal?.pending().length ?? 0;
  if (unwritten) reasons.push(`store: ${unwritten} records unwritten`);
  const unconfirmed = d.engine?.unconfirmedCancels() ?? [];
  if (unconfirmed.length) reasons.push(`cancels not confirmed by the venue: ${unconfirmed.join(',')}`);
  const heartbeat = d.heartbeats?.failing();
  if (heartbeat) reasons.push(heartbeat);
  // the operator is blind while the log cannot be written (a minute after the last failed write)
  if (logWriteErrors.count > 0 && Date.now() - logWriteErrors.atMs < 60_000) reasons.push(`log lines dropped: ${logWriteErrors.count} writes to stdout failed (${logWriteErrors.last})`);
  return { ok: reasons.length === 0, reasons };
}

const px = (p: number) => (p >= 0 ? formatPrice(p) : null);
const inSyncShare = (inMs: number, totalMs: number): number => (totalMs > 0 ? Math.round((inMs / totalMs) * 10_000) / 10_000 : 0);

export interface StatusOptions {
  /** Counts instead of the per-market, per-token, per-order and per-position lists (cheap at 1,000 markets). */
  brief?: boolean;
  /** Starts a new event-loop lag interval after reading this one (process.loop). */
  resetLoop?: boolean;
  /** The live page's section (`live`): this many book levels per side (0 or undefined: none). */
  liveDepth?: number;
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
    // what BUYs may promise: the balance as last read, what is left of it, what open BUYs promise (null: not capped)
    collateral:
      e.collateral.lastRead() === undefined
        ? null
        : { balance: microsToDollars(e.collateral.lastRead() as number), available: microsToDollars(e.collateral.available()), openBuys: microsToDollars(e.orders.openBuyCost()) },
    fills: r.fills,
    orders: r.scheduler,
    riskBlocks: r.riskBlocks,
    bookResync: { ...d.feed.resync.stats, inFlight: d.feed.resync.inFlight() },
    // the venue's per-signer tier as last named (Standard until then); null where the venue has no such buckets
    signerTier: d.clients.limiter.signerTier ?? null,
    rateLimits: rateLimitsOf(d.clients.limiter),
  };
  const live = opts.liveDepth ? { live: liveSection(d, d.metrics?.history, Math.min(LIVE_DEPTH_MAX, opts.liveDepth)) } : {};
  if (opts.brief) {
    const q = quoteCounts(d);
    let positions = 0;
    for (const [, p] of e.positions.entries()) if (p.qty !== 0) positions++;
    const counts = { markets: d.markets.length, marketsQuoting: q.quoting, marketsQuotingBothSides: q.bothSides, openOrders: r.openOrders, positions };
    return { ...head, counts, ...tail, ...live };
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
  return { ...head, markets, tokens, openOrders: orders, referencePrices, positions, ...rest, ...live };
}

/**
 * The limiter's scopes worth showing, pausedUntil as epoch ms: the limiter's clock has the system
 * clock's steps taken out, so its instants are off Date.now() by every step since start.
 */
function rateLimitsOf(limiter: Limiter): ScopeUsage[] {
  const toEpoch = Date.now() - limiter.clock.now();
  return limiter
    .usage()
    .filter((u) => u.used > 0 || u.scope.startsWith('clob:POST /orders') || u.scope.startsWith('clob:DELETE /orders') || u.scope.startsWith('signer:'))
    .map((u) => (u.pausedUntil > 0 ? { ...u, pausedUntil: Math.round(u.pausedUntil + toEpoch) } : u));
}
