// `makerd verify` on every real capture in the fixtures (0 mismatches), and on copies with one hash
// corrupted at a time: every hash the client can check must fail the run (exit 1). The only hashes
// left unchecked are those of deltas the client never applies: sent before the token's first
// snapshot, or older than a snapshot that already contains them (they describe a book the client
// never had); the test names them so the set cannot grow silently.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { command as verify } from '../../src/commands/verify.js';

const fx = (p: string) => new URL(`../fixtures/polymarket/${p}`, import.meta.url);
const dir = mkdtempSync(join(tmpdir(), 'makerd-verify-'));

async function runVerify(file: string): Promise<{ code: number; json: { ok: boolean; tokens: Array<{ mismatches: number; bestMismatches: number; ltpRecovered: number; hashesVerified: number }> } }> {
  const lines: string[] = [];
  const code = await verify.main([file, '--json'], { out: (l) => void lines.push(l), err: () => {}, env: {} });
  return { code, json: JSON.parse(lines.join('\n')) };
}

/** Offsets of every 40-hex hash value in the text (raw frames or frames escaped inside recording lines). */
function hashOffsets(text: string): number[] {
  const re = /(\\?"hash\\?":\s*\\?")([0-9a-f]{40})/g;
  const out: number[] = [];
  for (let m = re.exec(text); m; m = re.exec(text)) out.push(m.index + m[1].length);
  return out;
}

const captures = [
  // file, hashes the client cannot check (first 8 hex), with why
  { file: 'polytope/market_39.jsonl', unverifiable: [] as string[] },
  // two entries at .831, before the first book of either token
  { file: 'polytrader/polytrader_market_ws.time-sorted.jsonl', unverifiable: ['5e9dc771', '03abcf0d'] },
  // stale deltas older than the snapshot that contains them, and one same-timestamp delta before the snapshot's own
  { file: 'glmbotpoly/glmbotpoly_clob_session_first10.jsonl', unverifiable: ['3e1f72ba', '1f955a22', '63e9fd1b', 'b63da18b', '615265ea'] },
];

describe('makerd verify on the real captures', () => {
  it.each(captures.map((c) => [c.file]))('%s: every hash verifies, 0 mismatches', async (file) => {
    const { code, json } = await runVerify(fx(file).pathname);
    expect(json.tokens.reduce((n, t) => n + t.mismatches + t.bestMismatches, 0)).toBe(0);
    expect(json.tokens.reduce((n, t) => n + t.hashesVerified, 0)).toBeGreaterThan(0);
    expect(code).toBe(0);
  });

  it('polytrader needs the hashed last_trade_price recovered (unannounced trade, complement 1 - p)', async () => {
    const { json } = await runVerify(fx('polytrader/polytrader_market_ws.time-sorted.jsonl').pathname);
    expect(json.tokens.reduce((n, t) => n + t.ltpRecovered, 0)).toBeGreaterThanOrEqual(2);
  });

  it.each(captures.map((c) => [c.file, c.unverifiable] as const))('%s: any single corrupted hash fails the run', async (file, unverifiable) => {
    const text = readFileSync(fx(file), 'utf8');
    const offsets = hashOffsets(text);
    expect(offsets.length).toBeGreaterThan(unverifiable.length);
    const passed: string[] = [];
    for (const [i, at] of offsets.entries()) {
      const copy = text.slice(0, at) + (text[at] === '0' ? '1' : '0') + text.slice(at + 1);
      const p = join(dir, `corrupt-${i}.jsonl`);
      writeFileSync(p, copy);
      const { code } = await runVerify(p);
      if (code !== 1) passed.push(text.slice(at, at + 8));
    }
    expect(passed).toEqual(unverifiable);
  });
});
