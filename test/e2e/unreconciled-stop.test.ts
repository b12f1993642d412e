// A start stopped before its check with the venue (an operator's Ctrl-C, a pm2 restart, the
// start-up bound, the check failing). Its stop's own read of the trades covers start-up's window
// (it read an hour before its start only, and settled the crashed run's order, no longer listed, as
// cancelled with nothing filled: a fill in that downtime was never read). Its run ends with no time,
// and the next start looks back from the time the store notes the trades read through, which only
// reads that went through move (from the last activity, the stop's cancel-all moved that window past
// the crash's downtime). A stop after a start that did check reads the trades since the last
// look-up, not the whole run (days of them would not fit the shutdown bound), and notes them read.
import { describe, it, expect } from 'vitest';
import { specProfile } from '../../src/api/clob-profile.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/core/log.js';
import { Daemon } from '../../src/session/daemon.js';
import { Store } from '../../src/store/store.js';
import { urlsEnv } from '../../src/emulator/server.js';
import { bounded, KEY, setup, useTestScope, type Env } from './harness.js';
import { recoveryStart } from '../../src/session/startup.js';
import { LiveVenue } from '../../src/venue/live-venue.js';
import type { VenueLookUps } from '../../src/session/look-ups.js';
import { LOOKUP_OVERLAP_MS } from '../../src/session/look-ups.js';

useTestScope();

const HOUR = 3_600_000;

/** A run of the store killed three hours ago with an order resting at the venue (no end time: a SIGKILL); when. */
async function crashedRun(e: Env): Promise<number> {
  const placed = await e.emu.exchange.place(KEY, { tokenID: e.token, side: 'BUY', price: '0.40', size: '10', orderType: 'GTC' });
  const crashedAt = Date.now() - 3 * HOUR;
  const before = new Store(e.db, silentLogger, () => crashedAt);
  before.startRun('live', 'bands', [e.token]);
  before.orderChanged({
    clientId: 'c-1',
    orderId: String(placed.orderID),
    tokenId: e.token,
    market: e.emu.markets[0].facts.conditionId,
    side: 'BUY',
    price: 4000,
    size: 1000,
    filled: 0,
    state: 'live',
    createdMs: crashedAt,
    updatedMs: crashedAt,
  });
  before.close();
  return crashedAt;
}

describe('a start stopped before its check with the venue', () => {
  it('leaves its run without an end time, and its stop reads the trades over the crash before it', async () => {
    const e = await setup();
    const crashedAt = await crashedRun(e);

    // start-up's read of the trades fails (a 5xx, a timeout): its check with the venue never
    // completes; a look-up meanwhile (an hour back, as the periodic one reads) goes through first. Asked-for
    // look-ups wait for start-up's check now (VenueLookUps held), so this one is run directly: the stop's
    // read must not lean on it either way
    const reads: Array<{ since: number; ok: boolean }> = [];
    const trades = LiveVenue.prototype.trades;
    let d: Daemon | undefined;
    LiveVenue.prototype.trades = async function (this: LiveVenue, sinceMs: number) {
      if (reads.length === 0) {
        reads.push({ since: sinceMs, ok: false });
        await (d as unknown as { lookUps: VenueLookUps }).lookUps.full(Date.now() - HOUR);
        throw new Error('venue unavailable');
      }
      const r = { since: sinceMs, ok: false };
      reads.push(r);
      return trades.call(this, sinceMs).then((t) => {
        r.ok = true;
        return t;
      });
    };
    try {
      const config = loadConfig({ env: { ...urlsEnv(e.emu.urls), MAKERD_DB: e.db }, overrides: { mode: 'live', log: { level: 'silent' } } });
      d = new Daemon({ config, venue: specProfile(KEY), log: silentLogger, tokens: [e.token], statusPort: 0 });
      await expect(bounded(d.start(), 15_000, 'start')).rejects.toThrow(/venue unavailable/);
      await bounded(d.stop('start-up failed'), 30_000, 'stop');
    } finally {
      LiveVenue.prototype.trades = trades;
    }
    // the look-up's read went through, an hour back; the stop's own covered the crash's downtime, and went through
    expect(reads.length).toBe(3);
    expect(reads[1].ok).toBe(true);
    expect(reads[1].since).toBeGreaterThan(crashedAt);
    expect(reads[2].ok).toBe(true);
    expect(reads[2].since).toBeLessThanOrEqual(crashedAt - HOUR);

    const after = new Store(e.db, silentLogger);
    try {
      const last = after.db.prepare('SELECT ended_ms AS endedMs, end_reason AS reason FROM runs ORDER BY id DESC LIMIT 1').get() as { endedMs: number | null; reason: string };
      expect(last.endedMs).toBeNull();
      expect(last.reason).toMatch(/start-up failed/);
    } finally {
      after.close();
    }
  }, 60_000);

  it("when no read of the trades goes through, the next start's window still covers the crash, whatever the stop's cancel-all wrote", async () => {
    const e = await setup();
    const crashedAt = await crashedRun(e);
    const trades = LiveVenue.prototype.trades;
    LiveVenue.prototype.trades = () => Promise.reject(new Error('venue unavailable'));
    try {
      const config = loadConfig({ env: { ...urlsEnv(e.emu.urls), MAKERD_DB: e.db }, overrides: { mode: 'live', log: { level: 'silent' } } });
      const d = new Daemon({ config, venue: specProfile(KEY), log: silentLogger, tokens: [e.token], statusPort: 0 });
      await expect(bounded(d.start(), 15_000, 'start')).rejects.toThrow(/venue unavailable/);
      await bounded(d.stop('start-up failed'), 30_000, 'stop');
    } finally {
      LiveVenue.prototype.trades = trades;
    }
    const after = new Store(e.db, silentLogger);
    try {
      // the stop's cancel-all ended the crashed run's order now: no activity to start the next window from
      expect(after.lastActivityMs()).toBeGreaterThan(crashedAt + HOUR);
      expect(recoveryStart(Date.now(), 0, after.recoveryAnchorMs())).toBeLessThanOrEqual(crashedAt - HOUR);
    } finally {
      after.close();
    }
  }, 60_000);

  it('after a start that checked, the stop reads the trades since the last look-up, not the whole run', async () => {
    const e = await setup();
    // no periodic reconciliation in the test's second (it reads an hour back: found in CI, at a minute's turn)
    const never = '0 0 1 1 *';
    const cron = { refreshMarkets: never, reconcile: never, dailySummary: never };
    const config = loadConfig({ env: { ...urlsEnv(e.emu.urls), MAKERD_DB: e.db }, overrides: { mode: 'live', log: { level: 'silent' }, cron } });
    const d = new Daemon({ config, venue: specProfile(KEY), log: silentLogger, tokens: [e.token], statusPort: 0 });
    const t0 = Date.now();
    await bounded(d.start(), 15_000, 'start');
    const since = readsOfTrades(d);
    // a moment after start-up's read, so that its note and the stop's differ
    await new Promise((r) => setTimeout(r, 200));
    const stopAt = Date.now();
    await bounded(d.stop('test'), 30_000, 'stop');
    expect(since.length).toBeGreaterThan(0);
    // start-up's look-up began after t0; the stop's read begins at most the overlap before it
    expect(Math.min(...since)).toBeGreaterThanOrEqual(t0 - LOOKUP_OVERLAP_MS);
    const after = new Store(e.db, silentLogger);
    try {
      const last = after.db.prepare('SELECT ended_ms AS endedMs FROM runs ORDER BY id DESC LIMIT 1').get() as { endedMs: number | null };
      expect(last.endedMs).toBeGreaterThanOrEqual(t0);
      // the stop's read went through and is noted: the next start looks back from it
      expect(after.tradesReadThrough()).toBeGreaterThanOrEqual(stopAt - LOOKUP_OVERLAP_MS);
    } finally {
      after.close();
    }
  }, 60_000);
});

/** The `sinceMs` of every trades read the daemon's venue is asked for from now on. */
function readsOfTrades(d: Daemon): number[] {
  const since: number[] = [];
  const venue = d.venue;
  const trades = venue.trades.bind(venue);
  venue.trades = (sinceMs: number) => {
    since.push(sinceMs);
    return trades(sinceMs);
  };
  return since;
}
