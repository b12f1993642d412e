// The recorder on a disk that does not keep up: a FIFO whose reader does not read stands for a
// stalled disk (a full pipe blocks the writer as a hung NFS mount would). What waits in memory
// stays under maxBuffered, the frames past it are dropped and counted as dropped for a slow disk,
// and writing resumes by itself once the reader drains the buffer; every frame handed ends up
// either recorded (and in the file) or dropped. Real FIFOs in a temporary folder; every wait bounded.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, constants, mkdtempSync, openSync, readSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { Recorder, recordLine } from '../../src/feed/recorder.js';
import { waitFor } from './ws-server.js';

/** A frame gzip cannot shrink (about 3 KB), so a .gz holds back as much as a plain file. */
const noise = (i: number): string => JSON.stringify({ i, pad: randomBytes(1500).toString('hex') });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('recorder: a disk that does not keep up (a FIFO nobody reads)', () => {
  it.each(['fifo.jsonl', 'fifo.jsonl.gz'])('%s: buffered bytes stay bounded, the excess is dropped, writing resumes once drained', async (name) => {
    const out = join(mkdtempSync(join(tmpdir(), 'rec-slow-')), name);
    execFileSync('mkfifo', [out]);
    // a reader opened first (non-blocking), so the recorder's open does not wait for one
    const fd = openSync(out, constants.O_RDONLY | constants.O_NONBLOCK);
    const got: Buffer[] = [];
    /** Reads what the pipe holds now (the reader catching up). */
    const drain = (): void => {
      for (;;) {
        const b = Buffer.alloc(1 << 16);
        let n = 0;
        try {
          n = readSync(fd, b);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'EAGAIN') return;
          throw e;
        }
        if (n <= 0) return;
        got.push(b.subarray(0, n));
      }
    };
    const maxBuffered = 256 * 1024;
    const rec = new Recorder({ out, maxBuffered });
    await rec.open();
    let handed = 0;
    let peak = 0;
    let longest = 0;
    const burst = (n: number): void => {
      for (let i = 0; i < n; i++) {
        const f = { text: noise(handed), t: 1_000 + handed, epoch: 1 };
        longest = Math.max(longest, Buffer.byteLength(recordLine(f, 'market')));
        rec.write(f, 'market');
        handed++;
        peak = Math.max(peak, rec.buffered);
      }
    };
    try {
      // about 3 MB offered in bursts, the pipe (64 KB) full after the first
      for (let round = 0; round < 5; round++) {
        burst(200);
        await sleep(50);
      }
      expect(rec.stats.droppedSlow).toBeGreaterThan(0);
      expect(rec.stats.dropped).toBe(rec.stats.droppedSlow);
      expect(rec.stats.errors).toBe(0);
      // at most one frame past the bound: the one that found the buffer just under it
      expect(peak).toBeLessThanOrEqual(maxBuffered + longest);
      // the reader catches up: the buffer drains and the next frames are taken again
      await waitFor(() => (drain(), rec.buffered === 0), 5000);
      const dropped = rec.stats.dropped;
      burst(10);
      expect(rec.stats.dropped).toBe(dropped);
      let closed = false;
      void rec.close().then(() => (closed = true));
      await waitFor(() => (drain(), closed), 5000);
      drain();
    } finally {
      closeSync(fd);
    }
    // every frame handed is accounted for, and what counts as recorded is what the reader got
    expect(rec.stats.frames + rec.stats.dropped).toBe(handed);
    const all = Buffer.concat(got);
    const text = name.endsWith('.gz') ? gunzipSync(all).toString('utf8') : all.toString('utf8');
    const lines = text.split('\n').filter(Boolean);
    expect(lines.length).toBe(rec.stats.frames);
    // Found in review: the frames after a drop carried the epoch of those before it, so every
    // reader took the recording as continuous (books applied deltas over a hole). Each frame's
    // `i` is its index: where one is missing, the line after the hole names a new epoch.
    const recs = lines.map((l) => JSON.parse(l) as { e: number; f: { i: number } });
    let holes = 0;
    for (let k = 1; k < recs.length; k++) {
      if (recs[k].f.i === recs[k - 1].f.i + 1) expect(recs[k].e, `line ${k}`).toBe(recs[k - 1].e);
      else {
        holes++;
        expect(recs[k].e, `line ${k}, after a hole`).not.toBe(recs[k - 1].e);
      }
    }
    expect(holes).toBeGreaterThan(0);
  });
});
