// A one-line progress bar on stderr for long backtests: share of input bytes read, events per
// second and ETA. Wall time is fine here: it is display only and never reaches result.json.
import { open, stat } from 'node:fs/promises';

export interface ProgressSink {
  /** Called often; redraws at most every `everyMs` of wall time. */
  update(bytesRead: number, events: number): void;
  done(): void;
}

export interface ProgressStream {
  write(s: string): boolean;
  columns?: number;
}

export function formatProgress(bytesRead: number, totalBytes: number, events: number, elapsedMs: number, width = 30): string {
  const frac = totalBytes > 0 ? Math.min(1, bytesRead / totalBytes) : 0;
  const filled = Math.round(frac * width);
  const rate = elapsedMs > 0 ? (events * 1000) / elapsedMs : 0;
  const etaS = frac > 0 && frac < 1 ? ((elapsedMs / frac) * (1 - frac)) / 1000 : 0;
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(frac * 100).toFixed(1).padStart(5)}%  ${compact(events)} events  ${compact(rate)}/s  ETA ${duration(etaS)}`;
}

function compact(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return String(Math.round(n));
}

function duration(s: number): string {
  const m = Math.floor(s / 60);
  const r = Math.round(s - m * 60);
  return m > 0 ? `${m}m${String(r).padStart(2, '0')}s` : `${r}s`;
}

export function progressBar(stream: ProgressStream, totalBytes: number, everyMs = 200): ProgressSink {
  const start = performance.now();
  let last = -Infinity;
  let drawn = false;
  return {
    update(bytesRead, events) {
      const now = performance.now();
      if (now - last < everyMs) return;
      last = now;
      drawn = true;
      stream.write(`\r${formatProgress(bytesRead, totalBytes, events, now - start)}`);
    },
    done() {
      if (drawn) stream.write('\n');
    },
  };
}

/** Uncompressed size for progress: the file size, or a gzip's ISIZE trailer (mod 4 GiB). */
export async function contentSize(path: string): Promise<number> {
  const st = await stat(path);
  const fh = await open(path, 'r');
  try {
    const head = Buffer.alloc(2);
    await fh.read(head, 0, 2, 0);
    if (head[0] !== 0x1f || head[1] !== 0x8b || st.size < 18) return st.size;
    const tail = Buffer.alloc(4);
    await fh.read(tail, 0, 4, st.size - 4);
    const isize = tail.readUInt32LE(0);
    return isize > 0 ? isize : st.size;
  } finally {
    await fh.close();
  }
}
