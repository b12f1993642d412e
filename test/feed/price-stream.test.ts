// Crypto price stream over the one connection class: subscription message per filter style, the
// initial subscribe dump and updates (real RTDS frames), last price per symbol, PING, reconnect.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { DecodeStats } from '../../src/feed/decode-stats.js';
import type { CryptoPriceEvent } from '../../src/core/events.js';
import { ReferencePrices } from '../../src/engine/reference-prices.js';
import { CryptoPriceStream, cryptoSubscribeMessage, decodePriceFrame, parseCryptoFilter } from '../../src/feed/price-stream.js';
import { startServer, waitFor, type TestServer } from './ws-server.js';

const rt = new URL('../fixtures/polymarket/nautilus_trader/rust_test_data/', import.meta.url);
const dump = JSON.stringify(JSON.parse(readFileSync(new URL('rtds_crypto_prices_subscribe.json', rt), 'utf8')));
const update = JSON.stringify(JSON.parse(readFileSync(new URL('rtds_crypto_prices_update.json', rt), 'utf8')));

let server: TestServer | undefined;
let stream: CryptoPriceStream | undefined;
afterEach(async () => {
  stream?.stop();
  await server?.close();
});

describe('crypto price filters', () => {
  it('builds each style and parses all three back', () => {
    for (const style of ['comma', 'json-array', 'object'] as const) {
      const m = JSON.parse(cryptoSubscribeMessage('subscribe', ['btcusdt', 'ethusdt'], style)) as { action: string; subscriptions: Array<{ topic: string; type: string; filters: string }> };
      expect(m.action).toBe('subscribe');
      expect(m.subscriptions.every((s) => s.topic === 'crypto_prices' && s.type === 'update')).toBe(true);
      expect(m.subscriptions.flatMap((s) => parseCryptoFilter(s.filters))).toEqual(['btcusdt', 'ethusdt']);
    }
    expect(JSON.parse(cryptoSubscribeMessage('subscribe', ['btcusdt', 'ethusdt'], 'comma')).subscriptions[0].filters).toBe('btcusdt,ethusdt');
    expect(parseCryptoFilter(['SOLUSDT'])).toEqual(['solusdt']);
    expect(parseCryptoFilter({ symbol: 'xrpusdt' })).toEqual(['xrpusdt']);
    expect(parseCryptoFilter('{bad')).toEqual([]);
  });

  it('decodes the real dump and update frames', () => {
    const out: CryptoPriceEvent[] = [];
    const st = new DecodeStats('price');
    expect(decodePriceFrame(dump, out, st)).toBe(JSON.parse(dump).payload.data.length);
    expect(out[0]).toEqual({ type: 'crypto_price', symbol: 'btcusdt', value: 61164.12, timestampMs: 1780726209000 });
    out.length = 0;
    expect(decodePriceFrame(update, out, st)).toBe(1);
    const u = JSON.parse(update).payload;
    expect(out[0]).toEqual({ type: 'crypto_price', symbol: u.symbol, value: Number(u.full_accuracy_value ?? u.value), timestampMs: u.timestamp });
    decodePriceFrame('{"topic":"comments","type":"x","payload":{}}', out, st);
    decodePriceFrame('nope', out, st);
    expect(st.rejected()).toBe(2);
  });
});

describe('price points that are not prices', () => {
  // found in review: a null point threw (a backtest over such a recording ended), a price of 0 or
  // below passed, and a timestamp in microseconds was taken as ms: that one point, far in the
  // future, then held the symbol's price, every later one refused as older
  it('are refused one by one, the rest of the frame kept; microseconds read as such', () => {
    const u = JSON.parse(update) as { payload: { symbol: string; timestamp: number } };
    const base = { symbol: u.payload.symbol, value: 100, timestamp: u.payload.timestamp };
    const frame = (data: unknown[]): string => JSON.stringify({ topic: 'crypto_prices', type: 'subscribe', payload: { symbol: base.symbol, data } });
    const out: CryptoPriceEvent[] = [];
    const st = new DecodeStats('price');
    expect(() => decodePriceFrame(frame([null, { ...base, value: 0 }, { ...base, value: -5 }, 'x', { ...base, timestamp: base.timestamp * 1000 }]), out, st)).not.toThrow();
    expect(out).toEqual([{ type: 'crypto_price', symbol: base.symbol, value: 100, timestampMs: base.timestamp }]);
    expect(st.rejected()).toBe(4);
  });

  it('a point stamped far after it arrived does not hold the symbol: later prices are taken in their order', () => {
    const prices = new ReferencePrices();
    const now = 1_780_000_000_000;
    expect(prices.update({ type: 'crypto_price', symbol: 'btcusdt', value: 1, timestampMs: now + 86_400_000 }, now)).toBe(true);
    expect(prices.update({ type: 'crypto_price', symbol: 'btcusdt', value: 2, timestampMs: now + 1000 }, now + 1000)).toBe(true);
    expect(prices.get('btcusdt', now + 1000)?.value).toBe(2);
    // an older point than one stamped sanely is still refused (a dump after an update)
    expect(prices.update({ type: 'crypto_price', symbol: 'btcusdt', value: 3, timestampMs: now }, now + 2000)).toBe(false);
    expect(prices.get('btcusdt', now + 2000)?.value).toBe(2);
  });
});

describe('CryptoPriceStream', () => {
  it('subscribes, pings, keeps the last price and resubscribes after a drop', async () => {
    server = await startServer();
    server.onMessage = (ws, text) => {
      if (text.includes('"action":"subscribe"')) {
        ws.send(dump);
        ws.send(update);
      }
    };
    stream = new CryptoPriceStream({ url: server.url, symbols: ['BTCUSDT'], filterStyle: 'json-array', pingIntervalMs: 20, reconnectBaseMs: 10, reconnectMaxMs: 20 });
    const seen: CryptoPriceEvent[] = [];
    stream.onPrice((e) => seen.push(e));
    stream.start();
    await waitFor(() => seen.length >= 4 && server!.received.includes('PING'));
    expect(server.received[0]).toBe('CONNECT /');
    expect(JSON.parse(server.received[1])).toEqual({ action: 'subscribe', subscriptions: [{ topic: 'crypto_prices', type: 'update', filters: '["btcusdt"]' }] });
    expect(stream.last('btcusdt')!.timestampMs).toBe(JSON.parse(update).payload.timestamp);
    server.sockets[0].terminate();
    await waitFor(() => server!.connections === 2 && server!.received.filter((m) => m.includes('"action":"subscribe"')).length === 2);
    stream.subscribe(['ethusdt']);
    await waitFor(() => server!.received.filter((m) => m.includes('ethusdt')).length === 1);
    expect(stream.connection.counters.reconnects).toBe(1);
  });
});
