// {"bench":"store"}: fills written per second, each in its own transaction with its position and
// cash update (as the daemon writes them, one at arrival), on a WAL database in a temp directory.
// A replay of the same fills (INSERT OR IGNORE no-ops) is timed too. Then a history of HISTORY
// fills over 100 more tokens is added (not timed) and a FAILED trade reversed: reversalMs, the loop
// held by one reversal (its token's fills and the account, not every fill of every token).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../store/store.js';
import { silentLogger } from '../core/log.js';
import type { Fill } from '../engine/fills.js';

const N = 20_000;
const HISTORY = 200_000;

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
    // a long history, then one of its fills reversed
    for (let i = 0; i < HISTORY; i += 10_000) {
      const batch = [];
      for (let j = i; j < i + 10_000; j++) {
        batch.push({ kind: 'fill' as const, fill: { ...fills[j % N], tradeId: `h${j}`, orderId: `ho${j}`, tokenId: `T${j % 100}`, timeMs: 1_700_000_100_000 + j } });
      }
      store.writeBatch(batch);
    }
    const victim = { ...fills[0], tradeId: 'h500', orderId: 'ho500', tokenId: 'T0', status: 'FAILED' as const };
    t = performance.now();
    store.fillStatus(victim);
    const reversalMs = performance.now() - t;
    const rows = store.fillCount();
    store.close();
    return {
      bench: 'store',
      fills: N,
      rows,
      fillsPerSec: Math.round((N / writeMs) * 1000),
      replayNoopsPerSec: Math.round((N / replayMs) * 1000),
      usPerFill: +((writeMs * 1000) / N).toFixed(1),
      historyFills: rows,
      reversalMs: +reversalMs.toFixed(2),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
