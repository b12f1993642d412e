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
  private buf: Buffer = Buffer.alloc(0);
  private from = 0;
  private end = 0;
  prevT = 0;
  /** Takes the complete lines of `buf` (up to its last newline); returns where they end. */
  load(buf: Buffer): number {
    this.buf = buf;
    this.from = 0;
    this.end = buf.lastIndexOf(NL) + 1;
    return this.end;
  }
  /** Takes all of `buf` as the last line(s) of the file. */
  loadAll(buf: Buffer): void {
    this.buf = buf;
    this.from = 0;
    this.end = buf.length;
  }
  next(): ReplayRecord | undefined {
    while (this.from < this.end) {
      let nl = this.buf.indexOf(NL, this.from);
      if (nl < 0 || nl >= this.end) nl = this.end;
      const r = parseRecordLine(this.buf.toString('utf8', this.from, nl), this.prevT);
      this.from = nl + 1;
      if (r === null) continue;
      this.prevT = r.t;
      return r;
    }
    return undefined;
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
  let rest: Buffer | undefined; // the unfinished last line of the previous chunk
  try {
    try {
      for await (const chunk of input) {
        const buf = rest ? Buffer.concat([rest, chunk]) : chunk;
        const end = lines.load(buf);
        rest = end < buf.length ? buf.subarray(end) : undefined;
        if (end > 0) yield lines;
      }
    } catch (e) {
      if (!gunzip) throw e;
      onError?.(e as Error); // end with what was decompressed
    }
    if (rest) {
      lines.loadAll(rest);
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
