// A start stopped before its check with the venue (an operator's Ctrl-C, a pm2 restart, the
// start-up bound) must not end its run with a time: the next start looks for trades from an hour
// before the store's last activity, and a run's end counts as activity. Stamped, it moved that
// window past the downtime of the crash before it. Its stop's own check read trades from an hour
// before its start only, and settled the crashed run's order (no longer listed) as cancelled with
// nothing filled: a fill in that downtime was never read. A stop after a start that did check reads
// the trades since the last look-up, not the whole run (days of them would not fit the shutdown bound).
import { describe, it, expect } from 'vitest';
import Database from 'better-sqlite3';
import { specProfile } from '../../src/api/clob-profile.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/core/log.js';
import { Daemon } from '../../src/session/daemon.js';
import { Store } from '../../src/store/store.js';
import { urlsEnv } from '../../src/emulator/server.js';
import { bounded, KEY, setup, until, useTestScope } from './harness.js';
import { LOOKUP_OVERLAP_MS } from '../../src/session/look-ups.js';

useTestScope();

const HOUR = 3_600_000;

describe('a start stopped before its check with the venue', () => {
  it('leaves its run without an end time: the next start still looks back over the crash before it', async () => {
    // every answer slow: the start is still on its way to the check when it is stopped
    const e = await setup({ faults: { latencyMs: 1500 } });
    // a run killed three hours ago with an order resting (no end time: a SIGKILL)
    const crashedAt = Date.now() - 3 * HOUR;
    const before = new Store(e.db, silentLogger, () => crashedAt);
    before.startRun('live', 'bands', [e.token]);
    before.orderChanged({
      clientId: 'c-1',
      orderId: 'venue-1',
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

    const config = loadConfig({ env: { ...urlsEnv(e.emu.urls), MAKERD_DB: e.db }, overrides: { mode: 'live', log: { level: 'silent' } } });
    const d = new Daemon({ config, venue: specProfile(KEY), log: silentLogger, tokens: [e.token], statusPort: 0 });
    const started = d.start().then(
      () => 'started',
      (err: unknown) => String(err),
    );
    // its run is written, its check with the venue not yet done
    const runs = (): number => {
      const db = new Database(e.db, { readonly: true, fileMustExist: true });
      try {
        return (db.prepare('SELECT COUNT(*) AS n FROM runs').get() as { n: number }).n;
      } finally {
        db.close();
      }
    };
    await until('the second run written', () => runs() === 2, 15_000, 20);
    const since = readsOfTrades(d);
    await bounded(d.stop('signal'), 30_000, 'stop');
    // the stop's check read the trades over the crash's downtime
    expect(since.length).toBeGreaterThan(0);
    expect(Math.max(...since)).toBeLessThanOrEqual(crashedAt - HOUR);
    expect(await bounded(started, 30_000, 'start settled')).not.toBe('started');

    const after = new Store(e.db, silentLogger);
    try {
      const last = after.db.prepare('SELECT ended_ms AS endedMs, end_reason AS reason FROM runs ORDER BY id DESC LIMIT 1').get() as { endedMs: number | null; reason: string };
      expect(last.endedMs).toBeNull();
      expect(last.reason).toMatch(/signal/);
    } finally {
      after.close();
    }
  }, 60_000);

  it('after a start that checked, the stop reads the trades since the last look-up, not the whole run', async () => {
    const e = await setup();
    const config = loadConfig({ env: { ...urlsEnv(e.emu.urls), MAKERD_DB: e.db }, overrides: { mode: 'live', log: { level: 'silent' } } });
    const d = new Daemon({ config, venue: specProfile(KEY), log: silentLogger, tokens: [e.token], statusPort: 0 });
    const t0 = Date.now();
    await bounded(d.start(), 15_000, 'start');
    const since = readsOfTrades(d);
    await bounded(d.stop('test'), 30_000, 'stop');
    expect(since.length).toBeGreaterThan(0);
    // start-up's look-up began after t0; the stop's read begins at most the overlap before it
    expect(Math.min(...since)).toBeGreaterThanOrEqual(t0 - LOOKUP_OVERLAP_MS);
    const after = new Store(e.db, silentLogger);
    try {
      const last = after.db.prepare('SELECT ended_ms AS endedMs FROM runs ORDER BY id DESC LIMIT 1').get() as { endedMs: number | null };
      expect(last.endedMs).toBeGreaterThanOrEqual(t0);
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
