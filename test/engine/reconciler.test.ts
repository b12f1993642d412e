import { describe, it, expect } from 'vitest';
import { Reconciler } from '../../src/engine/reconciler.js';
import { OrderTracker, type TrackedOrder } from '../../src/engine/orders.js';
import type { Quote } from '../../src/engine/strategy.js';

const T = 'tokA';
const tick = () => 100;

function liveOrder(tr: OrderTracker, side: 'BUY' | 'SELL', price: number, size: number, id: string): TrackedOrder {
  const o = tr.create({ clientId: tr.nextClientId(0), tokenId: T, market: 'm', side, price, size, createdMs: 0 });
  tr.placeResult({ clientId: o.clientId, ok: true, orderId: id, status: 'live' }, 0);
  return o;
}
const q = (side: 'BUY' | 'SELL', price: number, size: number): Quote => ({ tokenId: T, side, price, size });

describe('reconciler', () => {
  const cfg = { priceToleranceTicks: 0, sizeTolerance: 0.25, maxOrdersPerSide: 3 };

  it('keeps orders that match the wanted quotes in place (no cancel, no place)', () => {
    const tr = new OrderTracker();
    liveOrder(tr, 'BUY', 4900, 1000, 'a');
    liveOrder(tr, 'SELL', 5100, 1000, 'b');
    const r = new Reconciler(cfg).reconcile([q('BUY', 4900, 1000), q('SELL', 5100, 1000)], tr.open(), tick);
    expect(r.cancels).toEqual([]);
    expect(r.places).toEqual([]);
    expect(r.kept).toBe(2);
  });

  it('keeps an order within the size tolerance and within the price tolerance', () => {
    const tr = new OrderTracker();
    liveOrder(tr, 'BUY', 4900, 1000, 'a');
    // 20% smaller wanted size: within 25% -> kept
    let r = new Reconciler(cfg).reconcile([q('BUY', 4900, 1200)], tr.open(), tick);
    expect(r.cancels.length + r.places.length).toBe(0);
    // one tick away with 1 tick tolerance -> kept; with 0 -> replaced
    r = new Reconciler({ ...cfg, priceToleranceTicks: 1 }).reconcile([q('BUY', 4800, 1000)], tr.open(), tick);
    expect(r.cancels.length + r.places.length).toBe(0);
    r = new Reconciler(cfg).reconcile([q('BUY', 4800, 1000)], tr.open(), tick);
    expect(r.cancels.map((o) => o.orderId)).toEqual(['a']);
    expect(r.places).toEqual([q('BUY', 4800, 1000)]);
  });

  it('keeps a partially filled order whose remaining size is within tolerance', () => {
    const tr = new OrderTracker();
    liveOrder(tr, 'BUY', 4900, 1000, 'a');
    tr.applyFill('a', 100, 1);
    const r = new Reconciler(cfg).reconcile([q('BUY', 4900, 1000)], tr.open(), tick);
    expect(r.kept).toBe(1);
    expect(r.cancels).toEqual([]);
    tr.applyFill('a', 500, 2); // 400 left vs 1000 wanted: outside 25%
    const r2 = new Reconciler(cfg).reconcile([q('BUY', 4900, 1000)], tr.open(), tick);
    expect(r2.cancels.map((o) => o.orderId)).toEqual(['a']);
    // the new order at the same price waits until the old one is gone
    expect(r2.places).toEqual([]);
    tr.cancelSent(tr.byVenueId('a')!, 3);
    expect(new Reconciler(cfg).reconcile([q('BUY', 4900, 1000)], tr.open(), tick).places).toEqual([]);
    tr.canceled('a', 4);
    expect(new Reconciler(cfg).reconcile([q('BUY', 4900, 1000)], tr.open(), tick).places).toEqual([q('BUY', 4900, 1000)]);
  });

  it('moving one band only replaces that band', () => {
    const tr = new OrderTracker();
    liveOrder(tr, 'BUY', 4900, 1000, 'a');
    liveOrder(tr, 'BUY', 4800, 1000, 'b');
    liveOrder(tr, 'BUY', 4700, 1000, 'c');
    const r = new Reconciler(cfg).reconcile([q('BUY', 4900, 1000), q('BUY', 4800, 1000), q('BUY', 4600, 1000)], tr.open(), tick);
    expect(r.cancels.map((o) => o.orderId)).toEqual(['c']);
    expect(r.places).toEqual([q('BUY', 4600, 1000)]);
  });

  it('an exact match is never stolen by a tolerance match', () => {
    const tr = new OrderTracker();
    liveOrder(tr, 'BUY', 4900, 1000, 'a');
    const r = new Reconciler({ ...cfg, priceToleranceTicks: 1 }).reconcile([q('BUY', 5000, 1000), q('BUY', 4900, 1000)], tr.open(), tick);
    expect(r.cancels).toEqual([]);
    expect(r.places).toEqual([q('BUY', 5000, 1000)]);
  });

  it('skips orders in flight and counts them toward the per-side cap', () => {
    const tr = new OrderTracker();
    tr.create({ clientId: 'x1', tokenId: T, market: 'm', side: 'BUY', price: 4000, size: 1000, createdMs: 0 });
    tr.create({ clientId: 'x2', tokenId: T, market: 'm', side: 'BUY', price: 4100, size: 1000, createdMs: 0 });
    tr.ambiguous('x2', 0);
    const r = new Reconciler(cfg).reconcile([q('BUY', 4900, 1000), q('BUY', 4800, 1000), q('BUY', 4700, 1000)], tr.open(), tick);
    expect(r.cancels).toEqual([]); // in-flight orders are not cancelled
    expect(r.places).toEqual([q('BUY', 4900, 1000)]); // 3 - 2 in flight = 1 slot, best price first
  });

  it('an order in flight at the wanted price and size satisfies the want: no second order, no cancel', () => {
    const tr = new OrderTracker();
    tr.create({ clientId: 'x1', tokenId: T, market: 'm', side: 'BUY', price: 4900, size: 1000, createdMs: 0 });
    const r = new Reconciler(cfg).reconcile([q('BUY', 4900, 1000)], tr.open(), tick);
    expect(r.places).toEqual([]);
    expect(r.cancels).toEqual([]);
    expect(r.kept).toBe(1);
    // within the size tolerance, like a working order
    const r2 = new Reconciler(cfg).reconcile([q('BUY', 4900, 1100)], tr.open(), tick);
    expect(r2.places).toEqual([]);
  });

  it('an ambiguous order counts as possibly live: it satisfies its want and takes a slot', () => {
    const tr = new OrderTracker();
    tr.create({ clientId: 'x1', tokenId: T, market: 'm', side: 'BUY', price: 4900, size: 1000, createdMs: 0 });
    tr.ambiguous('x1', 0);
    const r = new Reconciler({ ...cfg, maxOrdersPerSide: 2 }).reconcile([q('BUY', 4900, 1000), q('BUY', 4800, 1000), q('BUY', 4700, 1000)], tr.open(), tick);
    expect(r.places).toEqual([q('BUY', 4800, 1000)]);
    expect(r.cancels).toEqual([]);
  });

  it('a working order is kept in preference to an in-flight one at the same price', () => {
    const tr = new OrderTracker();
    liveOrder(tr, 'BUY', 4900, 1000, 'a');
    tr.create({ clientId: 'x1', tokenId: T, market: 'm', side: 'BUY', price: 4900, size: 1000, createdMs: 0 });
    const r = new Reconciler(cfg).reconcile([q('BUY', 4900, 1000)], tr.open(), tick);
    expect(r.cancels).toEqual([]); // the live one keeps its queue place; the in-flight one is cancelled once it has an id
    expect(r.places).toEqual([]);
    expect(r.kept).toBe(1);
  });

  it('an in-flight order that matches nothing is left alone but holds its slot until it can be cancelled', () => {
    const tr = new OrderTracker();
    const x = tr.create({ clientId: 'x1', tokenId: T, market: 'm', side: 'BUY', price: 4500, size: 1000, createdMs: 0 });
    const rc = new Reconciler({ ...cfg, maxOrdersPerSide: 1 });
    let r = rc.reconcile([q('BUY', 4900, 1000)], tr.open(), tick);
    expect(r.cancels).toEqual([]);
    expect(r.places).toEqual([]);
    tr.placeResult({ clientId: x.clientId, ok: true, orderId: 'x', status: 'live' }, 1);
    r = rc.reconcile([q('BUY', 4900, 1000)], tr.open(), tick);
    expect(r.cancels.map((o) => o.orderId)).toEqual(['x']);
    expect(r.places).toEqual([q('BUY', 4900, 1000)]);
  });

  it('a pending cancel is not sent again and does not hold a slot; its own price waits for the cancel', () => {
    const tr = new OrderTracker();
    const a = liveOrder(tr, 'BUY', 4800, 1000, 'a');
    tr.cancelSent(a, 1);
    const rc = new Reconciler({ ...cfg, maxOrdersPerSide: 1 });
    // the replacement at another price goes out at once
    let r = rc.reconcile([q('BUY', 4900, 1000)], tr.open(), tick);
    expect(r.cancels).toEqual([]);
    expect(r.places).toEqual([q('BUY', 4900, 1000)]);
    // wanting the cancelled price back: not placed while the old order may still rest there
    r = rc.reconcile([q('BUY', 4800, 1000)], tr.open(), tick);
    expect(r.cancels).toEqual([]);
    expect(r.places).toEqual([]);
    tr.canceled('a', 2);
    r = rc.reconcile([q('BUY', 4800, 1000)], tr.open(), tick);
    expect(r.places).toEqual([q('BUY', 4800, 1000)]);
  });

  it('a cancel that failed puts the order back: it is matched (or cancelled) again', () => {
    const tr = new OrderTracker();
    const a = liveOrder(tr, 'BUY', 4800, 1000, 'a');
    tr.cancelSent(a, 1);
    tr.cancelRefused('a', 'timeout', 2);
    const r = new Reconciler(cfg).reconcile([q('BUY', 4800, 1000)], tr.open(), tick);
    expect(r.cancels).toEqual([]);
    expect(r.places).toEqual([]);
  });

  it('wanted quotes at one price become one order with the sizes added', () => {
    const tr = new OrderTracker();
    const r = new Reconciler(cfg).reconcile([q('BUY', 4900, 1000), q('BUY', 4800, 500), q('BUY', 4900, 700)], tr.open(), tick);
    expect(r.places).toEqual([q('BUY', 4900, 1700), q('BUY', 4800, 500)]);
  });

  it('never wants more than maxOrdersPerSide per side', () => {
    const tr = new OrderTracker();
    const wanted = [5, 4, 3, 2, 1].map((i) => q('BUY', 4000 + i * 100, 1000));
    const r = new Reconciler(cfg).reconcile(wanted, tr.open(), tick);
    expect(r.places.map((x) => x.price)).toEqual([4500, 4400, 4300]);
  });

  it('cancels everything when nothing is wanted, and leaves pending cancels alone', () => {
    const tr = new OrderTracker();
    liveOrder(tr, 'BUY', 4900, 1000, 'a');
    const b = liveOrder(tr, 'SELL', 5100, 1000, 'b');
    tr.cancelSent(b, 1);
    const r = new Reconciler(cfg).reconcile([], tr.open(), tick);
    expect(r.cancels.map((o) => o.orderId)).toEqual(['a']);
  });

  it('reconciles each token separately', () => {
    const tr = new OrderTracker();
    liveOrder(tr, 'BUY', 4900, 1000, 'a');
    const r = new Reconciler(cfg).reconcile([q('BUY', 4900, 1000), { tokenId: 'tokB', side: 'BUY', price: 4900, size: 1000 }], tr.open(), tick);
    expect(r.cancels).toEqual([]);
    expect(r.places).toEqual([{ tokenId: 'tokB', side: 'BUY', price: 4900, size: 1000 }]);
  });
  it('one reconciler reused across calls keeps nothing from an earlier call (its side groups are pooled)', () => {
    const rec = new Reconciler(cfg);
    const tr = new OrderTracker();
    liveOrder(tr, 'BUY', 4900, 1000, 'a');
    const tokB = (side: 'BUY' | 'SELL', price: number): Quote => ({ tokenId: 'tokB', side, price, size: 1000 });
    // First call: four groups (two tokens, two sides), the BUY at 4900 is kept.
    let r = rec.reconcile([q('BUY', 4900, 1000), q('SELL', 5100, 1000), tokB('BUY', 4800), tokB('SELL', 5200)], tr.open(), tick);
    expect(r.kept).toBe(1);
    expect(r.places.map((x) => [x.tokenId, x.side, x.price])).toEqual([
      [T, 'SELL', 5100],
      ['tokB', 'BUY', 4800],
      ['tokB', 'SELL', 5200],
    ]);
    // Second call: tokB first now, and the token A side is not wanted: the old wants are gone,
    // the order on token A is cancelled, tokB's groups come first.
    r = rec.reconcile([tokB('SELL', 5300)], tr.open(), tick);
    expect(r.kept).toBe(0);
    expect(r.places).toEqual([tokB('SELL', 5300)]);
    expect(r.cancels.map((o) => o.orderId)).toEqual(['a']);
    // Third call: nothing wanted, no orders: nothing to do.
    r = rec.reconcile([], [], tick);
    expect(r).toEqual({ cancels: [], places: [], kept: 0, cut: 0, cutFrom: 0 });
  });
});
