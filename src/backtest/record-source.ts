// Where a backtest's records come from: recordings read and their market frames decoded, chunk by
// chunk (one chunk per 1 MiB the reader takes). Either here, on the backtest's own thread, or in a
// reader thread (reader-thread.ts) that does the reading and decoding while this thread runs the
// engine: the same records and events either way, in the same chunks, so results cannot differ.
import { MessageChannel, Worker, receiveMessageOnPort } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import type { MarketEvent } from '../core/events.js';
import { DecodeStats } from '../feed/decode-stats.js';
import { decodeMarketFrame, RejectedTokens } from '../feed/decode-market.js';
import { META_CHANNEL, PRICES_CHANNEL } from '../feed/channels.js';
import { readRecordingBatches } from '../feed/replay.js';
import type { EncodedEvents } from '../feed/event-codec.js';
import { EventDecoder } from '../feed/event-decoder.js';
import type { EventEncoder } from '../feed/event-encoder.js';

export const KIND_MARKET = 0;
export const KIND_PRICE = 1;
export const KIND_OTHER = 2;
/** A market's metadata line (backtest/market-meta-line.ts), its frame in `f`. */
export const KIND_META = 4;
/** On the thread boundary only: a market record with rejected price_change tokens after its events (read back as KIND_MARKET). */
const KIND_MARKET_REJECTED = 3;

/** One record; the chunk reuses the object (valid until its next call). */
export interface SourcedRecord {
  /** Index of its file in the list. */
  file: number;
  t: number;
  e: number;
  kind: number;
  /** Its line's bytes in the file, newline included (progress display). */
  bytes: number;
  /** The frame text of a price-stream or metadata record ('' otherwise). */
  f: string;
  /** The decoded events of a market record (empty otherwise). */
  events: MarketEvent[];
  /** The tokens of its rejected price_change messages (their books missed an update; empty otherwise). */
  rejected: RejectedTokens;
}

export interface RecordChunk {
  next(): SourcedRecord | undefined;
}

function emptyRecord(): SourcedRecord {
  return { file: 0, t: 0, e: 0, kind: KIND_OTHER, bytes: 0, f: '', events: [], rejected: new RejectedTokens() };
}

/** A recording that could not be read to its end (a corrupt or truncated gzip): the rest of it was skipped. */
export interface ReadError {
  /** The file, as given. */
  file: string;
  /** What stopped the read (the gunzip error). */
  message: string;
}

/** What a source is asked for beside the records. */
export interface SourceOptions {
  /** Each record's size in the file (a progress display); 0 when not asked, which saves a pass over each frame. */
  bytes?: boolean;
  /**
   * Told when a file could not be read to its end: its records up to there came as usual and the
   * next file follows, so without this the loss would pass unnoticed.
   */
  onReadError?: (e: ReadError) => void;
}

/** The recordings' chunks, read and decoded on this thread (decode counts in `stats`). */
export async function* inlineRecords(paths: readonly string[], stats: DecodeStats, o: SourceOptions = {}): AsyncGenerator<RecordChunk> {
  const bytes = o.bytes === true;
  const out = emptyRecord();
  for (let file = 0; file < paths.length; file++) {
    const path = paths[file];
    const onError = o.onReadError && ((e: Error): void => o.onReadError?.({ file: path, message: e.message }));
    // a plain file ending inside a line (a killed recorder): counted and logged as a reject, not dropped in silence
    const onCutLine = (line: string): void => stats.reject('cut_last_line', line.length > 200 ? line.slice(0, 200) : line);
    for await (const batch of readRecordingBatches(path, onError, onCutLine)) {
      yield {
        next(): SourcedRecord | undefined {
          const rec = batch.nextReused();
          if (rec === undefined) return undefined;
          out.file = file;
          out.t = rec.t;
          out.e = rec.e;
          out.f = '';
          out.events.length = 0;
          if (!out.rejected.empty()) out.rejected.clear();
          out.bytes = bytes ? batch.lineBytes : 0;
          if (rec.k === 'market') {
            out.kind = KIND_MARKET;
            decodeMarketFrame(rec.f, out.events, stats, out.rejected);
          } else if (rec.k === PRICES_CHANNEL) {
            out.kind = KIND_PRICE;
            out.f = rec.f;
          } else if (rec.k === META_CHANNEL) {
            out.kind = KIND_META;
            out.f = rec.f;
          } else out.kind = KIND_OTHER;
          return out;
        },
      };
    }
  }
}

/** What the reader thread posts: a chunk, a file it could not read to its end, the end, or what stopped it. */
export type ReaderMessage =
  | { chunk: EncodedEvents; counts: DecodeCounts; rejects: Array<[string, string]> }
  | { readError: ReadError }
  | { done: true; rejects: Array<[string, string]> }
  | { error: { message: string; name: string; code?: string } };

/** Decode counters gained over one chunk. */
export interface DecodeCounts {
  frames: number;
  pongs: number;
  events: number;
  sizesRounded: number;
}

/** Appends one record to a chunk's encoding (the reader thread's side). */
export function encodeRecord(enc: EventEncoder, r: SourcedRecord): void {
  const rejects = r.kind === KIND_MARKET && !r.rejected.empty();
  enc.num(rejects ? KIND_MARKET_REJECTED : r.kind);
  enc.num(r.file);
  enc.num(r.t);
  enc.num(r.e);
  enc.num(r.bytes);
  if (r.kind === KIND_PRICE || r.kind === KIND_META) enc.str(r.f);
  else if (r.kind === KIND_MARKET) {
    enc.num(r.events.length);
    for (let i = 0; i < r.events.length; i++) enc.event(r.events[i]);
    if (rejects) {
      enc.num(r.rejected.assetIds.length);
      for (const a of r.rejected.assetIds) enc.str(a);
      enc.num(r.rejected.markets.length);
      for (const m of r.rejected.markets) enc.str(m);
    }
  }
}

/** How to start the reader thread: node flags for it (tests running TypeScript pass a loader). */
export interface ReaderThreadOptions extends SourceOptions {
  execArgv?: string[];
}

/** The reader thread's module: next to this file, .ts when running from source. */
function readerThreadPath(): string {
  return fileURLToPath(import.meta.url).replace(/record-source\.(ts|js)$/, (_m, ext: string) => `reader-thread.${ext}`);
}

/** Whether this build can start the reader thread without a loader (compiled JavaScript). */
export function readerThreadBuilt(): boolean {
  return import.meta.url.endsWith('.js');
}

let running = 0;

/** Reader threads started and not yet stopped (a backtest that ends, however, stops its own). */
export function readerThreadsRunning(): number {
  return running;
}

/**
 * The recordings' chunks, read and decoded in a reader thread: the same records and events as
 * inlineRecords, its decode counts (and rejects, logged here) added to `stats` chunk by chunk, its
 * read errors told to `o.onReadError` where they fall among the chunks, as inlineRecords tells them. The
 * thread reads at most AHEAD chunks ahead; it ends with the generator (a thrown error, a break).
 * Chunks come on a port of their own, taken (receiveMessageOnPort) only when the backtest gets to
 * them: one read ahead waits serialized, not as this thread's strings living through collections
 * until their turn; the thread's own messages ring the bell.
 */
export async function* threadedRecords(paths: readonly string[], stats: DecodeStats, o: ReaderThreadOptions = {}): AsyncGenerator<RecordChunk> {
  const { port1: chunks, port2 } = new MessageChannel();
  const worker = new Worker(readerThreadPath(), {
    workerData: { paths, bytes: o.bytes === true, chunks: port2 },
    transferList: [port2],
    execArgv: o.execArgv ?? [],
    stdout: false,
    stderr: false,
  });
  running++;
  let wake: (() => void) | undefined;
  let failed: Error | undefined;
  worker.on('message', () => wake?.());
  worker.on('error', (e: Error) => {
    failed = e;
    wake?.();
  });
  worker.on('exit', (code) => {
    failed ??= new Error(`backtest reader thread exited (code ${code}) before the end of the recordings`);
    wake?.();
  });
  const dec = new EventDecoder();
  const out = emptyRecord();
  const chunk: RecordChunk = {
    next(): SourcedRecord | undefined {
      if (!dec.more()) return undefined;
      const kind = dec.num();
      out.kind = kind === KIND_MARKET_REJECTED ? KIND_MARKET : kind;
      out.file = dec.num();
      out.t = dec.num();
      out.e = dec.num();
      out.bytes = dec.num();
      out.f = '';
      out.events.length = 0;
      if (!out.rejected.empty()) out.rejected.clear();
      if (out.kind === KIND_PRICE || out.kind === KIND_META) out.f = dec.str();
      else if (out.kind === KIND_MARKET) {
        const n = dec.num();
        for (let i = 0; i < n; i++) out.events.push(dec.event());
        if (kind === KIND_MARKET_REJECTED) {
          for (let i = dec.num(); i > 0; i--) out.rejected.assetIds.push(dec.str());
          for (let i = dec.num(); i > 0; i--) out.rejected.markets.push(dec.str());
        }
      }
      return out;
    },
  };
  try {
    for (;;) {
      let got = receiveMessageOnPort(chunks);
      while (got === undefined) {
        if (failed) throw failed;
        await new Promise<void>((r) => (wake = r));
        wake = undefined;
        got = receiveMessageOnPort(chunks);
      }
      const m = got.message as ReaderMessage;
      if ('done' in m) {
        for (const [reason, sample] of m.rejects) stats.reject(reason, sample);
        return;
      }
      if ('readError' in m) {
        // no chunk: nothing to yield, and the thread spent no credit on it
        o.onReadError?.(m.readError);
        continue;
      }
      if ('error' in m) {
        const e = new Error(m.error.message) as Error & { code?: string };
        e.name = m.error.name;
        if (m.error.code !== undefined) e.code = m.error.code;
        throw e;
      }
      stats.frames += m.counts.frames;
      stats.pongs += m.counts.pongs;
      stats.events += m.counts.events;
      stats.sizesRounded += m.counts.sizesRounded;
      for (const [reason, sample] of m.rejects) stats.reject(reason, sample);
      dec.load(m.chunk);
      yield chunk;
      worker.postMessage(1); // one more chunk may be read ahead
    }
  } finally {
    chunks.close();
    worker.removeAllListeners();
    worker.on('error', () => undefined); // whatever it says while stopping is moot
    await worker.terminate();
    running--;
  }
}
