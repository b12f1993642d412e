// The recorder on a failing disk, beside earlier recordings, and killed mid-run: a write error
// (ENOSPC, simulated with a symlink to /dev/full, whose writes all fail so) stops the writing into
// the dead file, the frames it lost (still buffered, or in the compressor) count as dropped, never
// as recorded, and close() still settles; on a working disk every frame handed counts as recorded
// once close() resolves; an existing file is never truncated;
// a .gz is flushed about once a second, so what is on disk reads back without close().
// Real files in a temporary folder, no mocks; every wait is bounded.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Recorder, recordLine, rotatedPath } from '../../src/feed/recorder.js';
import { readRecording, type ReplayRecord } from '../../src/feed/replay.js';
import { waitFor } from './ws-server.js';

const fixture = new URL('../fixtures/polymarket/polytope/market_39.jsonl', import.meta.url).pathname;
const frames = readFileSync(fixture, 'utf8').split('\n').filter(Boolean);

async function collect(it: AsyncIterable<ReplayRecord>): Promise<ReplayRecord[]> {
  const out: ReplayRecord[] = [];
  // a gzip file read while it is being written ends without its trailer: take what is complete
  for await (const r of it) out.push(r);
  return out;
}

/** Whether `p` settles within `ms`. */
async function settles(p: Promise<unknown>, ms: number): Promise<boolean> {
  let t: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((r) => (t = setTimeout(() => r(false), ms)));
  try {
    return await Promise.race([p.then(() => true), timeout]);
  } finally {
    clearTimeout(t);
  }
}

const dirOf = () => mkdtempSync(join(tmpdir(), 'rec-dur-'));

describe('recorder: a write error (disk full)', () => {
  /** A frame gzip cannot shrink: 100 of them (300 KB) get past its buffers to the disk before any close or flush. */
  const noise = (i: number): string => JSON.stringify({ i, pad: randomBytes(1500).toString('hex') });

  /** A recorder on `<tmp>/<name>` -> /dev/full, after its first write error. */
  async function failing(name: string): Promise<Recorder> {
    const out = join(dirOf(), name);
    symlinkSync('/dev/full', out);
    const rec = new Recorder({ out });
    await rec.open();
    for (let i = 0; i < 100; i++) rec.write({ text: noise(i), t: 1_000 + i, epoch: 1 }, 'market');
    await waitFor(() => rec.stats.errors > 0, 3000);
    expect(rec.lastError?.message).toMatch(/ENOSPC/);
    return rec;
  }

  it.each(['rec.jsonl', 'rec.jsonl.gz'])('%s: close() settles after the error', async (name) => {
    const rec = await failing(name);
    rec.write({ text: frames[0], t: 5_000, epoch: 1 }, 'market');
    expect(await settles(rec.close(), 2000)).toBe(true);
  });

  it.each(['rec.jsonl', 'rec.jsonl.gz'])('%s: frames after the error are dropped and counted as such, not as recorded', async (name) => {
    const rec = await failing(name);
    const { frames: counted, bytes, dropped } = rec.stats;
    for (let i = 0; i < 50; i++) rec.write({ text: frames[i % frames.length], t: 10_000 + i, epoch: 1 }, 'market');
    expect(rec.stats.frames).toBe(counted);
    expect(rec.stats.bytes).toBe(bytes);
    expect(rec.stats.dropped).toBe(dropped + 50);
    await settles(rec.close(), 2000);
  });

  it.each(['rec.jsonl', 'rec.jsonl.gz'])('%s: the frames the failed file held never count as recorded', async (name) => {
    const rec = await failing(name);
    expect(await settles(rec.close(), 2000)).toBe(true);
    // none of the 100 reached the disk: buffered in the stream or the compressor when it failed
    expect(rec.stats.frames).toBe(0);
    expect(rec.stats.bytes).toBe(0);
    expect(rec.stats.dropped).toBe(100);
  });

  it('without rotation, a failed file is followed by the next one 30 s (frame time) later: the recording goes on once the disk has room', async () => {
    // found in review: a run without --rotate-* stayed dead after one ENOSPC, every later frame
    // dropped, for days under pm2, though the process kept running
    const dir = dirOf();
    const out = join(dir, 'n.jsonl');
    symlinkSync('/dev/full', out);
    const rec = new Recorder({ out });
    await rec.open();
    rec.write({ text: frames[0], t: 1_000, epoch: 1 }, 'market');
    await waitFor(() => rec.stats.errors > 0, 3000);
    rec.write({ text: frames[1], t: 20_000, epoch: 1 }, 'market'); // still within the wait: dropped
    rec.write({ text: frames[2], t: 31_000, epoch: 1 }, 'market'); // a new file
    rec.write({ text: frames[3], t: 31_001, epoch: 1 }, 'market');
    expect(await settles(rec.close(), 2000)).toBe(true);
    expect(rec.stats.dropped).toBe(2);
    expect(rec.stats.errors).toBe(1);
    expect(rec.stats.frames).toBe(2);
    const back = await collect(readRecording(rotatedPath(out, 1)));
    expect(back.map((r) => r.f)).toEqual([frames[2], frames[3]]);
    // after the hole a new epoch: replayed after the first file, its books start out of sync
    expect(back.map((r) => r.e)).toEqual([2, 2]);
  });

  it('a rotation after the error settles and records into the next file', async () => {
    const dir = dirOf();
    const out = join(dir, 'h.jsonl');
    symlinkSync('/dev/full', out);
    const rec = new Recorder({ out, rotateHourly: true });
    await rec.open();
    rec.write({ text: frames[0], t: 1_000, epoch: 1 }, 'market');
    await waitFor(() => rec.stats.errors > 0, 3000);
    rec.write({ text: frames[1], t: 2_000, epoch: 1 }, 'market'); // same hour: dropped
    rec.write({ text: frames[2], t: 3_600_000, epoch: 1 }, 'market'); // next hour: a new file
    rec.write({ text: frames[3], t: 3_600_001, epoch: 1 }, 'market');
    expect(await settles(rec.close(), 2000)).toBe(true);
    // frames[0], lost in the failed file, and frames[1], handed after the error
    expect(rec.stats.dropped).toBe(2);
    expect(rec.stats.errors).toBe(1);
    const back = await collect(readRecording(rotatedPath(out, 1)));
    expect(back.map((r) => r.f)).toEqual([frames[2], frames[3]]);
  });
});

describe('recorder: a working disk', () => {
  it.each(['rec.jsonl', 'rec.jsonl.gz'])('%s: after close() every frame handed is recorded, counted and read back', async (name) => {
    const out = join(dirOf(), name);
    const rec = new Recorder({ out });
    await rec.open();
    let bytes = 0;
    frames.forEach((text, i) => {
      const f = { text, t: 1_000 + i, epoch: 1 };
      bytes += Buffer.byteLength(recordLine(f, 'market'));
      rec.write(f, 'market');
    });
    // a plain file's lines count as each write completes; a .gz's by its sync flush or its close
    if (!name.endsWith('.gz')) await waitFor(() => rec.stats.frames === frames.length, 3000);
    expect(await settles(rec.close(), 2000)).toBe(true);
    expect(rec.stats).toMatchObject({ frames: frames.length, bytes, dropped: 0, errors: 0 });
    expect((await collect(readRecording(out))).map((r) => r.f)).toEqual(frames);
  });
});

describe('recorder: earlier recordings', () => {
  it('open() refuses an existing file and leaves it as it was', async () => {
    const out = join(dirOf(), 'old.jsonl');
    writeFileSync(out, 'yesterday\n');
    const rec = new Recorder({ out });
    await expect(rec.open()).rejects.toThrow(/EEXIST/);
    expect(readFileSync(out, 'utf8')).toBe('yesterday\n');
  });

  it('a rotation onto an existing file is a write error, never a truncation', async () => {
    const out = join(dirOf(), 'cap.jsonl');
    writeFileSync(rotatedPath(out, 1), 'yesterday\n');
    const rec = new Recorder({ out, rotateHourly: true });
    rec.write({ text: frames[0], t: 1_000, epoch: 1 }, 'market');
    rec.write({ text: frames[1], t: 3_600_000, epoch: 1 }, 'market');
    expect(await settles(rec.close(), 2000)).toBe(true);
    expect(readFileSync(rotatedPath(out, 1), 'utf8')).toBe('yesterday\n');
    expect(rec.lastError?.message).toMatch(/EEXIST/);
    expect(rec.stats.frames).toBe(1);
    expect(rec.stats.dropped).toBe(1);
  });
});

describe('recorder: a .gz on disk while recording', () => {
  it('is flushed within about a second: the frames read back without close()', async () => {
    const out = join(dirOf(), 'live.jsonl.gz');
    const rec = new Recorder({ out });
    await rec.open();
    const some = frames.slice(0, 10);
    some.forEach((text, i) => rec.write({ text, t: 1_000 + i, epoch: 1 }, 'market'));
    let back: ReplayRecord[] = [];
    const end = Date.now() + 3000;
    while (back.length < some.length && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 250));
      back = await collect(readRecording(out, () => undefined));
    }
    expect(back.map((r) => r.f)).toEqual(some);
    // and counted as recorded once the flush after them is written, before any close
    await waitFor(() => rec.stats.frames === some.length, 3000);
    // later frames are flushed too, by the next period
    rec.write({ text: frames[10], t: 2_000, epoch: 1 }, 'market');
    const end2 = Date.now() + 3000;
    while (back.length < 11 && Date.now() < end2) {
      await new Promise((r) => setTimeout(r, 250));
      back = await collect(readRecording(out, () => undefined));
    }
    expect(back.map((r) => r.f)).toEqual(frames.slice(0, 11));
    expect(await settles(rec.close(), 2000)).toBe(true);
    expect((await collect(readRecording(out))).map((r) => r.f)).toEqual(frames.slice(0, 11));
  });
});
