// Market metadata for the engine: from token ids (CLOB GET /book then GET /market for the
// sibling token; many tokens from the CLOB's market list first), or from a metadata-API query
// (config.marketQuery). Either way each binary
// market becomes one MarketMeta quoted on its first outcome token.
import type { Logger } from '../core/log.js';
import type { Config } from '../config.js';
import { formatPrice, formatSize, priceFromNumber, sizeFromNumber } from '../core/units.js';
import type { ClobClient } from '../api/clob-client.js';
import type { Book, ClobMarket } from '../api/schemas.js';
import { cursorItems } from '../api/paginate.js';
import type { GammaClient } from '../api/gamma-client.js';
import { ApiError, MakerdError } from '../core/errors.js';
import { settleWithin } from '../core/clock.js';
import type { MarketMeta } from '../engine/strategy.js';
import type { FeeRule } from '../core/fees.js';
import type { TokenMeta } from '../book/mirror.js';

/** The hash fields of a market's tokens that the WS book omits (the mirror's TokenMeta). */
export function tokenMetaOf(m: MarketMeta): TokenMeta {
  return { market: m.conditionId, minOrderSize: formatSize(m.minSize), tickSize: formatPrice(m.tick), negRisk: m.negRisk };
}

const DEFAULT_TICK = 100;
const DEFAULT_MIN_SIZE = 500;

function endMsOf(v: unknown): number | undefined {
  if (typeof v !== 'string' || v === '') return undefined;
  const t = Date.parse(v);
  return Number.isFinite(t) ? t : undefined;
}

/**
 * From this many tokens on, their markets are looked up in the venue's market list first (pages of
 * many markets): GET /book and GET /markets/{id} allow 100 requests per 10 s each, so 1,000 tokens
 * one by one take 100 s, past the start-up bound. A token the list does not hold is looked up alone.
 */
const LIST_FROM_TOKENS = 20;
/** Pages of the market list read at most for that (the venue lists closed markets too). */
const LIST_MAX_PAGES = 200;
/** Fee-rule requests in flight at once (one per market, on the profiles that read one). */
const FEE_RULE_CONCURRENCY = 8;
/** How long start-up waits for the fee rules of markets no longer quoted (feeRulesOutside), ms. */
const FEE_RULES_OUTSIDE_MS = 10_000;

/** The markets of `tokens` found in the venue's market list, by token id (stops once all are found). */
async function listedMarkets(clob: ClobClient, tokens: readonly string[], log: Logger): Promise<Map<string, ClobMarket>> {
  const wanted = new Set(tokens);
  const found = new Map<string, ClobMarket>();
  try {
    // cursorItems: a cursor seen again ends the list; more than LIST_MAX_PAGES throws (caught below)
    for await (const m of cursorItems((c) => clob.listMarkets({ next_cursor: c }), undefined, LIST_MAX_PAGES)) {
      for (const t of m.tokens ?? []) if (wanted.has(t.token_id)) found.set(t.token_id, m);
      if (found.size === wanted.size) break;
    }
  } catch (err) {
    // the list is a shortcut: what it did not give is looked up token by token
    log.warn({ err, found: found.size, tokens: wanted.size }, 'market list unreadable; resolving the rest token by token');
  }
  return found;
}

/** A market's terms before its neg_risk is known (the answers may leave it out: negRiskOf asks). */
type MetaDraft = Omit<MarketMeta, 'negRisk'> & { negRisk: boolean | undefined };

/**
 * A market's neg_risk: as its answers gave it, else the CLOB's GET /neg-risk. Never guessed: a
 * neg-risk market taken as not one signs every order for the main exchange (refused as an invalid
 * signature) and checks its allowance on the wrong one.
 */
async function negRiskOf(clob: ClobClient, m: MetaDraft): Promise<MarketMeta> {
  return { ...m, negRisk: m.negRisk ?? (await clob.getNegRisk(m.tokenId)) };
}

/** A market's terms from its CLOB market object, the book's where the market omits them. */
function metaOf(m: ClobMarket, book: Book | undefined, token: string): MetaDraft {
  const conditionId = m.condition_id;
  const ids = (m.tokens ?? []).map((t) => t.token_id);
  if (ids.length !== 2) throw new MakerdError(`market ${conditionId} of token ${token} is not a binary market (${ids.length} tokens)`);
  const tickFromMarket = m.minimum_tick_size !== undefined ? priceFromNumber(m.minimum_tick_size) : -1;
  const minFromMarket = m.minimum_order_size !== undefined ? sizeFromNumber(m.minimum_order_size) : -1;
  return {
    conditionId,
    tokenId: ids[0],
    complementId: ids[1],
    tick: tickFromMarket > 0 ? tickFromMarket : (book?.tickSize ?? DEFAULT_TICK),
    minSize: minFromMarket > 0 ? minFromMarket : (book?.minOrderSize ?? DEFAULT_MIN_SIZE),
    negRisk: m.neg_risk ?? book?.negRisk,
    endMs: endMsOf((m as Record<string, unknown>).end_date_iso),
  };
}

/**
 * Resolves token ids to markets; a token whose market has no second token is an error. With
 * `skipMissing` (the daemon), a token the venue has no book or market for (404: its market resolved,
 * or no such token) is left out with a warning instead of failing the whole set: one resolved
 * market in the config would keep every other one from being quoted.
 */
export async function marketsFromTokens(clob: ClobClient, tokens: readonly string[], log: Logger, o: { skipMissing?: boolean } = {}): Promise<MarketMeta[]> {
  const byCondition = new Map<string, MetaDraft>();
  const listed = tokens.length >= LIST_FROM_TOKENS ? await listedMarkets(clob, tokens, log) : new Map<string, ClobMarket>();
  for (const token of tokens) {
    const fromList = listed.get(token);
    if (fromList) {
      if (!byCondition.has(fromList.condition_id)) byCondition.set(fromList.condition_id, metaOf(fromList, undefined, token));
      continue;
    }
    try {
      const book = await clob.getBook(token);
      if (byCondition.has(book.market)) continue;
      byCondition.set(book.market, metaOf(await clob.getMarket(book.market), book, token));
    } catch (err) {
      if (!o.skipMissing || !(err instanceof ApiError) || err.status !== 404) throw err;
      log.warn({ token, err }, 'market left out: the venue has no book or market for this token (resolved, or no such token)');
    }
  }
  const metas: MarketMeta[] = [];
  for (const m of byCondition.values()) metas.push(await negRiskOf(clob, m));
  await readFeeRules(clob, metas, log);
  for (const meta of metas) {
    log.info(
      { market: meta.conditionId, tokens: [meta.tokenId, meta.complementId], tick: formatPrice(meta.tick), minShares: formatSize(meta.minSize), negRisk: meta.negRisk, feeRule: meta.feeRule },
      'market resolved',
    );
  }
  return metas;
}

/**
 * Reads each market's fee rule where the profile reads one, into its meta (`feeRule`), a few at a
 * time. With a rule the engine charges takers by it and makers
 * nothing; without one it books a taker fill's fee_rate_bps flat (a maker's nothing: Venue.makersPayNoFee,
 * live on this venue). A missing or malformed answer costs a
 * warning, not the start: the market goes on without a rule (a running engine keeps one it knew).
 * Markets from token ids (marketsFromTokens) and from the metadata query (the daemon) alike.
 */
export async function readFeeRules(clob: ClobClient, metas: readonly MarketMeta[], log: Logger): Promise<void> {
  const rules = await feeRulesOf(
    clob,
    metas.map((m) => m.conditionId),
    log,
  );
  for (const meta of metas) {
    const rule = rules.get(meta.conditionId);
    if (rule) meta.feeRule = rule;
  }
}

/**
 * Each market's fee rule, FEE_RULE_CONCURRENCY requests at a time; one unreadable is warned about
 * and left out. No request starts once `givenUp` says the caller gave up (its bound passed).
 */
async function feeRulesOf(clob: ClobClient, conditionIds: readonly string[], log: Logger, out = new Map<string, FeeRule>(), givenUp = () => false): Promise<Map<string, FeeRule>> {
  let next = 0;
  const worker = async () => {
    while (next < conditionIds.length && !givenUp()) {
      const id = conditionIds[next++];
      try {
        const rule = await clob.getFeeRule(id);
        if (rule) out.set(id, rule);
      } catch (err) {
        log.warn({ market: id, err }, 'market fee rule unreadable: a rule known before is kept, else taker fills book the trade fee rate flat (paper: the flat sim fees)');
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(FEE_RULE_CONCURRENCY, conditionIds.length) }, worker));
  return out;
}

/**
 * The fee rules of the markets outside `quoted` that `orders` (restored from the store) are in,
 * by the orders' tokens: after a restart with the market set rotated, their late fills (start-up's
 * look-up finds them) pay by the rule, not the trade's fee rate flat (1000 bps on maker parts).
 * What `boundMs` gets: a slow venue must not hold start-up past its bound for rules it can do
 * without (the rest are warned about; their fills book the flat rate).
 */
export async function feeRulesOutside(
  clob: ClobClient,
  orders: ReadonlyArray<{ market: string; tokenId: string }>,
  quoted: readonly MarketMeta[],
  log: Logger,
  boundMs = FEE_RULES_OUTSIDE_MS,
): Promise<Array<[string, FeeRule]>> {
  const inSet = new Set(quoted.map((m) => m.conditionId));
  const tokensOf = new Map<string, Set<string>>();
  for (const o of orders) {
    if (inSet.has(o.market) || o.market === '') continue;
    let tokens = tokensOf.get(o.market);
    if (!tokens) tokensOf.set(o.market, (tokens = new Set()));
    tokens.add(o.tokenId);
  }
  const rules = new Map<string, FeeRule>();
  let late = false;
  if (
    (await settleWithin(
      feeRulesOf(clob, [...tokensOf.keys()], log, rules, () => late),
      boundMs,
    )) === undefined
  ) {
    late = true;
    log.warn({ markets: tokensOf.size, read: rules.size, boundMs }, 'fee rules of the markets restored orders are in: not all read in time; the fills of the rest book the trade fee rate flat');
  }
  const out: Array<[string, FeeRule]> = [];
  for (const [market, tokens] of tokensOf) {
    const rule = rules.get(market);
    if (rule) for (const t of tokens) out.push([t, rule]);
  }
  return out;
}

/** A market query reads at most this many markets per market wanted (and at least MIN_SCANNED), whatever its floors. */
const SCANNED_PER_WANTED = 20;
const MIN_SCANNED = 1000;

/**
 * Markets from the metadata API by the configured query (active, volume/liquidity floors, order,
 * limit). `knownNegRisk`: a market's neg_risk known from before (a refresh), used where the metadata
 * leaves it out before the CLOB is asked.
 */
export async function marketsFromQuery(
  gamma: GammaClient,
  clob: ClobClient,
  q: Config['marketQuery'],
  log: Logger,
  knownNegRisk: (conditionId: string) => boolean | undefined = () => undefined,
): Promise<MarketMeta[]> {
  const out: MarketMeta[] = [];
  // offset pages over an order that moves while they are read (volume) can repeat a market
  const seen = new Set<string>();
  const nowMs = Date.now();
  // the highest first: below the floor of the field sorted on, no later market passes it
  const floor = q.order === 'volume' ? q.minVolume : q.minLiquidity;
  const scanCap = Math.max(MIN_SCANNED, SCANNED_PER_WANTED * q.limit);
  let scanned = 0;
  for await (const m of gamma.iterateMarkets({ active: q.active, closed: false, order: q.order, ascending: false })) {
    if (out.length >= q.limit) break;
    if (++scanned > scanCap) {
      log.warn({ scanned: scanCap, found: out.length, limit: q.limit }, 'market query: stopped reading after this many markets, fewer than the limit passed its floors');
      break;
    }
    const volume = m.volumeNum ?? m.volume;
    const liquidity = m.liquidityNum ?? m.liquidity;
    // only on a number the answer gives: one missing (or a venue that sorts it elsewhere) is skipped below
    const sorted = q.order === 'volume' ? volume : liquidity;
    if (floor > 0 && sorted !== undefined && sorted !== null && Number(sorted) < floor) break;
    if (m.clobTokenIds.length !== 2 || seen.has(m.conditionId)) continue;
    if (Number(volume ?? 0) < q.minVolume || Number(liquidity ?? 0) < q.minLiquidity) continue;
    const x = m as Record<string, unknown>;
    if (x.enableOrderBook === false || x.acceptingOrders === false || x.closed === true) continue;
    // past its end the outcome may be known while the book still takes orders (resolution pending)
    const endMs = endMsOf(m.endDate);
    if (endMs !== undefined && endMs <= nowMs) continue;
    const tick = m.orderPriceMinTickSize !== undefined ? priceFromNumber(m.orderPriceMinTickSize) : -1;
    const min = m.orderMinSize !== undefined ? sizeFromNumber(m.orderMinSize) : -1;
    seen.add(m.conditionId);
    const draft: MetaDraft = {
      conditionId: m.conditionId,
      tokenId: m.clobTokenIds[0],
      complementId: m.clobTokenIds[1],
      tick: tick > 0 ? tick : DEFAULT_TICK,
      minSize: min > 0 ? min : DEFAULT_MIN_SIZE,
      negRisk: m.negRisk ?? knownNegRisk(m.conditionId),
      endMs,
    };
    try {
      out.push(await negRiskOf(clob, draft));
    } catch (err) {
      log.warn({ market: m.conditionId, err }, 'market left out: its neg_risk is not in the metadata and GET /neg-risk did not tell');
    }
  }
  log.info({ markets: out.map((m) => m.conditionId) }, 'markets from the metadata query');
  return out;
}
