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
//
// Durability: a file is opened with 'wx' (an existing one, an earlier run's capture, is never
// truncated: EEXIST); a .gz is sync-flushed about once a second while it has unflushed data, so a
// killed recorder loses at most that second (replay.ts reads a file cut short up to its last
// complete line); a write error (disk full) kills the current file: later frames are dropped and
// counted as such until the next rotation opens a new file.
import { createWriteStream, existsSync, readdirSync, statSync, type WriteStream } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { constants as zlibConstants, createGzip, type Gzip } from 'node:zlib';
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

/**
 * The existing files a recording to `out` would write: `out` itself (a regular file: a device or
 * pipe such as /dev/stdout is no capture) and every rotated sibling, at any sequence number, in
 * order. A new recording must find none: it would truncate or mix with an earlier run's.
 */
export function existingRecordingFiles(out: string): string[] {
  if (SYSTEM_PATH.test(out)) return []; // /dev/stdout: it follows to whatever stdout is (a file under `> f`)
  const dir = dirname(out);
  let names: string[];
  try {
    names = readdirSync(dir || '.');
  } catch {
    return []; // no folder yet: nothing of an earlier run either
  }
  const base = basename(out);
  const m = EXT.exec(base);
  const stem = m ? base.slice(0, m.index) : base;
  const ext = m ? m[1] : '';
  const found: Array<{ n: number; path: string }> = [];
  for (const name of names) {
    if (name.length <= stem.length + 1 + ext.length || !name.startsWith(`${stem}.`) || !name.endsWith(ext)) continue;
    const mid = name.slice(stem.length + 1, name.length - ext.length);
    if (/^[1-9]\d*$/.test(mid)) found.push({ n: Number(mid), path: join(dir, name) });
  }
  found.sort((a, b) => a.n - b.n);
  const files = found.map((f) => f.path);
  if (isFile(out)) files.unshift(out);
  return files;
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/**
 * Flags to open a recording file with: 'wx' (create, fail with EEXIST when it exists, never
 * truncate), except for an existing device or pipe (`--out /dev/stdout`, a symlink to /dev/full),
 * which is written to as it is ('a' truncates nothing should a file replace it meanwhile).
 */
function openFlags(path: string): string {
  if (SYSTEM_PATH.test(path)) return 'a';
  try {
    const s = statSync(path);
    return s.isFile() || s.isDirectory() ? 'wx' : 'a';
  } catch {
    return 'wx';
  }
}

/** Paths of the system's own files (/dev/stdout, /proc/self/fd/1): written to as they are, never a capture of ours. */
const SYSTEM_PATH = /^\/(dev|proc)\//;

/** How long a .gz may hold frames in the compressor before a sync flush puts them on disk. */
const GZ_FLUSH_MS = 1000;

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
  /** The current file failed a write: its streams are destroyed; frames are dropped until the next file. */
  private dead = false;
  /** What the current file was handed (see openNext). */
  private file = { frames: 0, bytes: 0 };
  /** Pending sync flush of the current .gz (set while it holds unflushed frames). */
  private flushTimer: NodeJS.Timeout | undefined;
  private fileIndex = -1;
  private fileBytes = 0;
  private fileHour = -1;
  private readonly closing: Array<Promise<void>> = [];
  /** frames/bytes: lines handed to a working file; dropped: lines lost to a failed one (after its error). */
  readonly stats = { frames: 0, bytes: 0, files: 0, path: '', errors: 0, dropped: 0 };
  /** Last write error (disk full, permissions, a file that exists); writing continues into the next file on rotation. */
  lastError: Error | undefined;
  /** The file of the last write error. */
  lastErrorPath: string | undefined;

  constructor(private readonly o: RecorderOptions) {}

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
      this.dead = false;
      this.stopFlushTimer();
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
    // a dropped line counts toward the size too, so rotation by size still moves on to a new file
    this.fileBytes += bytes;
    // the stream is destroyed at once on a failed write, its 'error' event comes a tick later
    if (this.dead || this.sink!.destroyed) {
      this.stats.dropped++;
    } else {
      if (this.gz) {
        this.gz.write(line);
        this.flushSoon();
      } else this.sink!.write(line);
      this.stats.frames++;
      this.stats.bytes += bytes;
      this.file.frames++;
      this.file.bytes += bytes;
    }
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
    const sink = createWriteStream(path, { flags: openFlags(path) });
    const gz = path.endsWith('.gz') ? createGzip() : null;
    const file = { frames: 0, bytes: 0 };
    let opened = false;
    sink.once('open', () => (opened = true));
    const failed = (e: Error): void => {
      // a write error must not crash the recorder loop: count it and keep the process alive
      this.stats.errors++;
      this.lastError = e;
      this.lastErrorPath = path;
      if (!opened) {
        // never opened (EEXIST, EACCES): nothing handed to it reached the disk
        this.stats.frames -= file.frames;
        this.stats.bytes -= file.bytes;
        this.stats.dropped += file.frames;
        file.frames = 0;
        file.bytes = 0;
      }
      // the file is lost from here: stop both streams, so nothing piles up in the compressor
      gz?.destroy();
      sink.destroy();
      if (this.sink === sink) {
        this.dead = true;
        this.stopFlushTimer();
      }
    };
    sink.on('error', failed);
    if (gz) {
      gz.on('error', failed);
      gz.pipe(sink);
    }
    this.sink = sink;
    this.gz = gz;
    this.file = file;
    this.dead = false;
    this.fileBytes = 0;
    this.fileHour = hour;
    this.stats.files++;
    this.stats.path = path;
  }

  /** Schedules a sync flush of the current .gz, unless one is pending: at most one a period, none while idle. */
  private flushSoon(): void {
    if (this.flushTimer !== undefined) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      const gz = this.gz;
      if (gz && !this.dead && !gz.destroyed) gz.flush(zlibConstants.Z_SYNC_FLUSH);
    }, GZ_FLUSH_MS);
    // the recorder's owner decides how long the process lives, not a pending flush
    this.flushTimer.unref();
  }

  private stopFlushTimer(): void {
    if (this.flushTimer !== undefined) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
  }

  private closeCurrent(): Promise<void> {
    const sink = this.sink;
    const gz = this.gz;
    this.sink = null;
    this.gz = null;
    this.dead = false;
    this.stopFlushTimer(); // gz.end() below flushes everything
    if (!sink) return Promise.resolve();
    // a failed file has nothing left to write, and its 'close'/'error' may have fired already:
    // waiting for them would never end
    if (sink.destroyed || sink.closed) {
      gz?.destroy();
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      sink.once('close', () => resolve());
      sink.once('error', () => resolve());
      if (gz) gz.end();
      else sink.end();
    });
  }
}
