// A trade message of ours on the user channel that cannot be read (truncated here; a field in a
// shape the decoder refuses, a new venue shape): the decoder counts and skips it, as it must, but
// the fill it reported is then known only to the venue. The daemon asks the venue at once (a
// look-up of its orders and trades), as for a trade that fails its checks, instead of leaving the
// position wrong until the periodic reconciliation, minutes later. Against the emulator on loopback.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/log.js';
import { startDaemon, takeOneBid } from '../status/daemon-fixture.js';

const OFF = '0 0 1 1 *';

describe('an unreadable trade message on the user channel', () => {
  it('has the daemon look its orders and trades up at the venue, which books the fill', async () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(s) } });
    // the periodic reconciliation off: only a look-up asked for finds the fill
    const r = await startDaemon(1, { seed: 7, log, overrides: { cron: { reconcile: OFF, refreshMarkets: OFF, dailySummary: OFF } } });
    try {
      r.emu.admin.set({ userTradeUnreadableNext: 1 });
      await takeOneBid(r);
      expect(r.emu.admin.get().userTradeUnreadableNext).toBe(0); // the trade message was sent unreadable
      expect(r.daemon.feed.userStats.rejected()).toBeGreaterThan(0);
      expect(lines.some((l) => l.includes('"msg":"user channel: a message could not be read; looking our orders and trades up at the venue"'))).toBe(true);
    } finally {
      await r.close();
    }
  }, 60_000);
});
