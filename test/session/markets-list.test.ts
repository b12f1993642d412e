// Many token ids resolve from the CLOB's market list (pages of many markets) instead of a GET /book
// and a GET /markets/{id} each (100 per 10 s apiece: 1,000 tokens took 100 s, past the start-up
// bound), against the emulator on loopback; the terms are the ones the one-by-one path finds.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { describe, expect, it } from 'vitest';
import { createClients } from '../../src/api/index.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/core/log.js';
import { startEmulator, urlsEnv } from '../../src/emulator/server.js';
import { marketsFromTokens } from '../../src/session/markets.js';

describe('marketsFromTokens with many tokens', () => {
  it('takes them from the market list (a few requests, no GET /book), with the terms found one by one', async () => {
    const emu = await startEmulator({ seed: 9, markets: 40, keys: ['k'] });
    const clients = createClients(loadConfig({ env: urlsEnv(emu.urls) }), 'k', silentLogger);
    const paths: string[] = [];
    const onCreate = (m: unknown) => paths.push((m as { request: { method: string; path: string } }).request.path.split('?')[0]);
    subscribe('undici:request:create', onCreate);
    try {
      // the first token of each market, and one market named by its second token
      const tokens = emu.markets.map((m, i) => m.facts.tokens[i === 7 ? 1 : 0]);
      const many = await marketsFromTokens(clients.clob, tokens, silentLogger);
      expect(many).toHaveLength(40);
      expect(many.map((m) => m.conditionId)).toEqual(emu.markets.map((m) => m.facts.conditionId));
      expect(paths.filter((p) => p.endsWith('/book'))).toEqual([]);
      expect(paths.length).toBeLessThan(10);
      // the one-by-one path (few tokens) finds the same terms
      paths.length = 0;
      const one = await marketsFromTokens(clients.clob, tokens.slice(0, 3), silentLogger);
      expect(paths.filter((p) => p.endsWith('/book'))).toHaveLength(3);
      expect(one).toEqual(many.slice(0, 3));
    } finally {
      unsubscribe('undici:request:create', onCreate);
      await clients.close();
      await emu.close();
    }
  });
});
