// Grid worker process (forked by pool.ts): runs one backtest per message and answers with its
// totals; the full result.json and the report.html of each combination are written under the
// job's outDir.
import { runBacktest } from './runner.js';
import { strategyErrorsLine, writeReport, writeResultJson } from './output.js';
import type { WorkerReply, WorkerRequest } from './pool.js';
import type { GridJob, GridJobResult } from './sweep.js';

async function handle(m: WorkerRequest<GridJob>): Promise<WorkerReply<GridJobResult>> {
  try {
    // the pool already runs a backtest per core: a reader thread each would only add memory
    const out = await runBacktest({ data: m.job.data, config: m.job.config, readerThread: false });
    // as a single run: nothing to backtest is a failure, and nothing is written for it
    const f = out.result.feed;
    if (f.events === 0) return { id: m.id, ok: false, error: `no market events in ${m.job.data.join(', ')} (${f.frames} frames, ${f.rejected} rejected); nothing to backtest` };
    if (m.job.outDir) {
      await writeResultJson(m.job.outDir, out.result);
      await writeReport(m.job.outDir, out, m.job.report);
    }
    const se = out.strategyErrors;
    if (se.count > 0 && !m.job.allowStrategyErrors) return { id: m.id, ok: false, error: strategyErrorsLine(se) };
    return { id: m.id, ok: true, value: { total: out.result.total, wallMs: out.timing.wallMs, events: out.timing.events, shifted: out.shifted, halted: out.result.engine.halted } };
  } catch (e) {
    return { id: m.id, ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

// the pool gone (its process killed, a SIGTERM to it alone): nothing would read this worker's
// answer, and its files would land after the sweep ended; after an answer, the pool's own disconnect
process.on('disconnect', () => process.exit(0));

process.on('message', (m: WorkerRequest<GridJob>) => {
  void handle(m).then((reply) => process.send?.(reply));
});
