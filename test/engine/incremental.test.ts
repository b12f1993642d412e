// Issue 14, item 2: what the engine keeps incrementally (the open orders per token, the open
// notional, the risk gate's per-token sums, the running PnL of the loss check) against a
// brute-force recomputation, over seeded random sequences of bounded length.
import { describe, expect, it } from 'vitest';
import { OrderTracker, TERMINAL, type TrackedOrder } from '../../src/engine/orders.js';
import { Positions } from '../../src/engine/positions.js';
import { riskInputs } from '../../src/engine/risk-inputs.js';
import { SeededRng } from '../../src/core/rng.js';
import { VirtualClock } from '../../src/core/clock.js';
import type { BookEvent, MarketEvent, Side, UserTradeEvent } from '../../src/core/events.js';
import type { MarketMeta } from '../../src/engine/strategy.js';
import { lv, RecordingVenue, settle, deliver, bandsEngine } from './helpers.js';

const TOKENS = ['a', 'b', 'c', 'd'];
const pick = <T>(r: SeededRng, xs: readonly T[]): T | undefined => (xs.length ? xs[r.int(0, xs.length - 1)] : undefined);

/** The risk inputs as they were computed before the index: a walk of every open order. */
function bruteOpenBuy(tr: OrderTracker, t: string): number {
  let s = 0;
  for (const o of tr.open()) if (o.tokenId === t && o.side === 'BUY') s += o.size - o.filled + (o.unseen ?? 0);
  return s;
}
function bruteOpenSell(tr: OrderTracker, t: string, cancelling: readonly TrackedOrder[], leavingToo = false): number {
  let s = 0;
  for (const o of tr.open()) {
    if (o.tokenId !== t || o.side !== 'SELL') continue;
    const leaving = !leavingToo && (o.state === 'pending_cancel' || (o.orderId !== undefined && cancelling.length > 0 && cancelling.includes(o)));
    // a leaving SELL's unseen size is sold, not promised: it counts still
    s += (leaving ? 0 : o.size - o.filled) + (o.unseen ?? 0);
  }
  return s;
}

function checkTracker(tr: OrderTracker, r: SeededRng): void {
  const open = [...tr.open()];
  let notional = 0;
  for (const o of open) notional += o.price * (o.size - o.filled);
  expect(tr.openNotional()).toBe(notional);
  expect(open.every((o) => !TERMINAL.has(o.state))).toBe(true);
  for (const t of TOKENS) expect([...(tr.openOf(t) ?? [])]).toEqual(open.filter((o) => o.tokenId === t));
  const out: TrackedOrder[] = [];
  for (let i = 0; i < 3; i++) {
    const a = pick(r, TOKENS) as string;
    const b = pick(r, TOKENS) as string;
    expect(tr.openOfPair(a, b, out)).toEqual(open.filter((o) => o.tokenId === a || o.tokenId === b));
  }
  // the risk gate's inputs, with a random set of orders being cancelled and places queued elsewhere
  const inputs = riskInputs(
    tr,
    new Positions(),
    () => NaN,
    () => 0,
  );
  inputs.queued.orders = r.int(0, 3);
  inputs.queued.notional = r.int(0, 3) * 1_000_000;
  inputs.cancelling = open.filter(() => r.next() < 0.3);
  expect(inputs.openNotional()).toBe(notional + inputs.queued.notional);
  expect(inputs.openOrders()).toBe(open.length + inputs.queued.orders);
  for (const t of TOKENS) {
    expect(inputs.openBuy(t)).toBe(bruteOpenBuy(tr, t));
    expect(inputs.openSell(t)).toBe(bruteOpenSell(tr, t, inputs.cancelling));
    expect(inputs.openSellAll(t)).toBe(bruteOpenSell(tr, t, inputs.cancelling, true));
  }
}

describe('OrderTracker index and running notional', () => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    it(`match a walk of every open order after each of 400 random changes (seed ${seed})`, () => {
      const r = new SeededRng(seed);
      const tr = new OrderTracker('t');
      let now = 0;
      let venueSeq = 0;
      const all: TrackedOrder[] = [];
      const where = (f: (o: TrackedOrder) => boolean) => all.filter(f);
      for (let step = 0; step < 400; step++) {
        now += r.int(0, 50);
        const op = r.int(0, 12);
        if (op <= 2 || all.length === 0) {
          const side: Side = r.next() < 0.5 ? 'BUY' : 'SELL';
          all.push(tr.create({ clientId: tr.nextClientId(now), tokenId: pick(r, TOKENS) as string, market: 'm', side, price: r.int(1, 99) * 100, size: r.int(1, 50) * 100, createdMs: now }));
        } else if (op === 3) {
          const o = pick(
            r,
            where((x) => x.state === 'pending_new' || x.state === 'ambiguous'),
          );
          if (o) {
            const k = r.int(0, 4);
            if (k === 0) tr.placeResult({ clientId: o.clientId, ok: false, error: 'UNKNOWN' }, now);
            else tr.placeResult({ clientId: o.clientId, ok: true, orderId: `v${venueSeq++}`, status: k === 1 ? 'matched' : k === 2 ? 'unmatched' : 'live' }, now);
          }
        } else if (op === 4) {
          const o = pick(
            r,
            where((x) => x.orderId !== undefined),
          );
          if (o) tr.applyFill(o.orderId as string, r.int(1, 30) * 100, now);
        } else if (op === 5) {
          const o = pick(
            r,
            where((x) => x.orderId !== undefined && x.filled > 0),
          );
          if (o) tr.reverseFill(o.orderId as string, r.int(1, 30) * 100, now);
        } else if (op === 6) {
          const o = pick(
            r,
            where((x) => !TERMINAL.has(x.state)),
          );
          if (o) tr.cancelSent(o, now);
        } else if (op === 7) {
          const o = pick(
            r,
            where((x) => x.orderId !== undefined),
          );
          if (o) tr.canceled(o.orderId as string, now);
        } else if (op === 8) {
          const o = pick(
            r,
            where((x) => x.state === 'pending_cancel'),
          );
          if (o) tr.cancelRefused(o.orderId as string, 'no', now, r.next() < 0.5);
        } else if (op === 9) {
          const o = pick(
            r,
            where((x) => TERMINAL.has(x.state)),
          );
          if (o) {
            tr.reopen(o, now);
            tr.matchedAtLeast(o, r.int(0, 20) * 100, now);
          }
        } else if (op === 10) {
          const o = pick(
            r,
            where((x) => x.state === 'pending_new'),
          );
          if (o) tr.ambiguous(o.clientId, now);
        } else if (op === 11) {
          const o = pick(
            r,
            where((x) => !TERMINAL.has(x.state)),
          );
          if (o) tr.settleMissing(o, now);
        } else {
          // an order restored from the store, in whatever state it was left
          const o: TrackedOrder = {
            clientId: `r${step}`,
            orderId: r.next() < 0.7 ? `v${venueSeq++}` : undefined,
            tokenId: pick(r, TOKENS) as string,
            market: 'm',
            side: r.next() < 0.5 ? 'BUY' : 'SELL',
            price: r.int(1, 99) * 100,
            size: 1000,
            filled: r.int(0, 5) * 100,
            state: pick(r, ['live', 'partially_filled', 'pending_cancel', 'ambiguous', 'canceled'] as const) as TrackedOrder['state'],
            createdMs: now,
            updatedMs: now,
          };
          tr.restore(o);
          all.push(o);
        }
        if (step % 50 === 49) tr.prune(now - 200);
        checkTracker(tr, r);
      }
    });
  }
});

describe('Positions running PnL', () => {
  for (const seed of [11, 12, 13, 14, 15]) {
    it(`equals pnl(mark) when only moved tokens are revalued (seed ${seed})`, () => {
      const r = new SeededRng(seed);
      const pos = new Positions();
      const marks = new Map<string, number>();
      const mark = (t: string) => marks.get(t) ?? NaN;
      const moved = new Set<string>();
      // a token once marked keeps its last mark when it has none (not its cost)
      const everMarked = new Set<string>();
      pos.onApply = (t) => moved.add(t);
      const fills: Array<[string, Side, number, number, number]> = [];
      for (let step = 0; step < 500; step++) {
        const op = r.int(0, 5);
        const t = pick(r, TOKENS) as string;
        if (op <= 1) {
          const f: [string, Side, number, number, number] = [t, r.next() < 0.5 ? 'BUY' : 'SELL', r.int(1, 99) * 100, r.int(1, 200) * 100, r.int(0, 3000)];
          fills.push(f);
          pos.apply(...f);
        } else if (op === 2 && fills.length) {
          // a FAILED trade reverses an earlier fill
          const f = fills.splice(r.int(0, fills.length - 1), 1)[0];
          pos.apply(f[0], f[1], f[2], f[3], f[4], -1);
        } else if (op <= 4) {
          // a new mark: a mid (halves included) or none
          const k = r.int(0, 9);
          marks.set(t, k === 0 ? NaN : r.int(1, 19_999) / 2);
          moved.add(t);
        } else if (r.next() < 0.1) {
          pos.revalueAll(mark);
          for (const [tok, p] of pos.entries()) if (p.qty !== 0 && !Number.isNaN(mark(tok))) everMarked.add(tok);
          moved.clear();
        }
        for (const m of moved) {
          pos.revalue(m, mark(m));
          if (pos.has(m) && !Number.isNaN(mark(m))) everMarked.add(m);
        }
        moved.clear();
        // a flat token forgotten (its market left): the sums do not move; a held one is kept
        if (r.next() < 0.05) {
          const flat = pos.has(t) && pos.qty(t) === 0;
          expect(pos.forget(t)).toBe(flat);
          if (flat) {
            expect(pos.has(t)).toBe(false);
            everMarked.delete(t);
          }
        }
        expect(pos.runningPnl()).toBe(pos.pnl(mark));
        // the holdings valued at cost (no mark, never one), counted as they are revalued
        expect(pos.heldAtCost()).toBe([...pos.entries()].filter(([tok, p]) => p.qty !== 0 && Number.isNaN(mark(tok)) && !everMarked.has(tok)).length);
      }
    });
  }
});

describe('Positions.forget', () => {
  it('keeps a flat token while a fill of it may still fail (its reversal needs the basis), forgets it once settled', () => {
    const pos = new Positions();
    pos.applyFill({ tokenId: 'T', side: 'BUY', price: 5000, size: 1000, fee: 0 }, 'k1', true);
    pos.applyFill({ tokenId: 'T', side: 'SELL', price: 5200, size: 1000, fee: 0 }, 'k2', false);
    expect(pos.qty('T')).toBe(0);
    expect(pos.forget('T')).toBe(false);
    pos.settleFill('T', 'k1');
    const cash = pos.cash;
    expect(pos.forget('T')).toBe(true);
    expect(pos.has('T')).toBe(false);
    expect(pos.cash).toBe(cash);
    expect(pos.runningPnl()).toBe(5200 * 1000 - 5000 * 1000);
  });
});

describe('Engine running PnL', () => {
  const markets: MarketMeta[] = [0, 1, 2].map((i) => ({ conditionId: `0xm${i}`, tokenId: `y${i}`, complementId: `n${i}`, tick: 100, minSize: 500, negRisk: false }));
  const bookEv = (m: MarketMeta, asset: string, bid: number, ask: number, t: number): BookEvent => ({
    type: 'book',
    market: m.conditionId,
    assetId: asset,
    timestampMs: t,
    timestampStr: String(t),
    hash: '',
    bids: [lv(bid - 100, 5000), lv(bid, 5000)],
    asks: [lv(ask + 100, 5000), lv(ask, 5000)],
    tickSize: 100,
    tickSizeStr: '0.01',
  });
  const both = (m: MarketMeta, bid: number, ask: number, t: number): BookEvent[] => [bookEv(m, m.tokenId, bid, ask, t), bookEv(m, m.complementId, 10_000 - ask, 10_000 - bid, t)];

  for (const own of [false, true]) {
    for (const seed of [21, 22, 23]) {
      it(`equals the full re-mark (pnlMicros) after every book change, fill and reconnect (seed ${seed}${own ? ", venue's books show our orders" : ''})`, async () => {
        const r = new SeededRng(seed);
        const clock = new VirtualClock(1_700_000_000_000);
        const venue = new RecordingVenue(() => clock.now());
        venue.booksIncludeOwnOrders = own;
        const { engine, mirror } = await bandsEngine({
          clock,
          venue,
          // quotes as large as a level: where the venue's books show them, taking them out moves the mid
          params: { bands: [{ distance: 0.01, size: 50 }] },
          recordLimiterUse: false,
          risk: { dailyLossLimit: 1e9 },
          markets,
          timerMs: 1e12,
        });
        const events: MarketEvent[] = [];
        for (const m of markets) events.push(...both(m, 4900, 5100, clock.now()));
        deliver(mirror, engine, events);
        engine.start();
        await settle(10);
        let trade = 0;
        let fills = 0;
        try {
          for (let step = 0; step < 150; step++) {
            clock.advanceTo(clock.now() + r.int(1, 200));
            const m = pick(r, markets) as MarketMeta;
            const op = r.int(0, 11);
            if (op === 10) {
              // one level of one token moves (a delta frame)
              const t = r.next() < 0.5 ? m.tokenId : m.complementId;
              const side: Side = r.next() < 0.5 ? 'BUY' : 'SELL';
              const book = mirror.book(t);
              const best = book ? (side === 'BUY' ? book.bestBid() : book.bestAsk()) : -1;
              const price = best > 0 ? best + (side === 'BUY' ? 1 : -1) * r.int(-1, 1) * 100 : 5000;
              const size = r.int(0, 3) * 2500;
              const ev: MarketEvent = {
                type: 'price_change',
                market: m.conditionId,
                timestampMs: clock.now(),
                timestampStr: String(clock.now()),
                changes: [{ assetId: t, side, price, size, priceStr: String(price / 10_000), sizeStr: String(size / 100) }],
                format: 'current',
              };
              deliver(mirror, engine, [ev]);
            } else if (op === 11) {
              // a position moved outside the user channel (startup recovery applies stored fills)
              engine.positions.apply(r.next() < 0.5 ? m.tokenId : m.complementId, 'BUY', r.int(30, 70) * 100, r.int(1, 5) * 100, 0);
            } else if (op <= 4) {
              const bid = r.int(20, 75) * 100;
              deliver(mirror, engine, r.next() < 0.5 ? both(m, bid, bid + r.int(1, 4) * 100, clock.now()) : [bookEv(m, r.next() < 0.5 ? m.tokenId : m.complementId, bid, bid + 200, clock.now())]);
            } else if (op <= 8) {
              // a maker fill of one of our resting orders (any market)
              const o = pick(
                r,
                [...engine.orders.open()].filter((x) => x.orderId && (x.state === 'live' || x.state === 'partially_filled')),
              );
              if (o) {
                const size = Math.min(o.size - o.filled, r.int(1, 10) * 100);
                const e: UserTradeEvent = {
                  type: 'trade',
                  tradeId: `t${trade++}`,
                  takerOrderId: 'someone',
                  market: o.market,
                  assetId: o.tokenId,
                  side: o.side === 'BUY' ? 'SELL' : 'BUY',
                  price: o.price,
                  size,
                  feeRateBps: 0,
                  status: 'MATCHED',
                  traderSide: 'MAKER',
                  outcome: 'Yes',
                  owner: 'k',
                  makerOrders: [{ orderId: o.orderId as string, assetId: o.tokenId, price: o.price, matchedAmount: size, feeRateBps: 0, outcome: 'Yes', side: o.side, owner: 'k' }],
                  matchTimeMs: clock.now(),
                  timestampMs: clock.now(),
                };
                venue.emit(e);
                fills++;
              }
            } else {
              // a reconnect drops every book where no market event says so (the mirror's listener)
              mirror.markAllOutOfSync('reconnect', false);
            }
            await settle(10);
            expect(engine.runningPnlMicros()).toBe(engine.pnlMicros());
          }
        } finally {
          await engine.stop();
        }
        expect(fills).toBeGreaterThan(10);
        expect(engine.risk.halted).toBeUndefined();
      });
    }
  }
});
