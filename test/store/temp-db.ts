// SQLite files in temporary folders for the store tests, removed after each test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

/** Registers the clean-up (call at a test file's top level); returns a maker of fresh database paths. */
export function tempDbs(label: string): () => string {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  return () => {
    const d = mkdtempSync(join(tmpdir(), `makerd-${label}-`));
    dirs.push(d);
    return join(d, 'store.sqlite');
  };
}
