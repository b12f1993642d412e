// Checks of the paths the data tools (backtest, verify, record) are given, made before any work:
// a missing input or an output that cannot be written is one line and exit 2 (a usage error),
// never a stack trace after a long run. Each returns what is wrong, or undefined.
import { accessSync, constants, statSync, type Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { existingRecordingFiles } from '../feed/recorder.js';

function stat(p: string): Stats | undefined {
  try {
    return statSync(p);
  } catch {
    return undefined;
  }
}

function writable(p: string): boolean {
  try {
    accessSync(p, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** An input file: it exists, is a file, and can be read. */
export function inputFileProblem(path: string): string | undefined {
  const s = stat(path);
  if (!s) return 'no such file';
  if (s.isDirectory()) return 'is a directory, not a file';
  try {
    accessSync(path, constants.R_OK);
  } catch {
    return 'not readable (permission denied)';
  }
  return undefined;
}

/** The nearest existing folder at or above `dir` must be a writable folder (the rest is created). */
function creatableDir(dir: string): string | undefined {
  let d = resolve(dir);
  for (;;) {
    const s = stat(d);
    if (s) {
      if (!s.isDirectory()) return d === resolve(dir) ? 'not a directory' : `${d} is not a directory`;
      if (!writable(d)) return d === resolve(dir) ? 'not writable (permission denied)' : `${d} is not writable (permission denied)`;
      return undefined;
    }
    const up = dirname(d);
    if (up === d) return 'no existing parent folder';
    d = up;
  }
}

/** An output folder (created with its parents when missing). */
export function outputDirProblem(dir: string): string | undefined {
  return creatableDir(dir);
}

/** An output file: its folder exists and is writable, and the path itself is not a folder (nor a read-only file). */
export function outputFileProblem(path: string): string | undefined {
  const s = stat(path);
  if (s?.isDirectory()) return 'is a directory, not a file';
  if (s && !writable(path)) return 'not writable (permission denied)';
  const dir = dirname(resolve(path));
  const d = stat(dir);
  if (!d) return `no such folder: ${dir}`;
  if (!d.isDirectory()) return `${dir} is not a directory`;
  if (!writable(dir)) return `folder ${dir} is not writable (permission denied)`;
  return undefined;
}

/**
 * A recording's --out (record): an output file as above, and no earlier recording there, neither
 * the file itself nor a rotated sibling (rec.1.jsonl, ...): a rerun would truncate the one and mix
 * the others into its own rotation.
 */
export function newRecordingProblem(out: string): string | undefined {
  const bad = outputFileProblem(out);
  if (bad) return bad;
  const earlier = existingRecordingFiles(out)[0];
  if (earlier === undefined) return undefined;
  return `${earlier === out ? 'exists' : `${earlier} exists`} (an earlier recording?): record to a new name, or move it away first`;
}

/** A system error (ENOENT, EACCES, ENOSPC ...) as thrown by node:fs: its one-line message, else undefined. */
export function systemErrorLine(e: unknown): string | undefined {
  if (!(e instanceof Error)) return undefined;
  const code = (e as NodeJS.ErrnoException).code;
  if (typeof code !== 'string' || !/^E[A-Z]+$/.test(code)) return undefined;
  return e.message.split('\n')[0];
}
