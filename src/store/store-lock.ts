// One daemon per store: a lock file beside the database (<db>.lock, holding the owner's pid), taken
// before the store opens and removed at stop. A second daemon on the same store would adopt the
// first's orders, write the same rows, and at its own stop send a cancel-all, which is
// account-wide: the first daemon's quotes gone. A lock whose pid is not running (a SIGKILL, a
// crash) or is this process's own (a container restarts with the same pid) is taken over.
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

export class StoreLock {
  private constructor(private readonly path: string) {}

  /** Takes the lock of the store at `dbPath`; throws StoreLockedError when a running process holds it. */
  static acquire(dbPath: string): StoreLock {
    const path = `${dbPath}.lock`;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(path, 'wx');
        try {
          writeSync(fd, String(process.pid));
        } finally {
          closeSync(fd);
        }
        return new StoreLock(path);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      let pid = NaN;
      try {
        pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
      } catch {
        // gone meanwhile, or unreadable: taken over below
      }
      if (Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && running(pid)) throw new StoreLockedError(path, pid);
      rmSync(path, { force: true }); // stale: its process is gone
    }
    throw new StoreLockedError(path, NaN);
  }

  release(): void {
    rmSync(this.path, { force: true });
  }
}
