// The daily-loss kill switch end to end: the compiled daemon quotes a calm emulated market, a
// second API key sells into our bid and sweeps the bid side down to a far-away bid of its own, so
// our new long is marked well below cost; the daemon must halt on the daily loss, cancel
// everything, quote nothing after, stay up and report why.
import { describe, it, expect } from 'vitest';
import { formatPrice, PRICE_SCALE } from '../../src/core/units.js';
import { bounded, kill, KEY, setup, spawnDaemon, until, type Env, useTestScope } from './harness.js';

const OTHER = 'e2e-other-trader';

useTestScope();

interface Status {
  quoting: boolean;
  haltReason: string | null;
  openOrders: unknown[];
  positions: Array<{ tokenId: string; qty: string }>;
  pnl: { pnl: number };
}

/** POST /order at the emulator as the other trader; returns the order response. */
async function otherOrder(e: Env, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await fetch(`${e.emu.urls.clob}/order`, {
    method: 'POST',
    headers: { authorization: `Bearer ${OTHER}`, 'content-type': 'application/json' },
    body: JSON.stringify({ tokenID: e.token, ...body }),
  });
  const j = (await res.json()) as { data?: Record<string, unknown>; error?: unknown };
  if (res.status !== 201) throw new Error(`order ${JSON.stringify(body)} answered ${res.status}: ${JSON.stringify(j)}`);
  return j.data ?? {};
}

function ordersPlacedBy(e: Env, owner: string): number {
  let n = 0;
  for (const o of e.emu.exchange.orders.values()) if (o.owner === owner) n++;
  return n;
}

describe('daily-loss kill switch', () => {
  it('a marked-down fill beyond the limit halts: cancel-all, no new orders, still up, says why', async () => {
    // A still market: no takers, makers that rest their opening ladders and never move them, a
    // fair value that does not walk. Only the other trader's orders change the book.
    const e = await setup({
      keys: [KEY, OTHER],
      params: { takerRatePerSec: 1e-9, makerRefreshPerSec: 1e-9, volPerSqrtSec: 0, jumpRatePerSec: 0, makerNoise: 0 },
    });
    const size = 20; // shares per quote
    const limit = 1; // dollars
    const daemon = spawnDaemon(e, {
      strategy: { name: 'bands', params: { bands: [{ distance: 0.01, size }] } },
      // A quiet book must not count as stale here: only the halt may make /health fail. A
      // position limit of one quote: once our bid has filled we cannot bid again, so our own
      // re-quote cannot prop up the bid side (and so the mark) while the halt is on its way.
      risk: { staleBookMs: 120_000, dailyLossLimit: limit, maxPositionPerToken: size },
    });
    await bounded(daemon.ready, 15_000, 'ready');
    const url = await until('status url', () => daemon?.statusUrl(), 2000);
    const ourBid = await until('our bid at the venue', () => e.emu.exchange.openOrders(KEY).find((o) => o.assetId === e.token && o.side === 'BUY'), 8000);
    expect(ourBid.originalSize).toBe(size * 100);
    // and our offer (held nothing yet, so it rests as a BUY of the other token): the halt's
    // cancel-all has something to cancel
    await until('our offer at the venue', () => e.emu.exchange.openOrders(KEY).length >= 2, 8000);
    const restingBefore = e.emu.exchange.openOrders(KEY).map((o) => o.id);
    const before = (await (await fetch(`${url}/status`)).json()) as Status;
    expect(before.haltReason).toBeNull();
    expect(before.quoting).toBe(true);
    expect((await fetch(`${url}/health`)).status).toBe(200);

    // The other trader rests a bid far below, then sells through every bid above it (ours
    // included): our long is now marked at about (0.05 + best ask) / 2, far below what we paid.
    const floor = 500; // price units: 0.05
    await otherOrder(e, { side: 'BUY', price: formatPrice(floor), size: '5', orderType: 'GTC' });
    e.emu.exchange.split(OTHER, e.emu.markets[0].conditionId, 2_000_000); // 20,000 shares to sell (the venue checks SELL balances)
    const sweep = await otherOrder(e, { side: 'SELL', price: formatPrice(floor + 100), size: '20000', orderType: 'FAK' });
    expect((sweep.tradeIDs as unknown[]).length).toBeGreaterThan(0);
    expect(e.emu.exchange.openOrders(KEY).some((o) => o.id === ourBid.id)).toBe(false); // our bid filled
    const book = e.emu.markets[0].frames.book(e.token);
    expect(book.bestBid()).toBe(floor);
    const paid = ourBid.price / PRICE_SCALE;
    const markAfter = (book.bestBid() + book.bestAsk()) / 2 / PRICE_SCALE;
    // the loss the daemon should see: several times the limit, so the test is not on a knife-edge
    expect(size * (paid - markAfter)).toBeGreaterThan(3 * limit);

    const st = await until(
      'halt',
      async () => {
        const s = (await (await fetch(`${url}/status`)).json()) as Status;
        return s.haltReason ? s : undefined;
      },
      5000,
      50,
    );
    expect(st.haltReason).toMatch(new RegExp(`^daily loss \\d+\\.\\d\\d exceeds limit ${limit}$`));
    const loss = Number(/daily loss (\d+\.\d\d)/.exec(st.haltReason ?? '')?.[1]);
    expect(loss).toBeGreaterThan(limit);
    expect(st.quoting).toBe(false);
    expect(st.positions.find((p) => p.tokenId === e.token)?.qty).toBe(String(size));
    expect(st.pnl.pnl).toBeLessThan(-limit);

    // cancel-all went out and nothing of ours rests at the venue
    await until('everything cancelled', () => e.emu.exchange.openOrders(KEY).length === 0, 5000, 20);
    for (const id of restingBefore) expect(e.emu.exchange.orders.get(id)?.status).toBe(id === ourBid.id ? 'MATCHED' : 'CANCELED');
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/^makerd_halted\{reason="[a-z_]+"\} 1$/m);
    expect(metrics).toMatch(/makerd_quoting 0/);
    expect(Number(/makerd_order_requests_total\{endpoint="DELETE \/cancel-all"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);

    // no new orders for 2 s: none resting, none even placed
    const placed = ordersPlacedBy(e, KEY);
    const end = Date.now() + 2000;
    while (Date.now() < end) {
      expect(e.emu.exchange.openOrders(KEY)).toEqual([]);
      expect(ordersPlacedBy(e, KEY)).toBe(placed);
      await new Promise((r) => setTimeout(r, 50));
    }

    // still up, still halted, unhealthy with the reason
    expect(daemon.proc.exitCode).toBeNull();
    const h = await fetch(`${url}/health`);
    expect(h.status).toBe(503);
    const hb = (await h.json()) as { ok: boolean; reasons: string[] };
    expect(hb.ok).toBe(false);
    expect(hb.reasons).toEqual([`halted: ${st.haltReason}`]);
    const after = (await (await fetch(`${url}/status`)).json()) as Status;
    expect(after.haltReason).toBe(st.haltReason);
    expect(after.openOrders).toEqual([]);

    kill(daemon, 'SIGTERM');
    expect(await bounded(daemon.exited, 15_000, 'exit after SIGTERM')).toBe(0);
    expect(e.emu.exchange.openOrders(KEY)).toEqual([]);
  }, 30_000);
});
