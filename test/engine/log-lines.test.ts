// What the engine's log lines say to a human: prices and sizes in market units (0.52, 10
// shares), one info line per fill, and routine risk blocks below WARN (counted, summarised).
import { describe, it, expect } from 'vitest';
import { createLogger } from '../../src/core/log.js';
import { RiskGate, type RiskInputs } from '../../src/engine/risk.js';
import { loadConfig } from '../../src/config.js';
import { VirtualClock } from '../../src/core/clock.js';
import { Limiter } from '../../src/api/limiter.js';
import { BookMirror } from '../../src/book/mirror.js';
import { loadStrategy } from '../../src/strategy/loader.js';
import type { MarketMeta, Quote } from '../../src/engine/strategy.js';
import type { UserTradeEvent } from '../../src/core/events.js';
import { strictParse } from '../strict-json.js';
import { Y, N, M, RecordingVenue, bandsEngine, books, deliver, emptyRiskInputs, refusedForBalance, settle, testEngine } from './helpers.js';

type Line = Record<string, unknown> & { level: number; msg: string };

function capture(level = 'trace') {
  const lines: Line[] = [];
  const log = createLogger({ level, destination: { write: (s: string) => void lines.push(strictParse(s) as Line) } });
  return { log, lines };
}

const meta: MarketMeta = { conditionId: M, tokenId: Y, complementId: N, tick: 100, minSize: 500, negRisk: false };
const risk = loadConfig({ env: {} }).risk;
const inputs = (over: Partial<RiskInputs> = {}): RiskInputs => emptyRiskInputs(5100, over);
const sell = (price: number, size: number): Quote => ({ tokenId: Y, side: 'SELL', price, size });

describe('risk block lines', () => {
  it('a routine block (nothing left to sell) is not a WARN, says 0.52 and 10 shares, and is counted', () => {
    const { log, lines } = capture();
    const g = new RiskGate(risk, log.child({ part: 'engine' }).child({ part: 'risk' }));
    g.begin();
    // 10 shares held, all of them already offered by a working SELL
    expect(g.checkPlace(sell(5200, 1000), meta, inputs({ qty: () => 1000, openSell: () => 1000 }), 0)).toBe('sell_exceeds_position');
    expect(g.blocks.get('sell_exceeds_position')).toBe(1);
    const l = lines.find((x) => x.reason === 'sell_exceeds_position') as Line;
    expect(l.level).toBeLessThan(40);
    expect(l).toMatchObject({ part: 'engine/risk', tokenId: Y, side: 'SELL', price: '0.52', shares: '10', held: '10', alreadySelling: '10' });
    expect(lines.every((x) => x.level < 40)).toBe(true);
  });

  it('other blocks speak market units too: order size, position, collar', () => {
    const { log, lines } = capture();
    const g = new RiskGate({ ...risk, maxOrderSize: 5, maxPositionPerToken: 20, priceCollar: 0.05 }, log);
    g.begin();
    expect(g.checkPlace({ tokenId: Y, side: 'BUY', price: 5000, size: 1000 }, meta, inputs(), 0)).toBe('max_order_size');
    expect(g.checkPlace({ tokenId: Y, side: 'BUY', price: 5000, size: 500 }, meta, inputs({ qty: () => 1800 }), 0)).toBe('max_position_token');
    expect(g.checkPlace({ tokenId: Y, side: 'BUY', price: 4500, size: 500 }, meta, inputs({ mid: () => 5150 }), 0)).toBe('price_collar');
    const by = (r: string) => lines.find((x) => x.reason === r) as Line;
    // the strategy asks for more than the configuration allows on every quote: an operator's matter
    expect(by('max_order_size')).toMatchObject({ level: 40, price: '0.5', shares: '10', maxShares: 5 });
    expect(by('max_position_token')).toMatchObject({ shares: '5', worstCaseShares: '23', maxShares: 20 });
    expect(by('max_position_token').level).toBeLessThan(40);
    expect(by('price_collar')).toMatchObject({ price: '0.45', mid: '0.515', collar: 0.05 });
    expect(JSON.stringify(lines)).not.toMatch(/"(size|held|price|mid|worstCase)":\d/);
  });

  it('BUYs beyond our collateral: WARN with what to do and the dollars, once per 10 minutes (debug between)', () => {
    const { log, lines } = capture();
    const g = new RiskGate(risk, log);
    const s = inputs({ collateral: () => 12_000_000, openBuyCost: () => 9_500_000 });
    for (const t of [0, 1000, 599_000, 600_000]) {
      g.begin();
      expect(g.checkPlace({ tokenId: Y, side: 'BUY', price: 5000, size: 1000 }, meta, s, t)).toBe('buy_exceeds_collateral');
    }
    const warns = lines.filter((x) => x.reason === 'buy_exceeds_collateral' && x.level === 40);
    expect(warns).toHaveLength(2);
    expect(warns[0]).toMatchObject({ price: '0.5', shares: '10', openBuyUsd: 9.5, collateralUsd: 12 });
    expect(warns[0].msg).toMatch(/fund the wallet or approve more, or quote less/);
    expect(lines.filter((x) => x.reason === 'buy_exceeds_collateral' && x.level < 40)).toHaveLength(2);
  });

  it('a periodic info line sums up the blocks of the last minute', () => {
    const { log, lines } = capture();
    const g = new RiskGate(risk, log);
    const s = inputs({ qty: () => 1000, openSell: () => 1000 });
    g.summarize(0);
    for (let t = 0; t < 30_000; t += 100) {
      g.begin();
      g.checkPlace(sell(5200, 1000), meta, s, t);
    }
    g.summarize(30_000);
    expect(lines.filter((l) => l.msg.startsWith('risk: orders blocked'))).toHaveLength(0);
    g.summarize(60_000);
    const sum = lines.filter((l) => l.msg.startsWith('risk: orders blocked'));
    expect(sum).toHaveLength(1);
    expect(sum[0]).toMatchObject({ level: 30, blocked: { sell_exceeds_position: 300 }, periodS: 60 });
    // per-block lines are throttled (one a second per reason) and below info
    expect(lines.filter((l) => l.reason === 'sell_exceeds_position').length).toBeLessThanOrEqual(31);
    g.summarize(120_000); // nothing blocked since: no line
    expect(lines.filter((l) => l.msg.startsWith('risk: orders blocked'))).toHaveLength(1);
  });
});

describe('fill line', () => {
  it('one info line per fill: token, side, price, shares, fee and the position after, in market units', async () => {
    const { log, lines } = capture('info');
    const clock = new VirtualClock(1_700_000_000_000);
    const cfg = loadConfig({ env: {} });
    const venue = new RecordingVenue(() => clock.now());
    const engine = testEngine({
      clock,
      venue,
      log: log.child({ part: 'engine' }),
      limiter: new Limiter({ clock }),
      books: new BookMirror({ verifyEvery: 0, now: () => clock.now() }),
      strategy: await loadStrategy('bands', {}),
      config: cfg,
      markets: [meta],
    });
    engine.orders.create({ clientId: 'c1', tokenId: Y, market: M, side: 'BUY', price: 5200, size: 1000, createdMs: clock.now() });
    engine.orders.placeResult({ clientId: 'c1', ok: true, orderId: 'o1', status: 'live' }, clock.now());
    const trade = (id: string, size: number): UserTradeEvent => ({
      type: 'trade',
      tradeId: id,
      takerOrderId: 'other',
      market: M,
      assetId: Y,
      side: 'SELL',
      price: 5200,
      size,
      feeRateBps: 0,
      status: 'MATCHED',
      traderSide: 'MAKER',
      outcome: 'Yes',
      owner: 'k',
      makerOrders: [{ orderId: 'o1', assetId: Y, price: 5200, matchedAmount: size, feeRateBps: 100, outcome: 'Yes', side: 'BUY', owner: 'k' }],
      matchTimeMs: clock.now(),
      timestampMs: clock.now(),
    });
    engine.handleUserEvent(trade('t1', 400));
    engine.handleUserEvent(trade('t2', 600));
    const fills = lines.filter((l) => l.msg === 'fill');
    expect(fills).toHaveLength(2);
    expect(fills[0]).toMatchObject({ level: 30, part: 'engine', tokenId: Y, side: 'BUY', price: '0.52', shares: '4', feeUsd: '0.0208', liquidity: 'MAKER', position: '4' });
    expect(fills[1]).toMatchObject({ price: '0.52', shares: '6', feeUsd: '0.0312', position: '10' });
  });
});

describe('order rejected lines', () => {
  it('a post-only order that would have crossed is info (a race the maker loses); any other refusal is WARN; both counted by code', async () => {
    const { log, lines } = capture('info');
    const clock = new VirtualClock(1_700_000_000_000);
    const venue = new RecordingVenue(() => clock.now());
    // the bid refused as crossing, the ask (a BUY of the complement: no shares held) for balance
    venue.answer = (r) => (r.tokenId === Y ? { clientId: r.clientId, ok: false, error: 'INVALID_POST_ONLY_ORDER', message: 'invalid post-only order: order crosses book' } : refusedForBalance(r));
    const { engine, mirror } = await bandsEngine({ clock, venue, log: log.child({ part: 'engine' }), params: { fair: 'mid', bands: [{ distance: 0.02, size: 10 }], skewPerShare: 0 } });
    deliver(mirror, engine, books(4900, 5100, clock.now()));
    engine.start();
    await settle(10);
    const rejected = lines.filter((l) => l.msg === 'order rejected');
    expect(rejected.map((l) => [l.code, l.level]).sort()).toEqual([
      ['INVALID_ORDER_NOT_ENOUGH_BALANCE', 40],
      ['INVALID_POST_ONLY_ORDER', 30],
    ]);
    expect(Object.fromEntries(engine.rejects)).toEqual({ INVALID_POST_ONLY_ORDER: 1, INVALID_ORDER_NOT_ENOUGH_BALANCE: 1 });
    await engine.stop();
  });
});
