import { describe, it, expect, afterAll, beforeAll } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { clientsFor, openSocket, waitFor } from './helpers.js';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ seed: 4, keys: ['good-key'], priceIntervalMs: 50 });
});
afterAll(async () => {
  await emu.close();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests read arbitrary answers
async function call(url: string, init: { method?: string; key?: string; body?: unknown } = {}): Promise<{ status: number; json: any; headers: Headers }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  const r = await fetch(url, { method: init.method ?? 'GET', headers, body: init.body === undefined ? undefined : JSON.stringify(init.body), signal: AbortSignal.timeout(5000) });
  return { status: r.status, json: await r.json(), headers: r.headers };
}

describe('emulator HTTP APIs', () => {
  it('CLOB: envelope, auth (401/403), batch limit, cursor pagination, quotes', async () => {
    const { clob } = emu.urls;
    const [yes, no] = emu.markets[0].tokens;
    const body = { tokenID: yes, price: '0.10', size: '5', side: 'BUY' };
    expect((await call(`${clob}/order`, { method: 'POST', body })).status).toBe(401);
    const forbidden = await call(`${clob}/order`, { method: 'POST', body, key: 'other' });
    expect(forbidden.status).toBe(403);
    expect(forbidden.json).toEqual({ success: false, error: { code: 'FORBIDDEN', message: expect.any(String) } });
    const placed = await call(`${clob}/order`, { method: 'POST', body, key: 'good-key' });
    expect(placed.status).toBe(201);
    expect(placed.json.success).toBe(true);
    expect(placed.json.data).toMatchObject({ success: true, status: 'live', orderID: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    const tooMany = await call(`${clob}/orders`, { method: 'POST', body: Array.from({ length: 16 }, () => body), key: 'good-key' });
    expect(tooMany.status).toBe(400);
    const fifteen = await call(`${clob}/orders`, { method: 'POST', body: Array.from({ length: 15 }, () => body), key: 'good-key' });
    expect(fifteen.status).toBe(201);
    expect(fifteen.json.data).toHaveLength(15);
    const badTick = await call(`${clob}/order`, { method: 'POST', body: { ...body, price: '0.105' }, key: 'good-key' });
    expect(badTick.status).toBe(400);
    expect(badTick.json.error.code).toBe('INVALID_ORDER_MIN_TICK_SIZE');
    const markets = await call(`${clob}/markets`);
    expect(markets.json.data.next_cursor).toBe('LTE=');
    expect(markets.json.data.data[0].tokens.map((t: { token_id: string }) => t.token_id)).toEqual([yes, no]);
    const book = await call(`${clob}/book?token_id=${yes}`);
    expect(book.json.data).toMatchObject({ asset_id: yes, hash: expect.stringMatching(/^[0-9a-f]{40}$/), min_order_size: '5', tick_size: '0.01', neg_risk: false });
    expect((await call(`${clob}/book?token_id=123`)).status).toBe(404);
    const c = clientsFor(emu.urls, 'good-key');
    try {
      const mid = await c.clob.getMidpoint(yes);
      const spread = await c.clob.getSpread(yes);
      expect(mid).toBeGreaterThan(0);
      expect(spread).toBeGreaterThan(0);
      expect(await c.clob.getTickSize(yes)).toBe(100);
      expect(await c.clob.getNegRisk(yes)).toBe(false);
      const open = await c.clob.getOrders({ market: emu.markets[0].conditionId });
      expect(open.data.length).toBe(16);
      const cancel = await c.clob.cancelAll();
      expect(cancel.canceled).toHaveLength(16);
      const created = await c.clob.createApiKey();
      expect(typeof created.apiKey).toBe('string');
      // a created key is accepted from then on
      expect((await call(`${clob}/balances`, { key: created.apiKey as string })).status).toBe(200);
      const gm = await c.gamma.listMarkets({ active: true, limit: 5 });
      expect(gm[0].clobTokenIds).toEqual([yes, no]);
      const raw = await call(`${emu.urls.gamma}/markets`);
      expect(typeof raw.json.data[0].clobTokenIds).toBe('string');
      expect(JSON.parse(raw.json.data[0].outcomes)).toEqual(['Yes', 'No']);
      expect((await c.gamma.getEvent(emu.markets[0].slug)).slug).toBe(emu.markets[0].slug);
      expect(await c.gamma.listTags()).not.toHaveLength(0);
      for (const p of ['/events', '/markets', `/prices?market=${yes}`, '/health', '/users/0x' + 'a'.repeat(40), '/users/0x' + 'a'.repeat(40) + '/pnl', '/builders/good-key']) {
        expect((await call(`${emu.urls.data}${p}`)).status, p).toBe(200);
      }
      expect((await call(`${emu.urls.content}/articles`)).json.data.length).toBeGreaterThan(0);
      expect((await call(`${emu.urls.content}/articles/1`)).status).toBe(200);
    } finally {
      await c.close();
    }
  });

  it('price stream: RTDS subscribe snapshot, updates, PING -> PONG', async () => {
    const s = await openSocket(emu.urls.price_feed);
    try {
      s.send(JSON.stringify({ action: 'subscribe', subscriptions: [{ topic: 'crypto_prices', type: 'update', filters: 'btcusdt,ethusdt' }] }));
      const upd = await waitFor(() => s.frames.map((f) => JSON.parse(f)).find((m) => m.type === 'update' && m.payload.symbol === 'ethusdt'), 3000, 'eth update');
      expect(upd).toMatchObject({ topic: 'crypto_prices', timestamp: expect.any(Number), payload: { value: expect.any(Number) } });
      expect(s.frames.some((f) => JSON.parse(f).type === 'subscribe')).toBe(true);
      s.send('PING');
      await waitFor(() => s.frames.includes('PONG') || undefined, 2000, 'PONG');
    } finally {
      s.close();
    }
  });
});

describe('emulator rate limits', () => {
  it('answers 429 with X-RateLimit-Limit/Remaining/Reset (epoch ms) past a scaled limit, and recovers after the window', async () => {
    const e = await startEmulator({ seed: 2, limitScale: 0.05, windowScale: 0.03 });
    try {
      const url = `${e.urls.clob}/book?token_id=${e.markets[0].tokens[0]}`;
      // GET /book: 100 per 10 s -> 5 per 300 ms
      const codes: number[] = [];
      let limited: Awaited<ReturnType<typeof call>> | undefined;
      for (let i = 0; i < 6; i++) {
        const r = await call(url);
        codes.push(r.status);
        if (r.status === 429) limited = r;
      }
      expect(codes).toEqual([200, 200, 200, 200, 200, 429]);
      const h = limited!.headers;
      expect(h.get('x-ratelimit-limit')).toBe('5');
      expect(h.get('x-ratelimit-remaining')).toBe('0');
      const reset = Number(h.get('x-ratelimit-reset'));
      expect(reset).toBeGreaterThan(Date.now() - 1000);
      expect(reset).toBeLessThan(Date.now() + 1000);
      expect(limited!.json.error.code).toBe('RATE_LIMITED');
      await new Promise((r) => setTimeout(r, Math.max(0, reset - Date.now()) + 20));
      expect((await call(url)).status).toBe(200);
    } finally {
      await e.close();
    }
  });
});
