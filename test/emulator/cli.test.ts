import { describe, it, expect } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../../src/cli.js';

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l), env: {} }, out, err };
}

/** `makerd verify --json` of a recording: exit 0, ok, no error output; its tokens. */
/** `makerd verify --json` of a recording: exit 0, nothing on stderr, every token over `minHashes` verified hashes and no mismatch; its tokens. */
async function verified(file: string, minHashes: number): Promise<Array<{ hashesVerified: number; mismatches: number }>> {
  const v = io();
  const code = await cli(['verify', file, '--json'], v.io);
  expect(v.err).toEqual([]);
  expect(code).toBe(0);
  const report = JSON.parse(v.out.join('')) as { ok: boolean; tokens: Array<{ hashesVerified: number; mismatches: number }> };
  expect(report.ok).toBe(true);
  for (const t of report.tokens) {
    expect(t.hashesVerified).toBeGreaterThan(minHashes);
    expect(t.mismatches).toBe(0);
  }
  return report.tokens;
}

describe('makerd emulator --write, then makerd verify', () => {
  it('writes 60 s of synthetic market time that verify accepts (exit 0), deterministic per seed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'makerd-emu-'));
    try {
      const f1 = join(dir, 'a.jsonl.gz');
      const f2 = join(dir, 'b.jsonl.gz');
      const w = io();
      expect(await cli(['emulator', '--synthetic', '1', '--write', f1, '--duration', '60', '--activity', '28'], w.io)).toBe(0);
      expect(w.out.join('\n')).toMatch(/wrote .* frames/);
      expect(await cli(['emulator', '--synthetic', '1', '--write', f2, '--duration', '60', '--activity', '28'], io().io)).toBe(0);
      const a = gunzipSync(readFileSync(f1)).toString();
      expect(gunzipSync(readFileSync(f2)).toString()).toBe(a);
      const lines = a.trim().split('\n');
      expect(lines.length).toBeGreaterThan(100);
      // the recorder's line format, version 2: the frame (the subscribe snapshot, an array) embedded as is
      const first = JSON.parse(lines[0]) as { t: number; e: number; k: string; f: unknown };
      expect(first.e).toBe(1);
      expect(first.k).toBe('market');
      expect(Array.isArray(first.f)).toBe(true);
      expect(await verified(f1, 100)).toHaveLength(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--markets N writes N markets (2N tokens, every one verified)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'makerd-emu-'));
    try {
      const f = join(dir, 'm3.jsonl');
      const w = io();
      expect(await cli(['emulator', '--synthetic', '2', '--markets', '3', '--write', f, '--duration', '30', '--activity', '28'], w.io)).toBe(0);
      expect(w.out.join('\n')).toMatch(/3 markets/);
      expect(await verified(f, 10)).toHaveLength(6);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('never overwrites an existing file (a capture of `makerd record`, a week of it): exit 2 naming it, the file as it was', async () => {
    // review: it opened with createWriteStream's default 'w', which truncates
    const dir = mkdtempSync(join(tmpdir(), 'makerd-emu-'));
    try {
      const f = join(dir, 'capture.jsonl');
      writeFileSync(f, 'a week of real capture\n');
      const r = io();
      expect(await cli(['emulator', '--synthetic', '1', '--write', f, '--duration', '5'], r.io)).toBe(2);
      expect(r.err.join('\n')).toContain(`${f}: the file exists`);
      expect(readFileSync(f, 'utf8')).toBe('a week of real capture\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects bad usage with exit 2', async () => {
    const r = io();
    expect(await cli(['emulator', '--write', 'x.jsonl'], r.io)).toBe(2);
    expect(await cli(['emulator', '--speed', 'fast'], io().io)).toBe(2);
    const tier = io();
    expect(await cli(['emulator', '--signer-tier', 'platinium'], tier.io)).toBe(2);
    expect(tier.err.join('\n')).toMatch(/--signer-tier must be one of standard, copper, .*elite, got 'platinium'/);
  });
});

describe('makerd emulator (serving)', () => {
  it('prints its URLs, writes --urls-out, serves them, and stops on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'makerd-emu-'));
    const urlsFile = join(dir, 'urls.json');
    const r = io();
    const running = cli(['emulator', '--synthetic', '5', '--urls-out', urlsFile, '--keys', 'k1,k2'], r.io);
    try {
      const urls = await (async () => {
        for (let i = 0; i < 300; i++) {
          try {
            return JSON.parse(readFileSync(urlsFile, 'utf8')) as Record<string, string>;
          } catch {
            await new Promise((res) => setTimeout(res, 10));
          }
        }
        throw new Error('urls file not written');
      })();
      expect(Object.keys(urls).sort()).toEqual(['clob', 'content', 'data', 'gamma', 'price_feed', 'ws']);
      expect(r.out.join('\n')).toContain(urls.clob);
      const res = await fetch(`${urls.clob}/balances`, { headers: { authorization: 'Bearer k2' }, signal: AbortSignal.timeout(3000) });
      expect(res.status).toBe(200);
      const denied = await fetch(`${urls.clob}/balances`, { headers: { authorization: 'Bearer k3' }, signal: AbortSignal.timeout(3000) });
      expect(denied.status).toBe(403);
    } finally {
      process.emit('SIGTERM');
      expect(await running).toBe(0);
      rmSync(dir, { recursive: true, force: true });
    }
    expect(r.out.at(-1)).toBe('emulator stopped');
  });
});

describe('makerd emulator --replay errors', () => {
  it('a missing recording is a one-line error, exit 1', async () => {
    const r = io();
    expect(await cli(['emulator', '--replay', '/nonexistent/rec.jsonl'], r.io)).toBe(1);
    expect(r.err.join('\n')).toMatch(/cannot read recording/);
  });
});
