// Where a strategy's syntax error is: Node 20 gives an ES module's SyntaxError with neither file nor
// line, and names only the strategy file even when the error is in a module it imports. Each local
// module the strategy reaches (relative imports, bounded) is checked with `node --check`, which
// prints the file, the line and the code there.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Local modules checked at most (a strategy with a large tree of its own). */
const MAX_FILES = 50;
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

/** `file:line: message` (and the code of that line) of the first syntax error among `entry` and the local modules it imports; undefined when none is found. */
export function syntaxErrorLocation(entry: string): string | undefined {
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0 && seen.size < MAX_FILES) {
    const file = queue.shift() as string;
    if (seen.has(file) || !existsSync(file)) continue;
    seen.add(file);
    const r = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8', timeout: 10_000 });
    if (r.status !== 0 && r.stderr) {
      // "<file>:<line>\n<code>\n<caret>\n\nSyntaxError: <message>"
      const lines = r.stderr.split('\n');
      const at = lines[0]?.trim();
      const message = lines.find((l) => /^SyntaxError: /.test(l));
      if (at && message) return `${at}: ${message.replace(/^SyntaxError: /, '')} (${(lines[1] ?? '').trim().slice(0, 120)})`;
    }
    let source = '';
    try {
      source = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const m of source.matchAll(IMPORT)) queue.push(resolve(dirname(file), m[1]));
  }
  return undefined;
}
