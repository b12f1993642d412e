// Writes a synthetic market (or several) as a recording in the recorder's line format
// (src/feed/recorder.ts: version 2, `{"t":ms,"e":1,"k":"market","f":<raw frame>}`, unless asked for
// version 1), as fast as it can be generated, gzip when the path ends in .gz. The first frame is
// the subscribe snapshot (a JSON array of every book), as live.
import { createWriteStream } from 'node:fs';
import { createGzip } from 'node:zlib';
import type { Writable } from 'node:stream';
import { once } from 'node:events';
import { openFlags, recordLine as recorderLine, recordLineV1 } from '../feed/recorder.js';
import { SyntheticMarket, type SyntheticMarketOptions } from './synthetic-market.js';
import { realFeedShape } from './book-frames.js';

export interface WriteRecordingOptions {
  file: string;
  seed: number;
  /** Market time to cover, seconds. */
  durationS: number;
  /** Market time at the start (ms since the epoch); default 2026-01-01T00:00:00Z, fixed for determinism. */
  startMs?: number;
  params?: SyntheticMarketOptions['params'];
  /** Markets in the recording (default 1), each its own synthetic market (index 0..n-1), frames merged in time order. */
  markets?: number;
  /** Line format version (default 2, what the recorder writes; 1 = the frame as a JSON string). */
  lineVersion?: 1 | 2;
  /** Trades printed this many ms after their batch, stamped then (FeedShape.printLagMs; default 0). */
  printLagMs?: number;
}

export interface WriteRecordingResult {
  frames: number;
  trades: number;
  agentEvents: number;
  bytes: number;
}

export const DEFAULT_START_MS = Date.UTC(2026, 0, 1);

/** One recording line for a market frame at market time `t` (the recorder's format, epoch 1). */
export function recordLine(t: number, frame: string, version: 1 | 2 = 2): string {
  return version === 1 ? recordLineV1({ text: frame, t, epoch: 1 }, 'market') : recorderLine({ text: frame, t, epoch: 1 }, 'market');
}

export async function writeSyntheticRecording(o: WriteRecordingOptions): Promise<WriteRecordingResult> {
  const startMs = o.startMs ?? DEFAULT_START_MS;
  const count = Math.max(1, o.markets ?? 1);
  const feed = { ...realFeedShape, corruptGroupHashNext: 0, printLagMs: o.printLagMs ?? 0 };
  const markets = Array.from({ length: count }, (_, index) => new SyntheticMarket({ seed: o.seed, startMs, params: o.params, index, feed }));
  const version = o.lineVersion ?? 2;
  // never truncating a file that exists (an earlier capture): EEXIST, as the recorder
  const file = createWriteStream(o.file, { flags: openFlags(o.file) });
  const out: Writable = o.file.endsWith('.gz') ? createGzip() : file;
  // A stream's error (a missing directory, a full disk) rejects the call, never an unhandled 'error' event.
  let failure: Error | undefined;
  const failed = new Promise<never>((_, reject) => {
    const onError = (e: Error): void => {
      failure ??= e;
      reject(e);
    };
    file.on('error', onError);
    if (out !== file) out.on('error', onError);
  });
  failed.catch(() => undefined);
  const until = (p: Promise<unknown>) => Promise.race([p, failed]);
  if (out !== file) out.pipe(file);
  let buf = '';
  let bytes = 0;
  let frames = 0;
  const push = (t: number, frame: string): void => {
    buf += recordLine(t, frame, version);
    frames++;
  };
  // several markets: each second's frames of all of them, in time order (stable: one market's order kept)
  const pending: Array<{ t: number; text: string }> = [];
  const flushPending = (): void => {
    pending.sort((a, b) => a.t - b.t);
    for (const f of pending) push(f.t, f.text);
    pending.length = 0;
  };
  const drain = async (): Promise<void> => {
    if (!buf) return;
    bytes += Buffer.byteLength(buf);
    const ok = out.write(buf);
    buf = '';
    if (!ok) await until(once(out, 'drain'));
  };
  try {
    await until(once(file, 'open'));
    for (const market of markets) market.onFrame(count === 1 ? (f) => push(f.ts, f.text) : (f) => void pending.push({ t: f.ts, text: f.text }));
    const snap = markets.flatMap((m) => m.snapshot());
    push(Number(snap[0].timestamp), JSON.stringify(snap));
    const end = startMs + o.durationS * 1000;
    for (let t = startMs; t < end;) {
      t = Math.min(end, t + 1000);
      for (const market of markets) market.advanceTo(t);
      flushPending();
      if (buf.length > 1 << 16) await drain();
    }
    await drain();
    out.end();
    await until(once(file, 'close'));
    if (failure) throw failure;
  } catch (e) {
    out.destroy();
    file.destroy();
    throw e;
  }
  let trades = 0;
  let agentEvents = 0;
  for (const m of markets) {
    trades += m.stats.trades;
    agentEvents += m.stats.agentEvents;
  }
  return { frames, trades, agentEvents, bytes };
}
