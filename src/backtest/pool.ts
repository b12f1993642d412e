// A small pool of forked worker processes (node:child_process) for grid sweeps: each worker
// process takes one job over IPC, answers with a JSON-able value and exits; a fresh one takes the
// next, so nothing a job leaves in its process (a strategy module's own variables) reaches another
// and each result is the one a run on its own gives. A worker that dies mid-job fails that job
// only; the others carry on. Results come back in job order.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BACKTEST_HEAP_GROWING_PERCENT } from './heap-growth.js';

export interface WorkerRequest<J> {
  id: number;
  job: J;
}

export type WorkerReply<R> = { id: number; ok: true; value: R } | { id: number; ok: false; error: string };

export type JobOutcome<R> = { ok: true; value: R } | { ok: false; error: string };

export interface PoolOptions {
  workers: number;
  /** The worker module (default: worker.js next to this file, .ts when running from source). */
  workerPath?: string;
  /** Node flags for the children (tests pass a TypeScript loader). */
  execArgv?: string[];
  /** Called as each job finishes (index in the job list). */
  onDone?: (index: number, outcome: JobOutcome<unknown>) => void;
}

/** How long a worker has to exit after its answer (pool.ts disconnects it) before it is killed. */
const WORKER_EXIT_MS = 2000;

/** What every worker runs with beside the caller's flags: the backtest's heap growth (V8 flags are per process). */
const WORKER_FLAGS = [`--heap-growing-percent=${BACKTEST_HEAP_GROWING_PERCENT}`];

export function defaultWorkerPath(): string {
  const self = fileURLToPath(import.meta.url);
  return self.replace(/pool\.(ts|js)$/, (_m, ext: string) => `worker.${ext}`);
}

export async function runInWorkers<J, R>(jobs: J[], opts: PoolOptions): Promise<Array<JobOutcome<R>>> {
  const results: Array<JobOutcome<R> | undefined> = new Array(jobs.length);
  if (!jobs.length) return [];
  const path = opts.workerPath ?? defaultWorkerPath();
  const n = Math.max(1, Math.min(opts.workers, jobs.length));
  let next = 0;
  const finish = (i: number, r: JobOutcome<R>): void => {
    if (results[i]) return;
    results[i] = r;
    opts.onDone?.(i, r);
  };

  const runWorker = (): Promise<void> =>
    new Promise((resolveWorker) => {
      let child: ChildProcess;
      let current = -1;
      const start = (): void => {
        child = fork(path, [], { execArgv: [...(opts.execArgv ?? process.execArgv), ...WORKER_FLAGS], stdio: ['ignore', 'ignore', 'inherit', 'ipc'], serialization: 'json' });
        child.on('message', (m: WorkerReply<R>) => {
          if (m.id !== current) return;
          finish(current, m.ok ? { ok: true, value: m.value } : { ok: false, error: m.error });
          current = -1;
          // one job per process: it exits, and 'exit' starts the next one's; one that stays up
          // (a user strategy's own timer or socket) is ended, or its slot would wait for good
          const done = child;
          done.disconnect();
          setTimeout(() => done.exitCode === null && done.signalCode === null && done.kill('SIGKILL'), WORKER_EXIT_MS).unref();
        });
        child.on('error', (e) => {
          if (current >= 0) finish(current, { ok: false, error: `worker failed: ${e.message}` });
          current = -1;
          next = jobs.length; // spawning is broken: stop handing out jobs
          resolveWorker();
        });
        child.on('exit', (code, signal) => {
          if (current >= 0) {
            finish(current, { ok: false, error: `worker exited (${signal ?? `code ${code}`}) during the job` });
            current = -1;
          }
          // a fresh worker for the next job, if any remain
          if (next < jobs.length) return start();
          resolveWorker();
        });
        dispatch();
      };
      const dispatch = (): void => {
        if (next >= jobs.length) {
          child.disconnect();
          return;
        }
        current = next++;
        const req: WorkerRequest<J> = { id: current, job: jobs[current] };
        child.send(req);
      };
      start();
    });

  await Promise.all(Array.from({ length: n }, () => runWorker()));
  return results.map((r) => r ?? { ok: false, error: 'job was not run' });
}
