import { fileURLToPath } from 'node:url';
import { describe, it, expect } from 'vitest';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadStrategy } from '../../src/strategy/loader.js';
import { VirtualClock } from '../../src/core/clock.js';
import { SeededRng } from '../../src/core/rng.js';
import { silentLogger } from '../../src/core/log.js';
import { quotePair, type MarketMeta, type StrategyContext, type Quote } from '../../src/engine/strategy.js';
import type { BookView } from '../../src/book/view.js';
import { makeBook } from '../engine/helpers.js';
import { Avellaneda } from '../../strategies/avellaneda.js';
import { ConfigError } from '../../src/core/errors.js';

const meta: MarketMeta = { conditionId: 'm', tokenId: 'Y', complementId: 'N', tick: 100, minSize: 500, negRisk: false };

function ctx(params: unknown, hold: { Y?: number; N?: number } = {}, clock = new VirtualClock(1_000_000), books: Record<string, BookView> = {}): StrategyContext {
  const held = (t: string): number => (t === 'Y' ? (hold.Y ?? 0) : t === 'N' ? (hold.N ?? 0) : 0);
  return {
    clock,
    rng: new SeededRng(1),
    market: meta,
    position: { qty: held, sellable: held, net: () => (hold.Y ?? 0) - (hold.N ?? 0) },
    params,
    log: silentLogger,
    book: (t) => books[t],
    referencePrice: () => undefined,
  };
}
const sorted = (qs: readonly Quote[]) => [...qs].map((q) => `${q.tokenId} ${q.side} ${q.price} ${q.size}`).sort();

/** The ConfigError loadStrategy throws for these params (undefined when they load). */
async function loadError(name: string, params: unknown): Promise<ConfigError | undefined> {
  try {
    await loadStrategy(name, params);
    return undefined;
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
}

/** A strategy with minSpread/maxSpread and minPrice/maxPrice refuses a min above its max, naming the min key. */
async function expectMinMaxChecked(name: string): Promise<void> {
  const cases: Array<[Record<string, unknown>, string, RegExp]> = [
    [{ minSpread: 0.05, maxSpread: 0.04 }, 'minSpread', /exceeds maxSpread/],
    [{ minSpread: 0.3 }, 'minSpread', /exceeds maxSpread/], // over the default maxSpread 0.2
    [{ minPrice: 0.6, maxPrice: 0.4 }, 'minPrice', /exceeds maxPrice/],
    [{ maxPrice: 0.01 }, 'minPrice', /exceeds maxPrice/], // under the default minPrice 0.05
  ];
  for (const [params, key, reason] of cases) {
    const err = await loadError(name, params);
    expect(err, JSON.stringify(params)).toBeInstanceOf(ConfigError);
    expect(err!.key, JSON.stringify(params)).toBe(`strategy.params.${key}`);
    expect(err!.reason, JSON.stringify(params)).toMatch(reason);
  }
  // equal bounds are a fixed spread / a single price: allowed
  expect(await loadError(name, { minSpread: 0.04, maxSpread: 0.04, minPrice: 0.5, maxPrice: 0.5 })).toBeUndefined();
}

describe('bands', () => {
  it('quotes each band around the mid; asks without inventory become BUYs of the complement', async () => {
    const { module, params } = await loadStrategy('bands', {
      bands: [
        { distance: 0.02, size: 10 },
        { distance: 0.05, size: 20 },
      ],
      skewPerShare: 0,
    });
    const s = module.create(params, meta);
    const book = makeBook('Y', [[4900, 1000]], [[5100, 1000]]);
    expect(sorted(s.quote(ctx(params), book))).toEqual(
      sorted([
        { tokenId: 'Y', side: 'BUY', price: 4800, size: 1000 },
        { tokenId: 'N', side: 'BUY', price: 4800, size: 1000 }, // ask at 0.52
        { tokenId: 'Y', side: 'BUY', price: 4500, size: 2000 },
        { tokenId: 'N', side: 'BUY', price: 4500, size: 2000 }, // ask at 0.55
      ]),
    );
  });

  it('sells YES when it holds enough, and sells NO instead of buying YES when it holds NO', async () => {
    const { module, params } = await loadStrategy('bands', { bands: [{ distance: 0.02, size: 10 }], skewPerShare: 0 });
    const s = module.create(params, meta);
    const book = makeBook('Y', [[4900, 1000]], [[5100, 1000]]);
    expect(sorted(s.quote(ctx(params, { Y: 1000, N: 1000 }), book))).toEqual(
      sorted([
        { tokenId: 'N', side: 'SELL', price: 5200, size: 1000 }, // bid 0.48 on YES == sell NO at 0.52
        { tokenId: 'Y', side: 'SELL', price: 5200, size: 1000 },
      ]),
    );
  });

  it('skews both quotes against the inventory', async () => {
    const { module, params } = await loadStrategy('bands', { bands: [{ distance: 0.02, size: 10 }], skewPerShare: 0.001 });
    const s = module.create(params, meta);
    const book = makeBook('Y', [[4900, 1000]], [[5100, 1000]]);
    // long 10 YES -> centre 0.50 - 10 * 0.001 = 0.49: bid 0.47, ask 0.51 (a SELL: we hold 10)
    expect(sorted(s.quote(ctx(params, { Y: 1000 }), book))).toEqual(
      sorted([
        { tokenId: 'Y', side: 'BUY', price: 4700, size: 1000 },
        { tokenId: 'Y', side: 'SELL', price: 5100, size: 1000 },
      ]),
    );
  });

  it('keeps the spread within [minSpread, maxSpread] and never crosses the book', async () => {
    const narrow = await loadStrategy('bands', { bands: [{ distance: 0.001, size: 10 }], minSpread: 0.04, skewPerShare: 0 });
    const book = makeBook('Y', [[4900, 1000]], [[5100, 1000]]);
    const q1 = narrow.module.create(narrow.params, meta).quote(ctx(narrow.params), book);
    expect(sorted(q1)).toEqual(
      sorted([
        { tokenId: 'Y', side: 'BUY', price: 4800, size: 1000 },
        { tokenId: 'N', side: 'BUY', price: 4800, size: 1000 },
      ]),
    );
    const wide = await loadStrategy('bands', { bands: [{ distance: 0.3, size: 10 }], maxSpread: 0.1, skewPerShare: 0 });
    const q2 = wide.module.create(wide.params, meta).quote(ctx(wide.params), book);
    expect(sorted(q2)).toEqual(
      sorted([
        { tokenId: 'Y', side: 'BUY', price: 4500, size: 1000 },
        { tokenId: 'N', side: 'BUY', price: 4500, size: 1000 },
      ]),
    );
    // a huge skew would put the ask below the best bid: it is held one tick above the bid instead
    const skewed = await loadStrategy('bands', { bands: [{ distance: 0.01, size: 10 }], skewPerShare: 0.01 });
    const q3 = skewed.module.create(skewed.params, meta).quote(ctx(skewed.params, { Y: 1000 }), book);
    for (const q of q3) {
      const yesPrice = q.tokenId === 'Y' ? q.price : 10_000 - q.price;
      const isBid = (q.tokenId === 'Y') === (q.side === 'BUY');
      if (isBid) expect(yesPrice).toBeLessThan(5100);
      else expect(yesPrice).toBeGreaterThan(4900);
    }
  });

  it('quotes only inside the configured price range', async () => {
    const { module, params } = await loadStrategy('bands', { bands: [{ distance: 0.02, size: 10 }], minPrice: 0.1, maxPrice: 0.9 });
    const s = module.create(params, meta);
    expect(s.quote(ctx(params), makeBook('Y', [[500, 1000]], [[700, 1000]]))).toEqual([]);
    // fair 0.11: the bid at 0.09 is outside, the ask at 0.13 inside
    const q = s.quote(ctx(params), makeBook('Y', [[1000, 1000]], [[1200, 1000]]));
    expect(sorted(q)).toEqual(['N BUY 8700 1000']);
  });

  it('a bid at exactly minPrice is inside the range (0.07 x 10,000 is 700.0000000000001 in floating point)', async () => {
    const { module, params } = await loadStrategy('bands', { bands: [{ distance: 0.01, size: 10 }], minPrice: 0.07, maxPrice: 0.93 });
    const s = module.create(params, meta);
    // fair 0.08: the bid at 0.07 is at the bound, the ask at 0.09 inside
    expect(sorted(s.quote(ctx(params), makeBook('Y', [[700, 1000]], [[900, 1000]])))).toEqual(['N BUY 9100 1000', 'Y BUY 700 1000']);
    // fair exactly at minPrice quotes too (its bid is below the range)
    expect(sorted(s.quote(ctx(params), makeBook('Y', [[600, 1000]], [[800, 1000]])))).toEqual(['N BUY 9200 1000']);
  });

  it('refuses minSpread above maxSpread and minPrice above maxPrice (it would quote nothing), naming the key', async () => {
    await expectMinMaxChecked('bands');
  });

  it('quotes nothing when a side of the book is empty', async () => {
    const { module, params } = await loadStrategy('bands', {});
    expect(module.create(params, meta).quote(ctx(params), makeBook('Y', [[4900, 1000]], []))).toEqual([]);
  });
});

describe('avellaneda-stoikov', () => {
  it('the reservation price moves against the inventory', async () => {
    const { module, params } = await loadStrategy('avellaneda', { gamma: 1, sigmaPerSec: 0.002, horizonSec: 3600, kappa: 100, size: 5, maxSpread: 0.5 });
    // a wide book so the passive clamp does not move the quotes
    const book = makeBook('Y', [[2000, 1000]], [[8000, 1000]]);
    const mid = (qs: readonly Quote[]) => {
      const ps = qs.map((q) => (q.tokenId === 'Y' ? q.price : 10_000 - q.price));
      return (Math.min(...ps) + Math.max(...ps)) / 2;
    };
    const flat = mid(module.create(params, meta).quote(ctx(params), book));
    const long = mid(module.create(params, meta).quote(ctx(params, { Y: 1000 }), book));
    const short = mid(module.create(params, meta).quote(ctx(params, { N: 1000 }), book));
    expect(long).toBeLessThan(flat);
    expect(short).toBeGreaterThan(flat);
    // r = s - q * gamma * sigma^2 * tau = 0.5 - 10 * 1 * 4e-6 * 3600 = 0.356 (quotes rounded to the tick)
    expect(Math.abs(long - 3560)).toBeLessThanOrEqual(50);
  });

  it('the spread follows gamma*sigma^2*tau + (2/gamma) ln(1 + gamma/kappa), clamped', async () => {
    const p = { gamma: 0.1, sigmaPerSec: 0.001, horizonSec: 3600, kappa: 10, size: 5, minSpread: 0, maxSpread: 1 };
    const { module, params } = await loadStrategy('avellaneda', p);
    const qs = module.create(params, meta).quote(ctx(params), makeBook('Y', [[4000, 1000]], [[6000, 1000]]));
    const ps = qs.map((q) => (q.tokenId === 'Y' ? q.price : 10_000 - q.price));
    const expected = p.gamma * p.sigmaPerSec ** 2 * p.horizonSec + (2 / p.gamma) * Math.log(1 + p.gamma / p.kappa);
    // rounded outward to the tick on each side
    expect((Math.max(...ps) - Math.min(...ps)) / 10_000).toBeGreaterThanOrEqual(expected - 1e-9);
    expect((Math.max(...ps) - Math.min(...ps)) / 10_000).toBeLessThanOrEqual(expected + 0.02);
  });

  it('refuses minSpread above maxSpread and minPrice above maxPrice, naming the key', async () => {
    await expectMinMaxChecked('avellaneda');
  });

  it('estimates kappa from trade distances and volatility from mid changes', () => {
    const s = new Avellaneda({
      gamma: 0.1,
      size: 5,
      horizon: 'rolling',
      horizonSec: 600,
      sigmaPerSec: 0.001,
      kappa: 100,
      volAlpha: 0.5,
      kappaAlpha: 0.5,
      minSpread: 0,
      maxSpread: 1,
      minPrice: 0,
      maxPrice: 1,
    });
    const clock = new VirtualClock(0);
    let book = makeBook('Y', [[4900, 1000]], [[5100, 1000]]);
    const c = ctx({}, {}, clock, { Y: book });
    for (let i = 0; i < 20; i++) s.onTrade(c, { type: 'last_trade_price', market: 'm', assetId: 'Y', price: 5500, size: 100, side: 'BUY', feeRateBps: 0, timestampMs: 0 });
    // every trade 0.05 from the mid -> kappa -> 1 / 0.05 = 20
    expect(s.kappa).toBeCloseTo(20, 0);
    // the complement's trades count in the main token's terms: NO at 0.45 == YES at 0.55
    s.onTrade(c, { type: 'last_trade_price', market: 'm', assetId: 'N', price: 4500, size: 100, side: 'BUY', feeRateBps: 0, timestampMs: 0 });
    expect(s.kappa).toBeCloseTo(20, 0);
    const v0 = s.variance;
    s.quote(c, book);
    for (let i = 1; i <= 10; i++) {
      clock.advanceTo(i * 1000);
      book = makeBook('Y', [[4900 + (i % 2) * 200, 1000]], [[5100 + (i % 2) * 200, 1000]]);
      s.quote(c, book);
    }
    // the mid jumps 0.02 every second: variance -> 4e-4 per second
    expect(s.variance).toBeGreaterThan(v0 * 10);
    expect(s.variance).toBeCloseTo(4e-4, 4);
  });

  it('estimates the same volatility however often quote() is called over the same mid path (paper and backtest call it at different rates)', () => {
    const p = {
      gamma: 0.1,
      size: 5,
      horizon: 'rolling' as const,
      horizonSec: 600,
      sigmaPerSec: 0.001,
      kappa: 100,
      volAlpha: 0.2,
      kappaAlpha: 0.5,
      minSpread: 0,
      maxSpread: 1,
      minPrice: 0,
      maxPrice: 1,
    };
    // the mid (bid + 0.01) moves at these times (ms) to these bids; quiet in between
    const path: Array<[number, number]> = [
      [0, 4900],
      [300, 5000],
      [1700, 4800],
      [2200, 5100],
      [5000, 5000],
      [9050, 5200],
      [12_000, 5200],
    ];
    const run = (extraEveryMs: number): number => {
      const s = new Avellaneda(p);
      const clock = new VirtualClock(0);
      const c = ctx({}, {}, clock, {});
      let k = 0;
      let bid = path[0][1];
      for (let t = 0; t <= path[path.length - 1][0]; t += 10) {
        let changed = false;
        while (k < path.length && path[k][0] === t) {
          bid = path[k++][1];
          changed = true;
        }
        // called on every change; the busy caller also every extraEveryMs with the mid unchanged
        if (!changed && !(extraEveryMs > 0 && t % extraEveryMs === 0)) continue;
        clock.advanceTo(t);
        s.quote(c, makeBook('Y', [[bid, 1000]], [[bid + 200, 1000]]));
      }
      return s.variance;
    };
    const sparse = run(0);
    expect(sparse).not.toBeCloseTo(0.001 * 0.001, 8); // it learned from the path
    expect(run(10)).toBeCloseTo(sparse, 12);
    expect(run(250)).toBeCloseTo(sparse, 12);
  });

  it('with horizon "end" the inventory skew shrinks as the market end approaches', async () => {
    const { module, params } = await loadStrategy('avellaneda', { gamma: 1, sigmaPerSec: 0.002, horizon: 'end', horizonSec: 3600, size: 5, maxSpread: 0.5 });
    const m2 = { ...meta, endMs: 1_000_000 + 3_600_000 };
    const book = makeBook('Y', [[4900, 1000]], [[5100, 1000]]);
    const bidAt = (now: number) => {
      const c = { ...ctx(params, { Y: 1000 }, new VirtualClock(now)), market: m2 };
      const qs = module.create(params, m2).quote(c, book);
      return Math.max(...qs.filter((q) => q.tokenId === 'Y' && q.side === 'BUY').map((q) => q.price));
    };
    expect(bidAt(1_000_000 + 3_500_000)).toBeGreaterThan(bidAt(1_000_000));
  });
});

describe('strategy loading', () => {
  it('loads a user module by path and validates its params', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'makerd-strat-'));
    try {
      const file = join(dir, 'mine.mjs');
      writeFileSync(
        file,
        `import { z } from ${JSON.stringify(new URL('../../node_modules/zod/index.js', import.meta.url).href)};
export default { name: 'mine', params: z.strictObject({ size: z.number().positive() }), create: (p) => ({ quote: () => [{ tokenId: 'Y', side: 'BUY', price: 100, size: p.size * 100 }] }) };`,
      );
      const { module, params } = await loadStrategy(file, { size: 7 });
      expect(module.name).toBe('mine');
      expect(module.create(params, meta).quote(ctx(params), makeBook('Y', [], []))).toEqual([{ tokenId: 'Y', side: 'BUY', price: 100, size: 700 }]);
      await expect(loadStrategy(file, { size: -1 })).rejects.toThrow(/strategy\.params\.size/);
      await expect(loadStrategy(file, { size: 1, extra: 2 })).rejects.toThrow(/strategy\.params\.extra: unknown key/);
      await expect(loadStrategy(join(dir, 'missing.mjs'), {})).rejects.toThrow(/not found/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a syntax error in a user strategy, or in a module it imports, is named with its file and line (Node puts neither in the message of an ES module)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'makerd-strat-syntax-'));
    try {
      writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
      writeFileSync(join(dir, 'helper.js'), 'export const a = 1;\nconst b = 2;\nfoo(;\n');
      writeFileSync(join(dir, 'mine.js'), "import { a } from './helper.js';\nexport default { name: 'mine', params: null, create: () => ({ quote: () => [] }) };\n");
      writeFileSync(join(dir, 'broken.js'), 'export default {\n  name: "broken",,\n};\n');
      await expect(loadStrategy(join(dir, 'mine.js'), {})).rejects.toThrow(/helper\.js:3\b.*Unexpected token/);
      await expect(loadStrategy(join(dir, 'broken.js'), {})).rejects.toThrow(/broken\.js:2\b/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the template strategy loads and quotes at the touch with edgeTicks 0', async () => {
    const { module, params } = await loadStrategy('template', { edgeTicks: 0, size: 5 });
    const q = module.create(params, meta).quote(ctx(params), makeBook('Y', [[4900, 1000]], [[5100, 1000]]));
    expect(sorted(q)).toEqual(
      sorted([
        { tokenId: 'Y', side: 'BUY', price: 4900, size: 500 },
        { tokenId: 'N', side: 'BUY', price: 4900, size: 500 },
      ]),
    );
  });
});

describe('bands inventory across bands', () => {
  it('sells only the shares it holds across bands; the rest of the ask becomes a complement BUY', async () => {
    const { module, params } = await loadStrategy('bands', {
      bands: [
        { distance: 0.02, size: 10 },
        { distance: 0.04, size: 10 },
      ],
      skewPerShare: 0,
    });
    const q = module.create(params, meta).quote(ctx(params, { Y: 1500 }), makeBook('Y', [[4900, 1000]], [[5100, 1000]]));
    const asks = q.filter((x) => (x.tokenId === 'Y') === (x.side === 'SELL'));
    expect(sorted(asks)).toEqual(
      sorted([
        { tokenId: 'Y', side: 'SELL', price: 5200, size: 1000 },
        { tokenId: 'N', side: 'BUY', price: 4600, size: 1000 }, // 5 shares left: not enough for the second
      ]),
    );
  });
});

describe('quotePair (the shared quote builder)', () => {
  const book = makeBook('Y', [[4900, 1000]], [[5100, 1000]]);
  const run = (bid: number, ask: number, hold: { Y?: number; N?: number } = {}, opt?: Parameters<typeof quotePair>[6]): Quote[] => {
    const out: Quote[] = [];
    const n = quotePair(ctx({}, hold), book, bid, ask, 1000, out, opt);
    expect(n).toBe(out.length);
    return out;
  };

  it('rounds away from each other onto the tick and keeps both sides post-only', () => {
    expect(run(4750.5, 5249.5)).toEqual([
      { tokenId: 'Y', side: 'BUY', price: 4700, size: 1000 },
      { tokenId: 'N', side: 'BUY', price: 4700, size: 1000 }, // ask 0.53
    ]);
    // a bid at or through the best ask moves under it; an ask at or under the best bid moves over it
    expect(run(5300, 5400).map((q) => q.price)).toEqual([5000, 10_000 - 5400]);
    expect(run(4400, 4800).map((q) => q.price)).toEqual([4400, 10_000 - 5000]);
  });

  it('leaves out a side that passive() would push outside [tick, 1 - tick] (a one-sided book at the edge)', () => {
    const pair = (b: BookView, bid: number, ask: number): Quote[] => {
      const out: Quote[] = [];
      quotePair(ctx({}), b, bid, ask, 1000, out);
      return out;
    };
    // the best ask at 0.01: a bid at or over it would move to 0.00; the ask stays
    expect(pair(makeBook('Y', [], [[100, 1000]]), 100, 200)).toEqual([{ tokenId: 'N', side: 'BUY', price: 9800, size: 1000 }]);
    // the best bid at 0.99 and no ask: an ask at or under it would move to 1.00; the bid stays
    expect(pair(makeBook('Y', [[9900, 1000]], []), 9800, 9900)).toEqual([{ tokenId: 'Y', side: 'BUY', price: 9800, size: 1000 }]);
  });

  it('leaves out a side wanted beyond [tick, 1 - tick] instead of moving it to the edge (where it gives away the edge asked for)', () => {
    const pair = (b: BookView, bid: number, ask: number): Quote[] => {
      const out: Quote[] = [];
      quotePair(ctx({}), b, bid, ask, 1000, out);
      return out;
    };
    // fair 0.97, distance 0.05: the ask wanted at 1.02 is no ask at 0.99 (a BUY of NO at 0.01)
    expect(pair(makeBook('Y', [[9600, 1000]], [[9800, 1000]]), 9200, 10_200)).toEqual([{ tokenId: 'Y', side: 'BUY', price: 9200, size: 1000 }]);
    // fair 0.03: the bid wanted at -0.02 is no bid at 0.01
    expect(pair(makeBook('Y', [[200, 1000]], [[400, 1000]]), -200, 800)).toEqual([{ tokenId: 'N', side: 'BUY', price: 9200, size: 1000 }]);
    // rounding onto the grid decides: a bid wanted at 0.0099 rounds down to 0.00, out; at 0.0100 it stays
    expect(pair(makeBook('Y', [[200, 1000]], [[400, 1000]]), 99, 800).map((q) => q.side + q.price)).toEqual(['BUY9200']);
    expect(pair(makeBook('Y', [[200, 1000]], [[400, 1000]]), 100, 800).map((q) => q.side + q.price)).toEqual(['BUY100', 'BUY9200']);
  });

  it('quotes nothing when the pair still crosses, and drops a side outside the bounds', () => {
    expect(run(5300, 4700)).toEqual([]);
    const out = run(4800, 5200, {}, { minBid: 4900, maxAsk: 5500 });
    expect(out).toEqual([{ tokenId: 'N', side: 'BUY', price: 4800, size: 1000 }]);
    expect(run(4800, 5200, {}, { minBid: 4000, maxAsk: 5100 })).toEqual([{ tokenId: 'Y', side: 'BUY', price: 4800, size: 1000 }]);
  });

  it('sells held shares, and with `offered` a later pair sells only what is left', () => {
    const offered = { token: 0, complement: 0 };
    const first = run(4800, 5200, { Y: 1500, N: 1500 }, { offered });
    expect(first).toEqual([
      { tokenId: 'N', side: 'SELL', price: 5200, size: 1000 },
      { tokenId: 'Y', side: 'SELL', price: 5200, size: 1000 },
    ]);
    expect(offered).toEqual({ token: 1000, complement: 1000 });
    const second = run(4700, 5300, { Y: 1500, N: 1500 }, { offered });
    expect(second).toEqual([
      { tokenId: 'Y', side: 'BUY', price: 4700, size: 1000 },
      { tokenId: 'N', side: 'BUY', price: 4700, size: 1000 },
    ]);
    // without `offered` each pair sees all the shares
    expect(run(4700, 5300, { Y: 1500, N: 1500 }).map((q) => q.side)).toEqual(['SELL', 'SELL']);
  });

  it('sells only shares the venue lets us sell: bought in a trade not yet settled, the ask is a BUY of the complement', () => {
    // 15 YES and 15 NO held; 10 of the YES bought in a trade still MATCHED
    const c = ctx({}, { Y: 1500, N: 1500 });
    const position = { ...c.position, sellable: (t: string) => (t === 'Y' ? 500 : 1500) };
    const out: Quote[] = [];
    quotePair({ ...c, position }, book, 4800, 5200, 1000, out);
    expect(out).toEqual([
      { tokenId: 'N', side: 'SELL', price: 5200, size: 1000 },
      { tokenId: 'N', side: 'BUY', price: 4800, size: 1000 }, // the ask at 0.52, not a SELL of YES
    ]);
  });

  it('below the market minimum size quotes nothing', () => {
    const out: Quote[] = [];
    expect(quotePair(ctx({}), book, 4800, 5200, meta.minSize - 1, out)).toBe(0);
    expect(out).toEqual([]);
  });
});

describe('strategy params', () => {
  it('are read-only but stay what the schema made: a class instance keeps its methods, a function param loads', async () => {
    const path = fileURLToPath(new URL('../fixtures/strategies/decimal-params.mjs', import.meta.url));
    const { module, params } = await loadStrategy(path, { edge: '0.25' });
    const p = params as { edge: { times(n: number): { toNumber(): number } }; round: (x: number) => number };
    expect(p.edge.times(2).toNumber()).toBe(0.5);
    expect(p.round(1.2)).toBe(1);
    expect(Object.isFrozen(params)).toBe(true);
    expect(() => module.create(params, meta).quote(ctx(params), makeBook('Y', [[4900, 1000]], [[5100, 1000]]))).not.toThrow();
  });
});
