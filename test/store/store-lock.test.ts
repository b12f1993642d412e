// One daemon per store (store-lock.ts): the lock is the kernel's (SQLite's exclusive lock on
// <db>.lock.db), held while the process lives and released when it dies however it dies, so a
// second process is refused while the first runs (its pid named), whatever pids the two have
// (two containers on one volume may both be pid 1), and takes the lock once the first is gone (a
// SIGKILL included). The text lock older makerds read (<db>.lock: a pid and a command line) is
// written too, so they are refused; one an older makerd holds is honoured while its process runs,
// taken over otherwise. Real processes.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreLock, StoreLockedError } from '../../src/store/store-lock.js';

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function db(): string {
  const d = mkdtempSync(join(tmpdir(), 'makerd-lock-'));
  dirs.push(d);
  return join(d, 'makerd.sqlite');
}

/** A process that takes the lock (through the TypeScript loader) and holds it until killed. */
async function holder(path: string): Promise<ChildProcess> {
  const src = JSON.stringify(new URL('../../src/store/store-lock.ts', import.meta.url).pathname);
  const loader = new URL('../backtest/register-ts.mjs', import.meta.url).pathname;
  const p = spawn(
    process.execPath,
    [
      '--import',
      loader,
      '--input-type=module',
      '-e',
      `const { StoreLock } = await import(${src}); StoreLock.acquire(${JSON.stringify(path)}); process.stdout.write('held\\n'); setTimeout(() => {}, 30000);`,
      'märkte-€.json',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(p);
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('the holder did not take the lock')), 15_000);
    p.stdout?.on('data', (b: Buffer) => {
      if (b.toString().includes('held')) {
        clearTimeout(t);
        resolve();
      }
    });
    p.once('exit', (code) => reject(new Error(`the holder exited (${code})`)));
  });
  return p;
}

function refusal(path: string): StoreLockedError | undefined {
  try {
    StoreLock.acquire(path).release();
    return undefined;
  } catch (e) {
    if (e instanceof StoreLockedError) return e;
    throw e;
  }
}

describe('store lock', () => {
  it('is refused to a second process while the first holds it (naming its pid), and taken once the first is SIGKILLed', async () => {
    const path = db();
    const h = await holder(path);
    expect(refusal(path)?.pid).toBe(h.pid);
    h.kill('SIGKILL');
    await new Promise<void>((r) => h.once('exit', () => r()));
    const lock = StoreLock.acquire(path);
    lock.release();
  }, 30_000);

  it('does not go by pids: a holder whose recorded pid is ours (two containers, both pid 1) is still refused', async () => {
    const path = db();
    await holder(path);
    // the text a process with our pid in another container would have written
    writeFileSync(`${path}.lock`, `${process.pid}\n`);
    expect(refusal(path)).toBeInstanceOf(StoreLockedError);
  }, 30_000);

  it('in one process: a second taker is refused until the first releases', () => {
    const path = db();
    const a = StoreLock.acquire(path);
    // the text an older makerd reads: our pid (running: it is refused) and command line
    expect(readFileSync(`${path}.lock`, 'latin1').split('\n')[0]).toBe(String(process.pid));
    expect(refusal(path)?.pid).toBe(process.pid);
    a.release();
    expect(existsSync(`${path}.lock`)).toBe(false);
    StoreLock.acquire(path).release();
  });

  it("an older makerd's text lock: refused while its process runs, taken over when that is gone, ours, or no pid", () => {
    const path = db();
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)'], { stdio: 'ignore' });
    children.push(other);
    writeFileSync(`${path}.lock`, String(other.pid));
    expect(refusal(path)?.pid).toBe(other.pid);
    expect(refusal(path)?.pid).toBe(other.pid); // the refusal left no kernel lock behind
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    for (const text of [String(gone), String(process.pid), 'not a pid', '']) {
      writeFileSync(`${path}.lock`, text);
      const lock = StoreLock.acquire(path);
      expect(refusal(path), JSON.stringify(text)).toBeInstanceOf(StoreLockedError);
      lock.release();
    }
  });

  it.skipIf(!existsSync('/proc/self/cmdline'))("after a reboot, an older makerd's text lock whose pid now names another program is taken over", () => {
    const path = db();
    const other = spawn('sleep', ['20'], { stdio: 'ignore' });
    children.push(other);
    writeFileSync(`${path}.lock`, `${other.pid}\n/usr/bin/node /opt/makerd/dist/cli.js run`);
    StoreLock.acquire(path).release();
  });
});
