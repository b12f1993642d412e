// A configured token the venue has no book for (its market resolved, or a token that does not exist)
// among others (found in review): the daemon's start-up threw, so it could not start while that token
// stayed in the config (pm2 restarting it for ever, the other markets unquoted), and every refresh of
// the tokens' terms failed. It is left out with a warning; the others are quoted. Against the emulator.
import { afterEach, describe, expect, it } from 'vitest';
import { specProfile } from '../../src/api/clob-profile.js';
import { loadConfig } from '../../src/config.js';
import { createLogger, silentLogger } from '../../src/core/log.js';
import { ConfigError, MakerdError } from '../../src/core/errors.js';
import { Daemon } from '../../src/session/daemon.js';
import { startEmulator, urlsEnv, type RunningEmulator } from '../../src/emulator/server.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bounded } from '../e2e/harness.js';

let emu: RunningEmulator | undefined;
let dir: string | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});
const NEVER = '0 0 1 1 *';

/** The emulator with `markets` markets, and a paper config over it (no cron job: the test drives refreshes). */
async function paperOver(markets: number) {
  emu = await startEmulator({ seed: 5, markets, keys: ['k'] });
  dir = mkdtempSync(join(tmpdir(), 'makerd-missing-token-'));
  return loadConfig({
    env: { ...urlsEnv(emu.urls), MAKERD_DB: join(dir, 's.sqlite') },
    overrides: { mode: 'paper', cron: { refreshMarkets: NEVER, reconcile: NEVER, dailySummary: NEVER } },
  });
}

describe('a configured token with no book at the venue', () => {
  it('is left out with a warning at start-up; the other markets are quoted (a refresh of the terms leaves one out alike)', async () => {
    const config = await paperOver(2);
    const lines: Array<{ level: number; msg: string }> = [];
    const log = createLogger({ level: 'warn', destination: { write: (s: string) => void lines.push(JSON.parse(s) as (typeof lines)[number]) } });
    const dead = '9'.repeat(70);
    const d = new Daemon({ config, venue: specProfile('k'), log, tokens: [emu!.markets[0].facts.tokens[0], dead, emu!.markets[1].facts.tokens[0]], statusPort: 0 });
    try {
      await bounded(d.start(), 20_000, 'start');
      expect(d.markets.map((m) => m.conditionId).sort()).toEqual([emu!.markets[0].facts.conditionId, emu!.markets[1].facts.conditionId].sort());
      expect(lines.some((l) => l.level === 40 && /no book/.test(l.msg))).toBe(true);
    } finally {
      await d.stop('test');
    }
  }, 40_000);

  it('every configured token without a book: a failure to start a restart may cure (exit 1), not a configuration error (exit 2, never restarted)', async () => {
    const config = await paperOver(1);
    const d = new Daemon({ config, venue: specProfile('k'), log: silentLogger, tokens: ['9'.repeat(70)], statusPort: 0 });
    try {
      const err = await bounded(d.start(), 20_000, 'start').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(MakerdError);
      expect(err).not.toBeInstanceOf(ConfigError);
      expect(String(err)).toMatch(/404/);
    } finally {
      await d.stop('test');
    }
  }, 40_000);

  it('a market of the set that answers 404 once at a refresh keeps its place (the venue may be wrong for a moment)', async () => {
    const config = await paperOver(2);
    const a = emu!.markets[0].facts;
    const d = new Daemon({ config, venue: specProfile('k'), log: silentLogger, tokens: [a.tokens[0], emu!.markets[1].facts.tokens[0]], statusPort: 0 });
    try {
      await bounded(d.start(), 20_000, 'start');
      expect(d.markets).toHaveLength(2);
      // the venue answers 404 for A's book once (the emulator's own 404, for a token it does not know)
      const clob = d.clients.clob;
      const getBook = clob.getBook.bind(clob);
      let once = true;
      clob.getBook = (token: string) => {
        if (once && token === a.tokens[0]) {
          once = false;
          return getBook('9'.repeat(70));
        }
        return getBook(token);
      };
      const change = await d.refreshMarkets();
      expect(change.removed).toEqual([]);
      expect(d.markets.map((m) => m.conditionId)).toContain(a.conditionId);
    } finally {
      await d.stop('test');
    }
  }, 40_000);
});
