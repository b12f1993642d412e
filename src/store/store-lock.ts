// One daemon per store: a second daemon on the same store would adopt the first's orders, write the
// same rows, and at its own stop send a cancel-all, which is account-wide: the first's quotes gone.
// The lock is the kernel's: SQLite's exclusive lock on <db>.lock.db (a database of its own, kept in
// exclusive locking mode for the process's life), so it holds whatever pids the processes have (two
// containers on one volume may both be pid 1) and is released however the holder dies (a SIGKILL
// too); no race between two takers. That file is never removed: a holder that unlinked it could
// leave a later taker locking a file nobody else opens. The holder also writes the text lock older
// makerds take (<db>.lock: pid and command line), which names it in a refusal and keeps them out;
// one an older makerd holds is honoured while its process runs.
import { closeSync, openSync, readFileSync, realpathSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';

export class StoreLockedError extends Error {
  constructor(
    readonly lockPath: string,
    readonly pid: number,
  ) {
    super(`in use by another makerd (${Number.isSafeInteger(pid) ? `pid ${pid}` : 'pid unknown'}; its lock ${lockPath})`);
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

/**
 * An older makerd's text lock (its pid, and on Linux its command line): held while that pid runs
 * that command line; taken over when it is gone, is ours (a container restarted with the same pid),
 * or the pid now runs another program (a reboot). Returns the holder's pid, or undefined when stale.
 */
function textLockHolder(path: string): number | undefined {
  let pid = NaN;
  let cmd: string | undefined;
  try {
    const [first, ...rest] = readFileSync(path, 'latin1').split('\n');
    pid = Number.parseInt(first, 10);
    cmd = rest.join('\n');
  } catch {
    return undefined;
  }
  if (!(Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && running(pid))) return undefined;
  if (cmd === undefined || cmd === '') return pid;
  const now = commandLine(pid);
  return now === undefined || now === cmd ? pid : undefined;
}

/** The store's path with every symlink resolved: the file's own when it exists, else its folder's (the file is yet to be made there). */
function realStorePath(dbPath: string): string {
  try {
    return realpathSync(dbPath);
  } catch {
    try {
      return join(realpathSync(dirname(dbPath)), basename(dbPath));
    } catch {
      return dbPath;
    }
  }
}

const isCode = (e: unknown, code: string): boolean => (e as { code?: string }).code === code;

export class StoreLock {
  private constructor(
    private readonly db: Database.Database,
    private readonly textPath: string,
  ) {}

  /** Takes the lock of the store at `dbPath`; throws StoreLockedError while another process (or another taker in this one) holds it. */
  static acquire(dbPath: string): StoreLock {
    // beside the real file, however the path reaches it (SQLite follows a symlink to the file it opens)
    const real = realStorePath(dbPath);
    const textPath = `${real}.lock`;
    const kernelPath = `${real}.lock.db`;
    let db: Database.Database | undefined;
    try {
      db = new Database(kernelPath, { timeout: 0 });
      db.pragma('locking_mode = EXCLUSIVE');
      // the first write takes the exclusive lock, kept until the connection closes
      db.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL); DELETE FROM holder;');
      db.prepare('INSERT INTO holder (pid) VALUES (?)').run(process.pid);
    } catch (e) {
      db?.close();
      if (isCode(e, 'SQLITE_BUSY')) throw new StoreLockedError(kernelPath, textLockPid(textPath));
      throw e;
    }
    try {
      writeTextLock(textPath);
    } catch (e) {
      db.close();
      throw e;
    }
    return new StoreLock(db, textPath);
  }

  release(): void {
    // the text first: once the kernel lock is free, the next holder writes its own
    try {
      rmSync(this.textPath, { force: true });
    } finally {
      this.db.close();
    }
  }
}

/**
 * Writes the text lock older makerds take (held by the kernel lock, so no other makerd of ours
 * writes it meanwhile): created anew, or over one whose holder is gone; one an older makerd running
 * holds is not ours to take (StoreLockedError).
 */
function writeTextLock(path: string): void {
  const cmd = commandLine('self');
  // latin1 both ways: the command line is read as bytes, and written back byte for byte
  const text = cmd === undefined ? String(process.pid) : `${process.pid}\n${cmd}`;
  try {
    const fd = openSync(path, 'wx');
    try {
      writeSync(fd, text, null, 'latin1');
    } finally {
      closeSync(fd);
    }
    return;
  } catch (e) {
    if (!isCode(e, 'EEXIST')) throw e;
  }
  const pid = textLockHolder(path);
  if (pid !== undefined) throw new StoreLockedError(path, pid);
  writeFileSync(path, text, 'latin1');
}

/** The pid a text lock names (NaN when unreadable or none). */
function textLockPid(path: string): number {
  try {
    return Number.parseInt(readFileSync(path, 'latin1').split('\n')[0], 10);
  } catch {
    return NaN;
  }
}
