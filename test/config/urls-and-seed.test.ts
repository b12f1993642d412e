// Config values that zod's generic checks let through and that failed later, far from the key:
// a base URL of the wrong scheme (undici's Pool or the WebSocket threw a TypeError: an internal
// error with a stack trace, or a feed retrying for ever), a URL holding credentials (printed by
// doctor, never sent), a seed beyond the generator's 32 bits (replaying a smaller seed's run).
// Each is a ConfigError naming the key at load (the CLI prints it and exits 2).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, MAX_SEED } from '../../src/config.js';
import { configError } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'makerd-config-urls-'));
let n = 0;
function file(content: unknown): string {
  const p = join(dir, `c${n++}.json`);
  writeFileSync(p, JSON.stringify(content));
  return p;
}

describe('base URLs: the scheme their transport speaks', () => {
  // set by a variable, the variable is named (as the numeric ones are): the config file does not hold it
  it('a REST url without http: or https: names its key, or the variable that set it', () => {
    expect(configError(() => loadConfig({ env: { MAKERD_GAMMA_URL: 'localhost:8080/gamma' } })).key).toBe('MAKERD_GAMMA_URL');
    expect(configError(() => loadConfig({ env: { MAKERD_CLOB_URL: 'ws://127.0.0.1:1/clob' } })).key).toBe('MAKERD_CLOB_URL');
    expect(configError(() => loadConfig({ env: { MAKERD_DATA_URL: 'ftp://127.0.0.1/data' } })).key).toBe('MAKERD_DATA_URL');
    expect(configError(() => loadConfig({ file: file({ urls: { content: 'wss://example.com' } }), env: {} })).key).toBe('urls.content');
  });
  it('a WebSocket url without ws: or wss: names its key', () => {
    const e = configError(() => loadConfig({ env: { MAKERD_WS_URL: 'http://127.0.0.1:1' } }));
    expect(e.key).toBe('MAKERD_WS_URL');
    expect(e.reason).toMatch(/ws:\/\/ or wss:\/\//);
    expect(configError(() => loadConfig({ env: { MAKERD_PRICE_FEED_URL: 'https://127.0.0.1:1' } })).key).toBe('MAKERD_PRICE_FEED_URL');
    expect(configError(() => loadConfig({ file: file({ urls: { ws: 'http://127.0.0.1:1' } }), env: {} })).key).toBe('urls.ws');
  });
  it('the schemes each one speaks are accepted', () => {
    const c = loadConfig({
      env: { MAKERD_CLOB_URL: 'http://127.0.0.1:1/clob', MAKERD_GAMMA_URL: 'https://127.0.0.1:2/gamma', MAKERD_WS_URL: 'ws://127.0.0.1:3', MAKERD_PRICE_FEED_URL: 'wss://127.0.0.1:4/prices' },
    });
    expect([c.urls.clob, c.urls.gamma, c.urls.ws, c.urls.priceFeed]).toEqual(['http://127.0.0.1:1/clob', 'https://127.0.0.1:2/gamma', 'ws://127.0.0.1:3', 'wss://127.0.0.1:4/prices']);
  });
  it('a url holding a user name or password is refused, naming the key, without the password', () => {
    const secret = 'hunter2-s3cret';
    for (const [name, key, value] of [
      ['MAKERD_CLOB_URL', 'MAKERD_CLOB_URL', `https://user:${secret}@clob.example.com/clob`],
      ['MAKERD_GAMMA_URL', 'MAKERD_GAMMA_URL', `https://:${secret}@gamma.example.com`],
      ['MAKERD_WS_URL', 'MAKERD_WS_URL', `wss://user:${secret}@ws.example.com`],
    ] as const) {
      const e = configError(() => loadConfig({ env: { [name]: value } }));
      expect(e.key).toBe(key);
      expect(e.reason).toMatch(/user name or password/);
      expect(e.message).not.toContain(secret);
      expect(`${e.key}: ${e.reason}`).not.toContain(secret);
    }
    // a user name alone is refused as well: it is never sent either
    expect(configError(() => loadConfig({ env: { MAKERD_DATA_URL: 'https://user@data.example.com' } })).key).toBe('MAKERD_DATA_URL');
  });
});

describe('sim.seed: the generator keeps 32 bits', () => {
  it('above 4294967295 (it would replay seed - 2^32) or below 0 names sim.seed', () => {
    expect(MAX_SEED).toBe(2 ** 32 - 1);
    expect(configError(() => loadConfig({ file: file({ sim: { seed: 4294967296 } }), env: {} })).key).toBe('sim.seed');
    expect(configError(() => loadConfig({ file: file({ sim: { seed: 1e21 } }), env: {} })).key).toBe('sim.seed');
    expect(configError(() => loadConfig({ file: file({ sim: { seed: -1 } }), env: {} })).key).toBe('sim.seed');
  });
  it('0 and 4294967295 are seeds', () => {
    expect(loadConfig({ file: file({ sim: { seed: 0 } }), env: {} }).sim.seed).toBe(0);
    expect(loadConfig({ file: file({ sim: { seed: MAX_SEED } }), env: {} }).sim.seed).toBe(MAX_SEED);
  });
});
