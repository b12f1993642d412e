// The daemon's crypto price stream has the data watchdog the market channel has (feed.quietMs,
// feed.probeTimeoutMs): a stream that still answers PING but sends no price is probed, then
// reconnected, within quietMs + probeTimeoutMs (before: up forever, its reference prices frozen).
import { describe, expect, it } from 'vitest';
import { sleep, startDaemon } from '../status/daemon-fixture.js';
import { startServer } from './ws-server.js';

async function until(what: string, ok: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

function update(ts: number): string {
  return JSON.stringify({ topic: 'crypto_prices', type: 'update', timestamp: ts, payload: { symbol: 'btcusdt', timestamp: ts, value: 61000 + (ts % 100), full_accuracy_value: '61000.00' } });
}

describe('daemon: the crypto price stream goes silent', () => {
  it('answers PING but sends no price: reconnected (a new subscribe) within quietMs + probeTimeoutMs', async () => {
    const quietMs = 800;
    const probeTimeoutMs = 400;
    const server = await startServer();
    // the first connection gets prices every 50 ms for a while, then none (PING still answered, probes ignored)
    let first: unknown;
    let timer: NodeJS.Timeout | undefined;
    let lastPriceAt = 0;
    /** When a connection other than the first subscribed. */
    let resubscribedAt = 0;
    server.onMessage = (ws, text) => {
      if (!text.includes('"action":"subscribe"')) return;
      if (first !== undefined) {
        if (ws !== first && resubscribedAt === 0) resubscribedAt = Date.now();
        return;
      }
      first = ws;
      let n = 0;
      timer = setInterval(() => {
        if (++n > 10) return clearInterval(timer);
        lastPriceAt = Date.now();
        ws.send(update(lastPriceAt));
      }, 50);
    };
    const r = await startDaemon(1, {
      env: { MAKERD_PRICE_FEED_URL: server.url },
      overrides: { feed: { priceSymbols: ['btcusdt'], quietMs, probeTimeoutMs } },
    });
    try {
      const prices = r.daemon.prices!;
      await until('the prices stopped', () => lastPriceAt > 0 && Date.now() - lastPriceAt > 100 && prices.last('btcusdt') !== undefined, 5000);
      // the watchdog ticks a tenth of its shortest bound, the reconnect waits up to reconnectMaxMs: slack for both
      await until('a new connection subscribed', () => resubscribedAt > 0, quietMs + probeTimeoutMs + 1500);
      expect(resubscribedAt - lastPriceAt).toBeLessThan(quietMs + probeTimeoutMs + 1000);
      expect(prices.connection.counters.probes).toBeGreaterThan(0);
      expect(prices.connection.counters.stale).toBeGreaterThan(0);
    } finally {
      clearInterval(timer);
      await r.close();
      await server.close();
    }
  }, 60_000);
});
