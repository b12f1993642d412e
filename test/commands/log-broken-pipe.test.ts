// The log's stdout closed by its reader (`makerd run | head`, a log shipper that went away): EPIPE is
// no write error to count or to name in /health (pino drops those lines by design). The compiled
// logger in a child process whose stdout pipe the test closes.
import { beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { assertBuilt, ROOT } from '../e2e/harness.js';
import { join } from 'node:path';

beforeAll(() => assertBuilt());

const script = (logUrl: string) =>
  `const { createLogger, logWriteErrors } = await import(${JSON.stringify(logUrl)});` +
  `const log = createLogger();` +
  `setTimeout(() => { for (let i = 0; i < 200; i++) log.info({ i }, 'line'); ` +
  `setTimeout(() => { process.stderr.write('ERRORS ' + logWriteErrors.count + '\\n'); process.exit(0); }, 500); }, 300);`;

function run(): Promise<number> {
  const logUrl = 'file://' + join(ROOT, 'dist/src/core/log.js');
  const child = spawn(process.execPath, ['--input-type=module', '-e', script(logUrl)], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.destroy();
  let err = '';
  child.stderr?.on('data', (b: Buffer) => (err += b.toString()));
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no answer: ${err}`));
    }, 10_000);
    child.once('close', () => {
      clearTimeout(t);
      const m = /ERRORS (\d+)/.exec(err);
      if (!m) reject(new Error(`no count: ${err}`));
      else resolve(Number(m[1]));
    });
  });
}

describe('the log on a closed stdout', () => {
  it('a pipe its reader closed (EPIPE) is not counted as a write error', async () => {
    expect(await run()).toBe(0);
  });
});
