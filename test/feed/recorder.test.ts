// Recorder + replay round trip (plain and gz, rotation by size), raw-capture replay with
// synthetic times, and `makerd record` against a loopback server.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cli } from '../../src/cli.js';
import { Recorder, rotatedPath, rotationFiles } from '../../src/feed/recorder.js';
import { readRecording, readRecordings, type ReplayRecord } from '../../src/feed/replay.js';
import { bookFrame, startServer, waitFor, type TestServer } from './ws-server.js';

const fixture = new URL('../fixtures/polymarket/polytope/market_39.jsonl', import.meta.url).pathname;
const frames = readFileSync(fixture, 'utf8').split('\n').filter(Boolean);

async function collect(it: AsyncIterable<ReplayRecord>): Promise<ReplayRecord[]> {
  const out: ReplayRecord[] = [];
  for await (const r of it) out.push(r);
  return out;
}

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('recorder and replay', () => {
  it.each(['rec.jsonl', 'rec.jsonl.gz'])('round trip %s: same frames, times, epochs', async (name) => {
    const dir = mkdtempSync(join(tmpdir(), 'rec-'));
    const out = join(dir, name);
    const rec = new Recorder({ out });
    frames.forEach((text, i) => rec.write({ text, t: 1_000 + i, epoch: i < 20 ? 1 : 2 }, 'market'));
    rec.write({ text: 'line\nbreak "quoted" \\ ünïcode', t: 5000, epoch: 2 }, 'market');
    await rec.close();
    if (name.endsWith('.gz')) expect(readFileSync(out).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    const back = await collect(readRecording(out));
    expect(back.map((r) => r.f)).toEqual([...frames, 'line\nbreak "quoted" \\ ünïcode']);
    expect(back[0]).toEqual({ t: 1000, e: 1, k: 'market', f: frames[0] });
    expect(back[25].e).toBe(2);
  });

  it('rotates by size into numbered files that replay in order', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rec-'));
    const out = join(dir, 'cap.jsonl.gz');
    const rec = new Recorder({ out, rotateBytes: 4000 });
    frames.forEach((text, i) => rec.write({ text, t: i, epoch: 1 }, 'market'));
    await rec.close();
    const files = rotationFiles(out);
    expect(files.length).toBeGreaterThan(2);
    expect(files[1]).toBe(rotatedPath(out, 1));
    expect(rotatedPath(out, 2)).toBe(join(dir, 'cap.2.jsonl.gz'));
    expect((await collect(readRecordings(files))).map((r) => r.f)).toEqual(frames);
  });

  it('rotates hourly', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rec-'));
    const out = join(dir, 'h.jsonl');
    const rec = new Recorder({ out, rotateHourly: true });
    for (const t of [3_599_000, 3_599_999, 3_600_000, 7_200_001]) rec.write({ text: String(t), t, epoch: 1 }, 'market');
    await rec.close();
    expect(rec.stats.files).toBe(3);
    expect((await collect(readRecording(rotatedPath(out, 1)))).map((r) => r.t)).toEqual([3_600_000]);
  });

  // Found in review: the markets' metadata lines went into the first file only, so a backtest of a
  // later rotated file priced whichever token's book came first, with the default tick and no fees.
  it('every file starts with the header (the markets metadata), stamped with its first frame time', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rec-'));
    const out = join(dir, 'm.jsonl');
    const header = [{ text: '{"market":"0xm","tokens":["1","2"]}', kind: 'meta' }];
    const rec = new Recorder({ out, rotateHourly: true, header });
    await rec.open();
    for (const t of [3_599_000, 3_600_000, 7_200_001]) rec.write({ text: `{"t":${t}}`, t, epoch: 1 }, 'market');
    await rec.close();
    expect(rec.stats.files).toBe(3);
    for (const [n, t] of [
      [0, 3_599_000],
      [1, 3_600_000],
      [2, 7_200_001],
    ]) {
      const back = await collect(readRecording(rotatedPath(out, n)));
      expect(back.map((r) => [r.k, r.t, r.f])).toEqual([
        ['meta', t, header[0].text],
        ['market', t, `{"t":${t}}`],
      ]);
    }
  });

  // Found in review: a header larger than --rotate-mb rotated inside its own writing, so the frame
  // went to the file just closed (a write after end: destroyed, the frame dropped) and each header
  // write nested another rotation.
  it('a header larger than the rotation size: each file still holds the header and its frames, nothing dropped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rec-'));
    const out = join(dir, 'big.jsonl');
    const header = [0, 1, 2].map((i) => ({ text: `{"market":"0xm${i}","pad":"${'x'.repeat(400)}"}`, kind: 'meta' }));
    const rec = new Recorder({ out, rotateBytes: 1000, header });
    await rec.open();
    for (const t of [1, 2, 3]) rec.write({ text: `{"t":${t}}`, t, epoch: 1 }, 'market');
    await rec.close();
    expect(rec.stats.errors).toBe(0);
    expect(rec.stats.dropped).toBe(0);
    const back = await collect(readRecordings(rotationFiles(out)));
    expect(back.filter((r) => r.k === 'market').map((r) => r.f)).toEqual(['{"t":1}', '{"t":2}', '{"t":3}']);
    // each file with a frame opens with the whole header (the one a rotation after the last frame opened is empty)
    for (const f of rotationFiles(out)) {
      const recs = await collect(readRecording(f));
      if (recs.length) expect(recs.map((r) => r.k)).toEqual(['meta', 'meta', 'meta', 'market']);
    }
  });

  it('replays a plain raw capture with synthetic, non-decreasing times', async () => {
    const back = await collect(readRecording(fixture));
    expect(back.map((r) => r.f)).toEqual(frames);
    expect(back[0].t).toBe(1779862954465);
    for (let i = 1; i < back.length; i++) expect(back[i].t).toBeGreaterThanOrEqual(back[i - 1].t);
    expect(back.every((r) => r.k === 'market')).toBe(true);
  });
});

describe('makerd record', () => {
  it('records frames across a reconnect and exits 0 after --duration', async () => {
    server = await startServer();
    server.onMessage = (ws, text) => {
      if (text.includes('"type":"market"')) ws.send(bookFrame('7'));
    };
    const dir = mkdtempSync(join(tmpdir(), 'rec-'));
    const out = join(dir, 'live.jsonl.gz');
    const cfg = join(dir, 'cfg.json');
    writeFileSync(cfg, JSON.stringify({ log: { level: 'silent' }, feed: { pingIntervalMs: 20, reconnectBaseMs: 10, reconnectMaxMs: 20 } }));
    const err: string[] = [];
    const done = cli(['record', '--markets', '7', '--out', out, '--config', cfg, '--duration', '1', '--no-market-meta'], {
      out: () => {},
      err: (l) => err.push(l),
      env: { MAKERD_WS_URL: server.url },
    });
    await waitFor(() => server!.connections === 1 && server!.received.length >= 2);
    server.sockets[0].terminate();
    expect(await done).toBe(0);
    const back = await collect(readRecording(out));
    const books = back.filter((r) => r.f.includes('"book"'));
    expect(books.map((r) => r.e)).toEqual([1, 2]);
    expect(back.some((r) => r.f === 'PONG')).toBe(true);
    expect(err.at(-1)).toMatch(/frames=\d+ bytes=\d+ files=1 reconnects=1 uptime=\d+s/);
  });

  it('bad flags exit 2', async () => {
    const io = { out: () => {}, err: () => {}, env: {} };
    expect(await cli(['record', '--out', 'x'], io)).toBe(2);
    expect(await cli(['record', '--markets', 'abc', '--out', 'x'], io)).toBe(2);
  });
});
