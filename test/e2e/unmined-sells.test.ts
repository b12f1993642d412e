// Shares bought in a trade the venue has matched but not yet settled are not sellable there yet:
// the venue refuses such a SELL "not enough balance / allowance" (py-clob-client issues 287, 290),
// and every refusal counts toward the daemon's order-error-rate halt. The emulator checks SELL
// balances as the venue does (only CONFIRMED trades' shares), with a long confirm delay here so
// the daemon's quotes meet bought shares still MATCHED. The daemon must quote the ask another way
// meanwhile (a BUY of the complement) and sell the shares once their trade is confirmed.
import { describe, it, expect } from 'vitest';
import { bounded, kill, KEY, setup, spawnDaemon, until, useTestScope } from './harness.js';

useTestScope();

describe('SELLs of shares whose trade is not settled yet', () => {
  it('sends no SELL the venue would refuse for balance, and sells the shares once their trade is confirmed', async () => {
    const e = await setup({ confirmDelayMs: 2500 });
    const daemon = spawnDaemon(e, { book: { verifyEvery: 0 } });
    await bounded(daemon.ready, 15_000, 'ready');
    const ex = e.emu.exchange;
    const bought = () => ex.tradesOf(KEY).filter((t) => (t.traderSide === 'TAKER' ? t.side === 'BUY' : t.makerOrders.some((m) => m.owner === KEY && m.side === 'BUY')));
    // bought shares, then quotes while their trade is still MATCHED, then the trade confirmed and more quotes
    await until('a BUY fill of ours', () => bought().length > 0, 20_000, 50);
    const first = bought()[0];
    await until('its trade confirmed', () => first.status === 'CONFIRMED', 10_000, 50);
    const sold = () => [...ex.orders.values()].filter((o) => o.owner === KEY && o.side === 'SELL');
    const refused = () => ex.rejectionsOf(KEY).INVALID_ORDER_NOT_ENOUGH_BALANCE ?? 0;
    await until('a SELL of ours at the venue, or one refused', () => sold().length > 0 || refused() > 0, 20_000, 50);
    expect(refused()).toBe(0);
    kill(daemon, 'SIGTERM');
    expect(await bounded(daemon.exited, 15_000, 'exit after SIGTERM')).toBe(0);
  }, 60_000);

  it('a venue whose balance cache lags settlement: the refused SELL waits before it is sent again, then goes through; no halt', async () => {
    // a bought share counts toward the SELL check 1.5 s after its trade is confirmed
    const e = await setup({ confirmDelayMs: 300, faults: { balanceLagMs: 1500 } });
    const daemon = spawnDaemon(e, { book: { verifyEvery: 0 } });
    await bounded(daemon.ready, 15_000, 'ready');
    const ex = e.emu.exchange;
    const refused = () => ex.rejectionsOf(KEY).INVALID_ORDER_NOT_ENOUGH_BALANCE ?? 0;
    const sold = () => [...ex.orders.values()].filter((o) => o.owner === KEY && o.side === 'SELL');
    await until('a SELL refused for balance', () => refused() > 0, 30_000, 20);
    const first = Date.now();
    await until('a SELL of ours accepted', () => sold().length > 0, 20_000, 20);
    // every requote would have sent it again (several a second at this feed's rate); the waits
    // (1 s, then 2 s) leave a few refusals per bought lot
    const tookMs = Date.now() - first;
    expect(refused()).toBeLessThanOrEqual(2 + Math.ceil(tookMs / 1000));
    const st = (await (await fetch(`${daemon.statusUrl()}/status`)).json()) as { haltReason: string | null };
    expect(st.haltReason).toBeNull();
    expect(daemon.output.some((l) => l.includes('SELL refused for balance; its shares wait'))).toBe(true);
    const metrics = await (await fetch(`${daemon.statusUrl()}/metrics`)).text();
    expect(Number(/^makerd_engine_sell_waits_total (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);
    expect(metrics).toMatch(/^makerd_engine_held_places_total\{kind="for_cancel"\} \d+$/m);
    kill(daemon, 'SIGTERM');
    expect(await bounded(daemon.exited, 15_000, 'exit after SIGTERM')).toBe(0);
  }, 60_000);
});
