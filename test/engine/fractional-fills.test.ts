// Fills the venue reports in 6 decimals (real captures: "8.771927") are held on our 0.01-share grid
// rounded half up, so the position can count up to half a unit more than the wallet holds per
// fill; a SELL of every share held was then refused "not enough balance" again and again (review
// finding, against the official client, which rounds a SELL's size down). The fill keeps the
// venue's exact size (sizeMicros), the position the difference, and what may be sold leaves it out.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { UserEvent, UserTradeEvent } from '../../src/core/events.js';
import type { TrackedOrder } from '../../src/engine/orders.js';
import { createUserDecodeStats, decodeUserFrame } from '../../src/feed/decode-user.js';
import { Positions } from '../../src/engine/positions.js';
import { RecordingVenue, settle, books, deliver, makerTrade, Y, quotingEngine } from './helpers.js';

const FIX = new URL('../fixtures/polymarket/', import.meta.url);

/** polytrader's real maker trade with its maker's matched_amount set to `amount`. */
function realTrade(amount: string): UserTradeEvent {
  const raw = JSON.parse(
    readFileSync(new URL('polytrader/user_ws_messages.jsonl', FIX), 'utf8')
      .split('\n')
      .find((l) => l.includes('"maker_orders"')) as string,
  ) as Record<string, unknown> & { maker_orders: Array<Record<string, unknown>> };
  const out: UserEvent[] = [];
  decodeUserFrame(JSON.stringify({ ...raw, maker_orders: [{ ...raw.maker_orders[0], matched_amount: amount }] }), out, createUserDecodeStats());
  const t = out.find((e): e is UserTradeEvent => e.type === 'trade');
  if (!t) throw new Error('no trade decoded');
  return t;
}

describe('fills finer than 0.01 share', () => {
  it('keep the venue exact size beside the rounded one (none when 2 decimals say it all)', () => {
    expect(realTrade('8.771927').makerOrders[0]).toMatchObject({ matchedAmount: 877, matchedMicros: 8_771_927 });
    expect(realTrade('9.996').makerOrders[0]).toMatchObject({ matchedAmount: 1000, matchedMicros: 9_996_000 });
    expect(realTrade('9.990').makerOrders[0].matchedMicros).toBeUndefined();
    expect(realTrade('12.5').makerOrders[0].matchedMicros).toBeUndefined();
  });

  it('the position counts what the rounding added, and takes it back with a reversal', () => {
    const p = new Positions();
    const fill = { tokenId: Y, side: 'BUY' as const, price: 5000, size: 1000, fee: 0, sizeMicros: 9_996_000 };
    p.applyFill(fill, 'a', true);
    expect(p.qty(Y)).toBe(1000);
    expect(p.overstated(Y)).toBe(1);
    // rounded down the other way: the two net out
    p.applyFill({ ...fill, size: 500, sizeMicros: 5_004_000 }, 'b', true);
    expect(p.overstated(Y)).toBe(0);
    p.reverseFill({ ...fill, size: 500, sizeMicros: 5_004_000 }, 'b');
    expect(p.overstated(Y)).toBe(1);
    p.reverseFill(fill, 'a');
    expect(p.overstated(Y)).toBe(0);
  });

  it('a SELL of every share held is not offered beyond what the venue holds for us', async () => {
    const { clock, venue, engine, mirror } = await quotingEngine((now) => new RecordingVenue(now));
    const open = () => [...engine.orders.open()].map((o) => `${o.tokenId === Y ? 'Y' : 'N'} ${o.side} ${o.price}`).sort();
    const bid = [...engine.orders.open()].find((o) => o.tokenId === Y && o.side === 'BUY') as TrackedOrder;
    // the 10-share bid filled whole by the venue's count: 9.996 shares, 10.00 on our grid
    const t = makerTrade('t1', bid.orderId as string, 'BUY', 'MINED', 0, { price: bid.price, size: 1000 });
    t.makerOrders[0].matchedMicros = 9_996_000;
    engine.handleUserEvent(t);
    clock.advanceTo(clock.now() + 100);
    deliver(mirror, engine, books(4900, 5100, clock.now()));
    await settle(10);
    expect(engine.positions.qty(Y)).toBe(1000);
    // 9.99 may be sold, not the 10-share ask: it stays the BUY of NO
    expect(open()).toEqual(['N BUY 4800', 'Y BUY 4800']);
    expect(venue.calls.flatMap((c) => c.reqs ?? []).filter((r) => r.tokenId === Y && r.side === 'SELL')).toEqual([]);
    await engine.stop();
  });

  it('a piece rounded to nothing (0.003) still counts: pieces of 5.002, 0.003 and 4.995 are the 10 shares the wallet holds, none overstated', async () => {
    const { engine } = await quotingEngine((now) => new RecordingVenue(now));
    const bid = [...engine.orders.open()].find((o) => o.tokenId === Y && o.side === 'BUY') as TrackedOrder;
    const pieces: Array<[string, number, number]> = [
      ['p0', 500, 5_002_000],
      ['p1', 0, 3_000],
      ['p2', 500, 4_995_000],
    ];
    for (const [id, size, micros] of pieces) {
      const t = makerTrade(id, bid.orderId as string, 'BUY', 'MINED', 0, { price: bid.price, size });
      t.makerOrders[0].matchedMicros = micros;
      engine.handleUserEvent(t);
    }
    expect(engine.positions.qty(Y)).toBe(1000);
    expect(engine.orders.byVenueId(bid.orderId as string)?.filled).toBe(1000);
    expect(engine.positions.overstated(Y)).toBe(0);
    await engine.stop();
  });

  it('a piece rounded to nothing seen twice counts once', async () => {
    const { engine } = await quotingEngine((now) => new RecordingVenue(now));
    const bid = [...engine.orders.open()].find((o) => o.tokenId === Y && o.side === 'BUY') as TrackedOrder;
    const piece = (id: string, size: number, micros: number): UserTradeEvent => {
      const t = makerTrade(id, bid.orderId as string, 'BUY', 'MINED', 0, { price: bid.price, size });
      t.makerOrders[0].matchedMicros = micros;
      return t;
    };
    // 4.995 counted as 5.00 (+0.005), 0.003 as nothing (-0.003): 0.002 overstated, one unit
    engine.handleUserEvent(piece('q0', 500, 4_995_000));
    engine.handleUserEvent(piece('q1', 0, 3_000));
    engine.handleUserEvent(piece('q1', 0, 3_000));
    expect(engine.positions.overstated(Y)).toBe(1);
    await engine.stop();
  });
});
