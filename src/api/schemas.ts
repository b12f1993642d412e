// zod schemas of the response shapes wire-formats.md documents, and their conversion to integer
// units (src/core/units.ts) where callers compute with prices and sizes. Unknown fields pass.
import { z } from 'zod';
import { parsePrice, parseSize, parseWireSize, priceFromNumber } from '../core/units.js';

const str = z.string();
const numOrStr = z.union([z.number(), z.string()]);

export const levelSchema = z.looseObject({ price: str, size: str });
export const bookSchema = z.looseObject({
  market: str,
  asset_id: str,
  timestamp: numOrStr.optional(),
  hash: str.optional(),
  bids: z.array(levelSchema),
  asks: z.array(levelSchema),
  min_order_size: numOrStr.optional(),
  tick_size: numOrStr.optional(),
  neg_risk: z.boolean().optional(),
  last_trade_price: str.optional(),
});
export type BookWire = z.infer<typeof bookSchema>;

/** The SDK says `mid`, the API reference `mid_price`: accept either. */
export const midpointSchema = z.looseObject({ mid: numOrStr.optional(), mid_price: numOrStr.optional() }).refine((r) => r.mid !== undefined || r.mid_price !== undefined, 'expected mid or mid_price');
export const priceSchema = z.looseObject({ price: numOrStr });
export const spreadSchema = z.looseObject({ spread: numOrStr });
export const tickSizeSchema = z.looseObject({ minimum_tick_size: z.number() });
export const negRiskSchema = z.looseObject({ neg_risk: z.boolean() });

export const clobMarketSchema = z.looseObject({
  condition_id: str,
  question: str.optional(),
  tokens: z.array(z.looseObject({ token_id: str, outcome: str.optional(), winner: z.unknown().optional() })).optional(),
  minimum_tick_size: z.number().optional(),
  minimum_order_size: z.number().optional(),
  neg_risk: z.boolean().optional(),
});
export type ClobMarket = z.infer<typeof clobMarketSchema>;

export const openOrderSchema = z.looseObject({
  id: str,
  status: str.optional(),
  market: str.optional(),
  asset_id: str,
  side: z.enum(['BUY', 'SELL']),
  original_size: str,
  size_matched: str,
  price: str,
});
export type OpenOrder = z.infer<typeof openOrderSchema>;

export const tradeSchema = z.looseObject({
  id: str,
  market: str.optional(),
  asset_id: str,
  side: z.enum(['BUY', 'SELL']),
  size: str,
  price: str,
  status: str.optional(),
});
export type Trade = z.infer<typeof tradeSchema>;

/** A cursor page; `next_cursor` "LTE=" (or empty) marks the last page. */
export function pageSchema<T extends z.ZodType>(item: T) {
  return z.looseObject({ data: z.array(item), next_cursor: str.optional().nullable(), limit: z.number().optional(), count: z.number().optional() });
}
export interface Page<T> {
  data: T[];
  next_cursor?: string | null;
}
export const END_CURSOR = 'LTE=';

export const orderResponseSchema = z.looseObject({
  success: z.boolean(),
  errorMsg: str.nullable().optional(),
  orderID: str.nullable().optional(),
  // read or not, null where a Go server writes a nil (tradeIDs: the official client's string[])
  status: str.nullable().optional(),
  makingAmount: str.nullable().optional(),
  takingAmount: str.nullable().optional(),
  tradeIDs: z.array(str).nullable().optional(),
});
export type OrderResponse = z.infer<typeof orderResponseSchema>;

export const cancelResponseSchema = z.looseObject({
  // null where a Go server writes a nil slice or map (nothing canceled, nothing refused): empty
  canceled: z
    .array(str)
    .nullable()
    .transform((v) => v ?? []),
  not_canceled: z
    .record(str, z.unknown())
    .nullish()
    .transform((v) => v ?? {}),
});
export type CancelResponse = z.infer<typeof cancelResponseSchema>;

/** Gamma sends some arrays as JSON-encoded strings ("[\"Yes\", \"No\"]"); decode them. */
const jsonStringArray = z.union([
  z.array(str),
  z.string().transform((s, ctx) => {
    if (s === '') return [];
    try {
      const v: unknown = JSON.parse(s);
      if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
    } catch {
      /* fall through */
    }
    ctx.addIssue({ code: 'custom', message: 'expected a JSON-encoded array of strings' });
    return z.NEVER;
  }),
]);

export const gammaMarketSchema = z.looseObject({
  id: str,
  question: str.optional(),
  conditionId: str,
  slug: str.optional(),
  clobTokenIds: jsonStringArray.optional().default([]),
  outcomes: jsonStringArray.optional().default([]),
  outcomePrices: jsonStringArray.optional().default([]),
  active: z.boolean().optional(),
  closed: z.boolean().optional(),
  bestBid: z.number().optional(),
  bestAsk: z.number().optional(),
  volume: numOrStr.optional(),
  liquidity: numOrStr.optional(),
  volumeNum: z.number().optional(),
  liquidityNum: z.number().optional(),
  endDate: str.optional(),
  orderPriceMinTickSize: z.number().optional(),
  orderMinSize: z.number().optional(),
  negRisk: z.boolean().optional(),
});
export type GammaMarket = z.infer<typeof gammaMarketSchema>;

export const looseObjectSchema = z.record(str, z.unknown());
export const looseArraySchema = z.array(z.unknown());
export type JsonObject = Record<string, unknown>;

// ---- integer-unit views ----

export interface Level {
  price: number;
  size: number;
}
/** The book in integer units: bids ascending, asks descending as on the wire (best last). */
export interface Book {
  market: string;
  assetId: string;
  timestamp: number;
  hash: string;
  bids: Level[];
  asks: Level[];
  /** Best bid/ask price units, -1 when that side is empty. */
  bestBid: number;
  bestAsk: number;
  tickSize: number | undefined;
  minOrderSize: number | undefined;
  negRisk: boolean | undefined;
  wire: BookWire;
}

function toLevels(ls: Array<{ price: string; size: string }>): Level[] | string {
  const out: Level[] = [];
  for (const l of ls) {
    const price = parsePrice(l.price);
    const size = parseWireSize(l.size);
    if (price < 0 || size < 0) return `bad level ${JSON.stringify(l)}`;
    out.push({ price, size });
  }
  return out;
}

/** Price units from a string or number field; -1 when malformed. */
export function priceUnits(v: string | number): number {
  return typeof v === 'number' ? priceFromNumber(v) : parsePrice(v);
}
export function sizeUnits(v: string | number): number {
  return typeof v === 'number' ? parseSize(String(v)) : parseSize(v);
}

/** Converts a validated wire book; returns an error string on a malformed level. */
export function toBook(w: BookWire): Book | string {
  const bids = toLevels(w.bids);
  if (typeof bids === 'string') return bids;
  const asks = toLevels(w.asks);
  if (typeof asks === 'string') return asks;
  // best = max bid / min ask, whatever order the levels came in
  let bestBid = -1;
  for (const l of bids) if (l.price > bestBid) bestBid = l.price;
  let bestAsk = -1;
  for (const l of asks) if (bestAsk < 0 || l.price < bestAsk) bestAsk = l.price;
  return {
    market: w.market,
    assetId: w.asset_id,
    timestamp: Number.isFinite(Number(w.timestamp)) ? Number(w.timestamp) : 0,
    hash: w.hash ?? '',
    bids,
    asks,
    bestBid,
    bestAsk,
    tickSize: w.tick_size === undefined ? undefined : priceUnits(w.tick_size),
    minOrderSize: w.min_order_size === undefined ? undefined : sizeUnits(w.min_order_size),
    negRisk: w.neg_risk,
    wire: w,
  };
}
