// {"bench":"store"}: fills written per second, each in its own transaction with its position and
// cash update (as the daemon writes them, one at arrival), on a WAL database in a temp directory.
// A replay of the same fills (INSERT OR IGNORE no-ops) is timed too.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../store/store.js';
import { silentLogger } from '../core/log.js';
import type { Fill } from '../engine/fills.js';

const N = 20_000;

export async function run(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'makerd-bench-store-'));
  try {
    const store = new Store(join(dir, 'bench.sqlite'), silentLogger);
    const fills: Fill[] = [];
    for (let i = 0; i < N; i++) {
      fills.push({
        tradeId: `t${i}`,
        orderId: `o${i >> 2}`,
        tokenId: i % 2 ? 'A' : 'B',
        market: 'm',
        side: i % 3 ? 'BUY' : 'SELL',
        price: 4000 + (i % 20) * 100,
        size: 500 + (i % 7) * 100,
        fee: i % 5,
        liquidity: 'MAKER',
        status: 'MATCHED',
        timeMs: 1_700_000_000_000 + i,
      });
    }
    let t = performance.now();
    for (const f of fills) store.fill(f);
    const writeMs = performance.now() - t;
    t = performance.now();
    for (const f of fills) store.fill(f);
    const replayMs = performance.now() - t;
    const rows = store.fillCount();
    store.close();
    return {
      bench: 'store',
      fills: N,
      rows,
      fillsPerSec: Math.round((N / writeMs) * 1000),
      replayNoopsPerSec: Math.round((N / replayMs) * 1000),
      usPerFill: +((writeMs * 1000) / N).toFixed(1),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
