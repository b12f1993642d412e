// The grid's worker pool (backtest/pool.ts) with test workers: every worker runs with the
// backtest's heap growth (V8 flags are per process: the parent's own did not reach them), and a
// worker that stays up after its answer (a user strategy's own timer) is ended instead of holding
// its slot, and the sweep, for good. Real processes; bounded.
import { fork } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { assertBuilt, ROOT } from '../e2e/harness.js';
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { runInWorkers } from '../../src/backtest/pool.js';
import { BACKTEST_HEAP_GROWING_PERCENT } from '../../src/backtest/heap-growth.js';

const SAMPLE = fileURLToPath(new URL('../../data/sample-synthetic.jsonl.gz', import.meta.url));
const ECHO = fileURLToPath(new URL('../fixtures/workers/echo-flags.mjs', import.meta.url));

describe('grid worker pool', () => {
  it("runs each worker with the backtest's heap growth", async () => {
    const r = await runInWorkers<{ linger: boolean }, string[]>([{ linger: false }], { workers: 1, workerPath: ECHO, execArgv: [] });
    expect(r[0]).toEqual({ ok: true, value: [`--heap-growing-percent=${BACKTEST_HEAP_GROWING_PERCENT}`] });
  });

  it('a worker that stays up after its answer is ended: the next job gets its slot', async () => {
    const t0 = Date.now();
    const r = await runInWorkers<{ linger: boolean }, string[]>([{ linger: true }, { linger: true }], { workers: 1, workerPath: ECHO, execArgv: [] });
    expect(r.map((x) => x.ok)).toEqual([true, true]);
    expect(Date.now() - t0).toBeLessThan(10_000);
  }, 20_000);
});

describe('grid worker: its pool gone', () => {
  it('exits when the IPC channel to its pool closes (the parent killed), instead of running its job on and writing after the sweep', async () => {
    // the compiled worker (npm test builds first): it takes its job at once, where the TypeScript
    // loader's start-up would outlast the wait below
    assertBuilt();
    const worker = join(ROOT, 'dist', 'src', 'backtest', 'worker.js');
    const child = fork(worker, [], { execArgv: [], stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: 'json' });
    let stderr = '';
    child.stderr?.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
    try {
      await new Promise<void>((resolve, reject) => {
        child.once('spawn', () => resolve());
        child.once('error', reject);
      });
      // a long job (the sample recording 200 times), then, mid-job, the channel closes as it
      // does when the pool's process dies
      const out = join(mkdtempSync(join(tmpdir(), 'makerd-worker-')), 'combo');
      child.send({ id: 0, job: { data: Array.from({ length: 200 }, () => SAMPLE), config: loadConfig({ env: {} }), outDir: out } });
      const replies: unknown[] = [];
      child.on('message', (m) => void replies.push(m));
      await new Promise((r) => setTimeout(r, 1500));
      // still at it: no answer yet
      expect(replies).toEqual([]);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      const t0 = Date.now();
      child.disconnect();
      const code = await Promise.race([exited, new Promise<'running'>((r) => setTimeout(() => r('running'), 10_000))]);
      expect(code).toBe(0);
      // at once, not at the job's end, and nothing written after the pool was gone
      expect(Date.now() - t0).toBeLessThan(1000);
      expect(existsSync(join(out, 'report.html'))).toBe(false);
      // no stack trace of an answer sent into a closed channel
      expect(stderr).not.toMatch(/ERR_IPC_CHANNEL_CLOSED/);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 20_000);
});
