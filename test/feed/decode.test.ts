// Every nautilus ws_messages file (and the doc/synthetic custom-feature and FOK-cancel shapes)
// decodes to the right typed event with integer units; the three price_change formats; bad
// frames are counted per reason and never throw.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createMarketDecodeStats, decodeMarketFrame } from '../../src/feed/decode-market.js';
import { createUserDecodeStats, decodeUserFrame } from '../../src/feed/decode-user.js';
import type { MarketEvent, UserEvent } from '../../src/core/events.js';
import { DecodeStats, MAX_REJECT_REASONS } from '../../src/feed/decode-stats.js';

const nt = new URL('../fixtures/polymarket/nautilus_trader/', import.meta.url);
const raw = (p: string) => readFileSync(new URL(p, nt), 'utf8');
const ws = (f: string) => raw(`python_resources/ws_messages/${f}`);

function market(text: string): MarketEvent[] {
  const out: MarketEvent[] = [];
  const st = createMarketDecodeStats();
  decodeMarketFrame(text, out, st);
  expect(st.rejected()).toBe(0);
  return out;
}
function user(text: string): UserEvent[] {
  const out: UserEvent[] = [];
  const st = createUserDecodeStats();
  decodeUserFrame(text, out, st);
  expect(st.rejected()).toBe(0);
  return out;
}

describe('market decoder on real and documented frames', () => {
  it('book: levels as integers with wire strings, best last', () => {
    const [ev] = market(ws('book.json'));
    if (ev.type !== 'book') throw new Error(ev.type);
    const src = JSON.parse(ws('book.json'));
    expect(ev.assetId).toBe(src.asset_id);
    expect(ev.timestampMs).toBe(1728799418260);
    expect(ev.hash).toBe(src.hash);
    expect(ev.bids).toHaveLength(src.bids.length);
    expect(ev.asks).toHaveLength(src.asks.length);
    const lastBid = src.bids[src.bids.length - 1];
    expect(ev.bids.at(-1)).toEqual({ price: Math.round(Number(lastBid.price) * 10000), size: Math.round(Number(lastBid.size) * 100), priceStr: lastBid.price, sizeStr: lastBid.size });
    expect(ev.bids[0].price).toBeLessThan(ev.bids.at(-1)!.price);
    expect(ev.asks[0].price).toBeGreaterThan(ev.asks.at(-1)!.price);
  });

  it('price_change oldest flat format', () => {
    const [ev] = market(ws('price_change.json'));
    expect(ev).toMatchObject({ type: 'price_change', format: 'flat', timestampMs: 1723967931411 });
    if (ev.type !== 'price_change') throw new Error();
    expect(ev.changes).toEqual([
      {
        assetId: '48331043336612883890938759509493159234755048973500640148014422747788308965732',
        side: 'SELL',
        price: 5140,
        size: 2157408,
        priceStr: '0.514',
        sizeStr: '21574.08',
        hash: 'bf32b3746fff40c76c98021b7f3f07261169dd26',
        bestBid: undefined,
        bestAsk: undefined,
      },
    ]);
  });

  it('price_change current format with best bid/ask', () => {
    const [ev] = market(ws('price_change_v2.json'));
    if (ev.type !== 'price_change') throw new Error();
    expect(ev.format).toBe('current');
    expect(ev.changes).toHaveLength(3);
    expect(ev.changes[1]).toMatchObject({ side: 'BUY', price: 5000, size: 340000, bestBid: 6000, bestAsk: 7000, hash: 'af32b3746fff40c76c98021b7f3f07261169dd27' });
  });

  it('price_change legacy changes format: root asset_id, its hash on every entry', () => {
    const legacy =
      '{"asset_id":"71321045679252212594626385532706912750332728571942532289631379312455583992563","changes":[{"price":"0.4","side":"SELL","size":"3300"},{"price":"0.5","side":"BUY","size":"0"}],"event_type":"price_change","market":"0x5f65","timestamp":"1729084877448","hash":"3cd4d61e042c81560c9037ece0c61f3b1a8fbbdd"}';
    const [ev] = market(legacy);
    if (ev.type !== 'price_change') throw new Error();
    expect(ev.format).toBe('changes');
    expect(ev.changes.map((c) => [c.assetId.slice(0, 5), c.side, c.price, c.size, c.hash])).toEqual([
      ['71321', 'SELL', 4000, 330000, '3cd4d61e042c81560c9037ece0c61f3b1a8fbbdd'],
      ['71321', 'BUY', 5000, 0, '3cd4d61e042c81560c9037ece0c61f3b1a8fbbdd'],
    ]);
  });

  it('last_trade_price, tick_size_change', () => {
    expect(market(ws('last_trade_price.json'))[0]).toEqual({
      type: 'last_trade_price',
      market: '0xdd22472e552920b8438158ea7238bfadfa4f736aa4cee91a6b86c39ead110917',
      assetId: '21742633143463906290569050155826241533067272736897614950488156847949938836455',
      price: 4910,
      size: 8536,
      side: 'SELL',
      feeRateBps: 0,
      timestampMs: 1724564136087,
      priceStr: '0.491',
    });
    expect(market(ws('tick_size_change.json'))[0]).toMatchObject({ type: 'tick_size_change', oldTickSize: 100, newTickSize: 10, newTickSizeStr: '0.001', timestampMs: 1739068041853 });
  });

  it('best_bid_ask, new_market, market_resolved (custom features)', () => {
    expect(market(raw('rust_test_data/ws_market_best_bid_ask_msg.json'))[0]).toMatchObject({ type: 'best_bid_ask', bestBid: 7300, bestAsk: 7700, spread: 400, timestampMs: 1766789469958 });
    const nm = market(raw('rust_test_data/ws_market_new_market_msg.json'))[0];
    expect(nm.type).toBe('new_market');
    if (nm.type !== 'new_market') throw new Error();
    expect(nm.assetIds.length).toBe(2);
    expect(nm.outcomes.length).toBe(2);
    const r = market(raw('rust_test_data/ws_market_resolved_msg.json'))[0];
    expect(r).toMatchObject({ type: 'market_resolved', winningOutcome: 'Yes', winningAssetId: '76043073756653678226373981964075571318267289248134717369284518995922789326425' });
  });

  it('array frames decode each element; PONG is a heartbeat', () => {
    const out: MarketEvent[] = [];
    const st = createMarketDecodeStats();
    const book = JSON.parse(ws('book.json'));
    expect(decodeMarketFrame(JSON.stringify([book, book]), out, st)).toBe(2);
    expect(decodeMarketFrame('PONG', out, st)).toBe(0);
    expect(st.pongs).toBe(1);
  });

  it('malformed frames and unknown events are counted by reason, siblings survive', () => {
    const out: MarketEvent[] = [];
    const st = createMarketDecodeStats();
    decodeMarketFrame('{not json', out, st);
    decodeMarketFrame('{"event_type":"mystery","market":"0x"}', out, st);
    decodeMarketFrame('42', out, st);
    decodeMarketFrame('{"event_type":"price_change","market":"0x","timestamp":"1","price_changes":[{"asset_id":"1","price":"1.5","size":"1","side":"BUY"}]}', out, st);
    decodeMarketFrame('{"event_type":"price_change","market":"0x","timestamp":"1","price_changes":[{"asset_id":"1","price":"0.5","size":"-1","side":"BUY"}]}', out, st);
    decodeMarketFrame('{"event_type":"price_change","market":"0x","timestamp":"1","price_changes":[{"asset_id":"1","price":"0.5","size":"1","side":"HOLD"}]}', out, st);
    const good = JSON.parse(ws('last_trade_price.json'));
    decodeMarketFrame(JSON.stringify([{ event_type: 'book', market: 1 }, good]), out, st);
    expect(out.map((e) => e.type)).toEqual(['last_trade_price']);
    expect(Object.fromEntries(st.rejects)).toEqual({
      malformed_json: 1,
      'unknown_event:mystery': 1,
      not_an_object: 1,
      'bad_field:price': 1,
      'bad_field:size': 1,
      'bad_field:side': 1,
      'bad_field:timestamp': 1,
    });
    expect(st.counters()).toMatchObject({ frames: 7, events: 1, rejected: 7 });
  });
});

describe('user decoder', () => {
  it('order placement and cancellation: seconds vs ms normalised', () => {
    const [p] = user(ws('order_placement.json'));
    expect(p).toMatchObject({
      type: 'order',
      kind: 'PLACEMENT',
      status: 'LIVE',
      side: 'BUY',
      price: 5130,
      originalSize: 500,
      sizeMatched: 0,
      orderType: 'GTC',
      createdAtMs: 1725842520000,
      timestampMs: 1725842520990,
      associateTrades: [],
    });
    const [c] = user(ws('order_cancel.json'));
    expect(c).toMatchObject({ kind: 'CANCELLATION', status: 'CANCELED', side: 'SELL', sizeMatched: 500, createdAtMs: 1725841741000 });
    const [fok] = user(raw('rust_test_data/ws_user_order_fok_killed.json'));
    expect(fok).toMatchObject({
      kind: 'CANCELLATION',
      orderType: 'FOK',
      status: "CANCELED_order couldn't be fully filled. FOK orders are fully filled or killed.",
      sizeMatched: 0,
      originalSize: 1200,
      price: 6000,
    });
  });

  it('trades: every status file, maker orders incl. the complement token, time units', () => {
    const [t1] = user(ws('user_trade1.json'));
    if (t1.type !== 'trade') throw new Error();
    expect(t1).toMatchObject({ status: 'MINED', traderSide: 'MAKER', price: 5180, size: 109687, matchTimeMs: 1725868859000, timestampMs: 1725868885871 });
    expect(t1.makerOrders).toHaveLength(6);
    expect(t1.makerOrders.some((m) => m.price === 4820 && m.assetId !== t1.assetId)).toBe(true);
    const [t2] = user(ws('user_trade2.json'));
    expect(t2).toMatchObject({ status: 'MATCHED', traderSide: 'TAKER', size: 500, transactionHash: '0xa667ef3b363b70731c59e3d4fff50d7bdb3d6b165d49e448032cab68c82e3c66' });
    if (t2.type !== 'trade') throw new Error();
    expect(t2.makerOrders[0]).toMatchObject({ matchedAmount: 500, price: 5200, outcome: 'Yes' });
    expect(t2.makerOrders[0].side).toBeUndefined();
    const [t3] = user(ws('user_trade3.json'));
    expect(t3).toMatchObject({ status: 'CONFIRMED', timestampMs: 1762776436000 });
    if (t3.type !== 'trade') throw new Error();
    expect(t3.makerOrders[0].side).toBe('BUY');
    const [t4] = user(ws('user_trade4.json'));
    expect(t4).toMatchObject({ status: 'CONFIRMED', side: 'SELL', size: 1500 });
    // the REST trade object (no event_type) is the same shape
    const [rest] = user(ws('trades.json'));
    expect(rest).toMatchObject({ type: 'trade', status: 'CONFIRMED', price: 4890, timestampMs: 1726043282000, matchTimeMs: 1726043102000 });
  });

  it("a trade without trader_side (the venue's docs example has none) is read: nothing uses the field, and dropping the trade lost our fill (found in review)", () => {
    const base = JSON.parse(ws('user_trade2.json')) as Record<string, unknown>;
    delete base.trader_side;
    const [t] = user(JSON.stringify(base));
    expect(t).toMatchObject({ type: 'trade', status: 'MATCHED', size: 500 });
    if (t.type !== 'trade') throw new Error();
    expect(t.traderSide).toBeUndefined();
    expect(t.makerOrders[0]).toMatchObject({ matchedAmount: 500, price: 5200 });
    // one of another spelling is read the same way, as absent
    const [u] = user(JSON.stringify({ ...base, trader_side: 'taker?' }));
    expect(u).toMatchObject({ type: 'trade', size: 500 });
  });

  it('the other spellings of a trade status that outside clients accept: MATCHED_NOT_BROADCASTED as MATCHED, a TRADE_STATUS_ prefix dropped', () => {
    // NautilusTrader's Polymarket adapter lists MATCHED_NOT_BROADCASTED (matched before the
    // transaction is broadcast: not settled); clients of the venue's newer API strip TRADE_STATUS_
    const base = JSON.parse(ws('user_trade2.json'));
    const out: UserEvent[] = [];
    const st = createUserDecodeStats();
    for (const s of ['MATCHED_NOT_BROADCASTED', 'TRADE_STATUS_MATCHED_NOT_BROADCASTED', 'TRADE_STATUS_MINED', 'TRADE_STATUS_CONFIRMED', 'TRADE_STATUS_BOGUS'])
      decodeUserFrame(JSON.stringify({ ...base, status: s }), out, st);
    expect(out.map((e) => (e.type === 'trade' ? e.status : ''))).toEqual(['MATCHED', 'MATCHED', 'MINED', 'CONFIRMED']);
    expect(Object.fromEntries(st.rejects)).toEqual({ 'bad_field:status': 1 });
  });

  it('RETRYING / FAILED accepted, unknown status rejected and counted', () => {
    const base = JSON.parse(ws('user_trade2.json'));
    const out: UserEvent[] = [];
    const st = createUserDecodeStats();
    for (const s of ['RETRYING', 'FAILED', 'BOGUS']) decodeUserFrame(JSON.stringify({ ...base, status: s }), out, st);
    decodeUserFrame('nope', out, st);
    decodeUserFrame('{"event_type":"balance"}', out, st);
    expect(out.map((e) => (e.type === 'trade' ? e.status : ''))).toEqual(['RETRYING', 'FAILED']);
    expect(Object.fromEntries(st.rejects)).toEqual({ 'bad_field:status': 1, malformed_json: 1, 'unknown_event:balance': 1 });
  });
});

describe('market decoder: price and size strings', () => {
  it('decodes every shape exactly as parsePrice/parseSize do (short common forms take a fast path)', async () => {
    const { parsePrice, parseSize } = await import('../../src/core/units.js');
    const prices = ['0', '1', '0.5', '0.42', '0.425', '0.4250', '0.42500', '0.9999', '1.0', '1.0000', '.5', '0.', '00.42', '0.4a', '0.99999', '0.00001', '1.01', '-0.5', '0.5e1', ''];
    const sizes = ['0', '5', '345', '595.68', '595.6', '595.685', '595.684', '595.', '.5', '0.01', '123456789.12', '1234567890.5', '12a', '1.2.3', '-1', '1e3', '', '007.50'];
    for (const p of prices) {
      for (const s of [sizes[0], sizes[3]]) {
        const frame = JSON.stringify({ event_type: 'price_change', market: '0xm', timestamp: '1767225600001', price_changes: [{ asset_id: 'a', price: p, size: s, side: 'BUY' }] });
        const out: MarketEvent[] = [];
        const st = createMarketDecodeStats();
        decodeMarketFrame(frame, out, st);
        const want = parsePrice(p);
        if (want < 0) expect(st.rejects.get('bad_field:price')).toBe(1);
        else expect(out[0].type === 'price_change' && out[0].changes[0].price).toBe(want);
      }
    }
    for (const s of sizes) {
      const frame = JSON.stringify({ event_type: 'book', market: '0xm', asset_id: 'a', timestamp: '1767225600001', bids: [{ price: '0.42', size: s }], asks: [] });
      const out: MarketEvent[] = [];
      const st = createMarketDecodeStats();
      decodeMarketFrame(frame, out, st);
      const want = parseSize(s);
      if (want < 0) expect(st.rejects.get('bad_field:bids.size')).toBe(1);
      else expect(out[0].type === 'book' && out[0].bids[0].size).toBe(want);
    }
  });

  it("sizes: the venue's 6-decimal fills rounded to 0.01 and counted; more decimals, 1e400 or a 30-digit size refused (issue 10)", () => {
    const base = JSON.parse(ws('user_trade2.json'));
    const st = createUserDecodeStats();
    const sizeOf = (size: unknown, raw?: string): number | undefined => {
      const out: UserEvent[] = [];
      const text = raw ?? JSON.stringify({ ...base, size });
      decodeUserFrame(text, out, st);
      return out[0]?.type === 'trade' ? out[0].size : undefined;
    };
    // polytrader's real capture has a fill of "8.771927" shares
    expect(sizeOf('8.771927')).toBe(877);
    expect(st.sizesRounded).toBe(1);
    expect(sizeOf('5.0000')).toBe(500);
    expect(st.sizesRounded).toBe(1);
    expect(sizeOf('1.0000001')).toBeUndefined();
    expect(sizeOf('120000000000000000000000000000')).toBeUndefined();
    expect(sizeOf(undefined, JSON.stringify({ ...base, size: 0 }).replace('"size":0', '"size":1e400'))).toBeUndefined();
    expect(st.rejects.get('bad_field:size')).toBe(3);
  });
});

describe('a trade at a price no trade can have', () => {
  it('a last_trade_price at 0 or 1 (or beyond) is refused and counted: in a backtest it would fill every resting order of a side', () => {
    // review: fillsAt saw every BUY above a trade at 0, and its complement, every SELL below 1
    const base = JSON.parse(ws('last_trade_price.json')) as Record<string, unknown>;
    const st = createMarketDecodeStats();
    const priceOf = (price: string): number | undefined => {
      const out: MarketEvent[] = [];
      decodeMarketFrame(JSON.stringify({ ...base, price }), out, st);
      return out[0]?.type === 'last_trade_price' ? out[0].price : undefined;
    };
    expect(priceOf('0.491')).toBe(4910); // nautilus_trader's real message as it is
    expect(priceOf('0.001')).toBe(10);
    expect(priceOf('0.999')).toBe(9990);
    for (const p of ['0', '0.0', '1', '1.00']) expect(priceOf(p)).toBeUndefined();
    expect(st.rejects.get('bad_field:price')).toBe(4);
  });
});

describe('reject reasons from the wire are bounded', () => {
  it('a feed sending ever new event types keeps at most MAX_REJECT_REASONS of them; the rest count under one; our own reasons keep theirs', () => {
    // found in review: each distinct event_type made a reason, a Map entry and a /metrics series for good
    const st = createMarketDecodeStats();
    const out: MarketEvent[] = [];
    for (let i = 0; i < 1000; i++) decodeMarketFrame(JSON.stringify({ event_type: `kind${i}`, market: 'm' }), out, st);
    decodeMarketFrame('{"event_type": "book", ', out, st);
    expect(st.rejected()).toBe(1001);
    expect(st.rejects.size).toBeLessThanOrEqual(MAX_REJECT_REASONS + 2);
    expect(st.rejects.get('unknown_event:kind0')).toBe(1);
    expect(st.rejects.get('unknown_event:other')).toBe(1000 - MAX_REJECT_REASONS);
    expect(st.rejects.get('malformed_json')).toBe(1);
    // the price stream's unknown topics are wire values too
    const prices = new DecodeStats('price');
    for (let i = 0; i < 200; i++) prices.reject(`unknown_topic:t${i}`, '{}');
    expect(prices.rejects.size).toBe(MAX_REJECT_REASONS + 1);
    expect(prices.rejects.get('unknown_topic:other')).toBe(200 - MAX_REJECT_REASONS);
  });
});

describe('market timestamps', () => {
  it('a 16-digit (microsecond) timestamp is read as microseconds, as every other timestamp decoder reads it; seconds and ms as before', () => {
    // found in review: the market decoder's fast path took it as milliseconds, a time 1000x ahead
    const out: MarketEvent[] = [];
    const st = createMarketDecodeStats();
    const frame = (ts: string) => JSON.stringify({ event_type: 'price_change', market: 'm', timestamp: ts, price_changes: [{ asset_id: 'A', price: '0.5', size: '10', side: 'BUY', hash: 'h' }] });
    for (const ts of ['1767225600001000', '1767225600001', '1767225600']) decodeMarketFrame(frame(ts), out, st);
    expect(out.map((e) => e.type === 'price_change' && e.timestampMs)).toEqual([1767225600001, 1767225600001, 1767225600000]);
  });
});
