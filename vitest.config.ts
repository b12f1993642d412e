import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // 3 on 2 cores: the end-to-end files mostly wait on sockets and timers (wall 152 s -> 98 s, same results)
    maxWorkers: 3,
  },
});
