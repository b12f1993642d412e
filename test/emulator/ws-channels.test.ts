import { describe, it, expect, afterAll, beforeAll } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { openSocket, waitFor } from './helpers.js';
import { stressSyntheticParams } from '../../src/emulator/agents.js';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ seed: 12, speed: 10, tickMs: 10, keys: ['ws-key'], params: stressSyntheticParams });
});
afterAll(async () => {
  await emu.close();
});

const parse = (f: string): unknown => {
  try {
    return JSON.parse(f);
  } catch {
    return f;
  }
};

describe('emulator WebSocket channels', () => {
  it("/ws/all delivers market data and the key owner's order events; dynamic unsubscribe stops market data", async () => {
    const m = emu.markets[0];
    const [yes, no] = m.tokens;
    const s = await openSocket(`${emu.urls.ws}/ws/all`);
    try {
      s.send(JSON.stringify({ auth: { apiKey: 'ws-key' }, markets: [m.conditionId], assets_ids: [yes], type: 'all', custom_feature_enabled: true }));
      await waitFor(() => s.frames.length > 0 || undefined, 3000, 'snapshot');
      const snap = parse(s.frames[0]) as Array<{ asset_id: string }>;
      expect(snap.map((b) => b.asset_id)).toEqual([yes]);
      await waitFor(() => s.frames.some((f) => f.includes('"event_type":"price_change"')) || undefined, 3000, 'price_change');
      // book frames of the other token are not ours
      expect(s.frames.map(parse).some((x) => (x as { event_type?: string; asset_id?: string }).event_type === 'book' && (x as { asset_id: string }).asset_id === no)).toBe(false);
      const r = await fetch(`${emu.urls.clob}/order`, {
        method: 'POST',
        headers: { authorization: 'Bearer ws-key', 'content-type': 'application/json' },
        body: JSON.stringify({ tokenID: yes, price: '0.02', size: '5', side: 'BUY' }),
        signal: AbortSignal.timeout(3000),
      });
      const id = ((await r.json()) as { data: { orderID: string } }).data.orderID;
      await waitFor(() => s.frames.map(parse).find((x) => (x as { type?: string; id?: string }).type === 'PLACEMENT' && (x as { id: string }).id === id), 3000, 'PLACEMENT');
      s.send(JSON.stringify({ assets_ids: [yes], operation: 'unsubscribe' }));
      await new Promise((res) => setTimeout(res, 100));
      const n = s.frames.length;
      await new Promise((res) => setTimeout(res, 400));
      expect(s.frames.slice(n).filter((f) => f.includes('"event_type":"price_change"'))).toEqual([]);
      // a dynamic subscribe brings a snapshot for the new asset
      s.send(JSON.stringify({ assets_ids: [no], operation: 'subscribe' }));
      await waitFor(
        () =>
          s.frames
            .slice(n)
            .map(parse)
            .find((x) => Array.isArray(x) && (x[0] as { asset_id: string }).asset_id === no),
        3000,
        'snapshot of the new asset',
      );
    } finally {
      s.close();
    }
  });

  it('best_bid_ask only with custom_feature_enabled, consistent with the book', async () => {
    const [yes] = emu.markets[0].tokens;
    const plain = await openSocket(`${emu.urls.ws}/ws/market`);
    const custom = await openSocket(`${emu.urls.ws}/ws/market`);
    try {
      plain.send(JSON.stringify({ assets_ids: [yes], type: 'market' }));
      custom.send(JSON.stringify({ assets_ids: [yes], type: 'market', custom_feature_enabled: true }));
      const bba = await waitFor(() => custom.frames.map(parse).find((x) => (x as { event_type?: string }).event_type === 'best_bid_ask') as Record<string, string> | undefined, 5000, 'best_bid_ask');
      expect(bba.asset_id).toBe(yes);
      expect(Number(bba.best_ask)).toBeGreaterThan(Number(bba.best_bid));
      expect(Number(bba.spread)).toBeCloseTo(Number(bba.best_ask) - Number(bba.best_bid), 6);
      await waitFor(() => plain.frames.length > 20 || undefined, 5000, 'plain frames');
      expect(plain.frames.some((f) => f.includes('best_bid_ask'))).toBe(false);
    } finally {
      plain.close();
      custom.close();
    }
  });

  it('a user subscription with a key that is not accepted is refused and closed', async () => {
    const s = await openSocket(`${emu.urls.ws}/ws/user`);
    s.send(JSON.stringify({ auth: { apiKey: 'intruder' }, markets: [], type: 'user' }));
    await waitFor(() => s.closed() || undefined, 3000, 'closed');
    expect(s.frames.some((f) => f.includes('unauthorized'))).toBe(true);
  });

  it('answers text PING with PONG on every channel', async () => {
    for (const kind of ['market', 'user', 'all']) {
      const s = await openSocket(`${emu.urls.ws}/ws/${kind}`);
      try {
        s.send('PING');
        await waitFor(() => s.frames.includes('PONG') || undefined, 2000, `PONG on ${kind}`);
      } finally {
        s.close();
      }
    }
  });
});
