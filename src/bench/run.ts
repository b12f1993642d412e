// npm run bench: runs every benchmark in this folder and prints one JSON line each.
// Each benchmark module exports `run(): Promise<Record<string, unknown>>` with a `bench` name.
// Each runs in a process of its own, so heap and RSS figures belong to that benchmark alone.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const all: Record<string, () => Promise<{ run: () => Promise<Record<string, unknown>> }>> = {
  matching: () => import('./matching.js'),
  book: () => import('./book.js'),
  limiter: () => import('./limiter.js'),
  scheduler: () => import('./scheduler.js'),
  store: () => import('./store.js'),
  tick_to_order: () => import('./tick_to_order.js'),
  backtest: () => import('./backtest.js'),
  synthetic: () => import('./synthetic.js'),
  order_signing: () => import('./signing.js'),
  per_event: () => import('./per-event.js'),
  scale: () => import('./scale.js'),
};

const [first, ...rest] = process.argv.slice(2);
if (first === '--one' && rest.length === 1 && all[rest[0]]) {
  const mod = await all[rest[0]]();
  process.stdout.write(JSON.stringify(await mod.run()) + '\n');
} else {
  const names = [first, ...rest].filter((n): n is string => n !== undefined);
  const unknown = names.filter((n) => !all[n]);
  if (unknown.length) {
    process.stderr.write(`unknown benchmark: ${unknown.join(', ')} (have: ${Object.keys(all).join(', ')})\n`);
    process.exitCode = 2;
  } else {
    for (const name of Object.keys(all)) {
      if (names.length && !names.includes(name)) continue;
      const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--one', name], { stdio: 'inherit' });
      if (r.status !== 0) process.exitCode = 1;
    }
  }
}
