// The venue's book hash (wire-formats.md section 5): SHA-1 over compact JSON with a fixed key
// order and `hash` set to "". Levels are hashed as their exact wire strings, bids ascending and
// asks descending (best last). Strings are built by hand: the ids and numbers are plain ASCII
// from the wire, so JSON escaping is needed only for the ids, which we still escape defensively.
import * as crypto from 'node:crypto';

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

/**
 * The same level text from dense per-price arrays (the book's storage): occupied cells from
 * `from` to `to` inclusive, stepping by `dir`. `cells` caches each level's own text (`''` = not
 * built; the book resets a cell when its level changes), so a rebuild after one change renders
 * one level and joins the rest. The strings are not escaped: they are wire decimals already
 * validated by parsePrice/parseSize (digits and one dot), which is what lets the book take them.
 */
export function levelsText(
  cells: string[],
  priceStr: readonly string[],
  sizeStr: readonly string[],
  size: ArrayLike<number>,
  from: number,
  to: number,
  dir: number,
): string {
  let out = '[';
  let first = true;
  for (let p = from; ; p += dir) {
    if (size[p] > 0) {
      let t = cells[p];
      if (t === '') t = cells[p] = '{"price":"' + priceStr[p] + '","size":"' + sizeStr[p] + '"}';
      out += first ? t : ',' + t;
      first = false;
    }
    if (p === to) break;
  }
  return out + ']';
}

/** The fields of the payload other than the levels. */
export type HashMeta = Omit<HashInput, 'bids' | 'asks'>;

/** The payload from already serialised level text (see levelsText). */
export function bookHashPayloadFromText(m: HashMeta, bidsText: string, asksText: string): string {
  return (
    `{"market":${str(m.market)},"asset_id":${str(m.assetId)},"timestamp":${str(m.timestamp)},"hash":"",` +
    `"bids":${bidsText},"asks":${asksText},"min_order_size":${str(m.minOrderSize)},` +
    `"tick_size":${str(m.tickSize)},"neg_risk":${m.negRisk ? 'true' : 'false'},"last_trade_price":${str(m.lastTradePrice)}}`
  );
}

/** SHA-1 hex of a payload string. */
// one-shot crypto.hash (Node >= 20.12) avoids a Hash object per call; createHash otherwise
const oneShot = (crypto as { hash?: (alg: string, data: string, enc: 'hex') => string }).hash;
export function sha1Hex(payload: string): string {
  return oneShot ? oneShot('sha1', payload, 'hex') : crypto.createHash('sha1').update(payload).digest('hex');
}

export function bookHashPayload(b: HashInput): string {
  return bookHashPayloadFromText(b, levels(b.bids), levels(b.asks));
}

export function bookHash(b: HashInput): string {
  return sha1Hex(bookHashPayload(b));
}
