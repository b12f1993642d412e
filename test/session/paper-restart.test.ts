// A paper run restarted on its own store: its new simulated venue takes over what the earlier
// run's had. The collateral the fills moved (sim.cashUsd came back whole at each restart, on top
// of the shares bought) and the fills the stop left MATCHED under sim.settleMs (no venue was left
// to settle them: their shares stayed unsellable for good). In process, against the emulator.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sleep, startDaemon } from '../status/daemon-fixture.js';

describe('paper mode: a restart on its store', () => {
  it('keeps the collateral the earlier run spent and settles what it left MATCHED', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'makerd-paper-restart-')), 'p.sqlite');
    const overrides = { mode: 'paper', sim: { cashUsd: 200, settleMs: 600_000 }, reconciler: { debounceMs: 0 } };
    const params = { takerRatePerSec: 20 };
    const first = await startDaemon(1, { overrides, params, db });
    let bought: string | undefined;
    let cashMoved = 0;
    try {
      const end = Date.now() + 20_000;
      while (bought === undefined && Date.now() < end) {
        for (const [t, p] of first.daemon.engine.positions.entries()) if (p.qty > 0 && first.daemon.engine.ledger.unminedBought(t) > 0) bought = t;
        await sleep(50);
      }
      expect(bought, 'a BUY filled in 20 s').toBeDefined();
      cashMoved = first.daemon.engine.positions.cash;
    } finally {
      await first.close();
    }
    expect(cashMoved).toBeLessThan(0);
    const second = await startDaemon(1, { overrides, params: { takerRatePerSec: 1e-9, makerRefreshPerSec: 1e-9 }, db, waitQuoting: false });
    try {
      const e = second.daemon.engine;
      // settled at the restart: the shares are the strategy's to sell
      expect(e.ledger.unminedBought(bought!)).toBe(0);
      expect(e.ledger.unsettledFills()).toEqual([]);
      // the collateral read at start: what the first run left (its fills' cash), not 200 whole
      const left = Math.round(200 * 1e6) + e.positions.cash;
      expect(e.collateral.available()).toBeLessThanOrEqual(left);
      expect(e.collateral.available()).toBeLessThan(200 * 1e6);
    } finally {
      await second.close();
    }
  }, 60_000);
});
