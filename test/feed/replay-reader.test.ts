// The recording reader splits lines by hand over 1 MiB chunks: lines that span chunk boundaries
// (one longer than a whole chunk), multi-byte UTF-8 cut by a boundary, CRLF, empty lines, a last
// line without a newline, plain and gzip, and a gzip file cut short; a recording cut inside its
// last line (a killed recorder, a full disk) reads back up to its last complete line.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, createGzip, gunzipSync, gzipSync } from 'node:zlib';
import { recordLine, recordLineV1 } from '../../src/feed/recorder.js';
import { describe, expect, it } from 'vitest';
import { readRecording, readRecordingBatches, type ReplayRecord } from '../../src/feed/replay.js';

async function collect(it: AsyncIterable<ReplayRecord>): Promise<ReplayRecord[]> {
  const out: ReplayRecord[] = [];
  for await (const r of it) out.push(r);
  return out;
}

/** Recorder lines of varied lengths (about 3.5 MB), one of them 1.5 MB long, with ü and € in the frames. */
function lines(): { text: string; frames: string[] } {
  const frames: string[] = [];
  const parts: string[] = [];
  let x = 7;
  for (let i = 0; i < 3000; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    const len = i === 1500 ? 1_500_000 : 50 + (x % 2000);
    const f = `{"i":${i},"p":"${'ü€a'.repeat(Math.ceil(len / 3)).slice(0, len)}"}`;
    frames.push(f);
    const line = JSON.stringify({ t: 1000 + i, e: 1, k: 'market', f });
    parts.push(i % 7 === 0 ? line + '\r\n' : line + '\n');
    if (i % 11 === 0) parts.push('\n'); // empty lines are skipped
  }
  parts.push(JSON.stringify({ t: 9999, e: 2, k: 'user', f: 'last' })); // no final newline
  frames.push('last');
  return { text: parts.join(''), frames };
}

describe('recording reader', () => {
  const dir = mkdtempSync(join(tmpdir(), 'reader-'));
  const { text, frames } = lines();

  it.each(['plain', 'gzip'])('%s: every line once, in order, across chunk boundaries', async (kind) => {
    const path = join(dir, kind === 'gzip' ? 'r.jsonl.gz' : 'r.jsonl');
    writeFileSync(path, kind === 'gzip' ? gzipSync(text) : text);
    const back = await collect(readRecording(path));
    expect(back.length).toBe(frames.length);
    expect(back.map((r) => r.f)).toEqual(frames);
    expect(back[0].t).toBe(1000);
    expect(back.at(-1)).toEqual({ t: 9999, e: 2, k: 'user', f: 'last' });
    // batches: several (1 MiB chunks), each a cursor that ends
    let batches = 0;
    let n = 0;
    for await (const b of readRecordingBatches(path)) {
      batches++;
      while (b.next() !== undefined) n++;
      expect(b.next()).toBeUndefined();
    }
    expect(n).toBe(frames.length);
    expect(batches).toBeGreaterThan(2);
  });

  it('a gzip file cut short yields its complete lines, then reports the error', async () => {
    const path = join(dir, 'cut.jsonl.gz');
    const gz = gzipSync(text);
    writeFileSync(path, gz.subarray(0, Math.floor(gz.length * 0.6)));
    const errors: string[] = [];
    const back = await collect(readRecording(path, (e) => errors.push(e.message)));
    expect(errors.length).toBe(1);
    expect(back.length).toBeGreaterThan(100);
    expect(back.length).toBeLessThan(frames.length);
    // all but possibly the last (cut) line are exact
    expect(back.slice(0, -1).map((r) => r.f)).toEqual(frames.slice(0, back.length - 1));
  });

  it.each([0.3, 0.6, 0.9])('a gzip file cut at %s loses none of what could be decompressed', async (at) => {
    const path = join(dir, `cut-${at}.jsonl.gz`);
    const gz = gzipSync(text);
    const cut = gz.subarray(0, Math.floor(gz.length * at));
    writeFileSync(path, cut);
    // what the cut file holds: decompressed without the end-of-stream check
    const held = gunzipSync(cut, { finishFlush: constants.Z_SYNC_FLUSH }).toString('utf8');
    const complete = held.slice(0, held.lastIndexOf('\n') + 1);
    const want = complete.split('\n').filter((l) => l.trim() !== '').length;
    const errors: string[] = [];
    const back = await collect(readRecording(path, (e) => errors.push(e.message)));
    expect(errors.length).toBe(1);
    // every complete line, and the cut one after them when its start parses as a record
    expect(back.length).toBeGreaterThanOrEqual(want);
    expect(back.slice(0, want).map((r) => r.f)).toEqual(frames.slice(0, want));
  });
});

/** A gzip stream of `text` sync-flushed and cut there: no trailer, so gunzip ends with an error after all of `text`. */
async function gzipCut(text: string): Promise<Buffer> {
  const gz = createGzip();
  const out: Buffer[] = [];
  gz.on('data', (b: Buffer) => out.push(b));
  gz.write(text);
  await new Promise<void>((r) => gz.flush(constants.Z_SYNC_FLUSH, () => r()));
  gz.destroy();
  return Buffer.concat(out);
}

describe('recording reader: a last line without its newline', () => {
  const dir = mkdtempSync(join(tmpdir(), 'reader-cut-'));
  const frames = Array.from({ length: 11 }, (_, i) => JSON.stringify([{ event_type: 'book', asset_id: '7', i, bids: [{ price: '0.4', size: '1' }] }]));
  const recLines = (v1: boolean) => frames.map((f, i) => (v1 ? recordLineV1 : recordLine)({ text: f, t: 1_000 + i, epoch: 1 }, 'market'));

  it.each([
    ['plain', false],
    ['plain', true],
    ['gzip', false],
    ['gzip', true],
  ] as const)('%s (v1 lines: %s): 10 recorder lines and half an 11th read back as the 10', async (kind, v1) => {
    const lines = recLines(v1);
    const text = lines.slice(0, 10).join('') + lines[10].slice(0, Math.floor(lines[10].length / 2));
    const path = join(dir, `cut-${v1 ? 1 : 2}.jsonl${kind === 'gzip' ? '.gz' : ''}`);
    writeFileSync(path, kind === 'gzip' ? await gzipCut(text) : text);
    const errors: string[] = [];
    const cut: string[] = [];
    const back = await collect(
      readRecording(
        path,
        (e) => errors.push(e.message),
        (sample) => cut.push(sample),
      ),
    );
    expect(back.map((r) => r.f)).toEqual(frames.slice(0, 10));
    expect(errors.length).toBe(kind === 'gzip' ? 1 : 0);
    // the half line left out is told (plain); a gzip file's cut is its read error already
    expect(cut).toEqual(kind === 'gzip' ? [] : [lines[10].slice(0, Math.floor(lines[10].length / 2))]);
  });

  it.each(['plain', 'gzip'])('%s: a raw capture cut by gunzip, or cut in a first recorder line, yields no fragment', async (kind) => {
    if (kind === 'gzip') {
      const path = join(dir, 'raw-cut.jsonl.gz');
      writeFileSync(path, await gzipCut(frames.slice(0, 3).join('\n') + '\n' + frames[3].slice(0, 20)));
      expect((await collect(readRecording(path, () => undefined))).map((r) => r.f)).toEqual(frames.slice(0, 3));
    } else {
      const path = join(dir, 'first-cut.jsonl');
      writeFileSync(path, recLines(false)[0].slice(0, 40));
      const cut: string[] = [];
      expect(await collect(readRecording(path, undefined, (sample) => cut.push(sample)))).toEqual([]);
      expect(cut).toEqual([recLines(false)[0].slice(0, 40)]);
    }
  });

  it.each(['plain', 'gzip'])('%s: 10 complete lines without a final newline read back as 10 (a hand-made file)', async (kind) => {
    const path = join(dir, `whole.jsonl${kind === 'gzip' ? '.gz' : ''}`);
    const text = recLines(false).slice(0, 10).join('').slice(0, -1);
    writeFileSync(path, kind === 'gzip' ? gzipSync(text) : text);
    expect((await collect(readRecording(path))).map((r) => r.f)).toEqual(frames.slice(0, 10));
    // a raw capture too (its last frame kept as it is)
    const raw = join(dir, `whole-raw.jsonl${kind === 'gzip' ? '.gz' : ''}`);
    const rawText = frames.slice(0, 10).join('\n');
    writeFileSync(raw, kind === 'gzip' ? gzipSync(rawText) : rawText);
    expect((await collect(readRecording(raw))).map((r) => r.f)).toEqual(frames.slice(0, 10));
  });
});
