// The backtest's reader thread (started by record-source.ts): reads the recordings and decodes
// their market frames, as inlineRecords does on the backtest's own thread, and posts each chunk
// encoded (feed/event-codec.ts), at most AHEAD chunks ahead of the backtest.
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { DecodeStats } from '../feed/decode-stats.js';
import { EventEncoder } from '../feed/event-encoder.js';
import { encodeRecord, inlineRecords, type ReadError, type ReaderMessage } from './record-source.js';

/**
 * Chunks (1 MiB of recording each) read ahead of the backtest. Each chunk waiting on the backtest's
 * side is held there as strings, which outlive a young-generation collection: at 50 markets 4
 * ahead peaked ~30 MB higher than 2, for no speed; 1 ahead stalls the backtest.
 */
const AHEAD = 2;

/** Keeps every reject (reason, sample) for the backtest's own stats to count and log. */
class ForwardedStats extends DecodeStats {
  rejectsSeen: Array<[string, string]> = [];
  override reject(reason: string, sample: string): void {
    super.reject(reason, sample);
    this.rejectsSeen.push([reason, sample.length > 200 ? sample.slice(0, 200) : sample]);
  }
}

async function main(port: NonNullable<typeof parentPort>): Promise<void> {
  const { paths, bytes, chunks } = workerData as { paths: string[]; bytes: boolean; chunks: MessagePort };
  const stats = new ForwardedStats('market');
  const enc = new EventEncoder();
  let credit = AHEAD;
  let wake: (() => void) | undefined;
  port.on('message', () => {
    credit++;
    wake?.();
  });
  // the message on the chunks port (taken there when the backtest gets to it), then the bell
  const post = (m: ReaderMessage, transfer?: ArrayBuffer[]): void => {
    chunks.postMessage(m, transfer);
    port.postMessage(0);
  };
  try {
    let last = { frames: 0, pongs: 0, events: 0, sizesRounded: 0 };
    // a file not read to its end, told in order among the chunks: the backtest's side counts it (threadedRecords)
    const onReadError = (e: ReadError): void => post({ readError: e });
    for await (const chunk of inlineRecords(paths, stats, { bytes, onReadError })) {
      for (let r = chunk.next(); r !== undefined; r = chunk.next()) encodeRecord(enc, r);
      while (credit === 0) {
        await new Promise<void>((r) => (wake = r));
        wake = undefined;
      }
      credit--;
      const now = { frames: stats.frames, pongs: stats.pongs, events: stats.events, sizesRounded: stats.sizesRounded };
      const counts = { frames: now.frames - last.frames, pongs: now.pongs - last.pongs, events: now.events - last.events, sizesRounded: now.sizesRounded - last.sizesRounded };
      last = now;
      const rejects = stats.rejectsSeen;
      stats.rejectsSeen = [];
      const encoded = enc.take();
      post({ chunk: encoded, counts, rejects }, [encoded.nums.buffer as ArrayBuffer]);
    }
    // rejects after the last chunk (the last file's cut line) go with the end
    post({ done: true, rejects: stats.rejectsSeen });
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    post({ error: { message: err.message, name: err.name, code: (err as Error & { code?: string }).code } });
  } finally {
    port.removeAllListeners('message');
    chunks.close();
  }
}

if (parentPort) void main(parentPort);
