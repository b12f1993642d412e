// Matching-engine throughput: >= 1M operations of a market-maker-like mix on both tokens of one
// market (70% passive limits near the touch, 20% cancels of recent orders, 10% marketable FAKs),
// seeded so every run does the same work. Level deltas are drained every 100 operations, as the
// emulator does per frame.
import { SeededRng } from '../core/rng.js';
import { MatchingEngine } from '../venue/matching-engine.js';
import type { MatchOrder } from '../venue/matching-api.js';

const OPS = 1_200_000;
const TICK = 100;

export async function run(): Promise<Record<string, unknown>> {
  const rng = new SeededRng(42);
  const engine = new MatchingEngine({ conditionId: '0xbench', tokens: ['YES', 'NO'], tick: TICK, minSize: 500 }, { tradeIdPrefix: 'b' });
  // Pre-generate the operations so the timed loop measures the engine, not the generator.
  const kinds = new Uint8Array(OPS); // 0 place, 1 cancel
  const orders: Array<MatchOrder | undefined> = new Array(OPS);
  const cancelIds: Array<string | undefined> = new Array(OPS);
  let mid = 5000;
  const recent: string[] = [];
  for (let i = 0; i < OPS; i++) {
    if (rng.next() < 0.001) mid = Math.min(8000, Math.max(2000, mid + (rng.next() < 0.5 ? -TICK : TICK)));
    const r = rng.next();
    if (r < 0.2 && recent.length) {
      kinds[i] = 1;
      cancelIds[i] = recent[rng.int(Math.max(0, recent.length - 2000), recent.length - 1)];
      continue;
    }
    const onNo = rng.next() < 0.5;
    const buy = rng.next() < 0.5;
    const marketable = r >= 0.9;
    // Canonical (YES) price: passive bids below mid, asks above; marketable ones cross by 3 ticks.
    const off = marketable ? -3 * TICK : rng.int(1, 5) * TICK;
    const yesPrice = buy ? mid - off : mid + off;
    // A NO order buying is a YES sell at 1-p: mirror the side and the price.
    const side = onNo ? (buy ? 'SELL' : 'BUY') : buy ? 'BUY' : 'SELL';
    const id = `o${i}`;
    if (!marketable) recent.push(id);
    orders[i] = {
      orderId: id,
      owner: `m${i % 8}`,
      tokenId: onNo ? 'NO' : 'YES',
      side,
      price: onNo ? 10_000 - yesPrice : yesPrice,
      size: rng.int(5, 200) * 100,
      orderType: marketable ? 'FAK' : 'GTC',
      postOnly: false,
    };
  }

  let fills = 0;
  let rejects = 0;
  let cancelled = 0;
  let changes = 0;
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < OPS; i++) {
    if (kinds[i] === 1) {
      if (engine.cancel(cancelIds[i] as string)) cancelled++;
    } else {
      const out = engine.place(orders[i] as MatchOrder, i);
      if (!out.ok) rejects++;
      fills += out.fills.length;
    }
    if (i % 100 === 99) changes += engine.drainChanges().length;
  }
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  // CPU time too: on a shared machine the wall-clock rate mostly measures the neighbours.
  const cpuSecs = (cpu.user + cpu.system) / 1e6;
  return {
    bench: 'matching',
    ops: OPS,
    seconds: Math.round(secs * 1000) / 1000,
    opsPerSec: Math.round(OPS / secs),
    cpuSeconds: Math.round(cpuSecs * 1000) / 1000,
    opsPerCpuSec: Math.round(OPS / cpuSecs),
    fills,
    cancelled,
    rejects,
    levelChanges: changes,
    resting: engine.size,
  };
}
