// The daily-loss kill switch measures the day's loss from the PnL the UTC day started at. That
// baseline is kept in the store, so a restart (pm2 after a crash, a deploy, an out-of-memory kill)
// does not start the day's loss again from zero: before, every restart re-armed the full limit.
// Holdings of markets that left the set keep the mark they had, so a restart does not revalue
// them at cost (a jump the day's loss would count).
import { describe, expect, it } from 'vitest';
import { createLogger, silentLogger } from '../../src/core/log.js';
import { RiskGate } from '../../src/engine/risk.js';
import { Store } from '../../src/store/store.js';
import { loadConfig } from '../../src/config.js';
import Database from 'better-sqlite3';
import { sleep, startDaemon, takeOneBid, type Running } from '../status/daemon-fixture.js';
import { tempDbs } from './temp-db.js';

const DAY = 86_400_000;
const USD = 1e6; // PnL units per dollar
const dbPath = tempDbs('daystart');
const risk = { ...loadConfig({ env: {} }).risk, dailyLossLimit: 10 };

describe("the day's loss baseline across restarts", () => {
  it('a restart the same day keeps the loss counted so far; the next day starts afresh', () => {
    const path = dbPath();
    const s1 = new Store(path, silentLogger);
    const g1 = new RiskGate(risk, silentLogger, s1);
    expect(g1.checkLoss(0, 5 * DAY + 1000)).toBeUndefined();
    expect(g1.checkLoss(-8 * USD, 5 * DAY + 2000)).toBeUndefined();
    s1.close();
    // restarted: 4 dollars more is 12 for the day
    const s2 = new Store(path, silentLogger);
    const g2 = new RiskGate(risk, silentLogger, s2);
    expect(g2.checkLoss(-12 * USD, 5 * DAY + 3000)).toMatch(/daily loss 12.00 exceeds limit 10/);
    // the next day starts where it opens, restart or not
    const g3 = new RiskGate(risk, silentLogger, s2);
    expect(g3.checkLoss(-12 * USD, 6 * DAY + 1)).toBeUndefined();
    const g4 = new RiskGate(risk, silentLogger, s2);
    expect(g4.checkLoss(-21 * USD, 6 * DAY + 2)).toBeUndefined();
    expect(g4.checkLoss(-23 * USD, 6 * DAY + 3)).toMatch(/daily loss 11.00/);
    s2.close();
  });

  it('a store that cannot keep the baseline: logged, and the limit still counts from this process', () => {
    const s = new Store(dbPath(), silentLogger);
    s.db.pragma('query_only = ON'); // writes refused, as on a failing disk
    const lines: string[] = [];
    const log = createLogger({ level: 'error', destination: { write: (l: string) => void lines.push(l) } });
    const g = new RiskGate(risk, log, s);
    expect(g.checkLoss(0, 5 * DAY)).toBeUndefined();
    expect(lines.join('')).toMatch(/starting PnL could not be kept/);
    expect(g.checkLoss(-11 * USD, 5 * DAY + 1)).toMatch(/daily loss 11.00/);
    s.close();
  });

  it('a daemon started on a store whose day began 250 dollars higher halts (limit 200)', async () => {
    const db = dbPath();
    const pre = new Store(db, silentLogger);
    pre.setDayStartPnl(Math.floor(Date.now() / DAY), 250 * USD);
    pre.close();
    const r = await startDaemon(1, { seed: 5, db, waitQuoting: false });
    try {
      const end = Date.now() + 10_000;
      while (r.daemon.engine.risk.halted === undefined && Date.now() < end) await sleep(50);
      expect(r.daemon.engine.risk.halted).toMatch(/daily loss 250.00 exceeds limit 200/);
    } finally {
      await r.close();
    }
  }, 60_000);

  it('a daemon restarted holding shares of a market that left the set values them at the kept mark, not at cost', async () => {
    const db = dbPath();
    const pre = new Store(db, silentLogger);
    pre.fill({
      tradeId: 't1',
      orderId: '0xo',
      tokenId: 'gone-token',
      market: '0xgone',
      side: 'BUY',
      price: 4000,
      size: 10_000,
      fee: 0,
      liquidity: 'MAKER',
      status: 'CONFIRMED',
      timeMs: Date.now() - 60_000,
    });
    pre.keepMark('gone-token', 5500);
    pre.close();
    const r = await startDaemon(1, { seed: 5, db, waitQuoting: false });
    try {
      expect(r.daemon.engine.positions.qty('gone-token')).toBe(10_000);
      expect(r.daemon.engine.mark('gone-token')).toBe(5500);
    } finally {
      await r.close();
    }
  }, 60_000);

  // Marks were kept only when a market left the set while running: a holding whose market a
  // restart no longer quotes (a query that found others, another --markets) came back at cost.
  const heldToken = (r: Running): string => {
    for (const [t, p] of r.daemon.engine.positions.entries()) if (p.qty > 0) return t;
    throw new Error('no holding');
  };

  it('a daemon stopped holding shares and restarted on other markets values them at the mark they had, not at cost', async () => {
    const db = dbPath();
    const r1 = await startDaemon(1, { seed: 5, db });
    let token: string;
    let before: number;
    try {
      await takeOneBid(r1);
      token = heldToken(r1);
      before = r1.daemon.engine.mark(token);
      expect(Number.isFinite(before)).toBe(true);
    } finally {
      await r1.close();
    }
    // another venue's markets: no book of the held token ever comes
    const lines: string[] = [];
    const log = createLogger({ level: 'warn', destination: { write: (l: string) => void lines.push(l) } });
    const r2 = await startDaemon(1, { seed: 9, db, waitQuoting: false, log });
    try {
      // and says so: that holding's moves are not seen
      expect(lines.join('')).toMatch(/"marked":1,"atCost":0.*holdings outside the quoted markets/);
      expect(r2.daemon.engine.positions.qty(token)).toBeGreaterThan(0);
      const after = r2.daemon.engine.mark(token);
      expect(Number.isFinite(after)).toBe(true);
      expect(Math.abs(after - before)).toBeLessThan(500);
    } finally {
      await r2.close();
    }
  }, 60_000);

  it('a running daemon keeps its held marks now and then: a kill before any stop still leaves them', async () => {
    const db = dbPath();
    const r = await startDaemon(1, { seed: 5, db, daemon: { markKeepMs: 200 } });
    try {
      await takeOneBid(r);
      const token = heldToken(r);
      const read = new Database(db, { readonly: true });
      try {
        const end = Date.now() + 5000;
        let row: { mark: number } | undefined;
        while (!(row = read.prepare('SELECT mark FROM last_marks WHERE token_id = ?').get(token) as { mark: number } | undefined) && Date.now() < end) await sleep(50);
        expect(row).toBeDefined();
        expect(Math.abs((row as { mark: number }).mark - r.daemon.engine.mark(token))).toBeLessThan(500);
      } finally {
        read.close();
      }
    } finally {
      await r.close();
    }
  }, 60_000);

  it("a token gone flat loses its kept mark (bought again, it starts at cost, not at the earlier holding's mark)", () => {
    const s = new Store(dbPath(), silentLogger);
    s.keepMarks([
      ['held', 5000],
      ['sold', 4000],
    ]);
    s.keepMarks([['held', 5100]], ['sold']);
    expect([...s.keptMarks()]).toEqual([['held', 5100]]);
    s.close();
  });
});
