// The metric families read from the running daemon at each scrape: health, quoting and halts,
// money and positions, the book and our quotes against its top, orders, rate limits, the feed.
// A series whose value is not a finite number is left out (no -1 or NaN sentinels).
import type { Registry } from 'prom-client';
import { SIZE_SCALE } from '../core/units.js';
import { microsToDollars } from '../core/units.js';
import { health } from './report.js';
import { logWriteErrors } from '../core/log.js';
import type { StatusSource } from './source.js';
import { nextTurn } from '../core/clock.js';
import { EXPOSITION_SLICE } from './exposition.js';
import { scrapeFamily, type Labels, type Read, type Sample } from './scrape-family.js';
import { marketPnl, marketQuotes, price, tokenViews, type MarketQuote, type TokenView } from './views.js';

/** Halt reasons as a state set: one series per kind, 1 for the one in force. */
export const HALT_KINDS: ReadonlyArray<[string, RegExp]> = [
  ['daily_loss', /^daily loss/],
  ['error_rate', /^order error rate/],
  ['pnl_not_finite', /^PnL is not/],
  ['store_write', /^store write failed/],
  ['other', /./],
];

/** Registers the families; the returned function starts a scrape (the tokens are read afresh). */
export function registerFamilies(reg: Registry, d: StatusSource): () => void {
  const gauge = (name: string, help: string, labelNames: string[], read: Read) => scrapeFamily(reg, 'gauge', name, help, labelNames, read);
  const counter = (name: string, help: string, labelNames: string[], read: Read) => scrapeFamily(reg, 'counter', name, help, labelNames, read);
  const one = (v: number | boolean): Sample[] => [[{}, Number(v)]];
  // one reading of the tokens per scrape, EXPOSITION_SLICE / 2 markets a turn: the families of a scrape share it
  let cached: Promise<TokenView[]> | undefined;
  const readViews = async (): Promise<TokenView[]> => {
    const ms = d.markets;
    const out: TokenView[] = [];
    const step = EXPOSITION_SLICE / 2;
    for (let i = 0; i < ms.length; i += step) {
      if (i > 0) await nextTurn();
      for (const v of tokenViews(d, ms.slice(i, i + step))) out.push(v);
    }
    return out;
  };
  const views = (): Promise<TokenView[]> => (cached ??= readViews());
  const perToken = (f: (v: TokenView) => Iterable<Sample>) => async () => (await views()).flatMap((v) => [...f(v)]);
  const at = (v: TokenView, extra: Labels = {}): Labels => ({ market: v.market, token: v.token, ...extra });

  // what the series are of: a paper run's PnL must not pass for live on a dashboard or in an alert
  gauge('info', 'Always 1; its labels say what runs: mode (live or paper) and the venue profile.', ['mode', 'profile'], () => [[{ mode: d.mode, profile: d.config.venue.profile }, 1]]);
  gauge('healthy', '1 when GET /health is 200: feeds live, books in sync and fresh, not halted, store and cancels settled.', [], () => one(health(d).ok));
  gauge('quoting', '1 while quoting: started, not stopping or halted, and at least one market not blocked (0 while quotes are pulled).', [], () => {
    const e = d.engine;
    return one(e.isQuoting && [...e.markets.values()].some((st) => st.blocked === undefined));
  });
  gauge('market_quoting', '1 while the market quotes, 0 while its quotes are pulled (status.markets[].notQuoting says why).', ['market'], () =>
    d.markets.map((m) => [{ market: m.conditionId }, Number(d.engine.markets.get(m.conditionId)?.blocked === undefined)]),
  );
  gauge('halted', 'The halt in force by reason (a state set: 1 for the reason in force, 0 for the others; all 0 while not halted).', ['reason'], () => {
    const why = d.engine.risk.halted;
    const kind = why === undefined ? undefined : HALT_KINDS.find(([, re]) => re.test(why))?.[0];
    return HALT_KINDS.map(([k]) => [{ reason: k }, Number(k === kind)]);
  });
  gauge('feed_live', '1 while the channel is live (data flowing), per channel.', ['channel'], () => {
    const s = d.feedStates;
    return [
      [{ channel: 'market' }, Number(s.market === 'live')],
      ...(s.user === undefined ? [] : [[{ channel: 'user' }, Number(s.user === 'live')] as const]),
      ...(s.prices === undefined ? [] : [[{ channel: 'prices' }, Number(s.prices === 'live')] as const]),
    ];
  });
  gauge('clock_skew_seconds', "Our clock minus the venue's (GET /time) at the last read, seconds (live, polymarket profile; absent before the first read): signed requests carry our time.", [], () =>
    d.clockSkewMs === undefined ? [] : one(d.clockSkewMs / 1000),
  );
  gauge('cancels_unconfirmed', 'Orders whose cancel the venue has not confirmed (no market places until a cancel-all lands).', [], () => one(d.engine.unconfirmedCancels().length));
  gauge('store_unwritten_records', 'Records the store has not taken yet (a failed write halts quoting).', [], () => one(d.journal?.pending().length ?? 0));

  // money and positions
  const r = () => d.engine.results();
  gauge('pnl_dollars', 'PnL over every fill the store holds (a restart goes on from there, not from 0): cash plus holdings at mid, fees included.', [], () => one(microsToDollars(r().pnlMicros)));
  gauge('cash_dollars', 'Cash change over every fill the store holds (sells add, buys and fees subtract).', [], () => one(microsToDollars(r().cashMicros)));
  gauge('collateral_dollars', 'Our collateral balance as last read (polymarket, or the simulated venue given sim.cashUsd; absent before the first read): what open BUYs may cost together.', [], () => {
    const b = d.engine.collateral.lastRead();
    return b === undefined ? [] : one(microsToDollars(b));
  });
  counter('collateral_reads', 'Reads of our collateral balance: answered (ok) or failed (the cap stays at the last figure).', ['result'], () => [
    [{ result: 'ok' }, d.engine.collateral.reads],
    [{ result: 'failed' }, d.engine.collateral.readFailures],
  ]);
  gauge('fees_dollars', 'Fees paid over every fill the store holds (falls when a fill is reversed).', [], () => one(microsToDollars(r().feesMicros)));
  gauge('volume_dollars', 'Notional traded over every fill the store holds (falls when a fill is reversed).', [], () => one(microsToDollars(r().volumeMicros)));
  gauge('market_pnl_dollars', "A market's PnL before fees: its tokens' realized plus unrealized at mid.", ['market'], async () =>
    [...marketPnl(await views())].map(([market, v]) => [{ market }, microsToDollars(v)]),
  );
  gauge(
    'position_shares',
    'Shares held, per token.',
    ['market', 'token'],
    perToken((v) => [[at(v), v.qty / SIZE_SCALE]]),
  );
  gauge(
    'position_value_dollars',
    'Holding at mid (at cost without a book), per token.',
    ['market', 'token'],
    perToken((v) => [[at(v), microsToDollars(v.valueMicros)]]),
  );
  gauge('net_exposure_shares', "Net exposure per market in its first token's shares: first token held minus complement held.", ['market'], () => {
    const out = new Map<string, number>();
    for (const m of d.markets) out.set(m.conditionId, (d.engine.positions.qty(m.tokenId) - d.engine.positions.qty(m.complementId)) / SIZE_SCALE);
    return [...out].map(([market, v]) => [{ market }, v]);
  });

  // the book and our quotes against its top (prices in dollars per share)
  gauge(
    'book_mid',
    'Mid of the best bid and ask, per token (absent with an empty side).',
    ['market', 'token'],
    perToken((v) => [[at(v), price(v.mid)]]),
  );
  gauge(
    'book_spread',
    'Best ask minus best bid, per token (absent with an empty side).',
    ['market', 'token'],
    perToken((v) => [[at(v), price(v.spread)]]),
  );
  gauge(
    'book_best_price',
    'Best price per token and side (bid, ask).',
    ['market', 'token', 'side'],
    perToken((v) => sides(v, v.bestBid, v.bestAsk)),
  );
  gauge('quote_price', "Our best resting price per market and side, in the first token's terms (an ask is a SELL of it or a BUY of the complement).", ['market', 'side'], () =>
    marketQuotes(d).flatMap((q) => quoteSides(q, q.ourBid, q.ourAsk)),
  );
  gauge('quote_distance_from_top', "How far our best quote is behind the top of its side, per market in the first token's terms, in dollars per share (0: at the top).", ['market', 'side'], () =>
    marketQuotes(d).flatMap((q) => quoteSides(q, q.ourBid >= 0 && q.bestBid >= 0 ? Math.max(0, q.bestBid - q.ourBid) : -1, q.ourAsk >= 0 && q.bestAsk >= 0 ? Math.max(0, q.ourAsk - q.bestAsk) : -1)),
  );
  gauge('book_age_seconds', 'Time since the last book update, per token (absent before the first book).', ['market', 'token'], async () => {
    const vs = await views();
    const now = d.clock.now();
    return vs.filter((v) => v.book && v.book.updatedAt() > 0).map((v) => [at(v), (now - (v.book as { updatedAt(): number }).updatedAt()) / 1000]);
  });
  gauge(
    'book_in_sync',
    '1 when the book is verified in sync, per token.',
    ['market', 'token'],
    perToken((v) => [[at(v), Number(v.book?.inSync() ?? false)]]),
  );
  gauge('book_in_sync_ratio', 'Share of time the book was in sync since the token was first seen.', ['market', 'token'], async () => {
    const vs = await views();
    const now = d.clock.now();
    return vs.flatMap((v) => {
      const si = d.feed.mirror.syncInfo(v.token);
      return si && now > si.firstSeenMs ? [[at(v), si.inSyncMs / (now - si.firstSeenMs)] as const] : [];
    });
  });
  counter('book_hash_checks', 'Book hash checks by result (ltp_recovered: passed once the hashed last trade price was recovered).', ['market', 'token', 'result'], async () =>
    (await views()).flatMap((v) => {
      const st = d.feed.mirror.stats(v.token);
      if (!st) return [];
      return [
        [at(v, { result: 'verified' }), st.hashesVerified],
        [at(v, { result: 'ltp_recovered' }), st.ltpRecovered],
        [at(v, { result: 'mismatch' }), st.mismatches + st.bestMismatches],
      ] as const;
    }),
  );
  counter('book_out_of_sync', 'Out-of-sync episodes, by reason.', ['reason'], () => [...d.feed.outOfSync].map(([reason, n]) => [{ reason }, n]));
  const rs = () => d.feed.resync.stats;
  counter('book_resync_attempts', 'Resync attempts, by method.', ['method'], () => Object.entries(rs().attempts).map(([method, n]) => [{ method }, n]));
  counter('book_resync_timeouts', 'Resync attempts without a verified book by the deadline.', [], () => one(rs().timeouts));
  counter('book_resync_completed', 'Out-of-sync episodes that ended with a verified book.', [], () => one(rs().completed));
  gauge('book_resync_max_seconds', 'Longest time from a resync request to a verified book.', [], () => one(rs().maxMs / 1000));
  gauge('book_resync_last_seconds', 'Time from the last resync request to a verified book.', [], () => one(rs().lastMs / 1000));

  // orders and the engine
  const s = () => d.engine.scheduler.stats;
  gauge('open_orders', 'Orders not in a terminal state, per market.', ['market'], () => {
    const marketOf = new Map<string, string>();
    for (const m of d.markets) for (const t of [m.tokenId, m.complementId]) marketOf.set(t, m.conditionId);
    const n = new Map<string, number>(d.markets.map((m) => [m.conditionId, 0]));
    for (const o of d.engine.orders.open()) {
      const m = marketOf.get(o.tokenId) ?? '';
      n.set(m, (n.get(m) ?? 0) + 1);
    }
    return [...n].map(([market, v]) => [{ market }, v]);
  });
  counter('orders_sent', 'Orders sent to the venue.', [], () => one(s().ordersSent));
  counter('cancels_sent', 'Cancels sent to the venue.', [], () => one(s().cancelsSent));
  counter('order_requests', 'Order requests the scheduler sent, by endpoint.', ['endpoint'], () => [
    [{ endpoint: 'POST /orders' }, s().placeBatches],
    [{ endpoint: 'POST /order' }, s().placeSingles],
    [{ endpoint: 'DELETE /orders' }, s().cancelBatches],
    [{ endpoint: 'DELETE /order' }, s().cancelSingles],
    [{ endpoint: 'DELETE /cancel-all' }, s().cancelAlls],
  ]);
  counter('coalesced_intents', 'Unsent intents replaced by newer ones, by kind.', ['kind'], () => [
    [{ kind: 'place' }, s().coalescedPlaces],
    [{ kind: 'cancel' }, s().coalescedCancels],
  ]);
  counter('signer_bucket_holds', "Times the scheduler held intents for the venue's per-signer bucket (the strategy asks for more orders than the tier allows).", [], () => one(s().bucketHolds));
  counter('risk_blocks', 'Orders or tokens blocked by the risk gate, by reason.', ['reason'], () => [...d.engine.risk.blocks].map(([reason, n]) => [{ reason }, n]));
  const ec = () => d.engine.counters;
  counter('engine_events', 'Events handled by the engine, by kind.', ['kind'], () => [
    [{ kind: 'market' }, ec().marketEvents],
    [{ kind: 'user' }, ec().userEvents],
  ]);
  counter('engine_requotes', 'Strategy evaluations.', [], () => one(ec().requotes));
  counter('engine_errors', 'Errors caught in the engine loop.', [], () => one(ec().errors));
  counter('log_write_errors', 'Log writes to stdout that failed (a full disk under `> file`), and log lines dropped while it could not take them: those lines are lost.', [], () =>
    one(logWriteErrors.count),
  );
  counter('engine_invalid_quotes', 'Quotes of the strategy dropped as invalid (a side, price, size or token the market cannot take; the log names the first and why).', [], () =>
    one(ec().invalidQuotes),
  );
  counter('engine_quotes_cut', 'Quotes of the strategy left out beyond reconciler.maxOrdersPerSide on their side (the best kept), per requote.', [], () => one(ec().quotesCut));
  counter(
    'engine_held_places',
    'Places held back by the engine: crossing our own order (self_cross), through the book (crosses_book: post-only, the venue would refuse it), a SELL needing the shares of a SELL being cancelled (for_cancel).',
    ['kind'],
    () => [
      [{ kind: 'self_cross' }, ec().heldSelfCross],
      [{ kind: 'crosses_book' }, ec().heldCrossesBook],
      [{ kind: 'for_cancel' }, ec().heldForCancel],
    ],
  );
  counter('engine_sell_waits', 'SELLs refused for balance; each makes its token wait before the next offer.', [], () => one(ec().sellWaits));
  counter('orders_rejected', 'Our places the venue refused, by its code (INVALID_POST_ONLY_ORDER: the book moved before the order arrived).', ['code'], () =>
    [...d.engine.rejects].map(([code, n]) => [{ code }, n]),
  );
  counter('engine_buy_waits', 'BUYs refused for balance; each makes every BUY wait and reads the collateral again.', [], () => one(ec().buyWaits));
  counter(
    'engine_missing_order_lookups',
    'Look-ups at the venue for a fill or cancel the user channel did not report: a book short of our resting order, or a matched order with no fill reported.',
    [],
    () => one(d.engine.missingOrders?.asked ?? 0),
  );
  counter('engine_early_trades_dropped', "Trades naming an order of ours before its place's answer that could not be kept for it (1,000 kept at most): a look-up finds them.", [], () =>
    one(d.engine.ledger.earlyDropped),
  );
  counter('engine_bad_trades', 'Trades naming our orders that failed the fill checks (not taken as fills).', [], () => one(ec().badTrades));
  counter('engine_tick_rejects', 'Orders refused off the tick grid (rejected), the tick refreshes they started (refresh), refreshes that timed out (timeout).', ['kind'], () => [
    [{ kind: 'rejected' }, ec().tickRejects],
    [{ kind: 'refresh' }, ec().tickRefreshes],
    [{ kind: 'timeout' }, ec().tickRefreshTimeouts],
  ]);

  // rate limits: every scope the limiter keeps
  const usage = () => d.clients.limiter.usage();
  gauge('rate_limit_used', 'Requests in the current sliding window, per scope (signer:*: orders spent from the per-signer bucket).', ['scope'], () => usage().map((u) => [{ scope: u.scope }, u.used]));
  gauge('rate_limit_limit', "Requests the window allows, per scope (signer:*: the bucket's burst).", ['scope'], () => usage().map((u) => [{ scope: u.scope }, u.limit]));
  gauge('rate_limit_used_ratio', 'Share of the window used, per scope.', ['scope'], () => usage().map((u) => [{ scope: u.scope }, u.limit > 0 ? u.used / u.limit : 0]));
  gauge('rate_limit_paused', '1 while a 429 pauses the scope until its reset time.', ['scope'], () => {
    const now = d.clients.limiter.clock.now();
    return usage().map((u) => [{ scope: u.scope }, Number(u.pausedUntil > now)]);
  });
  registerFeedFamilies(gauge, counter, d);
  return () => (cached = undefined);
}

type Family = (name: string, help: string, labelNames: string[], read: Read) => unknown;

/** Bid and ask samples of a token where the price is set (>= 0), in dollars per share. */
function sides(v: TokenView, bid: number, ask: number): Sample[] {
  const out: Sample[] = [];
  if (bid >= 0) out.push([{ market: v.market, token: v.token, side: 'bid' }, price(bid)]);
  if (ask >= 0) out.push([{ market: v.market, token: v.token, side: 'ask' }, price(ask)]);
  return out;
}

/** A market's bid and ask samples where set (>= 0), in dollars per share. */
function quoteSides(q: MarketQuote, bid: number, ask: number): Sample[] {
  const out: Sample[] = [];
  if (bid >= 0) out.push([{ market: q.market, side: 'bid' }, price(bid)]);
  if (ask >= 0) out.push([{ market: q.market, side: 'ask' }, price(ask)]);
  return out;
}

/** The feed's connection and decoder counters, one family per meaning, by channel (market, user, prices). */
function registerFeedFamilies(gauge: Family, counter: Family, d: StatusSource): void {
  // the market channel's totals count its closed connections too: a counter never goes down
  const totals = (): Record<string, Record<string, number>> => ({
    market: d.feed.marketCounterTotals(),
    user: d.feed.user ? { ...d.feed.user.counters } : {},
    ...(d.prices ? { prices: { ...d.prices.connection.counters } } : {}),
  });
  type ConnKey = 'frames' | 'bytes' | 'pongs' | 'reconnects' | 'stale' | 'probes' | 'probesAnswered' | 'pingsSent';
  const conn = (name: string, key: ConnKey, help: string) => counter(name, help, ['channel'], () => Object.entries(totals()).map(([channel, t]) => [{ channel }, t[key] ?? 0]));
  gauge('feed_connections', 'WebSocket connections open or opening, per channel.', ['channel'], () => [
    [{ channel: 'market' }, d.feed.marketConnections().length],
    [{ channel: 'user' }, d.feed.user ? 1 : 0],
    ...(d.prices ? [[{ channel: 'prices' }, 1] as const] : []),
  ]);
  conn('feed_frames', 'frames', 'WebSocket frames received (data and PONG), per channel.');
  conn('feed_received_bytes', 'bytes', 'Text received on the WebSockets (UTF-16 code units: bytes for ASCII JSON), per channel.');
  conn('feed_pongs', 'pongs', 'PONG answers received, per channel.');
  conn('feed_pings_sent', 'pingsSent', 'PINGs sent, per channel.');
  conn('feed_reconnects', 'reconnects', 'Reconnects, per channel.');
  conn('feed_stale', 'stale', 'Times a connection was declared stale (no data after a probe), per channel.');
  conn('feed_probes', 'probes', 'Probes of a quiet connection (an unsubscribe, then a subscribe), per channel.');
  conn('feed_probes_answered', 'probesAnswered', 'Probes answered by a fresh snapshot, per channel.');
  const stats = () => [['market', d.feed.marketStats] as const, ['user', d.feed.userStats] as const, ...(d.prices ? [['prices', d.prices.stats] as const] : [])];
  counter('feed_decoded_frames', 'Frames the decoder read, per channel.', ['channel'], () => stats().map(([channel, st]) => [{ channel }, st.frames]));
  counter('feed_events', 'Events decoded from the frames, per channel.', ['channel'], () => stats().map(([channel, st]) => [{ channel }, st.events]));
  counter('feed_sizes_rounded', 'Sizes finer than the 0.01 share grid, rounded, per channel.', ['channel'], () => stats().map(([channel, st]) => [{ channel }, st.sizesRounded]));
  counter('feed_rejects', 'Frames or events the decoder rejected, by channel and reason.', ['channel', 'reason'], () =>
    stats().flatMap(([channel, st]) => [...st.rejects].map(([reason, n]) => [{ channel, reason }, n] as const)),
  );
  counter('book_unknown_token_events', 'Market events for tokens we did not subscribe, dropped.', [], () => [[{}, d.feed.mirror.droppedUnknown]]);
  counter('book_rejected_snapshots', 'Book snapshots refused (unprovable or malformed).', [], () => [[{}, d.feed.mirror.rejectedSnapshots]]);
}
