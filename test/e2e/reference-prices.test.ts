// Issue 11, item 6, live side: with feed.priceSymbols set, the daemon connects the price stream
// (the emulator's, a real WebSocket server) and the engine holds the latest value strategies read.
import { describe, it, expect } from 'vitest';
import { bounded, kill, setup, spawnDaemon, until, useTestScope } from './harness.js';

useTestScope();

describe('the price stream in a running daemon', () => {
  it('reaches the engine: /status shows the latest BTC reference price and its age', async () => {
    const env = await setup();
    const daemon = spawnDaemon(env, { feed: { priceSymbols: ['btcusdt'] } }, 'paper');
    const d = daemon;
    await bounded(d.ready, 15_000, 'ready');
    const url = await until('the status url', () => d.statusUrl(), 5000);
    const ref = await until(
      'a reference price',
      async () => {
        const s = (await (await fetch(`${url}/status`)).json()) as { referencePrices: Array<{ symbol: string; value: number | null; ageMs?: number }> };
        const r = s.referencePrices[0];
        return r && r.value !== null ? r : undefined;
      },
      10_000,
      100,
    );
    expect(ref.symbol).toBe('btcusdt');
    expect(ref.value).toBeGreaterThan(1000);
    expect(ref.ageMs).toBeGreaterThanOrEqual(0);
    kill(d, 'SIGTERM');
    expect(await bounded(d.exited, 15_000, 'exit')).toBe(0);
  }, 40_000);
});
