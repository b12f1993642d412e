// The fill checks against real trades (not our emulator's): every trade of the real user-channel
// captures decodes, and each maker entry, taken as an order of ours with its own terms, is a fill
// the checks accept. polytrader's capture carries a complement maker's price computed in floating
// point ("0.4300000444600143") and a 6-decimal size ("8.771927").
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createUserDecodeStats, decodeUserFrame } from '../../src/feed/decode-user.js';
import type { UserEvent, UserTradeEvent } from '../../src/core/events.js';
import { OrderTracker } from '../../src/engine/orders.js';
import { FillLedger, type Fill } from '../../src/engine/fills.js';

const FIX = new URL('../fixtures/polymarket/', import.meta.url);
const FILES = [
  'polytrader/user_ws_messages.jsonl',
  'nautilus_trader/python_resources/ws_messages/user_trade1.json',
  'nautilus_trader/python_resources/ws_messages/user_trade2.json',
  'nautilus_trader/python_resources/ws_messages/user_trade3.json',
  'nautilus_trader/python_resources/ws_messages/user_trade4.json',
];

function trades(file: string): { trades: UserTradeEvent[]; rejected: number } {
  const text = readFileSync(new URL(file, FIX), 'utf8');
  const frames = file.endsWith('.jsonl') ? text.split('\n').filter(Boolean) : [text];
  const out: UserEvent[] = [];
  const st = createUserDecodeStats();
  for (const f of frames) decodeUserFrame(f, out, st);
  return { trades: out.filter((e): e is UserTradeEvent => e.type === 'trade'), rejected: st.rejected() };
}

/**
 * polytrader's real maker trade as a 10-share order of ours (its maker entry's terms), a ledger on
 * it, and `piece(amount, id)`: the trade again with the maker's matched_amount set, through the
 * user channel's decoder into the ledger.
 */
function pieceRig() {
  const [t] = trades(FILES[0]).trades;
  const m = t.makerOrders[0];
  const raw = JSON.parse(
    readFileSync(new URL(FILES[0], FIX), 'utf8')
      .split('\n')
      .find((l) => l.includes('"maker_orders"')) as string,
  ) as Record<string, unknown> & { maker_orders: Array<Record<string, unknown>> };
  const side = m.side ?? (m.assetId === t.assetId ? (t.side === 'BUY' ? 'SELL' : 'BUY') : t.side);
  const orders = new OrderTracker();
  orders.create({ clientId: 'c', tokenId: m.assetId, market: t.market, side, price: m.price, size: 1000, createdMs: 0 });
  orders.placeResult({ clientId: 'c', ok: true, orderId: m.orderId, status: 'live' }, 1);
  const fills: Fill[] = [];
  const refused: string[] = [];
  const ledger = new FillLedger(orders, { onFill: (f) => fills.push(f), onFillStatus: () => undefined, onBadTrade: (_id, problem) => refused.push(problem) });
  const st = createUserDecodeStats();
  const decoded: number[] = [];
  const piece = (amount: string, id: string): void => {
    const out: UserEvent[] = [];
    decodeUserFrame(JSON.stringify({ ...raw, id, maker_orders: [{ ...raw.maker_orders[0], matched_amount: amount }] }), out, st);
    for (const e of out) {
      if (e.type !== 'trade') continue;
      decoded.push(e.makerOrders[0].matchedAmount);
      ledger.onTrade({ ...e, status: 'MATCHED' }, 2);
    }
  };
  return { orderId: m.orderId, orders, ledger, fills, refused, st, decoded, piece, filled: () => orders.byVenueId(m.orderId)?.filled };
}

describe('real trades', () => {
  it.each(FILES)('%s: decodes whole, and every maker entry is a fill the checks accept', (file) => {
    const r = trades(file);
    expect(r.rejected).toBe(0);
    expect(r.trades.length).toBeGreaterThan(0);
    for (const t of r.trades) {
      for (const m of t.makerOrders) {
        // the maker entry as an order of ours: its own token, side (when given) and price
        const orders = new OrderTracker();
        const side = m.side ?? (m.assetId === t.assetId ? (t.side === 'BUY' ? 'SELL' : 'BUY') : t.side);
        orders.create({ clientId: 'c', tokenId: m.assetId, market: t.market, side, price: m.price, size: Math.max(m.matchedAmount, 100), createdMs: 0 });
        orders.placeResult({ clientId: 'c', ok: true, orderId: m.orderId, status: 'live' }, 1);
        const fills: Fill[] = [];
        const refused: string[] = [];
        const ledger = new FillLedger(orders, { onFill: (f) => fills.push(f), onFillStatus: () => undefined, onBadTrade: (_id, problem) => refused.push(problem) });
        ledger.onTrade({ ...t, status: 'MATCHED' }, 2);
        expect(refused).toEqual([]);
        expect(fills.map((f) => [f.orderId, f.size, f.price])).toEqual([[m.orderId, m.matchedAmount, m.price]]);
      }
    }
  });

  it('the complement maker price of polytrader rounds to its tick price', () => {
    const [t] = trades(FILES[0]).trades;
    expect(t.makerOrders[0].price).toBe(4300);
    expect(t.makerOrders[0].matchedAmount).toBe(877);
  });

  it('an order filled in pieces of 6 decimals (as that capture has) fills to its size: the last piece, rounded one unit over, is not refused', () => {
    // found in review: each piece rounds to 0.01 on its own (3.336 -> 3.34), so three pieces of a
    // 10-share order came to 10.01 and the last was refused as beyond what the order had left
    const r = pieceRig();
    ['3.336', '3.336', '3.328'].forEach((amount, i) => r.piece(amount, `piece-${i}`));
    expect(r.decoded).toEqual([334, 334, 333]);
    expect(r.refused).toEqual([]);
    expect(r.fills.map((f) => f.size)).toEqual([334, 334, 332]);
    expect(r.filled()).toBe(1000);
    // a piece past a filled order is still refused
    r.piece('0.02', 'piece-extra');
    expect(r.refused).toHaveLength(1);
  });

  it('five pieces that each round up (2.005 shares) fill a 10-share order to its size; a piece well past it is refused', () => {
    const run = (pieces: string[]) => {
      const r = pieceRig();
      pieces.forEach((amount, i) => r.piece(amount, `p-${i}`));
      return { refused: r.refused, filled: r.filled() };
    };
    expect(run(['2.005', '2.005', '2.005', '2.005', '1.98'])).toEqual({ refused: [], filled: 1000 });
    // 0.06 share over what is left: more than rounding
    const over = run(['5', '5.06']);
    expect(over.refused).toHaveLength(1);
    expect(over.filled).toBe(500);
  });

  it('a piece under half a unit (a 6-decimal remainder: 0.003 between 5.002 and 4.995) is no bad trade: the order fills to its size, by the user channel and by the REST list', () => {
    // found in review: the piece rounded to 0, was refused as an implausible size, asked for a
    // look-up that refused it again, and the second refusal suspended the market's quoting
    const r = pieceRig();
    ['5.002', '0.003', '4.995'].forEach((amount, i) => r.piece(amount, `d-${i}`));
    expect(r.st.rejected()).toBe(0);
    expect(r.refused).toEqual([]);
    expect(r.fills.map((f) => f.size)).toEqual([500, 500]);
    expect(r.filled()).toBe(1000);
    // a last piece that rounds to one unit past the filled order (9.995 -> 10.00, then 0.005 -> 0.01): rounding, not refused
    r.piece('0.005', 'd-over');
    expect(r.refused).toEqual([]);
    expect(r.filled()).toBe(1000);
    // the same piece again, as the venue's trade list gives it to a look-up: nothing refused, nothing moved
    expect(r.ledger.record({ ...r.fills[0], tradeId: 'd-1', size: 0, fee: 0 }, 3, 0)).toBe(false);
    expect(r.refused).toEqual([]);
    expect(r.filled()).toBe(1000);
  });

  it('twelve pieces that each round up (11 x 0.835 + 0.815 shares: 10.000) fill a 10-share order to its size: the slack grows half a unit a piece', () => {
    // found in review: a fixed slack of 5 units covered ten pieces; the twelfth came 6 units past
    // what was left (0.84 x 11 = 9.24, then 0.82), was refused, and its MINED a second time
    // suspended the market
    const r = pieceRig();
    [...Array<string>(11).fill('0.835'), '0.815'].forEach((amount, i) => r.piece(amount, `q-${i}`));
    expect(r.refused).toEqual([]);
    expect(r.filled()).toBe(1000);
    // the overshoot trimmed away before the order filled: the last real piece (0.045 -> 0.05) is the
    // rounding of what the earlier ones took, no fill and no bad trade (11 x 0.905 + 0.045 = 10.000)
    const t = pieceRig();
    [...Array<string>(11).fill('0.905'), '0.045'].forEach((amount, i) => t.piece(amount, `v-${i}`));
    expect(t.refused).toEqual([]);
    expect(t.filled()).toBe(1000);
    // an order filled by exact pieces rounded nothing up: a 6-decimal piece after it is no rounding
    const u = pieceRig();
    ['5', '5', '0.045'].forEach((amount, i) => u.piece(amount, `x-${i}`));
    expect(u.refused).toHaveLength(1);
    expect(u.filled()).toBe(1000);
    // a piece well past a few pieces' rounding is still refused
    const s = pieceRig();
    ['5', '5.06'].forEach((amount, i) => s.piece(amount, `w-${i}`));
    expect(s.refused).toHaveLength(1);
  });

  it("a look-up's older status (MATCHED, read before the user channel said MINED) never moves a fill back", () => {
    // found in review: the REST list read as MATCHED a moment before MINED came over the user
    // channel set the fill back to MATCHED: stored so, its shares held back from selling again
    const r = pieceRig();
    r.piece('2', 'm-1');
    const [f] = r.fills;
    const statuses: string[] = [];
    const ledger = new FillLedger(r.orders, { onFill: () => undefined, onFillStatus: (x) => void statuses.push(x.status), onBadTrade: () => undefined });
    ledger.preload({ ...f });
    expect(ledger.venueStatus(f.tradeId, f.orderId, 'MINED', 3)).toBe(true);
    expect(ledger.venueStatus(f.tradeId, f.orderId, 'MATCHED', 4)).toBe(false);
    expect(statuses).toEqual(['MINED']);
    // forward still goes: a reorg's RETRYING, then CONFIRMED
    expect(ledger.venueStatus(f.tradeId, f.orderId, 'RETRYING', 5)).toBe(true);
    expect(ledger.venueStatus(f.tradeId, f.orderId, 'CONFIRMED', 6)).toBe(true);
  });
});
