// Market metadata for the engine: from token ids (CLOB GET /book then GET /market for the
// sibling token), or from a metadata-API query (config.marketQuery). Either way each binary
// market becomes one MarketMeta quoted on its first outcome token.
import type { Logger } from '../core/log.js';
import type { Config } from '../config.js';
import { formatPrice, formatSize, priceFromNumber, sizeFromNumber } from '../core/units.js';
import type { ClobClient } from '../api/clob-client.js';
import type { GammaClient } from '../api/gamma-client.js';
import { MakerdError } from '../core/errors.js';
import type { MarketMeta } from '../engine/strategy.js';
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

/** Resolves token ids to markets; a token whose market has no second token is an error. */
export async function marketsFromTokens(clob: ClobClient, tokens: readonly string[], log: Logger): Promise<MarketMeta[]> {
  const byCondition = new Map<string, MarketMeta>();
  for (const token of tokens) {
    const book = await clob.getBook(token);
    const conditionId = book.market;
    if (byCondition.has(conditionId)) continue;
    const m = await clob.getMarket(conditionId);
    const ids = (m.tokens ?? []).map((t) => t.token_id);
    if (ids.length !== 2) throw new MakerdError(`market ${conditionId} of token ${token} is not a binary market (${ids.length} tokens)`);
    const tickFromMarket = m.minimum_tick_size !== undefined ? priceFromNumber(m.minimum_tick_size) : -1;
    const minFromMarket = m.minimum_order_size !== undefined ? sizeFromNumber(m.minimum_order_size) : -1;
    const meta: MarketMeta = {
      conditionId,
      tokenId: ids[0],
      complementId: ids[1],
      tick: tickFromMarket > 0 ? tickFromMarket : (book.tickSize ?? DEFAULT_TICK),
      minSize: minFromMarket > 0 ? minFromMarket : (book.minOrderSize ?? DEFAULT_MIN_SIZE),
      negRisk: m.neg_risk ?? book.negRisk ?? false,
      endMs: endMsOf((m as Record<string, unknown>).end_date_iso),
    };
    // the venue's fee rule where the profile reads one (a paper run charges it as the venue would);
    // live trading never reads it, so a missing or malformed answer costs a warning, not the start
    let feeRule: Awaited<ReturnType<ClobClient['getFeeRule']>>;
    try {
      feeRule = await clob.getFeeRule(conditionId);
    } catch (err) {
      log.warn({ market: conditionId, err }, 'market fee rule unreadable: paper fills pay the flat sim fees');
    }
    if (feeRule) meta.feeRule = feeRule;
    log.info({ market: conditionId, tokens: ids, tick: formatPrice(meta.tick), minShares: formatSize(meta.minSize), negRisk: meta.negRisk, feeRule }, 'market resolved');
    byCondition.set(conditionId, meta);
  }
  return [...byCondition.values()];
}

/** Markets from the metadata API by the configured query (active, volume/liquidity floors, order, limit). */
export async function marketsFromQuery(gamma: GammaClient, q: Config['marketQuery'], log: Logger): Promise<MarketMeta[]> {
  const out: MarketMeta[] = [];
  // offset pages over an order that moves while they are read (volume) can repeat a market
  const seen = new Set<string>();
  for await (const m of gamma.iterateMarkets({ active: q.active, closed: false, order: q.order })) {
    if (out.length >= q.limit) break;
    if (m.clobTokenIds.length !== 2 || seen.has(m.conditionId)) continue;
    if ((m.volumeNum ?? Number(m.volume ?? 0)) < q.minVolume) continue;
    if ((m.liquidityNum ?? Number(m.liquidity ?? 0)) < q.minLiquidity) continue;
    if ((m as Record<string, unknown>).enableOrderBook === false || (m as Record<string, unknown>).acceptingOrders === false) continue;
    const tick = m.orderPriceMinTickSize !== undefined ? priceFromNumber(m.orderPriceMinTickSize) : -1;
    const min = m.orderMinSize !== undefined ? sizeFromNumber(m.orderMinSize) : -1;
    seen.add(m.conditionId);
    out.push({
      conditionId: m.conditionId,
      tokenId: m.clobTokenIds[0],
      complementId: m.clobTokenIds[1],
      tick: tick > 0 ? tick : DEFAULT_TICK,
      minSize: min > 0 ? min : DEFAULT_MIN_SIZE,
      negRisk: m.negRisk ?? false,
      endMs: endMsOf(m.endDate),
    });
  }
  log.info({ markets: out.map((m) => m.conditionId) }, 'markets from the metadata query');
  return out;
}
