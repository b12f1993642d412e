// Issue 11, item 6, live side: with feed.priceSymbols set, the daemon connects the price stream
// (the emulator's, a real WebSocket server) and the engine holds the latest value strategies read.
import { describe, it, expect } from 'vitest';
import { bounded, kill, setup, spawnDaemon, until, untilHealthReason, useTestScope } from './harness.js';

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
    // its connection and decoder counters are on /metrics beside the market channel's (found in
    // review: a stream whose every frame was rejected showed nothing there but a stale price)
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(Number(/^makerd_feed_frames_total\{channel="prices"\} (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0);
    expect(Number(/^makerd_feed_decoded_frames_total\{channel="prices"\} (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0);
    expect(metrics).toMatch(/^makerd_feed_connections\{channel="prices"\} 1$/m);
    kill(d, 'SIGTERM');
    expect(await bounded(d.exited, 15_000, 'exit')).toBe(0);
  }, 40_000);

  // Found in review: the stream's state reached neither /health nor /metrics nor /status, so a
  // strategy priced off a frozen BTC price while everything showed green.
  it('a price stream that cannot connect is a /health reason (503) and a feed_live channel at 0', async () => {
    const env = await setup();
    // nothing listens there
    const gone = { ...env, emu: { ...env.emu, urls: { ...env.emu.urls, price_feed: 'ws://127.0.0.1:9/' } } } as typeof env;
    const d = spawnDaemon(gone, { feed: { priceSymbols: ['btcusdt'] } }, 'paper');
    await bounded(d.ready, 15_000, 'ready');
    const url = await until('the status url', () => d.statusUrl(), 5000);
    const h = await untilHealthReason(url, /price stream/, 10_000);
    expect(h.status).toBe(503);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/^makerd_feed_live\{channel="prices"\} 0$/m);
    kill(d, 'SIGTERM');
    expect(await bounded(d.exited, 15_000, 'exit')).toBe(0);
  }, 40_000);

  // Found reviewing the change: the stream is one socket for every symbol, and its state says
  // nothing of one symbol stopping while another flows.
  it('a symbol the stream stops sending (or never sends) is a /health reason once 10 quiet periods pass; the others are not', async () => {
    const env = await setup();
    const d = spawnDaemon(env, { feed: { priceSymbols: ['btcusdt', 'xyzusdt'], quietMs: 300 } }, 'paper');
    await bounded(d.ready, 15_000, 'ready');
    const url = await until('the status url', () => d.statusUrl(), 5000);
    const h = await untilHealthReason(url, /price xyzusdt never received/, 10_000);
    expect(h.status).toBe(503);
    expect(h.reasons.filter((x) => /btcusdt/.test(x))).toEqual([]);
    kill(d, 'SIGTERM');
    expect(await bounded(d.exited, 15_000, 'exit')).toBe(0);
  }, 40_000);
});
