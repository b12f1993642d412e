// Streams a recording back as raw frames, so live and replay share one decoder. Reads plain or
// gzipped files of any size line by line (constant memory). Accepts both the recorder's lines
// ({t,e,k,f}) and plain captures where each line is the raw frame itself (e.g. polytope's
// market_39.jsonl; `PONG` lines included, empty lines skipped). Raw lines get synthetic receive
// times: the frame's own `timestamp` when it has one, never going backwards, else the previous time.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';

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
    try {
      const o = JSON.parse(line) as Partial<ReplayRecord>;
      if (typeof o.f === 'string' && typeof o.t === 'number') {
        return { t: o.t, e: typeof o.e === 'number' ? o.e : 0, k: typeof o.k === 'string' ? o.k : 'market', f: o.f };
      }
    } catch {
      // not a recorder line: fall through and hand it on as a raw frame (the decoder counts it)
    }
  }
  const m = TS.exec(line);
  const ts = m ? Number(m[1]) : prevT;
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
}

class ChunkLines implements RecordBatch {
  /** A line that began in the previous chunk, completed (without its newline); parsed first. */
  private head: Buffer | undefined;
  private buf: Buffer = Buffer.alloc(0);
  private from = 0;
  private end = 0;
  prevT = 0;
  /** Takes `head` (if any), then the lines of buf[from, end) (end just past a newline, or the file's end). */
  load(head: Buffer | undefined, buf: Buffer, from: number, end: number): void {
    this.head = head;
    this.buf = buf;
    this.from = from;
    this.end = end;
  }
  next(): ReplayRecord | undefined {
    if (this.head !== undefined) {
      const h = this.head;
      this.head = undefined;
      const r = this.take(h, 0, h.length);
      if (r !== undefined) return r;
    }
    while (this.from < this.end) {
      let nl = this.buf.indexOf(NL, this.from);
      if (nl < 0 || nl >= this.end) nl = this.end;
      const r = this.take(this.buf, this.from, nl);
      this.from = nl + 1;
      if (r !== undefined) return r;
    }
    return undefined;
  }
  private take(buf: Buffer, from: number, to: number): ReplayRecord | undefined {
    const r = parseRecordLine(buf.toString('utf8', from, to), this.prevT);
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
 * instead of throwing.
 */
export async function* readRecordingBatches(path: string, onError?: (e: Error) => void): AsyncGenerator<RecordBatch> {
  const gz = await isGzip(path);
  const file = createReadStream(path, { highWaterMark: CHUNK });
  const gunzip = gz ? createGunzip({ chunkSize: CHUNK }) : undefined;
  const input: AsyncIterable<Buffer> = gunzip ? file.pipe(gunzip) : file;
  const lines = new ChunkLines();
  let rest: Buffer | undefined; // the unfinished last line of the previous chunk(s)
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
        lines.load(head, chunk, from, end);
        yield lines;
      }
    } catch (e) {
      if (!gunzip) throw e;
      onError?.(e as Error); // end with what was decompressed
    }
    if (rest !== undefined) {
      lines.load(undefined, rest, 0, rest.length);
      yield lines;
    }
  } finally {
    file.destroy();
    gunzip?.destroy();
  }
}

/** Async iterator over the frames of one file, one by one (see readRecordingBatches). */
export async function* readRecording(path: string, onError?: (e: Error) => void): AsyncGenerator<ReplayRecord> {
  for await (const batch of readRecordingBatches(path, onError)) {
    for (let r = batch.next(); r !== undefined; r = batch.next()) yield r;
  }
}

/** Frames of several files in order (a rotated recording). */
export async function* readRecordings(paths: readonly string[], onError?: (e: Error) => void): AsyncGenerator<ReplayRecord> {
  for (const p of paths) yield* readRecording(p, onError);
}
