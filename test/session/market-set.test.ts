// The market set changes while the daemon runs (live, in process, against the emulator on
// loopback): an added market is subscribed on the open market connection and quoted, a removed one
// has its orders cancelled at the venue and is unsubscribed, and no feed connection reconnects.
import { describe, it, expect } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { marketsFromTokens } from '../../src/session/markets.js';
import type { MarketMeta } from '../../src/engine/strategy.js';
import { sleep, startDaemon } from '../status/daemon-fixture.js';

async function until(what: string, ok: () => Promise<boolean> | boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

type Running = Awaited<ReturnType<typeof startDaemon>>;
interface UserChannelCase {
  r: Running;
  d: Running['daemon'];
  mA: MarketMeta;
  mB: MarketMeta;
  mC: MarketMeta;
  /** The markets the emulator's user channel holds, per connection. */
  subscribed: () => string[][];
  /** Drops the user channel and waits until it is back and subscribed. */
  reconnectUser: () => Promise<void>;
}

/** The daemon trading A and B of the emulator's three (C resolved, not traded), its user channel subscribed; then `body`. */
async function withUserChannel(body: (c: UserChannelCase) => Promise<void>): Promise<void> {
  const r = await startDaemon(3, { seed: 5, trade: 2 });
  const d = r.daemon;
  try {
    const [mA, mB] = d.markets;
    const [mC] = await marketsFromTokens(d.clients.clob, [r.emu.markets[2].facts.tokens[0]], silentLogger);
    const subscribed = () => r.emu.ws.userSubscriptions();
    await until('the user channel subscribed', () => subscribed().length === 1);
    const reconnectUser = async () => {
      const reconnects = d.feed.counters().user_ws_reconnects;
      d.feed.user?.drop();
      await until('the user channel back', () => d.feed.counters().user_ws_reconnects > reconnects && subscribed().length === 1);
    };
    await body({ r, d, mA, mB, mC, subscribed, reconnectUser });
  } finally {
    await r.close();
  }
}

describe('daemon: markets added and removed while running', () => {
  it('quotes an added market, cancels and unsubscribes a removed one, without a reconnect', async () => {
    // the daemon trades A and B of the emulator's three
    const r = await startDaemon(3, { seed: 5, trade: 2 });
    const d = r.daemon;
    const c = r.emu.markets[2].facts.tokens[0];
    try {
      const [mA, mB] = d.markets;
      const restingOn = async (m: MarketMeta) => (await d.venue.openOrders()).filter((o) => o.tokenId === m.tokenId || o.tokenId === m.complementId).length;
      await until('A and B quoting', async () => (await restingOn(mA)) > 0 && (await restingOn(mB)) > 0);
      const conns = d.feed.marketConnections();
      expect(conns).toHaveLength(1);
      const counters = () => d.feed.counters();
      const reconnectsBefore = counters();
      const [mC] = await marketsFromTokens(d.clients.clob, [c], silentLogger);
      // shares of A held (as if bought earlier): their mark is kept when A is dropped
      d.engine.positions.apply(mA.tokenId, 'BUY', 4000, 1000, 0);

      const change = d.setMarkets([mB, mC]);
      expect(change).toMatchObject({ added: [mC.conditionId], removed: [mA.conditionId] });
      expect(d.markets.map((m) => m.conditionId)).toEqual([mB.conditionId, mC.conditionId]);

      await until('C quoting', async () => (await restingOn(mC)) > 0);
      await until("A's orders cancelled at the venue", async () => (await restingOn(mA)) === 0);
      // forgotten and unsubscribed once none of its orders is open (checked every 2 s)
      await until('A dropped', () => d.engine.marketOf(mA.tokenId) === undefined && !d.feed.marketConnections()[0].assets.has(mA.tokenId), 10_000);
      // and its books with it (a daemon rotating markets for weeks keeps only the books it trades)
      for (const t of [mA.tokenId, mA.complementId]) expect([t, d.feed.book(t)]).toEqual([t, undefined]);
      const keptMark = d.store.keptMarks().get(mA.tokenId);
      expect(keptMark).toBeGreaterThan(0);
      expect(d.engine.mark(mA.tokenId)).toBe(keptMark);
      expect(await restingOn(mB)).toBeGreaterThan(0);
      const after = d.feed.marketConnections();
      expect(after).toHaveLength(1);
      expect(after[0].id).toBe(conns[0].id);
      expect([...after[0].assets].sort()).toEqual([mB.tokenId, mB.complementId, mC.tokenId, mC.complementId].sort());
      // the same connection carried it all: no reconnect of any feed
      const now = counters();
      const keys = Object.keys(reconnectsBefore).filter((k) => /reconnect/i.test(k));
      expect(keys.sort()).toEqual(['market_ws_reconnects', 'user_ws_reconnects']);
      for (const k of keys) expect([k, now[k]]).toEqual([k, reconnectsBefore[k]]);
      expect(d.feed.marketConnections()[0].conn.state).toBe('live');
    } finally {
      await r.close();
    }
  }, 60_000);

  it('a market added back while it is still leaving is quoted with its own metadata (neg_risk), not as a market unknown', async () => {
    const r = await startDaemon(3, { seed: 5, trade: 2 });
    const d = r.daemon;
    try {
      const [mA, mB] = d.markets;
      const restingOn = async (m: MarketMeta) => (await d.venue.openOrders()).filter((o) => o.tokenId === m.tokenId || o.tokenId === m.complementId).length;
      await until('A and B quoting', async () => (await restingOn(mA)) > 0 && (await restingOn(mB)) > 0);
      // what every order body of A's tokens says of neg_risk (the exchange a real venue's order is signed for)
      const signedNegRisk: boolean[] = [];
      const clob = d.clients.clob;
      const post = clob.postOrders.bind(clob);
      clob.postOrders = (orders) => {
        for (const o of orders) if (o.tokenId === mA.tokenId || o.tokenId === mA.complementId) signedNegRisk.push(o.negRisk === true);
        return post(orders);
      };
      // A leaves; its orders cancelled but the market not yet dropped (looked at every 2 s) it comes
      // back, its metadata saying neg_risk: its book is still held, so it is quoted at once
      d.setMarkets([mB]);
      await until("A's orders cancelled", async () => (await restingOn(mA)) === 0, 1_500);
      expect(d.engine.marketOf(mA.tokenId)).toBeDefined();
      d.setMarkets([{ ...mA, negRisk: true }, mB]);
      await until("A's new orders placed", () => signedNegRisk.length > 0);
      expect(signedNegRisk.every((n) => n)).toBe(true);
    } finally {
      await r.close();
    }
  }, 60_000);

  it("takes a dropped market off the user channel's subscription an hour after it left, once none of its trades is unsettled", async () => {
    await withUserChannel(async ({ d, mA, mB, mC, subscribed, reconnectUser }) => {
      expect(subscribed()[0]).toEqual([mA.conditionId, mB.conditionId].sort());
      d.setMarkets([mB, mC]);
      await until('A dropped', () => d.engine.marketOf(mA.tokenId) === undefined, 15_000);
      await until('C on the user channel', () => subscribed()[0]?.includes(mC.conditionId) === true);
      // a late report of A's trade must still arrive: A stays for an hour after it left ...
      expect(d.marketSet.pruneUserMarkets(Date.now())).toEqual([]);
      // ... and longer while one of its trades is not settled (MATCHED: CONFIRMED or FAILED still to come)
      const fill = {
        tradeId: 't-late',
        orderId: 'o-late',
        tokenId: mA.tokenId,
        market: mA.conditionId,
        side: 'BUY' as const,
        price: 4000,
        size: 1000,
        fee: 0,
        liquidity: 'MAKER' as const,
        timeMs: Date.now(),
      };
      d.engine.ledger.preload({ ...fill, status: 'MATCHED' });
      expect(d.marketSet.pruneUserMarkets(Date.now() + 3_600_000 + 1000)).toEqual([]);
      d.engine.ledger.preload({ ...fill, status: 'CONFIRMED' });
      expect(d.marketSet.pruneUserMarkets(Date.now() + 3_600_000 + 1000)).toEqual([mA.conditionId]);
      expect([...d.feed.userMarkets()].sort()).toEqual([mB.conditionId, mC.conditionId].sort());
      // unsubscribed on the open connection ...
      await until('A off the user channel', () => subscribed().length === 1 && !subscribed()[0].includes(mA.conditionId));
      expect(subscribed()[0]).toEqual([mB.conditionId, mC.conditionId].sort());
      // ... and not subscribed again by the next (re)connect
      await reconnectUser();
      expect(subscribed()[0]).toEqual([mB.conditionId, mC.conditionId].sort());
      // a market that comes back is subscribed again at once
      d.setMarkets([mA, mB, mC]);
      await until('A back on the user channel', () => subscribed()[0]?.includes(mA.conditionId) === true);
    });
  }, 60_000);

  it('a venue that ignores live user-channel messages: an added market by a second connection that takes over, a removed one at the next connect', async () => {
    // the fault userOpsIgnored: the user channel keeps its first subscription only (as the spec describes it)
    await withUserChannel(async ({ r, d, mA, mB, mC, subscribed, reconnectUser }) => {
      r.emu.admin.set({ userOpsIgnored: true });
      const reconnects = d.feed.counters().user_ws_reconnects;
      d.setMarkets([mB, mC]);
      // C: a second user connection subscribed the whole list and took over (no reconnect)
      await until('C on the user channel', () => subscribed().length === 1 && subscribed()[0].includes(mC.conditionId));
      expect(subscribed()).toEqual([[mA.conditionId, mB.conditionId, mC.conditionId].sort()]);
      expect(d.feed.counters()).toMatchObject({ user_ws_reconnects: reconnects, user_ws_swaps: 1 });
      await until('A dropped', () => d.engine.marketOf(mA.tokenId) === undefined, 15_000);
      expect(d.marketSet.pruneUserMarkets(Date.now() + 3_600_000 + 1000)).toEqual([mA.conditionId]);
      // the removal of A did not reach this venue ...
      expect(subscribed()).toEqual([[mA.conditionId, mB.conditionId, mC.conditionId].sort()]);
      // ... the next connect subscribes the rest only
      await reconnectUser();
      expect(subscribed()[0]).toEqual([mB.conditionId, mC.conditionId].sort());
    });
  }, 60_000);
});
