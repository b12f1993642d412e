// Streams a recording back as raw frames, so live and replay share one decoder. Reads plain or
// gzipped files of any size line by line (constant memory). Accepts the recorder's lines in both
// versions (recorder.ts): version 2, the frame embedded as is, is read by its position in the
// line (the header scanned by hand, the frame sliced out: no JSON.parse, no unescaping, so each
// line is parsed once, by the decoder); version 1, the frame as a JSON string, as before. Also
// plain captures where each line is the raw frame itself (e.g. polytope's
// market_39.jsonl; `PONG` lines included, empty lines skipped). Raw lines get synthetic receive
// times: the frame's own `timestamp` when it has one, never going backwards, else the previous time.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { unixToMs } from '../core/units.js';

export interface ReplayRecord {
  /** Receive time (ms). */
  t: number;
  /** Connection epoch. */
  e: number;
  /** Channel: market | user | price. */
  k: string;
  /** The raw frame text. */
  f: string;
}

/**
 * Whether `line` is a recorder line of the market channel in the recorder's own shape,
 * `{"t":<int>,"e":<int>,"k":"market","f":"<body>"}` (integers of at most 15 digits without a
 * leading zero, an optional \r after): a version-1 line, which tells the file's format (keepLastLine).
 * Whether the body is a valid JSON string body is not checked here.
 */
function recorderMarketLine(line: string): boolean {
  let n = line.length;
  if (n > 0 && line.charCodeAt(n - 1) === 13) n--;
  if (line.slice(0, 5) !== '{"t":') return false;
  let i = uint(line, 5);
  if (i < 0) return false;
  if (line.slice(i, i + 5) !== ',"e":') return false;
  i = uint(line, i + 5);
  if (i < 0) return false;
  if (line.slice(i, i + K_MARKET_F.length) !== K_MARKET_F) return false;
  const from = i + K_MARKET_F.length;
  const to = n - 2;
  return to >= from && line.charCodeAt(to) === 34 && line.charCodeAt(to + 1) === 125;
}
const K_MARKET_F = ',"k":"market","f":"';
let num = 0;

/** A JSON integer of 1..15 digits at line[i..) (value in num): the index after it, -1 for anything else. */
function uint(line: string, i: number): number {
  const st = i;
  let v = 0;
  for (; i < line.length && i - st < 16; i++) {
    const c = line.charCodeAt(i);
    if (c < 48 || c > 57) break;
    v = v * 10 + (c - 48);
  }
  const d = i - st;
  if (d === 0 || d > 15 || (d > 1 && line.charCodeAt(st) === 48)) return -1;
  num = v;
  return i;
}

/**
 * Whether `line` (no trailing \r) is a version-2 recorder line,
 * `{"t":<int>,"e":<int>,"k":"<[a-z0-9_-]+>","f":<frame>}` with the frame starting with { or [ and
 * ending with } or ]; then t/e are in rt/re, the channel in rk, the frame is line[rFrom, n - 1).
 * The frame itself is not checked: the decoder reads it as it would read it live.
 */
function rawRecorderLine(line: string): boolean {
  const n = line.length;
  if (n < 20 || line.charCodeAt(n - 1) !== 125) return false;
  const z = line.charCodeAt(n - 2);
  if (z !== 125 && z !== 93) return false;
  if (line.slice(0, 5) !== '{"t":') return false;
  let i = uint(line, 5);
  if (i < 0) return false;
  rt = num;
  if (line.slice(i, i + 5) !== ',"e":') return false;
  i = uint(line, i + 5);
  if (i < 0) return false;
  re = num;
  if (line.slice(i, i + K_MARKET_RAW.length) === K_MARKET_RAW) {
    rk = 'market';
    i += K_MARKET_RAW.length;
  } else {
    if (line.slice(i, i + 6) !== ',"k":"') return false;
    const a = i + 6;
    for (i = a; i < n; i++) {
      const c = line.charCodeAt(i);
      if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95 || c === 45)) break;
    }
    if (i === a || line.slice(i, i + 6) !== '","f":') return false;
    rk = line.slice(a, i);
    i += 6;
  }
  const c = line.charCodeAt(i);
  if ((c !== 123 && c !== 91) || i > n - 3) return false;
  rFrom = i;
  return true;
}
const K_MARKET_RAW = ',"k":"market","f":';
let rt = 0;
let re = 0;
let rk = '';
let rFrom = 0;

async function isGzip(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const b = Buffer.alloc(2);
    const { bytesRead } = await fh.read(b, 0, 2, 0);
    return bytesRead === 2 && b[0] === 0x1f && b[1] === 0x8b;
  } finally {
    await fh.close();
  }
}

const TS = /"timestamp":"?(\d{10,16})/;

/** Parses one line: a recorder line, or a raw frame (then t/e/k are synthetic). Null for an empty line. */
export function parseRecordLine(line: string, prevT: number): ReplayRecord | null {
  if (line.length === 0 || line === '\r') return null;
  if (line.endsWith('\r')) line = line.slice(0, -1);
  if (line.startsWith('{"t":')) {
    if (rawRecorderLine(line)) return { t: rt, e: re, k: rk, f: line.slice(rFrom, line.length - 1) };
    try {
      const o = JSON.parse(line) as { t?: unknown; e?: unknown; k?: unknown; f?: unknown };
      if (typeof o.t === 'number' && (typeof o.f === 'string' || (typeof o.f === 'object' && o.f !== null))) {
        // a frame embedded as JSON but not in the recorder's own spelling (a hand-edited line): re-serialized
        const f = typeof o.f === 'string' ? o.f : JSON.stringify(o.f);
        return { t: o.t, e: typeof o.e === 'number' ? o.e : 0, k: typeof o.k === 'string' ? o.k : 'market', f };
      }
    } catch {
      // not a recorder line: fall through and hand it on as a raw frame (the decoder counts it)
    }
  }
  const m = TS.exec(line);
  // seconds, ms or microseconds, as the venue's messages give them: ms
  const ts = m ? unixToMs(m[1]) : prevT;
  return { t: ts > prevT ? ts : prevT, e: 1, k: 'market', f: line };
}

const CHUNK = 1 << 20;
const NL = 0x0a;

/**
 * The lines of one chunk, parsed one at a time by next() (undefined at its end): only the raw
 * chunk stays alive while a consumer works through it, so each line's strings die young. Valid
 * until the reader is resumed.
 */
export interface RecordBatch {
  next(): ReplayRecord | undefined;
  /**
   * Like next(), for a reader that is done with each record before the next: a version-2 line
   * comes back as one ReplayRecord the batch reuses (valid until its next call), its frame sliced
   * from the line (nothing parsed, nothing copied); any other as next() makes it.
   */
  nextReused(): ReplayRecord | undefined;
  /** The bytes in the file of the line the last record came from, its newline included (a progress display). */
  readonly lineBytes: number;
}

class ChunkLines implements RecordBatch {
  /** A line that began in the previous chunk, completed (without its newline); parsed first. */
  private head: Buffer | undefined;
  private buf: Buffer = Buffer.alloc(0);
  private from = 0;
  private end = 0;
  prevT = 0;
  lineBytes = 0;
  /** Takes `head` (if any), then the lines of buf[from, end) (end just past a newline, or the file's end). */
  load(head: Buffer | undefined, buf: Buffer, from: number, end: number): void {
    this.head = head;
    this.buf = buf;
    this.from = from;
    this.end = end;
  }
  private readonly reused: ReplayRecord = { t: 0, e: 0, k: '', f: '' };
  next(): ReplayRecord | undefined {
    for (let line = this.line(); line !== undefined; line = this.line()) {
      const r = this.record(line);
      if (r !== undefined) return r;
    }
    return undefined;
  }
  nextReused(): ReplayRecord | undefined {
    for (let line = this.line(); line !== undefined; line = this.line()) {
      if (line.length > 0 && line.charCodeAt(line.length - 1) === 13) line = line.slice(0, -1);
      if (rawRecorderLine(line)) {
        const r = this.reused;
        r.t = rt;
        r.e = re;
        r.k = rk;
        r.f = line.slice(rFrom, line.length - 1);
        this.prevT = rt;
        return r;
      }
      const r = this.record(line);
      if (r !== undefined) return r;
    }
    return undefined;
  }
  /** The next line's text (the spanning head first), undefined at the batch's end. */
  private line(): string | undefined {
    if (this.head !== undefined) {
      const h = this.head;
      this.head = undefined;
      this.lineBytes = h.length + 1;
      return h.toString('utf8', 0, h.length);
    }
    if (this.from >= this.end) return undefined;
    let nl = this.buf.indexOf(NL, this.from);
    if (nl < 0 || nl >= this.end) nl = this.end;
    const line = this.buf.toString('utf8', this.from, nl);
    this.lineBytes = nl + 1 - this.from;
    this.from = nl + 1;
    return line;
  }
  private record(line: string): ReplayRecord | undefined {
    const r = parseRecordLine(line, this.prevT);
    if (r === null) return undefined;
    this.prevT = r.t;
    return r;
  }
}

/**
 * The frames of one file (plain or gzip, detected by magic bytes) in batches, one per 1 MiB chunk,
 * lines split by hand (no readline, no promise per line). A consumer that must not let other work
 * run between frames (the backtest) loops over a batch synchronously. A gzip file cut short (a
 * recorder killed mid-write) yields every complete line, then reports the error to `onError`
 * instead of throwing. A last line without a newline that a cut left unfinished is not yielded
 * (keepLastLine): a file reads back up to its last complete line, and the line left out is told to
 * `onCutLine` (a plain file's; in a gzip file cut short it is part of the read error).
 */
export async function* readRecordingBatches(path: string, onError?: (e: Error) => void, onCutLine?: (line: string) => void): AsyncGenerator<RecordBatch> {
  const gz = await isGzip(path);
  const file = createReadStream(path, { highWaterMark: CHUNK });
  const gunzip = gz ? createGunzip({ chunkSize: CHUNK }) : undefined;
  const input: AsyncIterable<Buffer> = gunzip ? file.pipe(gunzip) : file;
  const lines = new ChunkLines();
  let rest: Buffer | undefined; // the unfinished last line of the previous chunk(s)
  let prev: Buffer | undefined; // the last complete non-empty line: whose format the file is in
  let cut = false; // gunzip stopped early: the text ends where the data broke off
  try {
    try {
      for await (const chunk of input) {
        // only the line spanning two chunks is copied, never the whole chunk
        let head: Buffer | undefined;
        let from = 0;
        if (rest !== undefined) {
          const nl = chunk.indexOf(NL);
          if (nl < 0) {
            rest = Buffer.concat([rest, chunk]);
            continue;
          }
          head = Buffer.concat([rest, chunk.subarray(0, nl)]);
          from = nl + 1;
        }
        const end = Math.max(from, chunk.lastIndexOf(NL) + 1);
        rest = end < chunk.length ? chunk.subarray(end) : undefined;
        prev = lastLine(chunk, from, end) ?? (head && lastLine(head, 0, head.length + 1)) ?? prev;
        lines.load(head, chunk, from, end);
        yield lines;
      }
    } catch (e) {
      if (!gunzip) throw e;
      cut = true;
      onError?.(e as Error); // end with what was decompressed
    }
    if (rest !== undefined) {
      if (keepLastLine(rest, prev, cut)) {
        lines.load(undefined, rest, 0, rest.length);
        yield lines;
      } else if (!cut && rest.toString('latin1').trim() !== '') onCutLine?.(rest.toString('utf8'));
    }
  } finally {
    file.destroy();
    gunzip?.destroy();
  }
}

/** The last non-empty line of buf[from, end) (end: just past a newline, or past a line's end), without \n and \r. */
function lastLine(buf: Buffer, from: number, end: number): Buffer | undefined {
  for (let e = end - 1; e >= from;) {
    const s = e > from ? buf.lastIndexOf(NL, e - 1) : -1;
    const st = s >= from ? s + 1 : from;
    const z = e > st && buf[e - 1] === 13 ? e - 1 : e;
    if (z > st) return buf.subarray(st, z);
    e = st - 1;
  }
  return undefined;
}

/**
 * Whether a last line that has no newline is read. The recorder ends every line with one, so in
 * its format (the line before is a recorder line, or there is none and this one starts as one) a
 * line without it was cut (a killed recorder, a full disk), as is any line gunzip broke off: read
 * only when it is a whole record. A raw capture's last line (a hand-made file) is read as it is.
 */
function keepLastLine(rest: Buffer, prev: Buffer | undefined, cut: boolean): boolean {
  const line = rest.toString('utf8').replace(/\r$/, '');
  if (wholeRecord(line)) return true;
  if (cut) return false;
  if (prev === undefined) return !line.startsWith('{"t":');
  const p = prev.toString('utf8');
  return !(rawRecorderLine(p) || recorderMarketLine(p) || wholeRecord(p));
}

/** A recorder line (either version, any spelling parseRecordLine takes as one) whose JSON is whole. */
function wholeRecord(line: string): boolean {
  if (!line.startsWith('{"t":')) return false;
  try {
    const o = JSON.parse(line) as { t?: unknown; f?: unknown };
    return typeof o.t === 'number' && (typeof o.f === 'string' || (typeof o.f === 'object' && o.f !== null));
  } catch {
    return false;
  }
}

/** Async iterator over the frames of one file, one by one (see readRecordingBatches). */
export async function* readRecording(path: string, onError?: (e: Error) => void, onCutLine?: (line: string) => void): AsyncGenerator<ReplayRecord> {
  for await (const batch of readRecordingBatches(path, onError, onCutLine)) {
    for (let r = batch.next(); r !== undefined; r = batch.next()) yield r;
  }
}

/** Frames of several files in order (a rotated recording). */
export async function* readRecordings(paths: readonly string[], onError?: (e: Error) => void): AsyncGenerator<ReplayRecord> {
  for (const p of paths) yield* readRecording(p, onError);
}
