// A recording's market metadata: `makerd record` writes one line per market before the first
// frame, channel "meta", so a backtest quotes the market as live does. Without it the backtest
// prices whichever token's book came first (NO, as often as not), knows no end time (a strategy's
// horizon to the end falls back to a rolling one) and no fee rule (flat sim fees on a fee market).
// The frame is our own JSON, in the engine's units; a reader that does not know the channel skips it.
import { z } from 'zod';
import type { MarketMeta } from '../engine/strategy.js';
import { isFeeRule } from '../core/fees.js';
import { MAX_SIZE_UNITS, PRICE_SCALE, formatSize } from '../core/units.js';
import type { TokenMeta } from '../book/mirror.js';

const tokenId = z.string().regex(/^\d{1,100}$/);
const metaSchema = z.strictObject({
  event_type: z.literal('makerd_market'),
  conditionId: z.string().min(1).max(200),
  tokenId,
  complementId: tokenId,
  tick: z.number().int().positive().max(PRICE_SCALE),
  minSize: z.number().int().nonnegative().max(MAX_SIZE_UNITS),
  negRisk: z.boolean(),
  endMs: z.number().int().positive().optional(),
  feeRule: z.strictObject({ rate: z.number(), exponent: z.number() }).optional(),
});

/** The frame of a metadata line for `m`. */
export function metaFrame(m: MarketMeta): string {
  const { conditionId, tokenId: t, complementId, tick, minSize, negRisk, endMs, feeRule } = m;
  return JSON.stringify({ event_type: 'makerd_market', conditionId, tokenId: t, complementId, tick, minSize, negRisk, endMs, feeRule });
}

/** The market of a metadata frame, or why it is not one. */
export function parseMetaFrame(text: string): MarketMeta | string {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  const r = metaSchema.safeParse(raw);
  if (!r.success) return `not a market: ${r.error.issues[0]?.path.join('.') || '(frame)'} ${r.error.issues[0]?.message ?? ''}`.trim();
  const m = r.data;
  if (m.tokenId === m.complementId) return 'not a market: tokenId and complementId are one token';
  if (m.feeRule && !isFeeRule(m.feeRule)) return 'not a market: feeRule is not finite and non-negative';
  const meta: MarketMeta = { conditionId: m.conditionId, tokenId: m.tokenId, complementId: m.complementId, tick: m.tick, minSize: m.minSize, negRisk: m.negRisk };
  if (m.endMs !== undefined) meta.endMs = m.endMs;
  if (m.feeRule) meta.feeRule = m.feeRule;
  return meta;
}

/**
 * The hash fields a metadata line gives a market's tokens that their WS frames omit: min_order_size
 * and neg_risk, as live takes them from the market. Not the tick: the line is written again at the
 * top of every rotated file, and a tick_size_change since must not be undone.
 */
export function hashedFieldsOf(m: MarketMeta): TokenMeta {
  return { minOrderSize: formatSize(m.minSize), negRisk: m.negRisk };
}
