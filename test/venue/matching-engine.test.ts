import { describe, it, expect } from 'vitest';
import { MatchingEngine } from '../../src/venue/matching-engine.js';
import type { LevelChange, MatchOrder, RejectCode } from '../../src/venue/matching-api.js';
import { SeededRng } from '../../src/core/rng.js';

const YES = 'yes-token';
const NO = 'no-token';
const spec = { conditionId: '0xmarket', tokens: [YES, NO] as [string, string], tick: 100, minSize: 500 };

let seq = 0;
function ord(p: Partial<MatchOrder> & Pick<MatchOrder, 'side' | 'price' | 'size'>): MatchOrder {
  return { orderId: `o${++seq}`, owner: 'alice', tokenId: YES, orderType: 'GTC', postOnly: false, ...p };
}
function engine(): MatchingEngine {
  return new MatchingEngine(spec, { tradeIdPrefix: 'T' });
}

describe('MatchingEngine validation', () => {
  const cases: Array<[string, Partial<MatchOrder>, RejectCode]> = [
    ['off-grid price', { price: 5150 }, 'INVALID_ORDER_MIN_TICK_SIZE'],
    ['price below tick', { price: 0 }, 'INVALID_ORDER_MIN_TICK_SIZE'],
    ['price above 1-tick', { price: 9950 }, 'INVALID_ORDER_MIN_TICK_SIZE'],
    ['price 1', { price: 10000 }, 'INVALID_ORDER_MIN_TICK_SIZE'],
    ['size below minimum', { size: 499 }, 'INVALID_ORDER_MIN_SIZE'],
    ['zero size', { size: 0 }, 'INVALID_ORDER_ERROR'],
    ['post-only FOK', { postOnly: true, orderType: 'FOK' }, 'INVALID_POST_ONLY_ORDER_TYPE'],
    ['post-only FAK', { postOnly: true, orderType: 'FAK' }, 'INVALID_POST_ONLY_ORDER_TYPE'],
    ['GTD in the past', { orderType: 'GTD', expiresAtMs: 999 }, 'INVALID_ORDER_EXPIRATION'],
    ['GTD without expiry', { orderType: 'GTD' }, 'INVALID_ORDER_EXPIRATION'],
    ['unknown token', { tokenId: 'other' }, 'INVALID_ORDER_ERROR'],
  ];
  it.each(cases)('%s', (_name, patch, code) => {
    const e = engine();
    const out = e.place(ord({ side: 'BUY', price: 5000, size: 1000, ...patch }), 1000);
    expect(out).toMatchObject({ ok: false, error: code, fills: [] });
    expect(e.size).toBe(0);
  });

  it('accepts the extreme grid prices tick and 1-tick', () => {
    const e = engine();
    expect(e.place(ord({ side: 'BUY', price: 100, size: 500 }), 0).status).toBe('live');
    expect(e.place(ord({ side: 'SELL', price: 9900, size: 500 }), 0).status).toBe('live');
  });

  it('rejects a duplicated id, also after the first order is done', () => {
    const e = engine();
    expect(e.place(ord({ orderId: 'd1', side: 'BUY', price: 5000, size: 500 }), 0).ok).toBe(true);
    expect(e.place(ord({ orderId: 'd1', side: 'BUY', price: 4000, size: 500 }), 0).error).toBe('INVALID_ORDER_DUPLICATED');
    e.cancel('d1');
    expect(e.place(ord({ orderId: 'd1', side: 'BUY', price: 4000, size: 500 }), 0).error).toBe('INVALID_ORDER_DUPLICATED');
    // a rejected order does not claim its id
    expect(e.place(ord({ orderId: 'd2', side: 'BUY', price: 4000, size: 500, orderType: 'FOK' }), 0).error).toBe('FOK_ORDER_NOT_FILLED_ERROR');
    expect(e.place(ord({ orderId: 'd2', side: 'BUY', price: 4000, size: 500 }), 0).status).toBe('live');
  });

  it('remembers a bounded number of past ids', () => {
    const e = new MatchingEngine(spec, { idMemory: 2 });
    for (const id of ['i1', 'i2', 'i3']) expect(e.place(ord({ orderId: id, side: 'BUY', price: 4000, size: 500 }), 0).ok).toBe(true);
    expect(e.place(ord({ orderId: 'i3', side: 'BUY', price: 4000, size: 500 }), 0).error).toBe('INVALID_ORDER_DUPLICATED');
    expect(e.place(ord({ orderId: 'i1', side: 'BUY', price: 4000, size: 500 }), 0).ok).toBe(true); // forgotten
  });

  it('uses a changed tick for later orders', () => {
    const e = engine();
    e.setTick(10);
    expect(e.place(ord({ side: 'BUY', price: 5010, size: 500 }), 0).status).toBe('live');
    expect(e.place(ord({ side: 'BUY', price: 5, size: 500 }), 0).error).toBe('INVALID_ORDER_MIN_TICK_SIZE');
  });
});

describe('MatchingEngine matching', () => {
  it('crosses at the maker price and reports both sides', () => {
    const e = engine();
    e.place(ord({ orderId: 'm', owner: 'mk', side: 'SELL', price: 5200, size: 1000 }), 1);
    const out = e.place(ord({ orderId: 't', owner: 'tk', side: 'BUY', price: 5500, size: 500 }), 2);
    expect(out.status).toBe('matched');
    expect(out.fills).toEqual([
      {
        tradeId: 'T1',
        makerOrderId: 'm',
        makerOwner: 'mk',
        makerTokenId: YES,
        makerSide: 'SELL',
        makerPrice: 5200,
        takerOrderId: 't',
        takerOwner: 'tk',
        takerTokenId: YES,
        takerSide: 'BUY',
        takerPrice: 5200,
        size: 500,
        timeMs: 2,
      },
    ]);
    expect(e.order('m')?.remaining).toBe(500);
    expect(e.levels(YES, 'SELL')).toEqual([{ price: 5200, size: 500 }]);
  });

  it('partially fills a taker, walks the book and rests the remainder', () => {
    const e = engine();
    e.place(ord({ orderId: 'a1', side: 'SELL', price: 5100, size: 500 }), 0);
    e.place(ord({ orderId: 'a2', side: 'SELL', price: 5200, size: 500 }), 0);
    e.place(ord({ orderId: 'a3', side: 'SELL', price: 5400, size: 500 }), 0);
    const out = e.place(ord({ orderId: 'b', side: 'BUY', price: 5300, size: 1500 }), 0);
    expect(out.status).toBe('live');
    expect(out.resting).toBe(500);
    expect(out.fills.map((f) => [f.makerOrderId, f.takerPrice, f.size])).toEqual([
      ['a1', 5100, 500],
      ['a2', 5200, 500],
    ]);
    expect(e.bestBid(YES)).toBe(5300);
    expect(e.bestAsk(YES)).toBe(5400);
  });

  it('keeps price-time priority inside a level', () => {
    const e = engine();
    e.place(ord({ orderId: 'first', side: 'BUY', price: 5000, size: 600 }), 1);
    e.place(ord({ orderId: 'better', side: 'BUY', price: 5100, size: 500 }), 2);
    e.place(ord({ orderId: 'second', side: 'BUY', price: 5000, size: 600 }), 3);
    const out = e.place(ord({ side: 'SELL', price: 5000, size: 1400, orderType: 'FAK' }), 4);
    expect(out.fills.map((f) => [f.makerOrderId, f.size])).toEqual([
      ['better', 500],
      ['first', 600],
      ['second', 300],
    ]);
    expect(e.order('second')?.remaining).toBe(300);
    expect(e.order('first')).toBeUndefined();
  });

  it('keeps time priority across the two token views of one level', () => {
    const e = engine();
    e.place(ord({ orderId: 'no-first', tokenId: NO, side: 'BUY', price: 4800, size: 500 }), 1);
    e.place(ord({ orderId: 'yes-second', side: 'SELL', price: 5200, size: 500 }), 2);
    e.place(ord({ orderId: 'no-third', tokenId: NO, side: 'BUY', price: 4800, size: 500 }), 3);
    expect(e.levels(YES, 'SELL')).toEqual([{ price: 5200, size: 1500 }]);
    const out = e.place(ord({ side: 'BUY', price: 5200, size: 1000, orderType: 'FAK' }), 4);
    expect(out.fills.map((f) => [f.makerOrderId, f.makerTokenId, f.makerPrice, f.takerPrice])).toEqual([
      ['no-first', NO, 4800, 5200],
      ['yes-second', YES, 5200, 5200],
    ]);
  });

  it('matches complements: BUY YES 0.52 against BUY NO 0.48', () => {
    const e = engine();
    e.place(ord({ orderId: 'no', tokenId: NO, side: 'BUY', price: 4800, size: 1000 }), 0);
    expect(e.levels(YES, 'SELL')).toEqual([{ price: 5200, size: 1000 }]);
    expect(e.levels(NO, 'BUY')).toEqual([{ price: 4800, size: 1000 }]);
    const out = e.place(ord({ orderId: 'yes', side: 'BUY', price: 5200, size: 1000 }), 0);
    expect(out.status).toBe('matched');
    expect(out.fills[0]).toMatchObject({ makerTokenId: NO, makerSide: 'BUY', makerPrice: 4800, takerTokenId: YES, takerPrice: 5200 });
  });

  it('matches BUYs whose prices sum above 1 at the maker price', () => {
    const e = engine();
    e.place(ord({ orderId: 'y', side: 'BUY', price: 5500, size: 500 }), 0);
    const out = e.place(ord({ orderId: 'n', tokenId: NO, side: 'BUY', price: 4700, size: 500 }), 0);
    // The maker bought YES at 0.55, so the NO taker pays 1 - 0.55.
    expect(out.fills[0]).toMatchObject({ makerPrice: 5500, takerTokenId: NO, takerPrice: 4500 });
  });

  it('does not match BUYs summing below 1 and shows both views', () => {
    const e = engine();
    e.place(ord({ side: 'BUY', price: 5100, size: 500 }), 0);
    const out = e.place(ord({ tokenId: NO, side: 'BUY', price: 4800, size: 700 }), 0);
    expect(out.status).toBe('live');
    expect(e.bestBid(YES)).toBe(5100);
    expect(e.bestAsk(YES)).toBe(5200);
    expect(e.bestBid(NO)).toBe(4800);
    expect(e.bestAsk(NO)).toBe(4900);
  });

  it('matches a SELL NO against a BUY NO on the same token view', () => {
    const e = engine();
    e.place(ord({ orderId: 'bn', tokenId: NO, side: 'BUY', price: 4000, size: 500 }), 0);
    const out = e.place(ord({ tokenId: NO, side: 'SELL', price: 3900, size: 500 }), 0);
    expect(out.fills[0]).toMatchObject({ makerOrderId: 'bn', takerPrice: 4000, takerSide: 'SELL', takerTokenId: NO });
  });

  const tif: Array<[string, MatchOrder['orderType'], number, object]> = [
    ['FOK fully fillable', 'FOK', 1100, { ok: true, status: 'matched', resting: 0 }],
    ['FOK not fillable', 'FOK', 1600, { ok: false, error: 'FOK_ORDER_NOT_FILLED_ERROR', fills: [] }],
    ['FAK partial', 'FAK', 1600, { ok: true, status: 'matched', resting: 0 }],
    ['GTC partial rests', 'GTC', 1600, { ok: true, status: 'live', resting: 500 }],
  ];
  it.each(tif)('%s', (_n, orderType, size, expected) => {
    const e = engine();
    e.place(ord({ orderId: 'a', side: 'SELL', price: 5000, size: 600 }), 0);
    e.place(ord({ orderId: 'b', side: 'SELL', price: 5100, size: 500 }), 0);
    e.place(ord({ orderId: 'c', side: 'SELL', price: 5300, size: 900 }), 0);
    const out = e.place(ord({ orderId: 'x', side: 'BUY', price: 5100, size, orderType }), 0);
    expect(out).toMatchObject(expected);
    const filled = out.fills.reduce((s, f) => s + f.size, 0);
    expect(filled).toBe(out.ok ? Math.min(size, 1100) : 0);
    if (!out.ok) expect(e.levels(YES, 'SELL')).toHaveLength(3);
    if (orderType !== 'GTC') expect(e.order('x')).toBeUndefined();
  });

  it('FAK with nothing to take is unmatched', () => {
    const e = engine();
    expect(e.place(ord({ side: 'BUY', price: 5000, size: 500, orderType: 'FAK' }), 0)).toMatchObject({ ok: true, status: 'unmatched', fills: [] });
  });

  it('rejects a crossing post-only order (also across the mirror) and rests a passive one', () => {
    const e = engine();
    e.place(ord({ side: 'SELL', price: 5200, size: 500 }), 0);
    expect(e.place(ord({ side: 'BUY', price: 5200, size: 500, postOnly: true }), 0).error).toBe('INVALID_POST_ONLY_ORDER');
    expect(e.place(ord({ tokenId: NO, side: 'SELL', price: 4800, size: 500, postOnly: true }), 0).error).toBe('INVALID_POST_ONLY_ORDER');
    expect(e.place(ord({ side: 'BUY', price: 5100, size: 500, postOnly: true }), 0).status).toBe('live');
  });
});

describe('MatchingEngine cancels and expiry', () => {
  it('cancels by id, by owner and all', () => {
    const e = engine();
    e.place(ord({ orderId: 'a', owner: 'alice', side: 'BUY', price: 5000, size: 500 }), 0);
    e.place(ord({ orderId: 'b', owner: 'alice', tokenId: NO, side: 'BUY', price: 4000, size: 500 }), 0);
    e.place(ord({ orderId: 'c', owner: 'bob', side: 'SELL', price: 5500, size: 500 }), 0);
    e.place(ord({ orderId: 'd', owner: 'bob', side: 'SELL', price: 5600, size: 500 }), 0);
    expect(e.cancel('a')?.orderId).toBe('a');
    expect(e.cancel('a')).toBeUndefined();
    expect(e.cancel('nope')).toBeUndefined();
    expect(e.cancelOwner('alice').map((o) => o.orderId)).toEqual(['b']);
    expect(e.ordersOf('alice')).toEqual([]);
    expect(e.ordersOf('bob').map((o) => o.orderId)).toEqual(['c', 'd']);
    expect(e.bestAsk(YES)).toBe(5500);
    e.place(ord({ orderId: 'e', owner: 'bob', side: 'SELL', price: 5500, size: 700 }), 0);
    // detached, serialisable copies (the book's nodes are linked both ways)
    expect(JSON.parse(JSON.stringify(e.ordersOf('bob')))).toHaveLength(3);
    expect(e.order('e')).toMatchObject({ orderId: 'e', remaining: 700, originalSize: 700 });
    expect(
      e
        .cancelAll()
        .map((o) => o.orderId)
        .sort(),
    ).toEqual(['c', 'd', 'e']);
    expect(e.bestAsk(YES)).toBe(10000);
    expect(e.bestBid(YES)).toBe(0);
  });

  it('expires GTD orders whose time has passed, not others', () => {
    const e = engine();
    e.place(ord({ orderId: 'g1', side: 'BUY', price: 5000, size: 500, orderType: 'GTD', expiresAtMs: 2000 }), 1000);
    e.place(ord({ orderId: 'g2', side: 'BUY', price: 5000, size: 500, orderType: 'GTD', expiresAtMs: 5000 }), 1000);
    e.place(ord({ orderId: 'c', side: 'BUY', price: 5000, size: 500 }), 1000);
    expect(e.expire(1999)).toEqual([]);
    expect(e.expire(2000).map((o) => o.orderId)).toEqual(['g1']);
    expect(e.levels(YES, 'BUY')).toEqual([{ price: 5000, size: 1000 }]);
    expect(e.expire(9000).map((o) => o.orderId)).toEqual(['g2']);
  });
});

/** A plain model book built only from drained changes. */
function applyChanges(model: Map<string, number>, changes: LevelChange[]): void {
  for (const c of changes) {
    const k = `${c.tokenId}|${c.side}|${c.price}`;
    if (c.size === 0) model.delete(k);
    else model.set(k, c.size);
  }
}
function modelLevels(model: Map<string, number>, token: string, side: 'BUY' | 'SELL'): Array<{ price: number; size: number }> {
  const out: Array<{ price: number; size: number }> = [];
  for (const [k, size] of model) {
    const [t, s, p] = k.split('|');
    if (t === token && s === side) out.push({ price: Number(p), size });
  }
  return out.sort((a, b) => (side === 'BUY' ? a.price - b.price : b.price - a.price));
}

describe('MatchingEngine drainChanges', () => {
  it('reproduces levels() of both tokens over a random run', () => {
    const e = engine();
    const rng = new SeededRng(7);
    const model = new Map<string, number>();
    const ids: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const r = rng.next();
      if (r < 0.25 && ids.length) {
        e.cancel(ids[rng.int(0, ids.length - 1)]);
      } else {
        const id = `r${i}`;
        ids.push(id);
        e.place(
          {
            orderId: id,
            owner: rng.next() < 0.5 ? 'a' : 'b',
            tokenId: rng.next() < 0.5 ? YES : NO,
            side: rng.next() < 0.5 ? 'BUY' : 'SELL',
            price: rng.int(40, 60) * 100,
            size: rng.int(5, 30) * 100,
            orderType: rng.next() < 0.1 ? 'FAK' : 'GTC',
            postOnly: false,
          },
          i,
        );
      }
      if (i % 7 === 0) applyChanges(model, e.drainChanges());
      // the book never stays crossed
      expect(e.bestBid(YES)).toBeLessThan(e.bestAsk(YES));
    }
    applyChanges(model, e.drainChanges());
    for (const t of [YES, NO]) {
      for (const s of ['BUY', 'SELL'] as const) expect(modelLevels(model, t, s)).toEqual(e.levels(t, s));
    }
    expect(e.drainChanges()).toEqual([]);
  });

  it('emits nothing for a level placed and cancelled between drains, and mirrors prices', () => {
    const e = engine();
    e.place(ord({ orderId: 'x', side: 'BUY', price: 5000, size: 500 }), 0);
    e.cancel('x');
    expect(e.drainChanges()).toEqual([]);
    e.place(ord({ side: 'BUY', price: 4500, size: 500 }), 0);
    expect(e.drainChanges()).toEqual([
      { tokenId: YES, side: 'BUY', price: 4500, size: 500 },
      { tokenId: NO, side: 'SELL', price: 5500, size: 500 },
    ]);
  });
});
