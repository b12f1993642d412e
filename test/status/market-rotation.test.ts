// The status layer forgets the markets that leave the daemon's set (a daemon rotating short-lived
// markets for weeks would otherwise grow the live page's PnL series and /metrics without bound): a
// real daemon in process, live against the emulator, its set changed twice while running; the
// session history and a real GET /metrics keep the current markets' series and lose the gone ones'.
import { describe, it, expect } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { marketsFromTokens } from '../../src/session/markets.js';
import type { MarketMeta } from '../../src/engine/strategy.js';
import { KEY, sleep, startDaemon, takeOneBid, type Running } from './daemon-fixture.js';

async function until(what: string, ok: () => Promise<boolean> | boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** Every sample line of GET /metrics naming `m` (by market or by one of its tokens). */
async function seriesOf(r: Running, m: MarketMeta): Promise<string[]> {
  const res = await fetch(`${r.url}/metrics`);
  expect(res.status).toBe(200);
  const text = await res.text();
  const names = [`market="${m.conditionId}"`, `token="${m.tokenId}"`, `token="${m.complementId}"`];
  return text.split('\n').filter((l) => !l.startsWith('#') && names.some((n) => l.includes(n)));
}

const family = (lines: string[], name: string) => lines.filter((l) => l.startsWith(`${name}{`));

describe('status: markets that leave the set', () => {
  it("drops a gone market's PnL series and metric series, keeps the current markets'", async () => {
    // the daemon trades A and B of the emulator's three; C comes in later
    const r = await startDaemon(3, { seed: 5, trade: 2 });
    const d = r.daemon;
    const history = d.metrics.history;
    try {
      const [mA, mB] = d.markets;
      const [mC] = await marketsFromTokens(d.clients.clob, [r.emu.markets[2].facts.tokens[0]], silentLogger);
      // a fill in each market: its fill counters get series, and it holds shares when it leaves
      await takeOneBid(r, mA.conditionId);
      await takeOneBid(r, mB.conditionId);
      await until('PnL series of A and B', () => history.marketPnl.has(mA.conditionId) && history.marketPnl.has(mB.conditionId));
      expect(family(await seriesOf(r, mA), 'makerd_fills_total').length).toBeGreaterThan(0);
      expect(family(await seriesOf(r, mB), 'makerd_fills_total').length).toBeGreaterThan(0);
      /** Waits for the status server's next PnL sample (one a second). */
      const nextSample = async () => {
        const n = history.pnl.points.length;
        await until('the next PnL sample', () => history.pnl.points.length > n, 5000);
      };

      d.setMarkets([mB, mC]);
      // leaving, not gone: the engine holds A until its drop check (2 s on) finds no open order
      const leaving = await seriesOf(r, mA);
      expect(d.engine.markets.has(mA.conditionId)).toBe(true);
      expect(family(leaving, 'makerd_fills_total').length).toBeGreaterThan(0);
      expect(history.marketPnl.has(mA.conditionId)).toBe(true);

      await until('A dropped', () => d.engine.marketOf(mA.tokenId) === undefined);
      // (it left holding shares: /status still lists them)
      expect(d.engine.positions.qty(mA.tokenId) + d.engine.positions.qty(mA.complementId)).toBeGreaterThan(0);
      await nextSample();
      expect(history.marketPnl.has(mA.conditionId)).toBe(false);
      expect(await seriesOf(r, mA)).toEqual([]);
      const b = await seriesOf(r, mB);
      expect(family(b, 'makerd_fills_total').length).toBeGreaterThan(0);
      expect(family(b, 'makerd_filled_shares_total').length).toBeGreaterThan(0);
      expect(family(b, 'makerd_market_quoting')).toHaveLength(1);
      expect(family(await seriesOf(r, mC), 'makerd_market_quoting')).toHaveLength(1);
      await until('a PnL series of C', () => history.marketPnl.has(mC.conditionId), 5000);
      expect(history.marketPnl.has(mB.conditionId)).toBe(true);

      // and again: B goes too, C stays
      d.setMarkets([mC]);
      await until('B dropped', () => d.engine.marketOf(mB.tokenId) === undefined);
      // unscraped: C's first fill is enough for B's fill counters to go (a daemon nobody scrapes)
      await until('a bid of ours in C', () => r.emu.exchange.openOrders(KEY).some((o) => o.side === 'BUY' && o.market.conditionId === mC.conditionId));
      await takeOneBid(r, mC.conditionId);
      const counted = async () => ((await d.metrics.registry.getSingleMetric('makerd_fills_total')?.get())?.values ?? []).map((v) => v.labels.market);
      expect([...new Set(await counted())]).toEqual([mC.conditionId]);
      await nextSample();
      expect([...history.marketPnl.keys()]).toEqual([mC.conditionId]);
      expect(await seriesOf(r, mA)).toEqual([]);
      expect(await seriesOf(r, mB)).toEqual([]);
      expect(family(await seriesOf(r, mC), 'makerd_market_quoting')).toHaveLength(1);
      // the last fills stay on the live page (a bounded list, not per market)
      expect(history.lastFills().map((f) => f.market)).toEqual(expect.arrayContaining([mA.conditionId, mB.conditionId]));
    } finally {
      await r.close();
    }
  }, 90_000);

  it('keeps the feed counters of a market connection closed with its markets: a counter never goes down (Prometheus would read a reset)', async () => {
    // one market per connection: dropping a market closes its connection
    const r = await startDaemon(2, { seed: 5, trade: 2, overrides: { feed: { maxAssetsPerConnection: 2 } } });
    const d = r.daemon;
    try {
      const sample = async (name: string): Promise<number> => {
        const text = await (await fetch(`${r.url}/metrics`)).text();
        const line = text.split('\n').find((l) => l.startsWith(`${name}{channel="market"}`));
        return Number(line?.split(' ').pop() ?? NaN);
      };
      expect(d.feed.marketConnections()).toHaveLength(2);
      await until('frames on both connections', () => d.feed.marketConnections().every((c) => c.conn.counters.frames > 0));
      const before = await sample('makerd_feed_frames_total');
      expect(before).toBeGreaterThan(0);
      const [mA, mB] = d.markets;
      d.setMarkets([mB]);
      await until('A dropped and its connection closed', () => d.engine.marketOf(mA.tokenId) === undefined && d.feed.marketConnections().length === 1);
      expect(await sample('makerd_feed_frames_total')).toBeGreaterThanOrEqual(before);
      expect(d.feed.counters().market_ws_frames).toBeGreaterThanOrEqual(before);
    } finally {
      await r.close();
    }
  }, 45_000);
});
