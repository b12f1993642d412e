// Records raw feed frames as JSON lines, one per frame, gzipped when the path ends in .gz, rotated
// by size and/or by the hour. Rotated files insert the sequence number before the extension:
// rec.jsonl.gz, rec.1.jsonl.gz, rec.2.jsonl.gz, ... so each file stays readable by replay.ts on its
// own and in order with rotationFiles().
//
// Line format (version 2, written from now on): the frame embedded as it is, not re-escaped,
//   {"t":<receive ms>,"e":<connection epoch>,"k":"<channel>","f":<frame text, byte for byte>}
// when the frame can stand there unchanged: it starts with { or [ and ends with } or ], holds no
// line break (\n, \r) and no lone UTF-16 surrogate (so its UTF-8 is exact), and the channel name is
// [a-z0-9_-]+. The frame is then line.slice(header length, -1): a reader takes it by its position,
// never by parsing the line (replay.ts), so its bytes (whitespace, escapes, number spellings) come
// back exactly; the line is valid JSON whenever the frame is. Any other frame (PONG, a frame with
// a line break, a text that is not a JSON object/array) is written as before, version 1:
//   {"t":<receive ms>,"e":<connection epoch>,"k":"<channel>","f":"<frame text as a JSON string>"}
// The two forms mix freely in one file; every reader (verify, backtest, emulator --replay) reads both.
import { createWriteStream, existsSync, readdirSync, type WriteStream } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { createGzip, type Gzip } from 'node:zlib';
import type { RawFrame } from './connection.js';

export interface RecorderOptions {
  out: string;
  /** Rotate when the current file has this many (uncompressed) bytes; 0/undefined = never. */
  rotateBytes?: number;
  /** Rotate when the UTC hour of the receive time changes. */
  rotateHourly?: boolean;
}

const EXT = /(\.jsonl\.gz|\.json\.gz|\.gz|\.jsonl|\.json|\.ndjson)$/;

/** Path of the n-th file of a rotated recording (n = 0 is the path itself). */
export function rotatedPath(out: string, n: number): string {
  if (n === 0) return out;
  const m = EXT.exec(out);
  return m ? `${out.slice(0, m.index)}.${n}${m[1]}` : `${out}.${n}`;
}

/** The files of a rotated recording that exist, in order. */
export function rotationFiles(out: string): string[] {
  const files: string[] = [];
  if (existsSync(out)) files.push(out);
  const names = new Set(readdirSync(dirname(out) || '.'));
  for (let n = 1; names.has(basename(rotatedPath(out, n))); n++) files.push(join(dirname(out), basename(rotatedPath(out, n))));
  return files;
}

/** A channel name written without escaping. */
const PLAIN_KIND = /^[a-z0-9_-]+$/;
/** What keeps a frame from standing raw in a line: a line break, or a lone surrogate (not valid UTF-8). */
const NOT_RAW = /[\n\r]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether a frame (and channel) can be embedded as is in a version-2 line. */
export function rawEmbeddable(text: string, kind: string): boolean {
  const n = text.length;
  if (n < 2) return false;
  const a = text.charCodeAt(0);
  const z = text.charCodeAt(n - 1);
  return (a === 123 || a === 91) && (z === 125 || z === 93) && PLAIN_KIND.test(kind) && !NOT_RAW.test(text);
}

/** One line for a frame: version 2 (the frame as is) when it can, else version 1 (the frame as a JSON string). See the header. */
export function recordLine(f: RawFrame, kind: string): string {
  if (rawEmbeddable(f.text, kind) && Number.isSafeInteger(f.t) && f.t >= 0 && Number.isSafeInteger(f.epoch) && f.epoch >= 0) return `{"t":${f.t},"e":${f.epoch},"k":"${kind}","f":${f.text}}\n`;
  return recordLineV1(f, kind);
}

/** The version-1 line (the frame JSON-escaped as a string): what the recorder wrote before; kept for tests and tools. */
export function recordLineV1(f: RawFrame, kind: string): string {
  return `{"t":${f.t},"e":${f.epoch},"k":${JSON.stringify(kind)},"f":${JSON.stringify(f.text)}}\n`;
}

export class Recorder {
  private sink: WriteStream | null = null;
  private gz: Gzip | null = null;
  private fileIndex = -1;
  private fileBytes = 0;
  private fileHour = -1;
  private readonly closing: Array<Promise<void>> = [];
  readonly stats = { frames: 0, bytes: 0, files: 0, path: '', errors: 0 };
  /** Last write error (disk full, permissions); writing continues into the next file on rotation. */
  lastError: Error | undefined;

  constructor(private readonly o: RecorderOptions) {}

  private failed = (e: Error): void => {
    // a write error must not crash the recorder loop: count it and keep the process alive
    this.stats.errors++;
    this.lastError = e;
  };

  /**
   * Creates the first file now (write() does it on the first frame otherwise), so a path that
   * cannot be written fails before anything is received: rejects with the file system's error.
   */
  async open(): Promise<void> {
    if (this.sink !== null) return;
    this.openNext(-1);
    const sink = this.sink as WriteStream | null;
    if (sink === null) return;
    try {
      await new Promise<void>((resolve, reject) => {
        sink.once('ready', () => resolve());
        sink.once('error', reject);
      });
    } catch (e) {
      this.sink = null;
      this.gz?.destroy();
      this.gz = null;
      this.stats.files--;
      this.fileIndex--;
      throw e;
    }
  }

  write(f: RawFrame, kind: string): void {
    const hour = Math.floor(f.t / 3_600_000);
    if (this.sink === null) this.openNext(hour);
    else if (this.fileHour < 0)
      this.fileHour = hour; // opened by open(), before the first frame
    else if (this.o.rotateHourly && hour !== this.fileHour) this.rotate(hour);
    const line = recordLine(f, kind);
    const bytes = Buffer.byteLength(line);
    if (this.gz) this.gz.write(line);
    else this.sink!.write(line);
    this.fileBytes += bytes;
    this.stats.frames++;
    this.stats.bytes += bytes;
    if (this.o.rotateBytes && this.fileBytes >= this.o.rotateBytes) this.rotate(hour);
  }

  /** Flushes and closes every file (including ones still closing after a rotation). */
  async close(): Promise<void> {
    this.closing.push(this.closeCurrent());
    await Promise.all(this.closing);
    this.closing.length = 0;
  }

  private rotate(hour: number): void {
    this.closing.push(this.closeCurrent());
    this.openNext(hour);
  }

  private openNext(hour: number): void {
    this.fileIndex++;
    const path = rotatedPath(this.o.out, this.fileIndex);
    this.sink = createWriteStream(path);
    this.sink.on('error', this.failed);
    if (path.endsWith('.gz')) {
      this.gz = createGzip();
      this.gz.on('error', this.failed);
      this.gz.pipe(this.sink);
    }
    this.fileBytes = 0;
    this.fileHour = hour;
    this.stats.files++;
    this.stats.path = path;
  }

  private closeCurrent(): Promise<void> {
    const sink = this.sink;
    const gz = this.gz;
    this.sink = null;
    this.gz = null;
    if (!sink) return Promise.resolve();
    return new Promise<void>((resolve) => {
      sink.once('close', () => resolve());
      sink.once('error', () => resolve());
      if (gz) gz.end();
      else sink.end();
    });
  }
}
