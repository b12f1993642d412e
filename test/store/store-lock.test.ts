// One daemon per store (store-lock.ts): the lock a SIGKILLed or crashed daemon left is taken over
// (its pid no longer runs), as is one holding our own pid (a container restarts with the same pid)
// or text that is no pid; one held by a running process is refused with that pid. Real processes.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreLock, StoreLockedError } from '../../src/store/store-lock.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function db(): string {
  const d = mkdtempSync(join(tmpdir(), 'makerd-lock-'));
  dirs.push(d);
  return join(d, 'makerd.sqlite');
}

describe('store lock', () => {
  it('is taken, refused to a second taker while held by a running process, and released', async () => {
    const path = db();
    const lock = StoreLock.acquire(path);
    expect(readFileSync(`${path}.lock`, 'utf8').split('\n')[0]).toBe(String(process.pid));
    lock.release();
    expect(existsSync(`${path}.lock`)).toBe(false);
    // another running process holds it
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)'], { stdio: 'ignore' });
    try {
      writeFileSync(`${path}.lock`, String(other.pid));
      let err: unknown;
      try {
        StoreLock.acquire(path);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(StoreLockedError);
      expect((err as StoreLockedError).pid).toBe(other.pid);
      expect(readFileSync(`${path}.lock`, 'utf8')).toBe(String(other.pid));
    } finally {
      other.kill('SIGKILL');
    }
  });

  it('takes over a lock whose process is gone (a SIGKILL), one with our own pid, and one that holds no pid', () => {
    const path = db();
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    for (const text of [String(gone), String(process.pid), 'not a pid', '']) {
      writeFileSync(`${path}.lock`, text);
      const lock = StoreLock.acquire(path);
      expect(readFileSync(`${path}.lock`, 'utf8').split('\n')[0], JSON.stringify(text)).toBe(String(process.pid));
      lock.release();
    }
  });

  it.skipIf(!existsSync('/proc/self/cmdline'))(
    'after a reboot, a lock whose pid now names another program is taken over; one a running makerd holds is not',
    async () => {
      const path = db();
      // the lock a makerd wrote before the machine went down; its pid now runs something else
      const other = spawn('sleep', ['20'], { stdio: 'ignore' });
      try {
        writeFileSync(`${path}.lock`, `${other.pid}\n/usr/bin/node /opt/makerd/dist/cli.js run`);
        const lock = StoreLock.acquire(path);
        expect(readFileSync(`${path}.lock`, 'utf8').split('\n')[0]).toBe(String(process.pid));
        lock.release();
      } finally {
        other.kill('SIGKILL');
      }
      // a running process that took the lock itself keeps it
      const src = JSON.stringify(new URL('../../src/store/store-lock.ts', import.meta.url).pathname);
      const loader = new URL('../backtest/register-ts.mjs', import.meta.url).pathname;
      const holder = spawn(
        process.execPath,
        [
          '--import',
          loader,
          '--input-type=module',
          '-e',
          `const { StoreLock } = await import(${src}); StoreLock.acquire(${JSON.stringify(path)}); process.stdout.write('held\\n'); setTimeout(() => {}, 20000);`,
          'märkte-€.json',
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      try {
        await new Promise<void>((resolve, reject) => {
          const t = setTimeout(() => reject(new Error('the holder did not take the lock')), 15_000);
          holder.stdout.on('data', (b: Buffer) => {
            if (b.toString().includes('held')) {
              clearTimeout(t);
              resolve();
            }
          });
        });
        expect(() => StoreLock.acquire(path)).toThrow(StoreLockedError);
      } finally {
        holder.kill('SIGKILL');
      }
    },
    30_000,
  );
});
