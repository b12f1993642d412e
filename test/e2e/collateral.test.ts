// A wallet holding less collateral than the risk limits allow: the venue refuses a BUY whose cost,
// with every open BUY of the account, exceeds the balance ("not enough balance / allowance"), and
// each refusal counts toward the daemon's order-error-rate halt. The daemon reads its balance
// (polymarket: GET /balance-allowance, COLLATERAL) and sends no BUY beyond it, against
// `makerd emulator --profile polymarket --start-cash 12`, whose check is the venue's.
import { describe, expect, it } from 'vitest';
import { bounded, kill, setup, spawnDaemon, until, untilHealthReason, useTestScope } from './harness.js';

useTestScope();

describe('BUYs within the collateral the venue holds for us', () => {
  it('sends no BUY the venue would refuse for balance, and still quotes BUYs the balance covers', async () => {
    const e = await setup({ profile: 'polymarket', startCashMicros: 12_000_000 });
    const daemon = spawnDaemon(e, { book: { verifyEvery: 0 } });
    await bounded(daemon.ready, 15_000, 'ready');
    const ex = e.emu.exchange;
    const buys = () => ex.openOrders(e.owner).filter((o) => o.side === 'BUY');
    const refusedLines = () => daemon.output.filter((l) => l.includes('"msg":"order rejected"') && /balance/i.test(l));
    await until('BUYs of ours resting at the venue', () => buys().length > 0, 15_000, 50);
    const url = await until('status url', () => daemon.statusUrl(), 2000);
    const blocked = async () => {
      const metrics = await (await fetch(`${url}/metrics`)).text();
      return Number(/^makerd_risk_blocks_total\{reason="buy_exceeds_collateral"\} (\d+)$/m.exec(metrics)?.[1] ?? 0);
    };
    // the quotes the limits allow cost more than $12: the gate holds some back
    let held = 0;
    await until('a BUY held back for collateral', async () => (held = await blocked()) > 0, 15_000, 100);
    // a few seconds of requotes and fills with the balance binding
    await new Promise((r) => setTimeout(r, 4000));
    expect(refusedLines()).toEqual([]);
    const resting = buys();
    const cost = resting.reduce((s, o) => s + o.price * (o.originalSize - o.sizeMatched), 0);
    expect(cost).toBeLessThanOrEqual(ex.account(e.owner).cashMicros);
    expect(held).toBeGreaterThan(0);
    const st = (await (await fetch(`${url}/status`)).json()) as { haltReason: string | null; collateral: { balance: number; available: number } | null };
    expect(st.haltReason).toBeNull();
    // the balance as last read (start-up's, or after a SELL of ours settled: a round trip's profit
    // can take it above the $12 we started with), less the BUYs filled since
    expect(st.collateral?.balance).toBeGreaterThan(0);
    expect(st.collateral?.available).toBeLessThanOrEqual(st.collateral?.balance ?? -1);
    kill(daemon, 'SIGTERM');
    expect(await bounded(daemon.exited, 15_000, 'exit after SIGTERM')).toBe(0);
  }, 60_000);

  // Found in review: every BUY held back and no share to sell, the daemon rested nothing while
  // /health said 200 and every market "quoting": the only sign a WARN every 10 minutes.
  it('no collateral at all: nothing rests, and /health says why (503), not ok', async () => {
    const e = await setup({ profile: 'polymarket', startCashMicros: 0 });
    const daemon = spawnDaemon(e, { book: { verifyEvery: 0 } });
    await bounded(daemon.ready, 15_000, 'ready');
    const url = await until('status url', () => daemon.statusUrl(), 2000);
    const h = await untilHealthReason(url, /buy_exceeds_collateral/, 15_000);
    expect(h.status).toBe(503);
    expect(e.emu.exchange.openOrders(e.owner)).toEqual([]);
    kill(daemon, 'SIGTERM');
    expect(await bounded(daemon.exited, 15_000, 'exit after SIGTERM')).toBe(0);
  }, 60_000);

  it('a limit below one order (risk.maxTotalNotional): nothing rests, and /health names the block (503)', async () => {
    const e = await setup();
    const daemon = spawnDaemon(e, { book: { verifyEvery: 0 }, risk: { maxTotalNotional: 0.5 } });
    await bounded(daemon.ready, 15_000, 'ready');
    const url = await until('status url', () => daemon.statusUrl(), 2000);
    const h = await untilHealthReason(url, /nothing rests: .*max_total_notional/, 15_000);
    expect(h.status).toBe(503);
    expect(e.emu.exchange.openOrders(e.owner)).toEqual([]);
    kill(daemon, 'SIGTERM');
    expect(await bounded(daemon.exited, 15_000, 'exit after SIGTERM')).toBe(0);
  }, 60_000);

  it('collateral gone between reads (a withdrawal): the refused BUY makes BUYs wait and the balance read again; no more refusals, no halt', async () => {
    const e = await setup({ profile: 'polymarket', startCashMicros: 12_000_000 });
    // no periodic read in the test's time (a settled SELL of ours still makes one)
    const daemon = spawnDaemon(e, { book: { verifyEvery: 0 }, risk: { collateralReadMs: 600_000 } });
    await bounded(daemon.ready, 15_000, 'ready');
    const ex = e.emu.exchange;
    const url = await until('status url', () => daemon.statusUrl(), 2000);
    const metric = async (name: string) => Number(new RegExp(`^${name} ([\\d.]+)$`, 'm').exec(await (await fetch(`${url}/metrics`)).text())?.[1] ?? NaN);
    const balance = await metric('makerd_collateral_dollars');
    expect(balance).toBeGreaterThan(0);
    // the refusal's read asks the venue to re-read first (GET /balance-allowance/update): only it does
    const updates = async () =>
      Number(/^makerd_http_request_duration_seconds_count\{[^}]*endpoint="[^"]*\/balance-allowance\/update"[^}]*\} (\d+)$/m.exec(await (await fetch(`${url}/metrics`)).text())?.[1] ?? 0);
    expect(await updates()).toBe(0);
    await until('BUYs of ours resting at the venue', () => ex.openOrders(e.owner).some((o) => o.side === 'BUY'), 15_000, 50);
    // the wallet drops to 50 cents behind the daemon's back
    const a = ex.account(e.owner);
    a.cashMicros = Math.min(a.cashMicros, 500_000);
    const refused = () => daemon.output.filter((l) => l.includes('"msg":"order rejected"') && l.includes('INVALID_ORDER_NOT_ENOUGH_BALANCE'));
    await until('a BUY refused for balance', () => refused().length > 0, 20_000, 50);
    await until('the collateral re-read and read again', async () => (await updates()) > 0, 5000, 50);
    const after = refused().length;
    // requotes go on (several a second at this feed's rate): none sends a BUY beyond the new balance
    await new Promise((r) => setTimeout(r, 3000));
    expect(refused().length).toBe(after);
    expect(after).toBeLessThanOrEqual(3);
    expect(refused().every((l) => l.includes('"side":"BUY"'))).toBe(true);
    expect(await metric('makerd_engine_buy_waits_total')).toBeGreaterThanOrEqual(1);
    // start-up's read and the one after the refusal (at least), answered
    expect(await metric('makerd_collateral_reads_total\\{result="ok"\\}')).toBeGreaterThanOrEqual(2);
    expect(await metric('makerd_collateral_reads_total\\{result="failed"\\}')).toBe(0);
    expect(daemon.output.some((l) => l.includes('BUY refused for balance; BUYs wait'))).toBe(true);
    const st = (await (await fetch(`${url}/status`)).json()) as { haltReason: string | null };
    expect(st.haltReason).toBeNull();
    kill(daemon, 'SIGTERM');
    expect(await bounded(daemon.exited, 15_000, 'exit after SIGTERM')).toBe(0);
  }, 60_000);

  it('an allowance below the balance: no BUY beyond what the exchange may take, though the wallet holds more', async () => {
    // $1,000 in the wallet, $12 approved to the exchanges: the venue refuses a BUY beyond the
    // allowance as beyond the cash ("not enough balance / allowance"), and BUY fills use it up
    const e = await setup({ profile: 'polymarket', startCashMicros: 1_000_000_000, allowanceMicros: 12_000_000 });
    const daemon = spawnDaemon(e, { book: { verifyEvery: 0 } });
    await bounded(daemon.ready, 15_000, 'ready');
    const ex = e.emu.exchange;
    const refusedLines = () => daemon.output.filter((l) => l.includes('"msg":"order rejected"') && /balance/i.test(l));
    await until('BUYs of ours resting at the venue', () => ex.openOrders(e.owner).some((o) => o.side === 'BUY'), 15_000, 50);
    const url = await until('status url', () => daemon.statusUrl(), 2000);
    const held = async () => Number(/^makerd_risk_blocks_total\{reason="buy_exceeds_collateral"\} (\d+)$/m.exec(await (await fetch(`${url}/metrics`)).text())?.[1] ?? 0);
    await until('a BUY held back for collateral', async () => (await held()) > 0, 15_000, 100);
    await new Promise((r) => setTimeout(r, 4000));
    expect(refusedLines()).toEqual([]);
    const a = ex.account(e.owner);
    const cost = ex
      .openOrders(e.owner)
      .filter((o) => o.side === 'BUY')
      .reduce((s, o) => s + o.price * (o.originalSize - o.sizeMatched), 0);
    expect(cost).toBeLessThanOrEqual(a.allowanceMicros);
    // the figure the daemon caps by is the allowance (BUY fills use it up: it may be down to 0 by
    // now), not the wallet's $1,000
    const st = (await (await fetch(`${url}/status`)).json()) as { haltReason: string | null; collateral: { balance: number } | null };
    expect(st.haltReason).toBeNull();
    expect(st.collateral).not.toBeNull();
    expect(st.collateral?.balance).toBeGreaterThanOrEqual(0);
    expect(st.collateral?.balance).toBeLessThanOrEqual(12);
    expect(daemon.output.some((l) => l.includes('allowance') && l.includes('below the balance'))).toBe(true);
    kill(daemon, 'SIGTERM');
    expect(await bounded(daemon.exited, 15_000, 'exit after SIGTERM')).toBe(0);
  }, 60_000);
});
