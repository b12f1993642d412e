// The venue's balance cache can lag the chain even after a trade settles: a SELL of the shares is
// refused "not enough balance / allowance" several times, then accepted (py-clob-client issue 290).
// Each refusal counts toward the order-error-rate halt, and the next requote would send the same
// SELL again at once. After such a refusal the token's shares are not offered for a while
// (doubling per refusal in a row, reset by an accepted SELL); the ask is a BUY of the complement
// meanwhile, and the SELL comes back when the wait ends. The venue is asked to re-read our balance
// of the token (Polymarket's advice in that issue: its cache may be what is stale).
import { describe, it, expect } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import { createLogger } from '../../src/core/log.js';
import { RecordingVenue, settle, books, deliver, bandsEngine, refuseForBalance, Y } from './helpers.js';

describe('engine: a SELL refused for balance', () => {
  it('is not sent again until its wait ends (1 s, then 2 s after a second refusal), the ask meanwhile a BUY of the complement; an accepted SELL resets the wait', async () => {
    const clock = new VirtualClock(1_700_000_000_000);
    const venue = new RecordingVenue(() => clock.now());
    let refuse = true;
    refuseForBalance(venue, 'SELL', () => refuse);
    // the venue is asked to re-read our balance of the token after each refusal
    const refreshed: string[] = [];
    Object.assign(venue, { refreshBalance: async (t: string) => void refreshed.push(t) });
    const { engine, mirror } = await bandsEngine({ clock, venue, params: { fair: 'mid', bands: [{ distance: 0.02, size: 10 }], skewPerShare: 0 } });
    engine.positions.apply(Y, 'BUY', 5000, 1000, 0); // 10 settled YES shares
    const sells = () => venue.calls.flatMap((c) => (c.reqs ?? []).filter((r) => r.tokenId === Y && r.side === 'SELL').map(() => c.t));
    const move = async (ms: number, bid = 4900): Promise<void> => {
      clock.advanceTo(clock.now() + ms);
      deliver(mirror, engine, books(bid, bid + 200, clock.now()));
      await settle(10);
    };
    deliver(mirror, engine, books(4900, 5100, clock.now()));
    engine.start();
    await settle(10);
    const t0 = clock.now();
    expect(sells()).toEqual([t0]); // refused
    const open = () => [...engine.orders.open()].map((o) => `${o.tokenId === Y ? 'Y' : 'N'} ${o.side} ${o.price}`).sort();
    // book moves within the wait: no SELL, the ask is the complement's BUY at 0.48
    await move(100, 4800);
    await move(100);
    expect(sells()).toEqual([t0]);
    expect(open()).toContain('N BUY 4800');
    expect(engine.risk.blocks.get('sell_balance_backoff') ?? 0).toBe(0); // the strategy did not ask
    // the wait (1 s) ends: the market requotes by itself and the SELL goes again (refused again)
    clock.advanceTo(t0 + 1000);
    await settle(10);
    expect(sells()).toEqual([t0, t0 + 1000]);
    expect(refreshed).toEqual([Y, Y]);
    // the second wait is 2 s
    await move(1000);
    expect(sells()).toHaveLength(2);
    refuse = false;
    clock.advanceTo(t0 + 3000);
    await settle(10);
    expect(sells()).toEqual([t0, t0 + 1000, t0 + 3000]);
    expect(open()).toContain('Y SELL 5200');
    await engine.stop();
  });

  it('a balance refresh that fails (an error answer, or a throw before any request) is logged; the wait still holds and the loop goes on', async () => {
    for (const fail of ['reject', 'throw'] as const) {
      const clock = new VirtualClock(1_700_000_000_000);
      const venue = new RecordingVenue(() => clock.now());
      refuseForBalance(venue, 'SELL');
      Object.assign(venue, {
        refreshBalance: (): Promise<void> => {
          if (fail === 'throw') throw new Error('refresh: bug');
          return Promise.reject(new Error('refresh: 500'));
        },
      });
      const lines: Array<{ level: number; msg: string }> = [];
      const log = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(JSON.parse(s) as { level: number; msg: string }) } });
      const { engine, mirror } = await bandsEngine({ clock, venue, log, params: { fair: 'mid', bands: [{ distance: 0.02, size: 10 }], skewPerShare: 0 } });
      engine.positions.apply(Y, 'BUY', 5000, 1000, 0);
      deliver(mirror, engine, books(4900, 5100, clock.now()));
      engine.start();
      await settle(10);
      expect(engine.counters.sellWaits, fail).toBe(1);
      expect(
        lines.filter((l) => l.level === 40).map((l) => l.msg),
        fail,
      ).toContain('engine: asking the venue to re-read our balance failed');
      // the next book move inside the wait sends no SELL
      clock.advanceTo(clock.now() + 100);
      deliver(mirror, engine, books(4800, 5000, clock.now()));
      await settle(10);
      expect(
        venue.calls.flatMap((c) => c.reqs ?? []).filter((r) => r.side === 'SELL' && r.tokenId === Y),
        fail,
      ).toHaveLength(1);
      await engine.stop();
    }
  });
});
