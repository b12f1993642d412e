// Issue 11, item 7: a strategy kept outside the repository imports only "makerd/strategy",
// compiles against the package's declarations (tsc, NodeNext), and is loaded by path into a backtest.
import { describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.js';
import { runBacktest } from '../../src/backtest/runner.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SAMPLE = join(ROOT, 'data', 'sample-synthetic.jsonl.gz');

const SOURCE = `import { quotePair, SIZE_SCALE, type BookView, type Quote, type Strategy, type StrategyContext, type StrategyModule } from 'makerd/strategy';

class Outside implements Strategy {
  quote(ctx: StrategyContext, book: BookView): readonly Quote[] {
    const bid = book.bestBid();
    const ask = book.bestAsk();
    if (bid < 0 || ask < 0) return [];
    const out: Quote[] = [];
    quotePair(ctx, book, bid - ctx.market.tick, ask + ctx.market.tick, 5 * SIZE_SCALE, out);
    return out;
  }
}

const params = { safeParse: (v: unknown) => ({ success: true as const, data: v ?? {} }) };
const mod = { name: 'outside', params, create: () => new Outside() } as unknown as StrategyModule<object>;
export default mod;
`;

describe('a strategy outside the repository', () => {
  it('compiles against makerd/strategy alone and runs in a backtest', async () => {
    if (!existsSync(join(ROOT, 'dist', 'src', 'strategy', 'index.d.ts'))) throw new Error('run "npm run build" first (npm test does)');
    const dir = mkdtempSync(join(tmpdir(), 'makerd-outside-'));
    try {
      mkdirSync(join(dir, 'node_modules'));
      symlinkSync(ROOT, join(dir, 'node_modules', 'makerd'), 'dir');
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
      writeFileSync(join(dir, 'outside.ts'), SOURCE);
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: true, outDir: '.' }, files: ['outside.ts'] }),
      );
      execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], { stdio: 'pipe' });
      const cfg = loadConfig({ env: {}, overrides: { strategy: { name: join(dir, 'outside.js'), params: {} } } as never });
      const r = await runBacktest({ data: [SAMPLE], config: cfg });
      expect(r.result.total.orders).toBeGreaterThan(10);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
