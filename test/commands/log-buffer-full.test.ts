// The log after a long full-disk spell (found in review): past its buffer's bound, sonic-boom drops
// each new line without trying the failed write again, so nothing was counted (/health went back to
// 200 a minute later while every line was lost) and the log stayed dead after the disk had room.
// A real file under a real size limit (`ulimit -f`: writes past it fail with EFBIG, as a full disk's
// with ENOSPC); the compiled logDestination in a child process of its own; the file emptied (room
// again) while the child waits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { assertBuilt, bounded, ROOT } from '../e2e/harness.js';

let dir: string;
beforeAll(() => {
  assertBuilt();
  dir = mkdtempSync(join(tmpdir(), 'makerd-logbuf-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Writes 300 lines of ~1 KB through a destination holding at most 16 KB (the file takes 32 KB), then
// 20 more; reports logWriteErrors after each phase; on "go" (the file emptied) one line, a pause for
// the retry, then a marker line.
const CHILD = `
import { openSync } from 'node:fs';
const { logDestination, logWriteErrors } = await import(process.argv[2]);
const d = logDestination(openSync(process.argv[1], 'a'), 16 * 1024);
const settle = () => new Promise((r) => setTimeout(r, 5));
const say = (phase) => process.stdout.write(JSON.stringify({ phase, count: logWriteErrors.count, last: logWriteErrors.last }) + '\\n');
for (let i = 0; i < 300; i++) { d.write('line ' + i + ' ' + 'x'.repeat(1000) + '\\n'); await settle(); }
say('full');
for (let i = 0; i < 20; i++) d.write('more ' + i + ' ' + 'x'.repeat(1000) + '\\n');
await settle();
say('more');
process.stdin.once('data', async () => {
  d.write('wake\\n');
  await settle(); await settle();
  d.write('after-the-disk-had-room\\n');
  await settle(); await settle();
  say('done');
  process.exit(0);
});
`;

describe('the log past its buffer bound', () => {
  it('counts every dropped line and writes again once the disk has room', async () => {
    const file = join(dir, 'out.log');
    writeFileSync(file, '');
    const mod = pathToFileURL(join(ROOT, 'dist', 'src', 'core', 'log.js')).href;
    // ulimit -f counts 1 KiB blocks: 32 KB
    const proc = spawn('bash', ['-c', 'ulimit -f 32; exec "$0" --input-type=module -e "$1" "$2" "$3"', process.execPath, CHILD, file, mod], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    proc.stdout.on('data', (b: Buffer) => (out += b.toString()));
    proc.stderr.on('data', (b: Buffer) => (err += b.toString()));
    const exited = new Promise<number | null>((r) => proc.once('exit', (c) => r(c)));
    const reports = (): Array<{ phase: string; count: number; last: string }> =>
      out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { phase: string; count: number; last: string });
    await bounded(
      (async () => {
        while (!reports().some((r) => r.phase === 'more')) await new Promise((r) => setTimeout(r, 50));
      })(),
      30_000,
      "the child's first phases",
    );
    expect(err).toBe('');
    const [full, more] = reports();
    expect(full.count).toBeGreaterThan(0);
    // the 20 lines after the buffer filled are all dropped, and each one counted
    expect(more.count - full.count).toBeGreaterThanOrEqual(20);
    expect(readFileSync(file, 'utf8')).not.toContain('after-the-disk-had-room');
    truncateSync(file, 0);
    proc.stdin.write('go\n');
    expect(await bounded(exited, 30_000, "the child's exit"), err).toBe(0);
    // the held lines went out, and the line logged after them
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('after-the-disk-had-room');
    expect(text).toMatch(/^line \d+ x+$/m);
  }, 60_000);
});
