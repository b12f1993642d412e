// A market of the query whose end date passes while it is quoted (found in review): the query now
// leaves it out, and when it was the last one the empty answer read as a hiccup kept the whole set,
// so the daemon went on quoting exactly the markets whose outcome may be known. A market past its
// end date goes whatever the answer. The emulator behind a node:http proxy of its metadata API that
// gives each market an end date a few seconds ahead.
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { specProfile } from '../../src/api/clob-profile.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/core/log.js';
import { Daemon } from '../../src/session/daemon.js';
import { startEmulator, urlsEnv, type RunningEmulator } from '../../src/emulator/server.js';
import { bounded } from '../e2e/harness.js';

let emu: RunningEmulator | undefined;
let proxy: Server | undefined;
let dir: string | undefined;
afterEach(async () => {
  await new Promise<void>((r) => (proxy ? proxy.close(() => r()) : r()));
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  emu = undefined;
  proxy = undefined;
  dir = undefined;
});
const NEVER = '0 0 1 1 *';

/** The emulator's metadata API with every market's end date set to `endIso`. */
async function endingGamma(gammaUrl: string, endIso: string): Promise<string> {
  proxy = createServer((req, res) => {
    void fetch(gammaUrl + (req.url ?? '')).then(async (r) => {
      let body = await r.text();
      if (r.ok) body = body.replace(/"endDate":"[^"]*"/g, `"endDate":"${endIso}"`);
      res.writeHead(r.status, { 'content-type': 'application/json' }).end(body);
    });
  });
  await new Promise<void>((r) => proxy!.listen(0, '127.0.0.1', () => r()));
  const a = proxy.address();
  return `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
}

describe('a market of the query past its end date', () => {
  it('is retired at the next refresh even when the query then finds no market', async () => {
    emu = await startEmulator({ seed: 3, markets: 1, keys: ['k'] });
    dir = mkdtempSync(join(tmpdir(), 'makerd-market-end-'));
    const endMs = Date.now() + 2500;
    const gamma = await endingGamma(emu.urls.gamma, new Date(endMs).toISOString());
    const config = loadConfig({
      env: { ...urlsEnv(emu.urls), MAKERD_GAMMA_URL: gamma, MAKERD_DB: join(dir, 's.sqlite') },
      overrides: { mode: 'paper', marketQuery: { enabled: true, limit: 1 }, cron: { refreshMarkets: NEVER, reconcile: NEVER, dailySummary: NEVER } },
    });
    const d = new Daemon({ config, venue: specProfile('k'), log: silentLogger, statusPort: 0 });
    try {
      await bounded(d.start(), 20_000, 'start');
      expect(d.markets).toHaveLength(1);
      const id = d.markets[0].conditionId;
      await new Promise((r) => setTimeout(r, Math.max(0, endMs - Date.now()) + 200));
      const change = await d.refreshMarkets();
      expect(change.removed).toEqual([id]);
    } finally {
      await d.stop('test');
    }
  }, 40_000);
});
