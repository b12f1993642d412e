// status.host: the status server stays on 127.0.0.1 unless the user names another address
// (MAKERD_STATUS_HOST or status.host), and then the log says what that exposes.
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
});
