// Our fills' fees on a market with a fee rule (Polymarket's fee markets: GET /clob-markets fd
// {r, e}). The venue's trade messages carry fee_rate_bps on every part, makers' included (1000 in
// polytrader's real capture), but the rule charges takers only, shares x r x (p(1-p))^e, as the
// official client and core/fees.ts have it. Found in review: the live engine booked every fill at a
// flat fee_rate_bps of its notional (10% at 1000 bps on each maker fill): a PnL and a collateral
// budget far off, and the daily-loss limit tripped by fees that were never charged.
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import { ruleFeeMicros } from '../../src/core/fees.js';
import type { UserEvent, UserTradeEvent } from '../../src/core/events.js';
import { readFileSync } from 'node:fs';
import { createClients } from '../../src/api/index.js';
import { specProfile, type ClobProfile } from '../../src/api/clob-profile.js';
import { polymarketProfile } from '../../src/api/polymarket-profile.js';
import { polymarketCredentialsFromEnv } from '../../src/api/polymarket-credentials.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/core/log.js';
import { LiveVenue } from '../../src/venue/live-venue.js';
import { simulatedVenueFromConfig } from '../../src/venue/simulated-venue.js';
import { createUserDecodeStats, decodeUserFrame } from '../../src/feed/decode-user.js';
import { M, N, RecordingVenue, Y, bandsEngine, books, deliver, makerTrade, settle } from './helpers.js';

const RULE = { rate: 0.25, exponent: 2 };

/** The bands engine on a market with RULE, its book 0.49/0.51. */
async function onFeeMarket(o: { rule?: boolean; makersPayNoFee?: boolean } = {}) {
  const clock = new VirtualClock(1_700_000_000_000);
  const venue = new RecordingVenue(() => clock.now());
  venue.makersPayNoFee = o.makersPayNoFee === true;
  const { engine, mirror } = await bandsEngine({
    clock,
    venue,
    params: { fair: 'mid', bands: [{ distance: 0.02, size: 10 }], skewPerShare: 0 },
    meta: { conditionId: M, tokenId: Y, complementId: N, tick: 100, minSize: 500, negRisk: false, ...(o.rule === false ? {} : { feeRule: RULE }) },
  });
  deliver(mirror, engine, books(4900, 5100, clock.now()));
  return { engine, clock };
}

/** The quoting engine's bid on a fee market, and its 10-share maker fill in a trade carrying 1000 bps on every part (as the real capture). */
async function quotingBid(o: { rule?: boolean; makersPayNoFee?: boolean } = {}) {
  const { engine, clock } = await onFeeMarket(o);
  engine.start();
  await settle(10);
  const bid = [...engine.orders.open()].find((o) => o.side === 'BUY' && o.tokenId === Y);
  if (!bid?.orderId) throw new Error('no bid quoted');
  const fill = (tradeId: string): UserTradeEvent => {
    const t = makerTrade(tradeId, bid.orderId as string, 'BUY', 'MATCHED', clock.now(), { price: bid.price, size: 1000 });
    t.feeRateBps = 1000;
    t.makerOrders[0].feeRateBps = 1000;
    return t;
  };
  return { engine, bid, fill };
}

describe('fills on a market with a fee rule', () => {
  it('a maker fill books no fee, whatever fee_rate_bps the trade carries; the venue charges makers nothing', async () => {
    const { engine, bid, fill } = await quotingBid();
    const cash = engine.positions.cash;
    engine.handleUserEvent(fill('t1'));
    expect(engine.positions.qty(Y)).toBe(1000);
    // the notional only: 10 shares at the bid
    expect(engine.positions.cash - cash).toBe(-bid.price * 1000);
    await engine.stop();
  });

  it('a taker fill (an order adopted from the venue may take) pays the rule, not fee_rate_bps of its notional', async () => {
    const { engine, clock } = await onFeeMarket();
    engine.orders.create({ clientId: 'adopted-1', tokenId: Y, market: M, side: 'BUY', price: 5100, size: 1000, createdMs: clock.now() });
    engine.orders.placeResult({ clientId: 'adopted-1', ok: true, orderId: 'A1', status: 'live' }, clock.now());
    const t = makerTrade('t2', 'someone', 'SELL', 'MATCHED', clock.now(), { price: 5100, size: 1000 });
    t.takerOrderId = 'A1';
    t.side = 'BUY';
    t.traderSide = 'TAKER';
    t.feeRateBps = 1000;
    t.makerOrders[0].owner = 'other-key';
    const cash = engine.positions.cash;
    engine.handleUserEvent(t);
    expect(engine.positions.qty(Y)).toBe(1000);
    expect(engine.positions.cash - cash).toBe(-5100 * 1000 - ruleFeeMicros(5100, 1000, RULE));
    await engine.stop();
  });

  it("a maker fill that arrives after its market was dropped still books the market's rule (no fee), not fee_rate_bps of its notional", async () => {
    // found in review: the rule was found through the market's state, which dropMarket deletes; a
    // rotating market's late fill (the user channel lingers for them, a look-up finds them) was
    // booked at the trade's 1000 bps: 10% of its notional, against the daily-loss limit
    const { engine, bid, fill } = await quotingBid();
    engine.retireMarket(M);
    await settle(10);
    expect(engine.dropMarket(M)).toBe(true);
    expect(engine.marketOf(Y)).toBeUndefined();
    const cash = engine.positions.cash;
    engine.handleUserEvent(fill('t3'));
    expect(engine.positions.qty(Y)).toBe(1000);
    expect(engine.positions.cash - cash).toBe(-bid.price * 1000);
    // held outside the set now (flat when it was dropped): its market is noted, the resolution watch asks about it
    expect(engine.heldOutsideMarkets().get(M)).toEqual([Y]);
    await engine.stop();
  });

  it("polymarket: a maker fill books no fee when the market's rule could not be read (makers pay nothing there), not 10% of its notional", async () => {
    // found in review: a failed rule read left the flat fee_rate_bps (1000 on maker parts) booked
    // on every maker fill: PnL understated by a tenth of the maker volume, the loss limit tripped
    const { engine, bid, fill } = await quotingBid({ rule: false, makersPayNoFee: true });
    const cash = engine.positions.cash;
    engine.handleUserEvent(fill('t4'));
    expect(engine.positions.qty(Y)).toBe(1000);
    expect(engine.positions.cash - cash).toBe(-bid.price * 1000);
    await engine.stop();
  });

  it('the spec profile (no such rule) books a maker fill at the trade fee rate, as its venue charges', async () => {
    const { engine, bid, fill } = await quotingBid({ rule: false });
    const cash = engine.positions.cash;
    engine.handleUserEvent(fill('t5'));
    expect(engine.positions.cash - cash).toBeLessThan(-bid.price * 1000);
    await engine.stop();
  });

  it("polymarket's real maker trade (polytrader's capture: fee_rate_bps 1000 on the maker part) through the user decoder books no fee without a rule", async () => {
    const line = readFileSync(new URL('../fixtures/polymarket/polytrader/user_ws_messages.jsonl', import.meta.url), 'utf8')
      .split('\n')
      .find((l) => l.includes('"maker_orders"') && l.includes('"MATCHED"')) as string;
    const events: UserEvent[] = [];
    decodeUserFrame(line, events, createUserDecodeStats());
    const t = events.find((e): e is UserTradeEvent => e.type === 'trade')!;
    const m = t.makerOrders[0];
    expect(m.feeRateBps).toBe(1000);
    // the maker entry as a resting order of ours, on a market with no known rule, at a venue charging makers nothing
    const clock = new VirtualClock(1_700_000_000_000);
    const venue = new RecordingVenue(() => clock.now());
    venue.makersPayNoFee = true;
    const { engine } = await bandsEngine({
      clock,
      venue,
      params: { fair: 'mid', bands: [{ distance: 0.02, size: 10 }], skewPerShare: 0 },
      meta: { conditionId: t.market, tokenId: m.assetId, complementId: t.assetId, tick: 100, minSize: 500, negRisk: false },
    });
    engine.orders.create({ clientId: 'ours', tokenId: m.assetId, market: t.market, side: m.side ?? 'BUY', price: m.price, size: 1000, createdMs: clock.now() });
    engine.orders.placeResult({ clientId: 'ours', ok: true, orderId: m.orderId, status: 'live' }, clock.now());
    const cash = engine.positions.cash;
    engine.handleUserEvent(t);
    expect(engine.positions.qty(m.assetId)).toBe(m.matchedAmount);
    expect(engine.positions.cash - cash).toBe(-m.price * m.matchedAmount);
    await engine.stop();
  });

  it('which venues charge makers nothing: the polymarket profile and the live venue over it, not the spec profile nor the simulated venue', () => {
    const poly = polymarketProfile(polymarketCredentialsFromEnv({}));
    expect([poly.makersPayNoFee, specProfile('k').makersPayNoFee]).toEqual([true, false]);
    const clock = new VirtualClock(0);
    const clob = (profile: ClobProfile) => createClients(loadConfig({ env: {} }), profile, silentLogger).clob;
    const live = (profile: ClobProfile) => new LiveVenue({ clob: clob(profile), subscribeUser: () => undefined, tickOf: () => 100, log: silentLogger }).makersPayNoFee;
    expect([live(poly), live(specProfile('k'))]).toEqual([true, false]);
    expect(simulatedVenueFromConfig(loadConfig({ env: {} }).sim, clock, []).makersPayNoFee).toBe(false);
  });
});
