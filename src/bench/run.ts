// npm run bench: runs every benchmark in this folder and prints one JSON line each.
// Each benchmark module exports `run(): Promise<Record<string, unknown>>` with a `bench` name.
const names = process.argv.slice(2);
const all: Record<string, () => Promise<{ run: () => Promise<Record<string, unknown>> }>> = {
  matching: () => import('./matching.js'),
  book: () => import('./book.js'),
  limiter: () => import('./limiter.js'),
  scheduler: () => import('./scheduler.js'),
  store: () => import('./store.js'),
  tick_to_order: () => import('./tick_to_order.js'),
  backtest: () => import('./backtest.js'),
  synthetic: () => import('./synthetic.js'),
};

for (const [name, load] of Object.entries(all)) {
  if (names.length && !names.includes(name)) continue;
  const mod = await load();
  const line = await mod.run();
  process.stdout.write(JSON.stringify(line) + '\n');
}
