// The venue's book hash (wire-formats.md section 5): SHA-1 over compact JSON with a fixed key
// order and `hash` set to "". Levels are hashed as their exact wire strings, bids ascending and
// asks descending (best last). Strings are built by hand: the ids and numbers are plain ASCII
// from the wire, so JSON escaping is needed only for the ids, which we still escape defensively.
import { createHash } from 'node:crypto';

export interface HashInput {
  market: string;
  assetId: string;
  timestamp: string;
  /** [priceStr, sizeStr] pairs, ascending by price. */
  bids: ReadonlyArray<readonly [string, string]>;
  /** [priceStr, sizeStr] pairs, descending by price. */
  asks: ReadonlyArray<readonly [string, string]>;
  minOrderSize: string;
  tickSize: string;
  negRisk: boolean;
  lastTradePrice: string;
}

const SAFE = /^[\x20-\x7e]*$/;
function str(s: string): string {
  return SAFE.test(s) && !s.includes('"') && !s.includes('\\') ? `"${s}"` : JSON.stringify(s);
}

function levels(ls: ReadonlyArray<readonly [string, string]>): string {
  let out = '[';
  for (let i = 0; i < ls.length; i++) {
    if (i) out += ',';
    out += `{"price":${str(ls[i][0])},"size":${str(ls[i][1])}}`;
  }
  return out + ']';
}

export function bookHashPayload(b: HashInput): string {
  return (
    `{"market":${str(b.market)},"asset_id":${str(b.assetId)},"timestamp":${str(b.timestamp)},"hash":"",` +
    `"bids":${levels(b.bids)},"asks":${levels(b.asks)},"min_order_size":${str(b.minOrderSize)},` +
    `"tick_size":${str(b.tickSize)},"neg_risk":${b.negRisk ? 'true' : 'false'},"last_trade_price":${str(b.lastTradePrice)}}`
  );
}

export function bookHash(b: HashInput): string {
  return createHash('sha1').update(bookHashPayload(b)).digest('hex');
}
