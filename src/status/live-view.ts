// The live page's section of GET /status (`?live=N`): per market the top N levels of each token's
// book with our resting size at each level, our quotes, position, PnL over the session and net
// exposure; the session's PnL samples and the last fills. Prices in dollars per share, sizes in shares.
import { PRICE_SCALE, SIZE_SCALE, microsToDollars } from '../core/units.js';
import { marketsKept, type FillView, type SessionHistory } from './history.js';
import type { StatusSource } from './source.js';
import { marketPnl, marketQuotes, tokenViews, type MarketQuote, type TokenView } from './views.js';

/** Markets shown at most (the page is for a glance; /status and /metrics have them all). */
export const LIVE_MARKETS = 50;
export const LIVE_DEPTH_MAX = 20;

/** [price, size, our resting size at that price]. */
export type Level = [number, number, number];

export interface LiveToken {
  tokenId: string;
  bids: Level[];
  asks: Level[];
  mid: number | null;
  position: number;
  valueDollars: number;
}

export interface LiveMarket {
  conditionId: string;
  quoting: boolean;
  notQuoting: string | null;
  netExposure: number;
  /** Ours and the book's top, in the first token's terms (dollars per share; null: none). */
  quotes: { ourBid: number | null; ourAsk: number | null; bestBid: number | null; bestAsk: number | null };
  pnl: number;
  pnlHistory: Array<[number, number]>;
  tokens: LiveToken[];
}

export interface LiveSection {
  marketsShown: number;
  marketsTotal: number;
  markets: LiveMarket[];
  pnlHistory: Array<[number, number]>;
  lastFills: FillView[];
}

const px = (p: number): number | null => (p >= 0 && Number.isFinite(p) ? p / PRICE_SCALE : null);

function quoteView(q: MarketQuote | undefined): LiveMarket['quotes'] {
  return { ourBid: px(q?.ourBid ?? -1), ourAsk: px(q?.ourAsk ?? -1), bestBid: px(q?.bestBid ?? -1), bestAsk: px(q?.bestAsk ?? -1) };
}

/** Our resting size per token, side and price. */
function ourSizes(d: StatusSource): Map<string, number> {
  const out = new Map<string, number>();
  for (const o of d.engine.orders.open()) {
    if (o.state !== 'live' && o.state !== 'partially_filled') continue;
    const k = `${o.tokenId}|${o.side}|${o.price}`;
    out.set(k, (out.get(k) ?? 0) + o.size - o.filled);
  }
  return out;
}

function levels(v: TokenView, side: 'BUY' | 'SELL', depth: number, ours: Map<string, number>): Level[] {
  if (!v.book) return [];
  const buf: number[] = [];
  const n = v.book.depth(side, depth, buf);
  const out: Level[] = [];
  for (let i = 0; i < n; i++) {
    const p = buf[2 * i];
    out.push([p / PRICE_SCALE, buf[2 * i + 1] / SIZE_SCALE, (ours.get(`${v.token}|${side}|${p}`) ?? 0) / SIZE_SCALE]);
  }
  return out;
}

export function liveSection(d: StatusSource, history: SessionHistory | undefined, depth: number): LiveSection {
  const shown = d.markets.slice(0, LIVE_MARKETS);
  const views = tokenViews(d, shown);
  const pnl = marketPnl(views);
  const ours = ourSizes(d);
  const quotes = new Map(marketQuotes(d).map((q) => [q.market, q]));
  const byMarket = new Map<string, TokenView[]>();
  for (const v of views) {
    const list = byMarket.get(v.market);
    if (list) list.push(v);
    else byMarket.set(v.market, [v]);
  }
  const markets: LiveMarket[] = [];
  for (const m of shown) {
    const st = d.engine.markets.get(m.conditionId);
    const tokens = (byMarket.get(m.conditionId) ?? []).map((v) => ({
      tokenId: v.token,
      bids: levels(v, 'BUY', depth, ours),
      asks: levels(v, 'SELL', depth, ours),
      mid: px(v.mid),
      position: v.qty / SIZE_SCALE,
      valueDollars: microsToDollars(v.valueMicros),
    }));
    const pos = d.engine.positions;
    markets.push({
      conditionId: m.conditionId,
      quoting: st !== undefined && st.blocked === undefined,
      notQuoting: st ? (st.blocked ?? null) : 'unknown market',
      quotes: quoteView(quotes.get(m.conditionId)),
      netExposure: (pos.qty(m.tokenId) - pos.qty(m.complementId)) / SIZE_SCALE,
      pnl: microsToDollars(pnl.get(m.conditionId) ?? 0),
      pnlHistory: history?.marketPnl.get(m.conditionId)?.points ?? [],
      tokens,
    });
  }
  return {
    marketsShown: markets.length,
    marketsTotal: d.markets.length,
    markets,
    pnlHistory: history?.pnl.points ?? [],
    lastFills: history?.lastFills() ?? [],
  };
}

/**
 * One PnL sample of the session (the status server takes one a second): the total, and each market
 * the page shows; the series of markets gone from the set go with it.
 */
export function samplePnl(d: StatusSource, history: SessionHistory): void {
  const e = d.engine;
  if (!e) return;
  const per = new Map<string, number>();
  for (const [m, v] of marketPnl(tokenViews(d, d.markets.slice(0, LIVE_MARKETS)))) per.set(m, microsToDollars(v));
  history.sample(Date.now(), microsToDollars(e.pnlMicros()), per);
  history.retain(marketsKept(d));
}
