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
// Accounting: a frame counts as recorded (stats.frames) only once its bytes are written: a plain
// file's line by its write callback, a .gz's frames by the first sync flush after them once the
// flush's compressed bytes are written (or the file's 'finish'). What a failed file held unwritten
// is dropped, so frames + dropped = frames handed once close() resolves.
// Backpressure: a disk that does not keep up (a stalled mount, a pipe nobody reads) must not fill
// the memory: past maxBuffered bytes waiting in the compressor and the file streams, a frame is
// dropped (stats.droppedSlow); writing resumes by itself once the buffer drains below it.
// Holes: the first line written after frames were dropped (a slow disk, a failed file) carries an
// epoch one higher than the frame's connection gave, and so does every line after it: readers take
// a new epoch as a reconnect, so a book is never carried across a hole as if nothing was missed.
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
  /** Bytes that may wait unwritten (compressor and file streams) before frames are dropped; default MAX_BUFFERED. */
  maxBuffered?: number;
  /**
   * Frames every file starts with (the markets' metadata lines), written before its first frame and
   * stamped with that frame's time: a rotated file is backtested on its own as the first one is.
   */
  header?: ReadonlyArray<{ text: string; kind: string }>;
}

/** Default RecorderOptions.maxBuffered: what a slow disk may hold in memory before frames are dropped. */
export const MAX_BUFFERED = 64 * 1024 * 1024;

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
  if (isSystemPath(out)) return []; // /dev/stdout: it follows to whatever stdout is (a file under `> f`)
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
 * A failed file (ENOSPC, EIO) is followed by the next one (rotatedPath) this long after, by the
 * frames' time, with or without rotation: the recording goes on once the disk has room again,
 * rather than dropping every frame for the rest of the run. The hole stays counted (stats.errors).
 */
const REOPEN_AFTER_FAILURE_MS = 30_000;

/**
 * Flags to open a recording file with: 'wx' (create, fail with EEXIST when it exists, never
 * truncate), except for an existing device or pipe (`--out /dev/stdout`, a symlink to /dev/full),
 * which is written to as it is ('a' truncates nothing should a file replace it meanwhile).
 */
export function openFlags(path: string): string {
  if (isSystemPath(path)) return 'a';
  try {
    const s = statSync(path);
    return s.isFile() || s.isDirectory() ? 'wx' : 'a';
  } catch {
    return 'wx';
  }
}

/** Paths of the system's own files (/dev/stdout, /proc/self/fd/1): written to as they are, never a capture of ours. */
const SYSTEM_PATH = /^\/(dev|proc)\//;

/** Whether `out` is one of the system's own files (/dev/stdout): written to as it is, never rotated. */
export function isSystemPath(out: string): boolean {
  return SYSTEM_PATH.test(out);
}

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

/**
 * One line for a frame: version 2 (the frame as is) when it can, else version 1 (the frame as a JSON
 * string). See the header. `epochShift` is added to its epoch (the recorder's holes).
 */
export function recordLine(f: RawFrame, kind: string, epochShift = 0): string {
  const e = f.epoch + epochShift;
  if (rawEmbeddable(f.text, kind) && Number.isSafeInteger(f.t) && f.t >= 0 && Number.isSafeInteger(e) && e >= 0) return `{"t":${f.t},"e":${e},"k":"${kind}","f":${f.text}}\n`;
  return recordLineV1(f, kind, epochShift);
}

/** The version-1 line (the frame JSON-escaped as a string): what the recorder wrote before; kept for tests and tools. */
export function recordLineV1(f: RawFrame, kind: string, epochShift = 0): string {
  return `{"t":${f.t},"e":${f.epoch + epochShift},"k":${JSON.stringify(kind)},"f":${JSON.stringify(f.text)}}\n`;
}

/** A file being written, with the frames handed to it that are not yet confirmed on disk. */
interface OpenFile {
  sink: WriteStream;
  gz: Gzip | null;
  /** Frames (and their line bytes) handed, neither confirmed written nor dropped yet. */
  frames: number;
  bytes: number;
  /** .gz: of those, the ones handed since the last sync flush began. */
  segFrames: number;
  segBytes: number;
  /** .gz: sync flushes in order, each confirming its frames once the compressed bytes up to `at` are written (Infinity: not done). */
  marks: Array<{ at: number; frames: number; bytes: number }>;
  /** .gz: compressed bytes handed to the file stream, and of them written. */
  out: number;
  written: number;
  /** A write failed: what it held is dropped, and nothing more is confirmed. */
  failed: boolean;
}

/** Bytes a file holds unwritten: in the compressor (both sides) and in the file stream. */
const unwritten = (f: OpenFile): number => (f.failed ? 0 : (f.gz ? f.gz.writableLength + f.gz.readableLength : 0) + f.sink.writableLength);

export class Recorder {
  private cur: OpenFile | null = null;
  /** Files still closing after a rotation: what they hold counts toward maxBuffered too. */
  private readonly closingFiles = new Set<OpenFile>();
  /** Pending sync flush of the current .gz (set while it holds unflushed frames). */
  private flushTimer: NodeJS.Timeout | undefined;
  private fileIndex = -1;
  /** The last frame's time, and that of the frame last handed when the current file failed. */
  private lastFrameT = 0;
  /** The file just opened has yet to take the header (RecorderOptions.header). */
  private headerDue = false;
  /** Added to every frame's epoch since the last hole (frames dropped), and the drops counted then. */
  private epochShift = 0;
  private droppedSeen = 0;
  private failedAtT = 0;
  private fileBytes = 0;
  private fileHour = -1;
  private readonly closing: Array<Promise<void>> = [];
  private readonly maxBuffered: number;
  /**
   * frames/bytes: lines confirmed written; dropped: lines lost (to a failed file, or not taken:
   * droppedSlow, the disk did not keep up). Lines in between are on their way to the disk.
   */
  readonly stats = { frames: 0, bytes: 0, files: 0, path: '', errors: 0, dropped: 0, droppedSlow: 0 };
  /** The header is being written (no rotation by size until its frame is in). */
  private inHeader = false;
  /** Last write error (disk full, permissions, a file that exists); writing continues into the next file on rotation. */
  lastError: Error | undefined;
  /** The file of the last write error. */
  lastErrorPath: string | undefined;

  constructor(private readonly o: RecorderOptions) {
    this.maxBuffered = o.maxBuffered ?? MAX_BUFFERED;
  }

  /** Bytes handed to the files and not yet written (compressors and file streams). */
  get buffered(): number {
    let n = this.cur ? unwritten(this.cur) : 0;
    for (const f of this.closingFiles) n += unwritten(f);
    return n;
  }

  /**
   * Creates the first file now (write() does it on the first frame otherwise), so a path that
   * cannot be written fails before anything is received: rejects with the file system's error.
   */
  async open(): Promise<void> {
    if (this.cur !== null) return;
    const { sink, gz } = this.openNext(-1);
    try {
      await new Promise<void>((resolve, reject) => {
        sink.once('ready', () => resolve());
        sink.once('error', reject);
      });
    } catch (e) {
      this.cur = null;
      gz?.destroy();
      this.stopFlushTimer();
      this.stats.files--;
      this.fileIndex--;
      throw e;
    }
  }

  write(f: RawFrame, kind: string): void {
    const hour = Math.floor(f.t / 3_600_000);
    let file = this.cur;
    if (file === null) file = this.openNext(hour);
    else if (this.fileHour < 0)
      this.fileHour = hour; // opened by open(), before the first frame
    else if (this.o.rotateHourly && hour !== this.fileHour) file = this.rotate(hour);
    else if (file.failed && f.t - this.failedAtT >= REOPEN_AFTER_FAILURE_MS && !isSystemPath(this.o.out)) file = this.rotate(hour);
    if (this.headerDue) {
      this.headerDue = false;
      // whole in this file, before its frame: a header past the rotation size rotates after the frame, not inside itself
      this.inHeader = true;
      try {
        for (const h of this.o.header ?? []) this.write({ text: h.text, t: f.t, epoch: 0 }, h.kind);
      } finally {
        this.inHeader = false;
      }
    }
    this.lastFrameT = f.t;
    // the stream is destroyed at once on a failed write, its 'error' event comes a tick later
    const failed = file.failed || file.sink.destroyed;
    // the first line written after frames were dropped names a new epoch: every reader takes the
    // hole as a reconnect (books out of sync until their snapshots), never as continuous
    if (!failed && this.buffered < this.maxBuffered && this.stats.dropped !== this.droppedSeen) {
      this.droppedSeen = this.stats.dropped;
      this.epochShift++;
    }
    const line = recordLine(f, kind, this.epochShift);
    const bytes = Buffer.byteLength(line);
    // a dropped line counts toward the size too, so rotation by size still moves on to a new file
    this.fileBytes += bytes;
    if (failed) this.stats.dropped++;
    else if (this.buffered >= this.maxBuffered) {
      // the disk does not keep up: dropped rather than held in memory, until the buffer drains
      this.stats.dropped++;
      this.stats.droppedSlow++;
    } else {
      file.frames++;
      file.bytes += bytes;
      if (file.gz) {
        file.gz.write(line);
        file.segFrames++;
        file.segBytes += bytes;
        this.flushSoon();
      } else
        file.sink.write(line, (e) => {
          if (!e) this.confirm(file, 1, bytes);
        });
    }
    if (this.o.rotateBytes && !this.inHeader && this.fileBytes >= this.o.rotateBytes) this.rotate(hour);
  }

  /** Flushes and closes every file (including ones still closing after a rotation). */
  async close(): Promise<void> {
    this.closing.push(this.closeCurrent());
    await Promise.all(this.closing);
    this.closing.length = 0;
  }

  private rotate(hour: number): OpenFile {
    this.closing.push(this.closeCurrent());
    return this.openNext(hour);
  }

  private openNext(hour: number): OpenFile {
    this.headerDue = true;
    this.fileIndex++;
    const path = rotatedPath(this.o.out, this.fileIndex);
    const sink = createWriteStream(path, { flags: openFlags(path) });
    const gz = path.endsWith('.gz') ? createGzip() : null;
    const file: OpenFile = { sink, gz, frames: 0, bytes: 0, segFrames: 0, segBytes: 0, marks: [], out: 0, written: 0, failed: false };
    const failed = (e: Error): void => {
      if (file.failed) return;
      // a write error must not crash the recorder loop: count it and keep the process alive
      this.stats.errors++;
      this.lastError = e;
      this.lastErrorPath = path;
      this.failedAtT = this.lastFrameT;
      // what it held unwritten (file stream, compressor) never reaches the disk
      this.lose(file);
      file.failed = true;
      // the file is lost from here: stop both streams, so nothing piles up in the compressor
      gz?.destroy();
      sink.destroy();
      if (this.cur === file) this.stopFlushTimer();
    };
    sink.on('error', failed);
    // ended and every write done: all it was handed is on disk
    sink.once('finish', () => this.confirm(file, file.frames, file.bytes));
    // closed without that (destroyed): whatever it still held is lost
    sink.once('close', () => this.lose(file));
    if (gz) {
      gz.on('error', failed);
      // by hand rather than pipe(): the compressed bytes written are counted (sync flush marks)
      gz.on('data', (chunk: Buffer) => {
        file.out += chunk.length;
        sink.write(chunk, (e) => {
          if (e) return;
          file.written += chunk.length;
          this.settleMarks(file);
        });
      });
      gz.once('end', () => sink.end());
    }
    this.cur = file;
    this.fileBytes = 0;
    this.fileHour = hour;
    this.stats.files++;
    this.stats.path = path;
    return file;
  }

  /** Counts frames of `file` as recorded: their bytes are written. */
  private confirm(file: OpenFile, frames: number, bytes: number): void {
    if (file.failed) return;
    file.frames -= frames;
    file.bytes -= bytes;
    this.stats.frames += frames;
    this.stats.bytes += bytes;
  }

  /** Counts what `file` holds unconfirmed as dropped. */
  private lose(file: OpenFile): void {
    this.stats.dropped += file.frames;
    file.frames = file.bytes = file.segFrames = file.segBytes = 0;
    file.marks.length = 0;
  }

  /** Confirms the frames of the sync flushes whose compressed bytes are all written. */
  private settleMarks(file: OpenFile): void {
    const m = file.marks;
    while (m.length > 0 && m[0].at <= file.written) {
      const k = m.shift() as { frames: number; bytes: number };
      this.confirm(file, k.frames, k.bytes);
    }
  }

  /** Schedules a sync flush of the current .gz, unless one is pending: at most one a period, none while idle. */
  private flushSoon(): void {
    if (this.flushTimer !== undefined) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      const file = this.cur;
      const gz = file?.gz;
      if (!file || !gz || file.failed || gz.destroyed) return;
      // the frames handed so far go with this flush; later ones with the next
      const mark = { at: Infinity, frames: file.segFrames, bytes: file.segBytes };
      file.segFrames = file.segBytes = 0;
      file.marks.push(mark);
      gz.flush(zlibConstants.Z_SYNC_FLUSH, () => {
        // zlib pushes a flush's output before its callback: by now handed on (out) or still waiting to be
        mark.at = file.out + gz.readableLength;
        this.settleMarks(file);
      });
    }, GZ_FLUSH_MS);
    // the recorder's owner decides how long the process lives, not a pending flush
    this.flushTimer.unref();
  }

  private stopFlushTimer(): void {
    if (this.flushTimer !== undefined) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
  }

  private closeCurrent(): Promise<void> {
    const file = this.cur;
    this.cur = null;
    this.stopFlushTimer(); // gz.end() below flushes everything
    if (!file) return Promise.resolve();
    const { sink, gz } = file;
    // a failed file that has closed already: waiting for its 'close' would never end
    if (sink.closed) {
      gz?.destroy();
      return Promise.resolve();
    }
    this.closingFiles.add(file);
    return new Promise<void>((resolve) => {
      const done = (): void => {
        this.closingFiles.delete(file);
        resolve();
      };
      sink.once('close', done);
      sink.once('error', done);
      // destroyed (failed): its 'close' follows, nothing left to write
      if (file.failed || sink.destroyed) gz?.destroy();
      else if (gz) gz.end();
      else sink.end();
    });
  }
}
