// status.host: the status server stays on 127.0.0.1 unless the user names another address
// (MAKERD_STATUS_HOST or status.host), and then the log says what that exposes. On loopback it
// answers only requests that name a loopback host: a web page whose name an attacker points at
// 127.0.0.1 (DNS rebinding) would otherwise read positions, orders and PnL from the browser.
import { request } from 'node:http';
import { describe, it, expect } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/core/log.js';
import { startDaemon } from './daemon-fixture.js';

describe('status.host', () => {
  it('is 127.0.0.1 by default; MAKERD_STATUS_HOST sets it', () => {
    expect(loadConfig({ env: {} }).status.host).toBe('127.0.0.1');
    expect(loadConfig({ env: { MAKERD_STATUS_HOST: '0.0.0.0' } }).status.host).toBe('0.0.0.0');
  });

  it('binds the named address with a warning in the log; the default binds loopback without one', async () => {
    for (const host of ['0.0.0.0', undefined]) {
      const lines: string[] = [];
      const log = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(s) } });
      const run = await startDaemon(1, { env: host ? { MAKERD_STATUS_HOST: host } : {}, log });
      try {
        const port = new URL(run.url).port;
        expect(run.url).toBe(`http://${host ?? '127.0.0.1'}:${port}`);
        // reached over loopback either way
        expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
        const warned = lines.map((l) => JSON.parse(l) as { level: number; msg: string; host?: string }).filter((l) => l.level === 40 && /status server listening beyond loopback/.test(l.msg));
        expect(warned.map((l) => l.host)).toEqual(host ? [host] : []);
      } finally {
        await run.close();
      }
    }
  }, 60_000);

  it('on loopback, refuses a request naming another host (DNS rebinding) and answers loopback names', async () => {
    const run = await startDaemon(1, {});
    try {
      const port = Number(new URL(run.url).port);
      const get = (host: string | undefined, path = '/status'): Promise<number> =>
        new Promise((resolve, reject) => {
          const req = request({ host: '127.0.0.1', port, path, headers: host === undefined ? {} : { host } }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          });
          req.on('error', reject);
          req.end();
        });
      expect(await get(`attacker.example:${port}`)).toBe(421);
      expect(await get('attacker.example', '/metrics')).toBe(421);
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`, '127.0.0.1']) expect(await get(host), host).toBe(200);
    } finally {
      await run.close();
    }
  }, 60_000);
});
