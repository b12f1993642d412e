// Several market connections (feed.maxAssetsPerConnection), the daemon live in process against the
// emulator: a market added on a connection of its own does not pull the other markets' quotes while
// that connection opens, and a lost connection pulls only its own markets' quotes, at once; the
// others keep quoting (before: the engine's feed flag went down with any connection: every quote
// of every market cancelled and placed again).
import { describe, it, expect } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { marketsFromTokens } from '../../src/session/markets.js';
import type { MarketMeta } from '../../src/engine/strategy.js';
import { KEY, sleep, startDaemon } from '../status/daemon-fixture.js';

async function until(what: string, ok: () => Promise<boolean> | boolean, ms = 15_000, every = 100): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(every);
  }
}

describe('daemon: one market connection at a time', () => {
  it('an added connection opening and a lost one pull only their own markets', async () => {
    // one market (its two tokens) per connection; the daemon trades A and B of the emulator's three
    const r = await startDaemon(3, { seed: 7, trade: 2, overrides: { feed: { maxAssetsPerConnection: 2 } } });
    const { daemon: d, emu } = r;
    const c = emu.markets[2].facts.tokens[0];
    try {
      const [mA, mB] = d.markets;
      const restingOn = (m: MarketMeta) => emu.exchange.openOrders(KEY).filter((o) => o.assetId === m.tokenId || o.assetId === m.complementId).length;
      await until('A and B quoting', () => restingOn(mA) > 0 && restingOn(mB) > 0);
      expect(d.feed.marketConnections()).toHaveLength(2);
      const flags: boolean[] = [];
      const setFeedLive = d.engine.setFeedLive.bind(d.engine);
      d.engine.setFeedLive = (live: boolean) => {
        flags.push(live);
        setFeedLive(live);
      };
      // C: a third connection opens for it; A and B quote on meanwhile
      const [mC] = await marketsFromTokens(d.clients.clob, [c], silentLogger);
      d.setMarkets([mA, mB, mC]);
      expect(d.feed.marketConnections()).toHaveLength(3);
      expect(d.feedStates.market).not.toBe('live');
      await until('C quoting', () => restingOn(mC) > 0);
      expect(flags).not.toContain(false);
      expect(restingOn(mA)).toBeGreaterThan(0);
      expect(restingOn(mB)).toBeGreaterThan(0);
      // A's connection lost: A's quotes are cancelled now (not at its next requote); B and C quote on
      const connA = d.feed.marketConnections().find((x) => x.assets.has(mA.tokenId));
      connA?.conn.drop();
      await until("A's quotes pulled", () => restingOn(mA) === 0, 500, 10);
      expect(restingOn(mB)).toBeGreaterThan(0);
      expect(restingOn(mC)).toBeGreaterThan(0);
      expect(flags).not.toContain(false);
      // back: A quotes again on its fresh snapshot
      await until('A quoting again', () => restingOn(mA) > 0);
    } finally {
      await r.close();
    }
  }, 60_000);
});
