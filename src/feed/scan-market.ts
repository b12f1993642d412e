// The market decoder's fast path: a hand-written scanner for the frames that make up nearly all
// of a feed (the current-format price_change object, last_trade_price, the single-object book; not
// the subscribe snapshot array) in compact JSON, keys in any order. It builds the events JSON.parse
// + decodeEvent would, or returns undefined (declines) at the first thing it does not fully
// understand: whitespace, a backslash escape or control character, an unknown or repeated key, a
// non-string where a string belongs, an invalid value. JSON.parse then decides and counts it.
//
// The same scanner reads a frame still escaped inside a recorder line (scanEscapedMarketFrame:
// the body of the line's "f" string, every quote written \"), so a backtest need not unescape each
// line with JSON.parse first. There every quote is the two characters \" and any other backslash
// declines (values are parsed, compared or checked for backslashes and control characters), so
// what it accepts is exactly the frame JSON.parse of the line would have unescaped.
import type { BookEvent, MarketEvent, PriceChangeEntry, Side, WireLevel } from '../core/events.js';
import { toMs } from './decode-stats.js';
import { priceOrNeg, quickPrice, quickSize, RecentIds, sizeOrNeg, tsMs } from './wire-values.js';

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const OPEN_SQ = 91;
const CLOSE_SQ = 93;
const OPEN = 123;
const CLOSE = 125;

// Key bits, in the order of TOP_KEYS / ENTRY_KEYS. Top level:
const K_MARKET = 1 << 0;
const K_ASSET = 1 << 1;
const K_TS = 1 << 2;
const K_TYPE = 1 << 3;
const K_CHANGES = 1 << 4;
const K_PRICE = 1 << 5;
const K_SIZE = 1 << 6;
const K_SIDE = 1 << 7;
const K_FEE = 1 << 8;
const K_TX = 1 << 9;
const K_HASH = 1 << 10;
const K_BIDS = 1 << 11;
const K_ASKS = 1 << 12;
const K_TICK = 1 << 13;
const K_LTP = 1 << 14;
const K_MOS = 1 << 15;
const K_NEG = 1 << 16;
// Inside a price_changes entry:
const E_ASSET = 1 << 0;
const E_PRICE = 1 << 1;
const E_SIZE = 1 << 2;
const E_SIDE = 1 << 3;
const E_REQUIRED = E_ASSET | E_PRICE | E_SIZE | E_SIDE;

const PC_KEYS = K_MARKET | K_TS | K_TYPE | K_CHANGES;
const LTP_REQUIRED = K_MARKET | K_ASSET | K_TS | K_TYPE | K_PRICE | K_SIZE | K_SIDE;
const LTP_KEYS = LTP_REQUIRED | K_FEE | K_TX;
const BOOK_REQUIRED = K_MARKET | K_ASSET | K_TS | K_TYPE | K_BIDS | K_ASKS;
const BOOK_KEYS = BOOK_REQUIRED | K_HASH | K_TICK | K_LTP | K_MOS | K_NEG;

// Scanner state: the text, the position, where the frame ends in the text, and the quote's length
// (1, or 2 for \" in an escaped frame). One frame at a time, never re-entered.
let s = '';
let pos = 0;
let end = 0;
let ql = 1;

/**
 * Index where the string opening at `pos` ends (its closing quote), -1 when there is none; the
 * value starts at pos + ql and the scan goes on at the end + ql. A plain frame was checked once
 * for backslashes, so the next quote closes the string; in an escaped frame the next quote must
 * be escaped, and a value with a backslash of its own is declined where it is read.
 */
function strEnd(): number {
  if (ql === 1) {
    if (s.charCodeAt(pos) !== QUOTE) return -1;
    return s.indexOf('"', pos + 1);
  }
  if (s.charCodeAt(pos) !== BACKSLASH || s.charCodeAt(pos + 1) !== QUOTE) return -1;
  const e = s.indexOf('"', pos + 2);
  if (e < 0 || e >= end || s.charCodeAt(e - 1) !== BACKSLASH) return -1;
  return e - 1;
}

/**
 * A literal the scanner compares: its text, and for texts of 13 characters or more the part
 * before its last 12 characters and those 12 (V8 makes a slice of 13 or more a sliced string,
 * whose === is a runtime call: about 4x a copied short slice).
 */
interface Lit {
  readonly t: string;
  readonly n: number;
  readonly head: string;
  readonly tail: string;
}
function mk(t: string): Lit {
  return t.length <= 12 ? { t, n: t.length, head: '', tail: t } : { t, n: t.length, head: t.slice(0, t.length - 12), tail: t.slice(t.length - 12) };
}

/** Whether `l` is written at `at`. Slices and === (native copy + compare) beat both a charCodeAt loop and String#startsWith at an offset in V8. */
function isAt(l: Lit, at: number): boolean {
  const h = l.head.length;
  if (h === 0) return s.slice(at, at + l.n) === l.tail;
  return s.slice(at + h, at + l.n) === l.tail && s.slice(at, at + h) === l.head;
}

/**
 * Which of `keys` is at pos (advancing past it), -1 for none. Tries first the key that came i-th
 * the last time (`order`, updated): frames from one producer keep one key order, so one compare.
 */
function keyIndex(keys: readonly Lit[], order: Int8Array, i: number): number {
  if (i < order.length) {
    const g = order[i];
    if (g >= 0 && isAt(keys[g], pos)) {
      pos += keys[g].n;
      return g;
    }
  }
  for (let k = 0; k < keys.length; k++) {
    if (isAt(keys[k], pos)) {
      if (i < order.length) order[i] = k;
      pos += keys[k].n;
      return k;
    }
  }
  return -1;
}

/** The escaped form of a literal: every quote written \". */
const esc = (t: string): string => t.replaceAll('"', '\\"');

const ENTRY_KEYS = ['"asset_id":', '"price":', '"size":', '"side":', '"hash":', '"best_bid":', '"best_ask":'] as const;
const entryOrder = new Int8Array(8).fill(-1);
const TOP_KEYS = [
  '"market":',
  '"asset_id":',
  '"timestamp":',
  '"event_type":',
  '"price_changes":',
  '"price":',
  '"size":',
  '"side":',
  '"fee_rate_bps":',
  '"transaction_hash":',
  '"hash":',
  '"bids":',
  '"asks":',
  '"tick_size":',
  '"last_trade_price":',
  '"min_order_size":',
  '"neg_risk":',
] as const;
const TRUE = mk('true');
const FALSE = mk('false');
const topOrder = new Int8Array(12).fill(-1);

/** The literals read as they are written in the text being scanned (plain, or escaped). */
interface Literals {
  entryKeys: readonly Lit[];
  topKeys: readonly Lit[];
  buy: Lit;
  sell: Lit;
  price: Lit;
  size: Lit;
}
const literals = (x: (t: string) => string): Literals => ({
  entryKeys: ENTRY_KEYS.map((k) => mk(x(k))),
  topKeys: TOP_KEYS.map((k) => mk(x(k))),
  buy: mk(x('"BUY"')),
  sell: mk(x('"SELL"')),
  price: mk(x('"price":')),
  size: mk(x('"size":')),
});
const PLAIN = literals((t) => t);
const ESCAPED = literals(esc);
let lit: Literals = PLAIN;

/** The last two entry hashes read (entries of one asset in a frame repeat theirs): known clean. */
let lastHash = '';
let prevHash = '';

function hashValue(): string | undefined {
  const e = strEnd();
  if (e < 0) return undefined;
  const a = pos + ql;
  pos = e + ql;
  const v = s.slice(a, e);
  if (v === lastHash) return lastHash; // checked when first seen
  if (v === prevHash) return prevHash;
  if (!clean(a, e)) return undefined;
  prevHash = lastHash;
  return (lastHash = v);
}

/** `"key":` at pos -> advances past it and returns true. */
function key(k: Lit): boolean {
  if (!isAt(k, pos)) return false;
  pos += k.n;
  return true;
}

/** A plain string value at pos -> the string (pos past it), or undefined. */
function str(): string | undefined {
  const e = strEnd();
  if (e < 0) return undefined;
  const v = s.slice(pos + ql, e);
  pos = e + ql;
  return v;
}

/** A side value at pos -> BUY / SELL (pos past it), or undefined. */
function sideValue(): Side | undefined {
  if (isAt(lit.buy, pos)) {
    pos += lit.buy.n;
    return 'BUY';
  }
  if (isAt(lit.sell, pos)) {
    pos += lit.sell.n;
    return 'SELL';
  }
  return undefined;
}

/**
 * The scanner's own recent ids: only ids it checked for control characters go in (the JSON.parse
 * path's cache may hold one decoded from an escape, which raw in a frame would be malformed).
 */
const scanAssets = new RecentIds();
const scanMarkets = new RecentIds();

/** A token or market id value at pos -> the cached equal string when there is one. */
function idValue(ids: RecentIds): string | undefined {
  const e = strEnd();
  if (e < 0) return undefined;
  const a = pos + ql;
  pos = e + ql;
  // slicing and comparing beats comparing in place (String#startsWith at an offset is slow in V8)
  const v = s.slice(a, e);
  const c = ids.find(v);
  if (c !== undefined) return c; // checked when first seen
  return clean(a, e) ? ids.remember(v) : undefined;
}

/**
 * No raw control character in text[a..b) (JSON.parse rejects one in a string) and no backslash
 * (a plain frame has none; in an escaped frame one would be an escape of the value's own).
 */
function clean(a: number, b: number): boolean {
  const t = s;
  for (let i = a; i < b; i++) {
    const c = t.charCodeAt(i);
    if (c < 32 || c === BACKSLASH) return false;
  }
  return true;
}

/** A string value kept as is (not parsed further) at pos: str() plus the control-character check. */
function cleanStr(): string | undefined {
  const e = strEnd();
  if (e < 0 || !clean(pos + ql, e)) return undefined;
  return str();
}

/** Units of the last priceValue / sizeValue read (-1 when parsePrice / parseSize would reject it). */
let num = -1;

/** A price string value at pos -> its string (num = its units), or undefined when not a string. */
function priceValue(): string | undefined {
  const e = strEnd();
  if (e < 0) return undefined;
  const a = pos + ql;
  pos = e + ql;
  const v = quickPrice(s, a, e);
  if (v < 0) {
    const t = s.slice(a, e);
    num = priceOrNeg(t);
    return t;
  }
  num = v;
  return s.slice(a, e);
}

/** A size string value at pos -> its string (num = its units), or undefined when not a string. */
function sizeValue(): string | undefined {
  const e = strEnd();
  if (e < 0) return undefined;
  const a = pos + ql;
  pos = e + ql;
  const v = quickSize(s, a, e);
  if (v < 0) {
    const t = s.slice(a, e);
    num = sizeOrNeg(t);
    return t;
  }
  num = v;
  return s.slice(a, e);
}

/** best_bid / best_ask at pos -> units; -2 for "" (absent), -1 invalid, -3 not a string. No string kept. */
function optPriceValue(): number {
  const e = strEnd();
  if (e < 0) return -3;
  const a = pos + ql;
  pos = e + ql;
  if (e === a) return -2;
  const v = quickPrice(s, a, e);
  return v >= 0 ? v : priceOrNeg(s.slice(a, e));
}

/** One price_changes entry object at pos, or undefined. */
function entry(): PriceChangeEntry | undefined {
  if (s.charCodeAt(pos) !== OPEN) return undefined;
  pos++;
  let seen = 0;
  let assetId = '';
  let side: Side = 'BUY';
  let priceStr = '';
  let sizeStr = '';
  let hash: string | undefined;
  let bestBid: number | undefined;
  let bestAsk: number | undefined;
  let price = 0;
  let size = 0;
  for (let i = 0; ; i++) {
    const k = keyIndex(lit.entryKeys, entryOrder, i);
    if (k < 0) return undefined;
    const bit = 1 << k; // E_* follow ENTRY_KEYS
    if (k === 0) {
      const v = idValue(scanAssets);
      if (v === undefined) return undefined;
      assetId = v;
    } else if (k === 1) {
      const v = priceValue();
      if (v === undefined || num < 0) return undefined;
      priceStr = v;
      price = num;
    } else if (k === 2) {
      const v = sizeValue();
      if (v === undefined || num < 0) return undefined;
      sizeStr = v;
      size = num;
    } else if (k === 3) {
      const v = sideValue();
      if (v === undefined) return undefined;
      side = v;
    } else if (k === 4) {
      const v = hashValue();
      if (v === undefined) return undefined;
      if (v !== '') hash = v; // "" is no hash, as in decode-market
    } else {
      const p = optPriceValue();
      if (p === -1 || p === -3) return undefined;
      if (p >= 0) {
        if (k === 5) bestBid = p;
        else bestAsk = p;
      }
    }
    if (seen & bit) return undefined; // JSON.parse keeps the last; rare enough to leave to it
    seen |= bit;
    const c = s.charCodeAt(pos++);
    if (c === CLOSE) break;
    if (c !== COMMA) return undefined;
  }
  if ((seen & E_REQUIRED) !== E_REQUIRED) return undefined;
  // the same fields in the same order as decode-market's entry()
  return { assetId, side, price, size, priceStr, sizeStr, hash, bestBid, bestAsk };
}

/** A book side's array of {"price","size"} levels at pos, or undefined. */
function levels(): WireLevel[] | undefined {
  if (s.charCodeAt(pos) !== OPEN_SQ) return undefined;
  pos++;
  const out: WireLevel[] = [];
  if (s.charCodeAt(pos) === CLOSE_SQ) {
    pos++;
    return out;
  }
  for (;;) {
    let priceStr: string | undefined;
    let sizeStr: string | undefined;
    let price = -1;
    let size = -1;
    if (s.charCodeAt(pos) !== OPEN) return undefined;
    pos++;
    for (let k = 0; k < 2; k++) {
      if (priceStr === undefined && key(lit.price)) {
        priceStr = priceValue();
        price = num;
      } else if (sizeStr === undefined && key(lit.size)) {
        sizeStr = sizeValue();
        size = num;
      } else return undefined;
      if (s.charCodeAt(pos++) !== (k === 0 ? COMMA : CLOSE)) return undefined;
    }
    if (priceStr === undefined || sizeStr === undefined || price < 0 || size < 0) return undefined;
    out.push({ price, size, priceStr, sizeStr });
    const c = s.charCodeAt(pos++);
    if (c === CLOSE_SQ) return out;
    if (c !== COMMA) return undefined;
  }
}

/** The price_changes array at pos, or undefined. */
function entries(): PriceChangeEntry[] | undefined {
  if (s.charCodeAt(pos) !== OPEN_SQ) return undefined;
  pos++;
  const out: PriceChangeEntry[] = [];
  if (s.charCodeAt(pos) === CLOSE_SQ) {
    pos++;
    return out;
  }
  for (;;) {
    const e = entry();
    if (e === undefined) return undefined;
    out.push(e);
    const c = s.charCodeAt(pos++);
    if (c === CLOSE_SQ) return out;
    if (c !== COMMA) return undefined;
  }
}

/**
 * The event of one compact price_change (current format) or last_trade_price frame, exactly as
 * the JSON.parse path decodes it; undefined when the frame is anything else or anything unusual.
 * Never throws.
 */
export function scanMarketFrame(frame: string): MarketEvent | undefined {
  // a backslash escape anywhere: JSON.parse decides (one native pass). Control characters are
  // checked in the strings kept as they are; every other string is parsed or compared exactly.
  if (frame.indexOf('\\') >= 0) return undefined;
  s = frame;
  pos = 0;
  end = frame.length;
  ql = 1;
  lit = PLAIN;
  try {
    return scan();
  } catch {
    return undefined; // a parser's typed error: let the JSON.parse path name it
  } finally {
    s = '';
  }
}

/**
 * The event of the frame whose JSON-escaped text is text[from, to) (the body of a recorder line's
 * "f" string), exactly as scanMarketFrame would give for the unescaped frame; undefined when that
 * body has any escape but \" (or a raw control character) or the frame is anything scanMarketFrame
 * declines. When it returns an event, the body is a valid JSON string body. Never throws.
 */
export function scanEscapedMarketFrame(text: string, from: number, to: number): MarketEvent | undefined {
  if (from >= to || to > text.length) return undefined;
  s = text;
  pos = from;
  end = to;
  ql = 2;
  lit = ESCAPED;
  try {
    return scan();
  } catch {
    return undefined;
  } finally {
    s = '';
  }
}

function scan(): MarketEvent | undefined {
  if (s.charCodeAt(pos) !== OPEN) return undefined;
  pos++;
  let seen = 0;
  let market = '';
  let assetId = '';
  let ts = '';
  let type = '';
  let changes: PriceChangeEntry[] | undefined;
  let priceStr = '';
  let sizeStr = '';
  let side: Side = 'BUY';
  let fee: string | undefined;
  let tx: string | undefined;
  let hash: string | undefined;
  let bids: WireLevel[] | undefined;
  let asks: WireLevel[] | undefined;
  let tick: string | undefined;
  let ltp: string | undefined;
  let mos: string | undefined;
  let negRisk: boolean | undefined;
  for (let i = 0; ; i++) {
    const k = keyIndex(lit.topKeys, topOrder, i);
    if (k < 0) return undefined;
    const bit = 1 << k; // K_* follow TOP_KEYS
    let ok = true;
    switch (k) {
      case 0: {
        const v = idValue(scanMarkets);
        if (v === undefined) return undefined;
        market = v;
        break;
      }
      case 1: {
        const v = idValue(scanAssets);
        if (v === undefined) return undefined;
        assetId = v;
        break;
      }
      case 2: {
        const v = str();
        if (v === undefined) return undefined;
        ts = v;
        break;
      }
      case 3: {
        const v = str();
        if (v === undefined) return undefined;
        type = v;
        break;
      }
      case 4:
        changes = entries();
        ok = changes !== undefined;
        break;
      case 5: {
        const v = str();
        if (v === undefined) return undefined;
        priceStr = v;
        break;
      }
      case 6: {
        const v = str();
        if (v === undefined) return undefined;
        sizeStr = v;
        break;
      }
      case 7: {
        const v = sideValue();
        if (v === undefined) return undefined;
        side = v;
        break;
      }
      case 8:
        fee = str();
        ok = fee !== undefined;
        break;
      case 9:
        tx = cleanStr();
        ok = tx !== undefined;
        break;
      case 10:
        hash = cleanStr();
        ok = hash !== undefined;
        break;
      case 11:
        bids = levels();
        ok = bids !== undefined;
        break;
      case 12:
        asks = levels();
        ok = asks !== undefined;
        break;
      case 13:
        tick = str();
        ok = tick !== undefined;
        break;
      case 14:
        ltp = cleanStr();
        ok = ltp !== undefined;
        break;
      case 15:
        mos = cleanStr();
        ok = mos !== undefined;
        break;
      default:
        if (key(TRUE)) negRisk = true;
        else if (key(FALSE)) negRisk = false;
        else return undefined;
    }
    if (!ok || seen & bit) return undefined;
    seen |= bit;
    const c = s.charCodeAt(pos++);
    if (c === CLOSE) break;
    if (c !== COMMA) return undefined;
  }
  if (pos !== end) return undefined;
  if (type === 'price_change') {
    if (seen !== PC_KEYS || changes === undefined) return undefined;
    const timestampMs = tsMs(ts);
    return { type: 'price_change', market, timestampMs, timestampStr: ts, changes, format: 'current' };
  }
  if (type === 'book') {
    if ((seen & BOOK_REQUIRED) !== BOOK_REQUIRED || (seen & ~BOOK_KEYS) !== 0 || bids === undefined || asks === undefined) return undefined;
    // the same fields in the same order as decode-market's decodeBook()
    const ev: BookEvent = { type: 'book', market, assetId, timestampMs: tsMs(ts), timestampStr: ts, hash: hash ?? '', bids, asks };
    if (tick !== undefined) {
      const t = priceOrNeg(tick);
      if (t < 0) return undefined;
      ev.tickSize = t;
      ev.tickSizeStr = tick;
    }
    if (mos !== undefined) ev.minOrderSizeStr = mos;
    if (negRisk !== undefined) ev.negRisk = negRisk;
    if (ltp !== undefined) ev.lastTradePriceStr = ltp;
    return ev;
  }
  if (type === 'last_trade_price') {
    if ((seen & LTP_REQUIRED) !== LTP_REQUIRED || (seen & ~LTP_KEYS) !== 0) return undefined;
    const feeN = fee === undefined || fee === '' ? 0 : digits(fee);
    const price = priceOrNeg(priceStr);
    const size = sizeOrNeg(sizeStr);
    if (feeN < 0 || price < 0 || size < 0) return undefined;
    const ev: MarketEvent = { type: 'last_trade_price', market, assetId, price, size, side, feeRateBps: feeN, timestampMs: toMs(ts, 'timestamp') };
    if (tx !== undefined) ev.transactionHash = tx;
    ev.priceStr = priceStr;
    return ev;
  }
  return undefined;
}

/** A short all-digit string's value (then Number() agrees); -1 for anything else. */
function digits(v: string): number {
  const n = v.length;
  if (n > 6) return -1;
  let x = 0;
  for (let i = 0; i < n; i++) {
    const c = v.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    x = x * 10 + c;
  }
  return x;
}
