// Parity: the same strategy on the same recording gives the same fills as a backtest (virtual
// time, simulated venue) and live (the daemon's real wiring: WS feed, REST orders, user channel)
// against the emulator replaying that recording at 1x, whose replay venue fills user orders from
// the recorded trades with the same queue model.
//
// Tolerance, and why: the fills must be the same in number, side, price and size, in the same
// order; their times may differ by up to 1.5 s. Live adds wall-clock delays the backtest models
// only as a fixed order latency: the emulator advances market time every 10 ms, loopback HTTP and
// WS hops take a few ms, and trade times travel as Unix seconds (match_time). The recording is
// built so that no decision depends on delays that small: the daemon has a 4 s quiet lead-in to
// connect and rest its first bid behind the same queue, and the trades come 450 ms apart, far more
// than a requote (debounce 100 ms) plus a round trip, so every fill and requote lands between the
// same two trades in both runs. Halfway the book moves up a cent: both runs must cancel, requote
// at the new price and queue there the same way.
import { specProfile } from '../../src/api/clob-profile.js';
import { describe, it, expect } from 'vitest';
import { join } from 'node:path';
import { runBacktest } from '../../src/backtest/runner.js';
import { startEmulator } from '../../src/emulator/server.js';
import { Daemon } from '../../src/session/daemon.js';
import { silentLogger } from '../../src/core/log.js';
import type { Fill } from '../../src/engine/fills.js';
import type { Config } from '../../src/config.js';
import { handConfig, parityLastTrade, parityRecording, tempDir, NO, YES, T0 } from './helpers.js';

const TRADES = 8;
const LEAD_MS = 4000;
const EVERY_MS = 450;

async function until<T>(what: string, f: () => T | undefined, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = f();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const key = (f: Fill): string => `${f.tokenId === YES ? 'YES' : 'NO'} ${f.side} ${f.price} ${f.size}`;

describe('backtest / live parity', () => {
  it('the same fills from a backtest and from the live daemon against the emulator replaying the recording', async () => {
    const dir = tempDir('parity');
    const rec = parityRecording(dir, { queue: '20', tradeSize: '20', leadMs: LEAD_MS, everyMs: EVERY_MS, trades: TRADES });
    // a few ms of order latency: what a loopback round trip costs live
    const base = handConfig({ orderLatencyMs: 5, cancelLatencyMs: 5, queueModel: true });
    base.book.verifyEvery = 1;

    const bt: Fill[] = [];
    await runBacktest({ data: [rec], config: base, onFill: (f) => bt.push(f) });
    // fills at both price levels, before and after the book moved
    expect(bt.filter((f) => f.price === 4900).length).toBeGreaterThanOrEqual(3);
    expect(bt.filter((f) => f.price === 5000).length).toBeGreaterThanOrEqual(3);

    const emu = await startEmulator({ replay: rec, speed: 1, tickMs: 10, confirmDelayMs: 20 });
    const cfg: Config = {
      ...base,
      mode: 'live',
      markets: [YES, NO],
      urls: { clob: emu.urls.clob, gamma: emu.urls.gamma, data: emu.urls.data, content: emu.urls.content, ws: emu.urls.ws, priceFeed: emu.urls.price_feed },
      store: { ...base.store, path: join(dir, 'parity.sqlite') },
    };
    const daemon = new Daemon({ config: cfg, venue: specProfile('parity-key'), log: silentLogger, statusPort: 0 });
    let live: Fill[] = [];
    try {
      // the replay publishes its first frame on its first tick
      const bookUp = async (): Promise<boolean> => (await fetch(`${emu.urls.clob}/book?token_id=${YES}`)).status === 200;
      for (let i = 0; i < 100 && !(await bookUp()); i++) await new Promise((r) => setTimeout(r, 20));
      await daemon.start();
      // the daemon must be quoting before the first recorded trade for the comparison to hold
      expect(emu.markets[0].time()).toBeLessThan(T0 + LEAD_MS - 500);
      const lastTrade = parityLastTrade({ leadMs: LEAD_MS, everyMs: EVERY_MS, trades: TRADES });
      await until('the replay to pass its last trade', () => emu.markets[0].time() > lastTrade + 600 || undefined, lastTrade - T0 + 5000);
      live = daemon.store.fills();
    } finally {
      await daemon.stop('test done');
      await emu.close();
    }

    const show = (fs: Fill[]): string => fs.map((f) => `${key(f)} @${f.timeMs - T0}`).join('; ');
    expect(live.map(key), `live: ${show(live)}\nbacktest: ${show(bt)}`).toEqual(bt.map(key));
    for (let i = 0; i < bt.length; i++) expect(Math.abs(live[i].timeMs - bt[i].timeMs), `fill ${i} time`).toBeLessThanOrEqual(1500);
  }, 30_000);
});
