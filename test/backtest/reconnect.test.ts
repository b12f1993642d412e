// Issue 11, item 1: the backtest goes through the market pipeline of every mode, so a reconnect
// recorded in the data (a new connection epoch) means what it means live: every book out of sync,
// quotes pulled, until a fresh snapshot. The same frames without the epoch change keep quoting.
import { describe, it, expect, beforeAll } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBacktest } from '../../src/backtest/runner.js';
import { config, tempDir } from './helpers.js';

const SAMPLE = fileURLToPath(new URL('../../data/sample-synthetic.jsonl.gz', import.meta.url));
let plain = '';
let reconnected = '';

beforeAll(() => {
  const dir = tempDir('reconnect');
  // the recording's periodic snapshots between lines 1500 and 2500 left out of both runs: after
  // the reconnect the next snapshot comes 1000 lines later
  const isBook = (l: string) => l.includes('\\"event_type\\":\\"book\\"');
  const lines = gunzipSync(readFileSync(SAMPLE))
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .slice(0, 3000)
    .filter((l, i) => i < 1500 || i >= 2500 || !isBook(l));
  plain = join(dir, 'plain.jsonl');
  reconnected = join(dir, 'reconnected.jsonl');
  writeFileSync(plain, lines.join('\n') + '\n');
  // from line 1500 on the frames came over a second connection
  writeFileSync(reconnected, lines.map((l, i) => (i >= 1500 ? l.replace('"e":1,', '"e":2,') : l)).join('\n') + '\n');
});

describe('a recorded reconnect in a backtest', () => {
  it('puts every book out of sync and pulls the quotes, as live does', async () => {
    const cfg = config();
    const a = await runBacktest({ data: [plain], config: cfg });
    const b = await runBacktest({ data: [reconnected], config: cfg });
    // the same frames: only the epoch differs
    expect(b.result.feed.events).toBe(a.result.feed.events);
    expect(a.result.feed.records).toBeLessThan(3000);
    expect(a.result.total.orders).toBeGreaterThan(20);
    // after the reconnect the books are unprovable: quoting stops (nothing placed, quotes pulled)
    expect(b.result.engine.riskBlocks.book_out_of_sync ?? 0).toBeGreaterThan(a.result.engine.riskBlocks.book_out_of_sync ?? 0);
    expect(b.result.total.orders).toBeLessThan(a.result.total.orders * 0.75);
    expect(b.result.total.quoteUptime).toBeLessThan(a.result.total.quoteUptime * 0.75);
  }, 60_000);
});
