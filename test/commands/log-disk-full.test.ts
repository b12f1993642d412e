// The daemon's log on a full disk (stdout redirected to a file, as `> file` or systemd's
// StandardOutput=file: do): a log line that cannot be written must not stop the daemon (found in
// review: pino re-emitted the ENOSPC as an uncaught error: a crash, its cancel-all and exit 1 at the
// next line). The compiled daemon in paper mode against the emulator on loopback, its stdout on
// /dev/full (every write fails with ENOSPC); the drops are counted and named by /health.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, urlsEnv, type RunningEmulator } from '../../src/emulator/server.js';
import { assertBuilt, CLI } from '../e2e/harness.js';

let dir: string;
let emu: RunningEmulator;

beforeAll(async () => {
  assertBuilt();
  dir = mkdtempSync(join(tmpdir(), 'makerd-logfull-'));
  emu = await startEmulator({ seed: 7 });
});
afterAll(async () => {
  await emu?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the log on a full disk', () => {
  it.skipIf(!existsSync('/dev/full'))(
    'does not stop the daemon: the lines are dropped, counted, and /health says so',
    async () => {
      const port = await freePort();
      const full = openSync('/dev/full', 'w');
      const proc = spawn(process.execPath, [CLI, 'run', '--mode', 'paper', '--markets', emu.markets[0].facts.tokens[0]], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', ...urlsEnv(emu.urls), MAKERD_DB: join(dir, 'run.sqlite'), MAKERD_STATUS_PORT: String(port) },
        stdio: ['ignore', full, 'pipe'],
      });
      closeSync(full);
      let stderr = '';
      proc.stderr?.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
      let exited: number | null | undefined;
      proc.once('exit', (code) => (exited = code));
      try {
        // up and answering, and still running well after its first log lines failed
        let health: { status: number; body: string } | undefined;
        const end = performance.now() + 15_000;
        while (performance.now() < end && exited === undefined) {
          try {
            const r = await fetch(`http://127.0.0.1:${port}/health`);
            const body = await r.text();
            if (/log/i.test(body)) {
              health = { status: r.status, body };
              break;
            }
          } catch {
            // not listening yet
          }
          await sleep(100);
        }
        await sleep(1000);
        expect(exited, stderr).toBeUndefined();
        expect(health?.status).toBe(503);
        expect(health?.body).toMatch(/log lines dropped/);
        const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        const n = /^makerd_log_write_errors_total (\d+)/m.exec(metrics);
        expect(Number(n?.[1])).toBeGreaterThan(0);
        // and it stops as usual on SIGTERM (sonic-boom's synchronous flush at exit retried the failing write forever)
        proc.kill('SIGTERM');
        const waitEnd = performance.now() + 15_000;
        while (exited === undefined && performance.now() < waitEnd) await sleep(50);
        expect(exited, stderr).toBe(0);
      } finally {
        if (exited === undefined) {
          proc.kill('SIGTERM');
          await new Promise((r) => {
            const t = setTimeout(() => {
              proc.kill('SIGKILL');
              r(undefined);
            }, 20_000);
            proc.once('exit', () => {
              clearTimeout(t);
              r(undefined);
            });
          });
        }
      }
    },
    60_000,
  );
});
