// The venue's book hash (wire-formats.md section 5): SHA-1 over compact JSON with a fixed key
// order and `hash` set to "". Levels are hashed as their exact wire strings, bids ascending and
// asks descending (best last). Strings are built by hand: the ids and numbers are plain ASCII
// from the wire, so JSON escaping is needed only for the ids, which we still escape defensively.
//
// Two fast paths produce exactly what SHA-1 over the plain payload string would:
// - BookHasher (one per token) hashes the payload where DenseBook keeps its levels' text, laid out
//   as the payload's middle: it writes the head (cached as bytes until a hashed field changes), the
//   timestamp digit by digit and the tail around the levels, then one crypto.hash over the bytes.
// - sha1Hex(bookHashPayloadFromText(...)) recognises the payload it was just given by
//   bookHashPayloadFromText and writes it piece by piece (cached head and tail bytes, flat side
//   texts) instead of flattening and re-encoding the concatenated string.
import * as crypto from 'node:crypto';
import { HEAD_ROOM, type DenseBook } from './book.js';

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

/** Whether `s` is 1..20 ASCII digits (a wire timestamp): then str(s) is `"s"`. */
function isDigits(s: string): boolean {
  const n = s.length;
  if (n === 0 || n > 20) return false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

function levels(ls: ReadonlyArray<readonly [string, string]>): string {
  let out = '[';
  for (let i = 0; i < ls.length; i++) {
    if (i) out += ',';
    out += `{"price":${str(ls[i][0])},"size":${str(ls[i][1])}}`;
  }
  return out + ']';
}

/** The fields of the payload other than the levels. */
export type HashMeta = Omit<HashInput, 'bids' | 'asks'>;

// ---- the payload's fixed parts, as text and as bytes ----

/** `{"market":M,"asset_id":A,"timestamp":` */
const headText = (market: string, assetId: string): string => `{"market":${str(market)},"asset_id":${str(assetId)},"timestamp":`;
/** `,"min_order_size":..,"last_trade_price":L}` */
const tailText = (mos: string, tick: string, neg: boolean, ltp: string): string =>
  `,"min_order_size":${str(mos)},"tick_size":${str(tick)},"neg_risk":${neg ? 'true' : 'false'},"last_trade_price":${str(ltp)}}`;
const HASH_BIDS = ',"hash":"","bids":';
const ASKS = ',"asks":';
const HASH_BIDS_BYTES = Buffer.from(HASH_BIDS, 'latin1');
const ASKS_BYTES = Buffer.from(ASKS, 'latin1');
const HASH_BIDS_OPEN = Buffer.from(HASH_BIDS + '[', 'latin1');
const CLOSE_ASKS_OPEN = Buffer.from(']' + ASKS + '[', 'latin1');

interface Head {
  market: string;
  assetId: string;
  text: string;
  bytes: Buffer;
}
interface Tail {
  mos: string;
  tick: string;
  neg: boolean;
  ltp: string;
  text: string;
  bytes: Buffer;
}

/** The last few heads and tails made (a binary market's two tokens alternate; ltp moves now and then). */
const CACHED = 8;
const heads: Head[] = [];
const tails: Tail[] = [];
let nextHead = 0;
let nextTail = 0;

function headOf(market: string, assetId: string): Head {
  for (let i = 0; i < heads.length; i++) {
    const h = heads[i];
    if (h.assetId === assetId && h.market === market) return h;
  }
  const text = headText(market, assetId);
  const h: Head = { market, assetId, text, bytes: Buffer.from(text, 'utf8') };
  heads[nextHead] = h;
  nextHead = (nextHead + 1) % CACHED;
  return h;
}

function tailOf(mos: string, tick: string, neg: boolean, ltp: string): Tail {
  for (let i = 0; i < tails.length; i++) {
    const t = tails[i];
    if (t.ltp === ltp && t.mos === mos && t.tick === tick && t.neg === neg) return t;
  }
  const text = tailText(mos, tick, neg, ltp);
  const t: Tail = { mos, tick, neg, ltp, text, bytes: Buffer.from(text, 'utf8') };
  tails[nextTail] = t;
  nextTail = (nextTail + 1) % CACHED;
  return t;
}

// ---- hashing bytes ----

// one-shot crypto.hash (Node >= 20.12) avoids a Hash object per call; createHash otherwise
const oneShot = (crypto as { hash?: (alg: string, data: string | Uint8Array, enc: 'hex') => string }).hash;
function sha1OfBytes(b: Uint8Array): string {
  return oneShot ? oneShot('sha1', b, 'hex') : crypto.createHash('sha1').update(b).digest('hex');
}

/** The reused output buffer of every fast path (hashing is synchronous: never shared mid-use). */
let scratch = Buffer.allocUnsafe(16_384);
function room(n: number): Buffer {
  if (n > scratch.length) scratch = Buffer.allocUnsafe(Math.max(n, scratch.length * 2));
  return scratch;
}

/** Writes `"ts"` at `o` (the digits byte by byte; any other string JSON-escaped, UTF-8); returns the end. */
function writeTimestamp(b: Buffer, o: number, ts: string): number {
  if (!isDigits(ts)) return o + b.write(str(ts), o, 'utf8');
  b[o++] = 34;
  for (let i = 0; i < ts.length; i++) b[o++] = ts.charCodeAt(i);
  b[o++] = 34;
  return o;
}

/** SHA-1 hex of scratch[0, n). */
function sha1OfScratch(n: number): string {
  return sha1OfBytes(new Uint8Array(scratch.buffer, scratch.byteOffset, n));
}

// ---- the payload as a string ----

/**
 * The last payload bookHashPayloadFromText returned and its pieces: sha1Hex of that very string
 * writes the pieces instead of the concatenation (same bytes; see sha1Hex).
 */
let lastPayload: string | undefined = undefined;
let lastHead: Head | undefined = undefined;
let lastTs = '';
let lastBids = '';
let lastAsks = '';
let lastTail: Tail | undefined = undefined;

/** The payload from already serialised level text (DenseBook.sideText). */
export function bookHashPayloadFromText(m: HashMeta, bidsText: string, asksText: string): string {
  const head = headOf(m.market, m.assetId);
  const tail = tailOf(m.minOrderSize, m.tickSize, m.negRisk, m.lastTradePrice);
  const ts = m.timestamp;
  const p = head.text + (isDigits(ts) ? '"' + ts + '"' : str(ts)) + HASH_BIDS + bidsText + ASKS + asksText + tail.text;
  lastPayload = p;
  lastHead = head;
  lastTs = ts;
  lastBids = bidsText;
  lastAsks = asksText;
  lastTail = tail;
  return p;
}

/**
 * SHA-1 hex of a payload string (UTF-8, as crypto.hash encodes a string). A payload is a
 * concatenation; encoding it whole makes V8 flatten it first (a new ~3 KB string per check). The
 * payload bookHashPayloadFromText just returned is instead written piece by piece into a reused
 * buffer: every fixed piece starts and ends with ASCII, so the pieces' UTF-8 bytes are the
 * whole's. Any other string is encoded whole.
 */
export function sha1Hex(payload: string): string {
  if (payload === lastPayload && lastHead !== undefined && lastTail !== undefined) {
    const h = lastHead.bytes;
    const t = lastTail.bytes;
    const bids = lastBids;
    const asks = lastAsks;
    const b = room(h.length + t.length + 3 * (lastTs.length + bids.length + asks.length) + 32);
    b.set(h, 0);
    let o = writeTimestamp(b, h.length, lastTs);
    b.set(HASH_BIDS_BYTES, o);
    o += HASH_BIDS_BYTES.length;
    o += b.write(bids, o, 'utf8');
    b.set(ASKS_BYTES, o);
    o += ASKS_BYTES.length;
    o += b.write(asks, o, 'utf8');
    b.set(t, o);
    return sha1OfScratch(o + t.length);
  }
  // at most 3 bytes per UTF-16 unit
  const b = room(payload.length * 3);
  return sha1OfScratch(b.write(payload, 0, 'utf8'));
}

export function bookHashPayload(b: HashInput): string {
  return bookHashPayloadFromText(b, levels(b.bids), levels(b.asks));
}

export function bookHash(b: HashInput): string {
  return sha1Hex(bookHashPayload(b));
}

/**
 * The venue hash of one token's DenseBook, hashed where the book keeps its levels' text
 * (DenseBook.pay: head room, bids, `],"asks":`, asks, free room). Per check it writes the
 * timestamp digits into the head (the rest of the head stays written until a hashed field, the
 * timestamp's length, whether the bids are empty, or the hasher writing there changes), a bracket
 * over each side's first comma, the tail after the asks; one SHA-1 over the bytes as they lie,
 * then the commas go back. A head too long for the room is assembled in a buffer of the hasher's
 * own instead. Same value as sha1Hex(bookHashPayloadFromText(m, book.sideText('BUY'), book.sideText('SELL'))).
 */
export class BookHasher {
  private head: Head | undefined = undefined;
  private tail: Tail | undefined = undefined;
  private buf: Buffer = Buffer.alloc(0);
  /** What this hasher last wrote into a book's head room (the book keeps the tag of its last writer). */
  private tag: { head: Head; tsLen: number; bidsEmpty: boolean } | undefined = undefined;

  hash(m: HashMeta, book: DenseBook): string {
    const ts = m.timestamp;
    if (!isDigits(ts)) return sha1Hex(bookHashPayloadFromText(m, book.sideText('BUY'), book.sideText('SELL')));
    let h = this.head;
    if (h === undefined || h.assetId !== m.assetId || h.market !== m.market) h = this.head = headOf(m.market, m.assetId);
    let t = this.tail;
    if (t === undefined || t.ltp !== m.lastTradePrice || t.mos !== m.minOrderSize || t.tick !== m.tickSize || t.neg !== m.negRisk) {
      t = this.tail = tailOf(m.minOrderSize, m.tickSize, m.negRisk, m.lastTradePrice);
    }
    const hb = h.bytes;
    const tb = t.bytes;
    const n = ts.length;
    const b = book.payRoom(tb.length + 2);
    const bidsEmpty = book.bids.len === 0;
    // the head ends right before the bids' first byte (its comma, bracketed below), or with its own [ when there are none
    const headLen = hb.length + n + 2 + HASH_BIDS_BYTES.length + (bidsEmpty ? 1 : 0);
    if (headLen > HEAD_ROOM) return this.assemble(hb, ts, tb, book);
    const start = HEAD_ROOM - headLen;
    const tsAt = start + hb.length + 1;
    let tag = this.tag;
    if (tag === undefined || tag.head !== h || tag.tsLen !== n || tag.bidsEmpty !== bidsEmpty) tag = this.tag = { head: h, tsLen: n, bidsEmpty };
    if (book.headTag !== tag) {
      b.set(hb, start);
      b[tsAt - 1] = 34; // "
      b[tsAt + n] = 34;
      b.set(HASH_BIDS_BYTES, tsAt + n + 1);
      if (bidsEmpty) b[HEAD_ROOM - 1] = 91; // [
      book.headTag = tag;
    }
    for (let i = 0; i < n; i++) b[tsAt + i] = ts.charCodeAt(i);
    const a = book.asks.base;
    const al = book.asks.len;
    if (!bidsEmpty) b[HEAD_ROOM] = 91; // [ over the first bid's comma
    b[a] = 91; // over the first ask's comma, or the free byte after `],"asks":`
    let o = al > 0 ? a + al : a + 1;
    b[o++] = 93; // ]
    b.set(tb, o);
    o += tb.length;
    const hex = sha1OfBytes(new Uint8Array(b.buffer, b.byteOffset + start, o - start));
    if (!bidsEmpty) b[HEAD_ROOM] = 44;
    if (al > 0) b[a] = 44;
    return hex;
  }

  /** The payload assembled in the hasher's own buffer (a head longer than the book's room). */
  private assemble(hb: Buffer, ts: string, tb: Buffer, book: DenseBook): string {
    const n = ts.length;
    const tsAt = hb.length + 1;
    const bidsAt = tsAt + n + 1 + HASH_BIDS_OPEN.length;
    const need = bidsAt + book.sideLength('BUY') + CLOSE_ASKS_OPEN.length + book.sideLength('SELL') + 1 + tb.length;
    if (need > this.buf.length) this.buf = Buffer.allocUnsafeSlow(need + (need >> 1));
    const b = this.buf;
    b.set(hb, 0);
    b[tsAt - 1] = 34;
    for (let i = 0; i < n; i++) b[tsAt + i] = ts.charCodeAt(i);
    b[tsAt + n] = 34;
    b.set(HASH_BIDS_OPEN, tsAt + n + 1);
    let o = book.copySide('BUY', b, bidsAt);
    b.set(CLOSE_ASKS_OPEN, o);
    o = book.copySide('SELL', b, o + CLOSE_ASKS_OPEN.length);
    b[o++] = 93; // ]
    b.set(tb, o);
    return sha1OfBytes(new Uint8Array(b.buffer, b.byteOffset, o + tb.length));
  }
}

/** One-off BookHasher (tools and tests; hot paths keep one per token). */
export function hashDenseBook(m: HashMeta, book: DenseBook): string {
  return new BookHasher().hash(m, book);
}
