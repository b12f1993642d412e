import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Files that take tens of seconds (soak, demo, CLI runs): started first, so none is the last to begin. */
const LONG_FIRST = ['kill-soak', 'demo', 'exit-codes', 'help-examples', 'polymarket', 'faults', 'stalled-venue', 'parity'];

class LongFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = LONG_FIRST.findIndex((n) => f.moduleId.endsWith(`/${n}.test.ts`));
      return i < 0 ? LONG_FIRST.length : i;
    };
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i)
      .map((x) => x.f);
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // one temporary folder per run, removed at its end
    globalSetup: ['test/global-tmp.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // a worker's files share its module cache: each file imported its modules afresh (127 s of the
    // suite's 222 s of work summed over workers; 14 s shared, wall 222 s -> 156 s). The files leave
    // no module state behind: what they change (spies, env) they restore.
    isolate: false,
    // 3 on 2 cores: the end-to-end files mostly wait on sockets and timers (wall 152 s -> 98 s, same results)
    maxWorkers: 3,
    // the long files first: on a clean clone (no duration cache) the 49 s soak could start last
    sequence: { sequencer: LongFirst },
  },
});
