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
    expect(readFileSync(`${path}.lock`, 'utf8')).toBe(String(process.pid));
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
      expect(readFileSync(`${path}.lock`, 'utf8'), JSON.stringify(text)).toBe(String(process.pid));
      lock.release();
    }
  });
});
