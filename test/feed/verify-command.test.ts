// `makerd verify` through the real CLI dispatch on the polytope capture (exit 0, every hash),
// on a copy with one tampered hash (exit 1), as a recorder-format gz file (exit 0), and across a
// recorded reconnect that cut a batch (exit 0: the cut group is dropped with the old connection).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { cli } from '../../src/cli.js';
import { recordLine } from '../../src/feed/recorder.js';
import { VenueBook, pc } from '../book/helpers.js';

const fixture = new URL('../fixtures/polymarket/polytope/market_39.jsonl', import.meta.url).pathname;

async function run(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await cli(args, { out: (l) => out.push(l), err: (l) => err.push(l), env: {} });
  return { code, out, err };
}

describe('makerd verify', () => {
  it('verifies the polytope capture: 0 mismatches, both tokens, exit 0', async () => {
    const r = await run(['verify', fixture, '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out[0]) as {
      ok: boolean;
      tokens: Array<{ deltas: number; mismatches: number; hashesVerified: number; entriesVerified: number; seeded: number; bestBid: string; bestAsk: string }>;
    };
    expect(j.ok).toBe(true);
    expect(j.tokens).toHaveLength(2);
    expect(j.tokens.reduce((a, t) => a + t.deltas, 0)).toBe(70);
    expect(j.tokens.reduce((a, t) => a + t.mismatches, 0)).toBe(0);
    expect(j.tokens[0].hashesVerified).toBeGreaterThan(1);
    expect(j.tokens.reduce((a, t) => a + t.entriesVerified, 0)).toBe(70);
    expect(j.tokens[1].seeded).toBe(1);
    // the two books mirror each other
    expect(Number(j.tokens[0].bestBid) + Number(j.tokens[1].bestAsk)).toBeCloseTo(1, 10);
    const table = await run(['verify', fixture]);
    expect(table.out.at(-1)).toBe('OK: every hash verified');
  });

  it('a capture with no book snapshot (only deltas: nothing to start from) verifies nothing: FAIL, exit 1, never OK (found in review)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'verify-'));
    const p = join(dir, 'deltas-only.jsonl');
    const lines = readFileSync(fixture, 'utf8')
      .split('\n')
      .filter((l) => l.includes('price_change') && !l.includes('"event_type":"book"'));
    expect(lines.length).toBeGreaterThan(0);
    writeFileSync(p, lines.join('\n') + '\n');
    const r = await run(['verify', p]);
    expect(r.code).toBe(1);
    expect(r.out.join('\n')).not.toMatch(/OK/);
    expect(r.out.at(-1)).toMatch(/^FAIL: no hash verified/);
    const j = await run(['verify', p, '--json']);
    expect(j.code).toBe(1);
    expect((JSON.parse(j.out[0]) as { ok: boolean }).ok).toBe(false);
  });

  it('a tampered hash exits 1 and names the mismatch', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'verify-'));
    const text = readFileSync(fixture, 'utf8').replace('fbeeec13fa38a799d4852b4d0e98f98e47f4f5e5', 'fbeeec13fa38a799d4852b4d0e98f98e47f4f5e6');
    const p = join(dir, 'tampered.jsonl');
    writeFileSync(p, text);
    const r = await run(['verify', p]);
    expect(r.code).toBe(1);
    expect(r.out.join('\n')).toContain('expected fbeeec13fa38a799d4852b4d0e98f98e47f4f5e6');
  });

  it('a tampered level size in the snapshot exits 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'verify-'));
    const p = join(dir, 'tampered2.jsonl');
    writeFileSync(p, readFileSync(fixture, 'utf8').replace('"size":"39183.01"', '"size":"39183.02"'));
    expect((await run(['verify', p])).code).toBe(1);
  });

  it('reads the recorder format gzipped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'verify-'));
    const lines = readFileSync(fixture, 'utf8').split('\n').filter(Boolean);
    const rec = lines.map((f, i) => JSON.stringify({ t: 1000 + i, e: 1, k: 'market', f })).join('\n') + '\n';
    const p = join(dir, 'rec.jsonl.gz');
    writeFileSync(p, gzipSync(rec));
    const r = await run(['verify', p, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out[0]).frames).toBe(lines.length);
  });

  it('a gzip cut short verifies the complete frames and says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'verify-'));
    const gz = gzipSync(readFileSync(fixture));
    const p = join(dir, 'cut.jsonl.gz');
    writeFileSync(p, gz.subarray(0, Math.floor(gz.length * 0.8)));
    const r = await run(['verify', p, '--json']);
    const j = JSON.parse(r.out[0]) as { frames: number; readError?: string; ok: boolean };
    expect(j.readError).toBeTruthy();
    expect(j.frames).toBeGreaterThan(5);
    expect(j.frames).toBeLessThan(39);
    expect(r.err.join('\n')).toContain('read stopped early');
  });

  it('a plain recording cut inside its last line (a killed recorder) verifies the rest and counts the line as a reject', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'verify-'));
    const lines = readFileSync(fixture, 'utf8').split('\n').filter(Boolean);
    const rec = lines.map((f, i) => JSON.stringify({ t: 1000 + i, e: 1, k: 'market', f }));
    // the last two frames are one batch in two pieces (one hash): the one before them whole, the first piece cut
    const p = join(dir, 'cut-line.jsonl');
    writeFileSync(p, rec.slice(0, -2).join('\n') + '\n' + (rec.at(-2) ?? '').slice(0, 60));
    const j = JSON.parse((await run(['verify', p, '--json'])).out[0]) as { frames: number; ok: boolean; decode: Record<string, number>; unfinishedAtEnd: string[] };
    expect(j.frames).toBe(lines.length - 2);
    expect(j.ok).toBe(true);
    expect(j.unfinishedAtEnd).toEqual([]);
    expect(j.decode['reject:cut_last_line']).toBe(1);
    const table = await run(['verify', p]);
    expect(table.code).toBe(0);
    expect(table.out.at(-1)).toBe('OK: every hash verified; 1 frame rejected by the decoder');
  });

  it('a recording that stops between the pieces of one batch fails there, and says the last group may be unfinished', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'verify-'));
    const lines = readFileSync(fixture, 'utf8').split('\n').filter(Boolean);
    const p = join(dir, 'mid-batch.jsonl');
    // the last two frames carry one hash (the batch's, after both): stop after the first
    expect(JSON.parse(lines.at(-1) ?? '').price_changes[0].hash).toBe(JSON.parse(lines.at(-2) ?? '').price_changes[0].hash);
    writeFileSync(p, lines.slice(0, -1).join('\n') + '\n');
    // as strict as a corrupt last hash (which it cannot be told from), but named
    const r = await run(['verify', p]);
    expect(r.code).toBe(1);
    expect(r.out.at(-1)).toBe("FAIL: 2 mismatches; 2 of them in the last group of the file, which may stop inside a batch (its pieces share the whole batch's hash)");
    const j = JSON.parse((await run(['verify', p, '--json'])).out[0]) as { ok: boolean; unfinishedAtEnd: string[]; tokens: Array<{ mismatches: number }> };
    expect(j.ok).toBe(false);
    expect(j.unfinishedAtEnd).toHaveLength(2);
    expect(j.tokens.map((t) => t.mismatches)).toEqual([1, 1]);
    // the whole capture ends on a complete batch: nothing unfinished
    expect((JSON.parse((await run(['verify', fixture, '--json'])).out[0]) as { unfinishedAtEnd: string[] }).unfinishedAtEnd).toEqual([]);
  });

  it('a batch cut by a reconnect is dropped with its connection, not checked against the next snapshot', async () => {
    const venue = new VenueBook('7', [['0.4', '10']], [['0.6', '10']]);
    const first = JSON.stringify(venue.snapshot('1000'));
    // a batch of two messages, each carrying the hash of the book after the whole batch
    venue.set('BUY', '0.41', '5');
    venue.set('BUY', '0.42', '5');
    const after = venue.hash('2000');
    const half = JSON.stringify(pc('2000', [{ a: '7', p: '0.41', s: '5', side: 'BUY', hash: after }]));
    // the connection dropped before the second message; the new one starts with a fresh book
    const again = JSON.stringify(venue.snapshot('3000'));
    const lines = [recordLine({ text: first, t: 1_000, epoch: 1 }, 'market'), recordLine({ text: half, t: 2_000, epoch: 1 }, 'market'), recordLine({ text: again, t: 6_000, epoch: 2 }, 'market')];
    const p = join(mkdtempSync(join(tmpdir(), 'verify-')), 'reconnect.jsonl');
    writeFileSync(p, lines.join(''));
    const r = await run(['verify', p, '--json']);
    const j = JSON.parse(r.out[0]) as { ok: boolean; tokens: Array<{ mismatches: number; snapshots: number; hashesVerified: number; inSync: boolean }> };
    expect(j.tokens[0]).toMatchObject({ mismatches: 0, snapshots: 2, hashesVerified: 2, inSync: true });
    expect(j.ok).toBe(true);
    expect(r.code).toBe(0);
  });

  it('bad usage exits 2', async () => {
    expect((await run(['verify'])).code).toBe(2);
    expect((await run(['verify', fixture, '--min-order-size', 'x'])).code).toBe(2);
  });
});
