// Writes a synthetic market as a recording in the recorder's line format, as fast as it can be
// generated: `{"t":ms,"e":1,"k":"market","f":"<raw frame>"}` per line, gzip when the path ends
// in .gz. The first frame is the subscribe snapshot (a JSON array of both books), as live.
import { createWriteStream } from 'node:fs';
import { createGzip } from 'node:zlib';
import type { Writable } from 'node:stream';
import { once } from 'node:events';
import { recordLine as recorderLine } from '../feed/recorder.js';
import { SyntheticMarket, type SyntheticMarketOptions } from './synthetic-market.js';

export interface WriteRecordingOptions {
  file: string;
  seed: number;
  /** Market time to cover, seconds. */
  durationS: number;
  /** Market time at the start (ms since the epoch); default 2026-01-01T00:00:00Z, fixed for determinism. */
  startMs?: number;
  params?: SyntheticMarketOptions['params'];
}

export interface WriteRecordingResult {
  frames: number;
  trades: number;
  agentEvents: number;
  bytes: number;
}

export const DEFAULT_START_MS = Date.UTC(2026, 0, 1);

/** One recording line for a market frame at market time `t` (the recorder's format, epoch 1). */
export function recordLine(t: number, frame: string): string {
  return recorderLine({ text: frame, t, epoch: 1 }, 'market');
}

export async function writeSyntheticRecording(o: WriteRecordingOptions): Promise<WriteRecordingResult> {
  const startMs = o.startMs ?? DEFAULT_START_MS;
  const market = new SyntheticMarket({ seed: o.seed, startMs, params: o.params });
  const file = createWriteStream(o.file);
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
    buf += recordLine(t, frame);
    frames++;
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
    market.onFrame((f) => push(f.ts, f.text));
    const snap = market.snapshot();
    push(Number(snap[0].timestamp), JSON.stringify(snap));
    const end = startMs + o.durationS * 1000;
    for (let t = startMs; t < end;) {
      t = Math.min(end, t + 1000);
      market.advanceTo(t);
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
  return { frames, trades: market.stats.trades, agentEvents: market.stats.agentEvents, bytes };
}
