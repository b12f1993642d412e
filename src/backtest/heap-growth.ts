// How far V8 lets a backtest's heap grow between full collections. A backtest's live heap is small
// (books, open orders, the result's series) beside the garbage it makes per event; when collecting
// costs little, V8 lets the old generation reach four times the live size before the next full
// collection, which at 50 markets put the peak RSS at 280-300 MB. Twice the live size took about
// 30 MB off that peak at no measured cost in time (bench "backtest", BENCH_BACKTEST_MARKETS=50); once
// the simulated venue filled complement orders too (2.5x the fills), twice read 249-302 MB there,
// and one and a half times reads 259-276 MB, the same speed at 1 market, 0-5% slower at 50.
import { setFlagsFromString } from 'node:v8';

/** The old generation's growth between full collections, percent over the live size (V8's default 0: its own choice, up to 300). */
export const BACKTEST_HEAP_GROWING_PERCENT = 50;

/**
 * Sets the growth for the whole process (V8 flags are per process: every thread's heap; a grid's
 * worker processes get the flag on their command line, pool.ts). Returns what puts V8's own choice
 * back, for a process that goes on to other work.
 */
export function limitHeapGrowth(): () => void {
  setFlagsFromString(`--heap-growing-percent=${BACKTEST_HEAP_GROWING_PERCENT}`);
  return () => setFlagsFromString('--heap-growing-percent=0');
}
