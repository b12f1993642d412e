// Every test's temporary files go under one folder of the run, removed at its end (vitest
// globalSetup): a test that leaves its own behind, or is cut off by a timeout, leaves nothing in
// the system's tmp. Workers and the daemons they spawn inherit TMPDIR, which os.tmpdir() reads.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'makerd-test-'));
  const before = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  return () => {
    rmSync(dir, { recursive: true, force: true });
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
  };
}
