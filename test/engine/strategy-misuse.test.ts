// A user strategy that misbehaves (found in review): what it returns or does must never halt the
// daemon, cross our own orders, or go unseen by the operator.
// A real engine on a virtual clock, the bands strategy's market with its quote() replaced.
import { describe, expect, it } from 'vitest';
import { Limiter } from '../../src/api/limiter.js';
import { VirtualClock } from '../../src/core/clock.js';
import { createLogger } from '../../src/core/log.js';
import { loadStrategy } from '../../src/strategy/loader.js';
import type { LoadedStrategy, MarketMeta, Quote } from '../../src/engine/strategy.js';
import { M, N, RecordingVenue, Y, bandsEngine, bookEv, books, deliver, settle } from './helpers.js';

const PARAMS = { fair: 'mid', bands: [{ distance: 0.02, size: 10 }], skewPerShare: 0 };

function placed(venue: RecordingVenue): Array<{ tokenId: string; side: string; price: number; size: number }> {
  return venue.calls.flatMap((c) => c.reqs ?? []).map((r) => ({ tokenId: r.tokenId, side: r.side, price: r.price, size: r.size }));
}

/** The bands strategy whose create() runs `before` first (a user's create() that throws or writes). */
async function bandsWithCreate(before: (params: unknown, market: MarketMeta) => void): Promise<LoadedStrategy> {
  const strategy = await loadStrategy('bands', PARAMS);
  const create = strategy.module.create;
  strategy.module = {
    ...strategy.module,
    create: (p, m) => {
      before(p, m);
      return create(p, m);
    },
  };
  return strategy;
}

describe('engine: a strategy that misbehaves', () => {
  it("a quote whose side is neither 'BUY' nor 'SELL' is invalid: not placed, counted, nothing halted", async () => {
    const clock = new VirtualClock(1_700_000_000_000);
    const venue = new RecordingVenue(() => clock.now());
    const { engine, mirror } = await bandsEngine({ clock, venue, params: PARAMS });
    const st = engine.marketOf(Y)!;
    st.strategy.quote = () => [{ tokenId: Y, side: 'buy' as 'BUY', price: 4800, size: 1000 }];
    deliver(mirror, engine, books(4900, 5100, clock.now()));
    engine.start();
    await settle(10);
    expect(placed(venue)).toEqual([]);
    expect(engine.counters.invalidQuotes).toBeGreaterThanOrEqual(1);
    expect(engine.isQuoting).toBe(true);
    await engine.stop();
  });

  // Found in review: post-only is always on, so a quote through the book is refused at the venue;
  // the requote sends it again at every event, each refusal counting against the order error
  // rate, and one market's strategy halted every market.
  it('a quote through the book (a BUY at or above the best ask, of either token) is held back, counted, not sent, and said once a minute; the rest is placed', async () => {
    const lines: Array<{ level: number; msg: string; price?: string; bestAsk?: string }> = [];
    const log = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(JSON.parse(s) as (typeof lines)[number]) } });
    const clock = new VirtualClock(1_700_000_000_000);
    const venue = new RecordingVenue(() => clock.now());
    const { engine, mirror } = await bandsEngine({ clock, venue, log, params: PARAMS });
    const st = engine.marketOf(Y)!;
    st.strategy.quote = () => [
      { tokenId: Y, side: 'BUY', price: 5100, size: 1000 },
      { tokenId: N, side: 'BUY', price: 5200, size: 1000 },
      { tokenId: Y, side: 'BUY', price: 4800, size: 1000 },
    ];
    deliver(mirror, engine, books(4900, 5100, clock.now()));
    engine.start();
    await settle(10);
    expect(placed(venue)).toEqual([{ tokenId: Y, side: 'BUY', price: 4800, size: 1000 }]);
    expect(engine.counters.heldCrossesBook).toBeGreaterThanOrEqual(2);
    expect(engine.risk.halted).toBeUndefined();
    const warned = lines.filter((l) => l.msg.startsWith('engine: quote through the book held back'));
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ level: 40, price: '0.51', bestAsk: '0.51' });
    await engine.stop();
  });

  it('an undefined entry beside a valid quote (bidQuote gave none: below the minimum) is dropped alone; the valid one is placed', async () => {
    // found in review: the tick was read off the entry before it was checked, and the TypeError
    // failed the whole market (its valid bid dropped, its orders cancelled, "strategy failing")
    const clock = new VirtualClock(1_700_000_000_000);
    const venue = new RecordingVenue(() => clock.now());
    const { engine, mirror } = await bandsEngine({ clock, venue, params: PARAMS });
    const st = engine.marketOf(Y)!;
    st.strategy.quote = () => [{ tokenId: Y, side: 'BUY', price: 4800, size: 1000 }, undefined as unknown as Quote, null as unknown as Quote];
    deliver(mirror, engine, books(4900, 5100, clock.now()));
    engine.start();
    await settle(10);
    expect(placed(venue)).toEqual([{ tokenId: Y, side: 'BUY', price: 4800, size: 1000 }]);
    expect(engine.counters.invalidQuotes).toBeGreaterThanOrEqual(2);
    expect(st.strategyError).toBeUndefined();
    expect(st.blocked).toBeUndefined();
    await engine.stop();
  });

  it('every quote invalid for a minute (a strategy in the wrong units) is named as a reason for the market, cleared by a valid quote', async () => {
    // found in review: /health said 200 and the market "quoting" while nothing ever rested
    const clock = new VirtualClock(1_700_000_000_000);
    const venue = new RecordingVenue(() => clock.now());
    const { engine, mirror } = await bandsEngine({ clock, venue, params: PARAMS });
    const st = engine.marketOf(Y)!;
    let wrongUnits = true;
    st.strategy.quote = () => [{ tokenId: Y, side: 'BUY', price: wrongUnits ? 0.48 : 4800, size: 1000 }];
    deliver(mirror, engine, books(4900, 5100, clock.now()));
    engine.start();
    await settle(10);
    expect(st.quotesInvalid).toBeUndefined(); // not yet a minute
    for (let i = 0; i < 7; i++) {
      clock.advanceTo(clock.now() + 10_000);
      deliver(mirror, engine, books(4900, 5100, clock.now()));
      await settle(10);
    }
    expect(placed(venue)).toEqual([]);
    expect(st.quotesInvalid).toMatch(/every quote invalid for \d+ s: price is not an integer/);
    wrongUnits = false;
    clock.advanceTo(clock.now() + 1000);
    deliver(mirror, engine, books(4900, 5200, clock.now()));
    await settle(10);
    expect(st.quotesInvalid).toBeUndefined();
    expect(placed(venue)).toHaveLength(1);
    await engine.stop();
  });

  it('two quotes of one requote that would cross each other (BUY YES + BUY NO summing to 1) are not both placed', async () => {
    const clock = new VirtualClock(1_700_000_000_000);
    const venue = new RecordingVenue(() => clock.now());
    const { engine, mirror } = await bandsEngine({ clock, venue, params: PARAMS });
    const st = engine.marketOf(Y)!;
    st.strategy.quote = () => [
      { tokenId: Y, side: 'BUY', price: 5100, size: 1000 },
      { tokenId: N, side: 'BUY', price: 4900, size: 1000 },
    ];
    deliver(mirror, engine, books(5000, 5200, clock.now()));
    engine.start();
    await settle(10);
    expect(placed(venue)).toHaveLength(1);
    expect(engine.counters.heldSelfCross).toBeGreaterThanOrEqual(1);
    await engine.stop();
  });

  it('a strategy whose create() throws for one market: the engine starts, that market is suspended and named, the others quote', async () => {
    const clock = new VirtualClock(1_700_000_000_000);
    const venue = new RecordingVenue(() => clock.now());
    const strategy = await bandsWithCreate((_p, m) => {
      if (m.conditionId === '0xbad') throw new Error('no end date');
    });
    const bad = { conditionId: '0xbad', tokenId: 'badY', complementId: 'badN', tick: 100, minSize: 500, negRisk: false };
    const { engine, mirror } = await bandsEngine({
      clock,
      venue,
      params: PARAMS,
      strategy,
      markets: [bad, { conditionId: M, tokenId: Y, complementId: N, tick: 100, minSize: 500, negRisk: false }],
    });
    expect(engine.markets.get('0xbad')?.suspended).toMatch(/create\(\) failed: no end date/);
    deliver(mirror, engine, books(4900, 5100, clock.now()));
    engine.start();
    await settle(10);
    expect(placed(venue).filter((p) => p.tokenId === Y).length).toBeGreaterThan(0);
    // added while running: no throw out of addMarket either
    expect(() => engine.addMarket({ ...bad, conditionId: '0xbad2', tokenId: 'b2Y', complementId: 'b2N' })).not.toThrow();
    await engine.stop();
  });

  it("a strategy whose reads is another value than 'topPrices' or 'top' (a plain-JS typo: true, 'depth'): its market is suspended and named, never quoted with requotes skipped on what it reads", async () => {
    /** The bands strategy's market with its instance's reads set to `reads`. */
    const withReads = async (reads: unknown) => {
      const clock = new VirtualClock(1_700_000_000_000);
      const venue = new RecordingVenue(() => clock.now());
      const loaded = await loadStrategy('bands', PARAMS);
      const create = loaded.module.create;
      const strategy: LoadedStrategy = { ...loaded, module: { ...loaded.module, create: (p, m) => Object.assign(create(p, m), { reads }) } };
      return (await bandsEngine({ clock, venue, params: PARAMS, strategy })).engine;
    };
    for (const reads of [true, 'depth', 'TOP']) {
      const engine = await withReads(reads);
      expect(engine.marketOf(Y)?.suspended, String(reads)).toMatch(/create\(\) failed: .*reads/);
      expect(engine.marketOf(Y)?.quoteInputs, String(reads)).toBeUndefined();
      await engine.stop();
    }
    // false and null promise nothing, as undefined does: the market quotes, no requote skipped
    for (const reads of [false, null]) {
      const engine = await withReads(reads);
      expect(engine.marketOf(Y)?.suspended, String(reads)).toBeFalsy();
      expect(engine.marketOf(Y)?.quoteInputs, String(reads)).toBeUndefined();
      await engine.stop();
    }
  });

  it('ctx.clock lets a strategy read the time, not schedule work outside the engine', async () => {
    const clock = new VirtualClock(1_700_000_000_000);
    const venue = new RecordingVenue(() => clock.now());
    const { engine } = await bandsEngine({ clock, venue, params: PARAMS });
    const ctx = engine.marketOf(Y)!.ctx;
    expect(ctx.clock.now()).toBe(clock.now());
    expect('schedule' in ctx.clock).toBe(false);
    await engine.stop();
  });

  it('invalid quotes are logged (once a minute per market, naming the first and why), not only counted', async () => {
    const lines: Array<{ level: number; msg: string; quote?: unknown; why?: string; invalid?: number }> = [];
    const log = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(JSON.parse(s) as (typeof lines)[number]) } });
    const clock = new VirtualClock(1_700_000_000_000);
    const venue = new RecordingVenue(() => clock.now());
    const { engine, mirror } = await bandsEngine({ clock, venue, log, params: PARAMS });
    const st = engine.marketOf(Y)!;
    st.strategy.quote = () => [{ tokenId: Y, side: 'BUY', price: 0.48, size: 1000 }]; // a price in dollars, not units
    deliver(mirror, engine, books(4900, 5100, clock.now()));
    engine.start();
    for (let i = 0; i < 5; i++) {
      clock.advanceTo(clock.now() + 100);
      deliver(mirror, engine, books(4900 - i * 100, 5100, clock.now()));
      await settle(10);
    }
    const warned = lines.filter((l) => l.msg === 'engine: strategy quotes dropped as invalid');
    expect(warned).toHaveLength(1);
    expect(warned[0].quote).toEqual({ tokenId: Y, side: 'BUY', price: 0.48, size: 1000 });
    expect(warned[0].why).toMatch(/price/);
    clock.advanceTo(clock.now() + 60_000);
    deliver(mirror, engine, books(4000, 5100, clock.now()));
    await settle(10);
    expect(lines.filter((l) => l.msg === 'engine: strategy quotes dropped as invalid')).toHaveLength(2);
    await engine.stop();
  });

  it('quotes beyond reconciler.maxOrdersPerSide on a side are left out, the best kept: counted, and logged once a minute per market', async () => {
    const lines: Array<{ level: number; msg: string; wanted?: number; kept?: number; side?: string }> = [];
    const log = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(JSON.parse(s) as (typeof lines)[number]) } });
    const clock = new VirtualClock(1_700_000_000_000);
    const venue = new RecordingVenue(() => clock.now());
    // five bands, three kept per side
    const bands = [1, 2, 3, 4, 5].map((k) => ({ distance: 0.01 * k, size: 10 }));
    const { engine, mirror } = await bandsEngine({ clock, venue, log, params: { ...PARAMS, bands }, reconciler: { maxOrdersPerSide: 3 } });
    deliver(mirror, engine, books(4900, 5100, clock.now()));
    engine.start();
    await settle(10);
    const bids = placed(venue).filter((p) => p.side === 'BUY' && p.tokenId === Y);
    expect(bids.map((p) => p.price)).toEqual([4900, 4800, 4700]);
    expect(engine.counters.quotesCut).toBeGreaterThanOrEqual(4); // two per side
    const warned = () => lines.filter((l) => l.msg === 'engine: strategy quotes beyond reconciler.maxOrdersPerSide left out');
    expect(warned()).toHaveLength(1);
    expect(warned()[0]).toMatchObject({ level: 40, wanted: 5, kept: 3 });
    for (let i = 0; i < 3; i++) {
      clock.advanceTo(clock.now() + 100);
      deliver(mirror, engine, books(4800 - i * 100, 5100, clock.now()));
      await settle(10);
    }
    expect(warned()).toHaveLength(1);
    clock.advanceTo(clock.now() + 60_000);
    deliver(mirror, engine, books(4000, 5100, clock.now()));
    await settle(10);
    expect(warned()).toHaveLength(2);
    await engine.stop();
  });

  it("a strategy's onTrade that throws: the market is still requoted on the trade, and the error logged once, not per trade", async () => {
    const lines: Array<{ level: number; msg: string }> = [];
    const log = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(JSON.parse(s) as (typeof lines)[number]) } });
    const clock = new VirtualClock(1_700_000_000_000);
    const venue = new RecordingVenue(() => clock.now());
    const { engine, mirror } = await bandsEngine({ clock, venue, log, params: PARAMS });
    const st = engine.marketOf(Y)!;
    st.strategy.onTrade = () => {
      throw new Error('estimator bug');
    };
    deliver(mirror, engine, books(4900, 5100, clock.now()));
    engine.start();
    await settle(10);
    const requotes = engine.counters.requotes;
    for (let i = 0; i < 20; i++) {
      clock.advanceTo(clock.now() + 100);
      deliver(mirror, engine, [{ type: 'last_trade_price', market: M, assetId: Y, price: 5000, size: 100, side: 'BUY', feeRateBps: 0, timestampMs: clock.now() }]);
      await settle(1);
    }
    expect(engine.counters.requotes - requotes).toBeGreaterThanOrEqual(20); // each trade requoted the market (and housekeeping)
    expect(lines.filter((l) => l.level >= 50 && /onTrade/.test(l.msg))).toHaveLength(1);
    await engine.stop();
  });

  it('the params and market terms a strategy is given are read-only: a create() that changes them fails loudly, and changes nothing for other markets', async () => {
    const clock = new VirtualClock(1_700_000_000_000);
    const venue = new RecordingVenue(() => clock.now());
    const strategy = await bandsWithCreate((p) => {
      // raises the size to the market's minimum, for every market created after this one too
      (p as { bands: Array<{ size: number }> }).bands[0].size = 99;
    });
    const { engine } = await bandsEngine({ clock, venue, params: PARAMS, strategy });
    expect(engine.marketOf(Y)?.suspended).toMatch(/create\(\) failed: .*read.only/);
    expect((strategy.params as { bands: Array<{ size: number }> }).bands[0].size).toBe(10);
    const ctx = engine.marketOf(Y)!.ctx;
    expect(() => {
      (ctx.market as { minSize: number }).minSize = 1;
    }).toThrow(TypeError);
    expect(engine.marketOf(Y)!.meta.minSize).toBe(500);
    await engine.stop();
  });

  it('a strategy that reuses one quote object across markets: a place queued for a rate window keeps the terms it was checked with', async () => {
    const clock = new VirtualClock(1_700_000_000_000);
    const venue = new RecordingVenue(() => clock.now());
    const Y2 = '333';
    const N2 = '444';
    const M2 = '0xmarket2';
    // every scope at its floor of 1 request per 10 s: the second market's place waits in the queue
    const { engine, mirror } = await bandsEngine({
      clock,
      venue,
      params: PARAMS,
      limiter: new Limiter({ clock, scale: 0.0001 }),
      markets: [
        { conditionId: M, tokenId: Y, complementId: N, tick: 100, minSize: 500, negRisk: false },
        { conditionId: M2, tokenId: Y2, complementId: N2, tick: 100, minSize: 500, negRisk: false },
      ],
    });
    // "no allocation": one module-level quote, filled in per call
    const shared: Quote = { tokenId: '', side: 'BUY', price: 0, size: 1000 };
    const quoting = (token: string, price: number) => () => {
      shared.tokenId = token;
      shared.price = price;
      return [shared];
    };
    engine.marketOf(Y)!.strategy.quote = quoting(Y, 4800);
    engine.marketOf(Y2)!.strategy.quote = quoting(Y2, 4700);
    const t0 = clock.now();
    deliver(mirror, engine, [...books(4900, 5100, t0), bookEv(Y2, 4900, 5100, t0), bookEv(N2, 4900, 5100, t0)]);
    engine.start();
    await settle(10);
    expect(placed(venue)).toHaveLength(1); // the first market's; the second's waits for the window
    // just before the window frees, the first market is asked again (its book moved): the shared
    // object now holds its terms while the second market's place waits
    clock.advanceTo(t0 + 10_100);
    deliver(mirror, engine, [bookEv(Y, 4900, 5200, clock.now())]);
    await settle(10);
    clock.advanceTo(t0 + 11_000);
    await settle(10);
    const sent = placed(venue);
    expect(sent).toContainEqual({ tokenId: Y2, side: 'BUY', price: 4700, size: 1000 });
    expect(sent.filter((q) => q.tokenId === Y)).toHaveLength(1);
    // the stop's cancels wait for the same windows: the virtual clock moves them along
    let stopped = false;
    const stopping = engine.stop().then(() => (stopped = true));
    for (let i = 0; i < 120 && !stopped; i++) {
      clock.advanceTo(clock.now() + 1000);
      await settle(10);
    }
    await stopping;
  });

  it('an order kept within the price tolerance that a wanted quote of the other side crosses is cancelled, so that quote goes out once it lands (found in review)', async () => {
    // the ask at 5200 kept as within a tick of the wanted 5300 while the wanted bid at 5200 crosses
    // it: the bid was held for good (nothing cancelled the ask) and the bid side stayed empty
    const clock = new VirtualClock(1_700_000_000_000);
    const venue = new RecordingVenue(() => clock.now());
    const { engine, mirror } = await bandsEngine({ clock, venue, params: PARAMS, reconciler: { priceToleranceTicks: 1 } });
    const st = engine.marketOf(Y)!;
    // the ask as a BUY of the complement (no shares to sell): NO 4800 is YES 5200
    let want: Quote[] = [
      { tokenId: Y, side: 'BUY', price: 5000, size: 1000 },
      { tokenId: N, side: 'BUY', price: 4800, size: 1000 },
    ];
    st.strategy.quote = () => want;
    deliver(mirror, engine, books(4900, 5500, clock.now()));
    engine.start();
    await settle(10);
    expect(placed(venue).map((q) => `${q.tokenId === Y ? 'YES' : 'NO'} ${q.price}`)).toEqual(['YES 5000', 'NO 4800']);
    want = [
      { tokenId: Y, side: 'BUY', price: 5200, size: 1000 },
      { tokenId: N, side: 'BUY', price: 4700, size: 1000 },
    ];
    for (let i = 0; i < 3; i++) {
      clock.advanceTo(clock.now() + 1000);
      deliver(mirror, engine, books(4900, 5500, clock.now()));
      await settle(10);
    }
    expect(placed(venue).map((q) => `${q.tokenId === Y ? 'YES' : 'NO'} ${q.price}`)).toContain('YES 5200');
    await engine.stop();
  });
});
