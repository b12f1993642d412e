// One daemon per store: a lock file beside the database (<db>.lock, holding the owner's pid and,
// on Linux, its command line), taken before the store opens and removed at stop. A second daemon on
// the same store would adopt the first's orders, write the same rows, and at its own stop send a
// cancel-all, which is account-wide: the first daemon's quotes gone. A lock whose pid is not
// running (a SIGKILL, a crash), is this process's own (a container restarts with the same pid), or
// now runs another command line (a reboot gave the pid to another program) is taken over.
import { openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';

export class StoreLockedError extends Error {
  constructor(
    readonly lockPath: string,
    readonly pid: number,
  ) {
    super(`in use by another makerd (pid ${pid}; its lock ${lockPath})`);
    this.name = 'StoreLockedError';
  }
}

/** Whether `pid` names a running process (one we may not signal counts as running). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A process's command line (/proc, Linux), undefined where it cannot be read. */
function commandLine(pid: number | 'self'): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').replace(/\0+$/, '').replace(/\0/g, ' ');
  } catch {
    return undefined;
  }
}

/** Whether the lock's holder still runs: its pid runs and, when the lock names a command line, runs that one. */
function holding(pid: number, cmd: string | undefined): boolean {
  if (!running(pid)) return false;
  if (cmd === undefined || cmd === '') return true; // an older lock: the pid alone
  const now = commandLine(pid);
  return now === undefined || now === cmd;
}

export class StoreLock {
  private constructor(private readonly path: string) {}

  /** Takes the lock of the store at `dbPath`; throws StoreLockedError when a running process holds it. */
  static acquire(dbPath: string): StoreLock {
    const path = `${dbPath}.lock`;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(path, 'wx');
        try {
          const cmd = commandLine('self');
          // latin1 both ways: the command line is read as bytes, and written back byte for byte
          writeSync(fd, cmd === undefined ? String(process.pid) : `${process.pid}\n${cmd}`, null, 'latin1');
        } finally {
          closeSync(fd);
        }
        return new StoreLock(path);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      let pid = NaN;
      let cmd: string | undefined;
      try {
        const [first, ...rest] = readFileSync(path, 'latin1').split('\n');
        pid = Number.parseInt(first, 10);
        cmd = rest.join('\n');
      } catch {
        // gone meanwhile, or unreadable: taken over below
      }
      if (Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && holding(pid, cmd)) throw new StoreLockedError(path, pid);
      rmSync(path, { force: true }); // stale: its process is gone
    }
    throw new StoreLockedError(path, NaN);
  }

  release(): void {
    rmSync(this.path, { force: true });
  }
}
