// The user channel lost during start-up, after start-up's look-up has read the venue's trades: a
// fill in between is on neither (the look-up read before it, the channel was away). The daemon
// looks up again once the channel is back, and quotes only after that look-up, as it does for a
// channel lost while quoting; before, only a channel back after quoting had started was caught up
// (a fill in that gap waited for the periodic reconciliation). Against the emulator on loopback.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { specProfile } from '../../src/api/clob-profile.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/core/log.js';
import { startEmulator, urlsEnv } from '../../src/emulator/server.js';
import { Daemon } from '../../src/session/daemon.js';
import { KEY, sleep } from '../status/daemon-fixture.js';

const OFF = '0 0 1 1 *';

describe('the user channel lost during start-up, after its look-up read the trades', () => {
  it('is caught up by a look-up once back, before the first quote', async () => {
    let tradeReads = 0;
    const ref: { emu?: Awaited<ReturnType<typeof startEmulator>> } = {};
    // start-up's look-up reads the trades: that answer comes 3 s late, and the user channel drops
    // now (it is back well before that answer), so the gap falls inside start-up
    const emu = await startEmulator({
      seed: 5,
      markets: 1,
      keys: [KEY],
      onRequest: (r) => {
        if (r.method !== 'GET' || !r.path.endsWith('/trades') || ++tradeReads !== 1) return;
        ref.emu?.admin.set({ latencyMs: 3000 });
        ref.emu?.admin.dropConnections();
      },
    });
    ref.emu = emu;
    const dir = mkdtempSync(join(tmpdir(), 'makerd-user-startup-'));
    const lines: string[] = [];
    const log = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(s) } });
    const config = loadConfig({
      env: { ...urlsEnv(emu.urls), MAKERD_DB: join(dir, 's.sqlite') },
      // a quick reconnect: the channel is back well inside the 3 s
      overrides: { mode: 'live', cron: { reconcile: OFF, refreshMarkets: OFF, dailySummary: OFF }, feed: { reconnectBaseMs: 50, reconnectMaxMs: 200 } },
    });
    const daemon = new Daemon({ config, venue: specProfile(KEY), log, tokens: [emu.markets[0].facts.tokens[0]], statusPort: 0 });
    const started = daemon.start();
    try {
      // the channel back while start-up still waits for that answer
      const end = Date.now() + 10_000;
      while (tradeReads === 0 && Date.now() < end) await sleep(5);
      const back = Date.now() + 2800;
      while (daemon.feedStates.user !== 'live' && Date.now() < back) await sleep(5);
      expect(daemon.feedStates.user).toBe('live');
      emu.admin.set({ latencyMs: 0 });
      await started;
      expect(tradeReads).toBeGreaterThanOrEqual(1);
      // looked up again once it was back, before or as quoting began
      const until = Date.now() + 10_000;
      while (tradeReads < 2 && Date.now() < until) await sleep(20);
      expect(tradeReads).toBeGreaterThanOrEqual(2);
      expect(lines.some((l) => l.includes('user channel back: looking up'))).toBe(true);
    } finally {
      await started.catch(() => undefined);
      await daemon.stop('test');
      await emu.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
