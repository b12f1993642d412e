// A recorded market whose minimum order size is not 5 (79 of the 100 markets of the real CLOB
// /markets capture have 15): the venue hashes its books with that minimum, and the WS book frames
// omit it, so live takes it from the market's metadata. Replay took the default "5" although the
// recording's metadata line says 15 (found in review): every hash failed, the books never synced,
// and the backtest never quoted; `verify` failed the same recording.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/backtest/runner.js';
import { metaFrame } from '../../src/backtest/market-meta-line.js';
import { bookHash } from '../../src/book/hash.js';
import { recordLine as metaLine } from '../../src/feed/recorder.js';
import { recordLine } from '../../src/emulator/recording-writer.js';
import { command as verify } from '../../src/commands/verify.js';
import { M, NO, T0, YES, config, tempDir, tradeFrame } from './helpers.js';

type Lv = Array<[string, string]>;
const lv = (xs: Lv) => xs.map(([price, size]) => ({ price, size }));

/** Both tokens' snapshot, hashed as the venue hashes them for a market of minimum `minOrderSize`. */
function snapshot(ts: number, minOrderSize: string): string {
  const yesBids: Lv = [
    ['0.48', '100'],
    ['0.49', '50'],
  ];
  const yesAsks: Lv = [
    ['0.52', '100'],
    ['0.51', '50'],
  ];
  const noBids: Lv = [
    ['0.48', '50'],
    ['0.49', '100'],
  ];
  const noAsks: Lv = [
    ['0.52', '50'],
    ['0.51', '100'],
  ];
  const book = (asset: string, bids: Lv, asks: Lv) => ({
    event_type: 'book',
    market: M,
    asset_id: asset,
    timestamp: String(ts),
    hash: bookHash({ market: M, assetId: asset, timestamp: String(ts), bids, asks, minOrderSize, tickSize: '0.01', negRisk: false, lastTradePrice: '0.5' }),
    bids: lv(bids),
    asks: lv(asks),
    tick_size: '0.01',
    last_trade_price: '0.5',
  });
  return JSON.stringify([book(YES, yesBids, yesAsks), book(NO, noBids, noAsks)]);
}

function recording(minSize: number, minOrderSize: string): string {
  const path = join(tempDir('minsize'), 'rec.jsonl');
  let text = metaLine({ text: metaFrame({ conditionId: M, tokenId: YES, complementId: NO, tick: 100, minSize, negRisk: false }), t: T0 - 1000, epoch: 0 }, 'meta');
  text += recordLine(T0, snapshot(T0, minOrderSize));
  for (let t = T0 + 1000; t <= T0 + 10_000; t += 1000) text += recordLine(t, tradeFrame(t, '0.49', '20', 'SELL'));
  writeFileSync(path, text);
  return path;
}

const cfg = () =>
  config({
    book: { verifyEvery: 1 },
    risk: { staleBookMs: 3_600_000, maxPositionPerToken: 100_000, maxPositionPerMarket: 100_000, maxTotalNotional: 100_000 },
    // 20 shares an order: above either minimum
    strategy: { name: 'bands', params: { skewPerShare: 0, bands: [{ distance: 0.01, size: 20 }] } },
    sim: { queueModel: false },
  });

describe('a recording of a market whose minimum order size is 15', () => {
  it('backtest: its books verify with the recorded minimum, so it quotes as with a minimum of 5', async () => {
    const five = await runBacktest({ data: [recording(500, '5')], config: cfg() });
    expect(five.result.venue.placed).toBeGreaterThan(0);
    const fifteen = await runBacktest({ data: [recording(1500, '15')], config: cfg() });
    expect(fifteen.result.venue.placed).toBe(five.result.venue.placed);
  }, 60_000);

  it('verify: OK with the metadata line, with no --min-order-size given', async () => {
    const out: string[] = [];
    const io = { out: (s: string) => out.push(s), err: (s: string) => out.push(s) };
    expect(await verify.main([recording(1500, '15')], io as never), out.join('\n')).toBe(0);
  });

  it("verify: a metadata line again mid-recording (a rotated file's header) does not undo a tick_size_change since", async () => {
    // found reviewing the fix: the line set the tick too, so every rotated file reset a market that
    // had moved to 0.001 back to 0.01 and its next hash failed
    const path = join(tempDir('minsize'), 'ticked.jsonl');
    const meta = metaLine({ text: metaFrame({ conditionId: M, tokenId: YES, complementId: NO, tick: 100, minSize: 500, negRisk: false }), t: T0 - 1000, epoch: 0 }, 'meta');
    const bids: Lv = [
      ['0.48', '100'],
      ['0.49', '50'],
    ];
    const asks: Lv = [
      ['0.52', '100'],
      ['0.51', '50'],
    ];
    const hashOf = (ts: number, b: Lv, tickSize: string) =>
      bookHash({ market: M, assetId: YES, timestamp: String(ts), bids: b, asks, minOrderSize: '5', tickSize, negRisk: false, lastTradePrice: '0.5' });
    const book = (ts: number, tickSize: string) =>
      JSON.stringify([
        { event_type: 'book', market: M, asset_id: YES, timestamp: String(ts), hash: hashOf(ts, bids, tickSize), bids: lv(bids), asks: lv(asks), tick_size: tickSize, last_trade_price: '0.5' },
      ]);
    const tickChange = JSON.stringify({ event_type: 'tick_size_change', market: M, asset_id: YES, old_tick_size: '0.01', new_tick_size: '0.001', timestamp: String(T0 + 1000) });
    const after: Lv = [
      ['0.48', '100'],
      ['0.485', '10'],
      ['0.49', '50'],
    ];
    const change = JSON.stringify({
      event_type: 'price_change',
      market: M,
      timestamp: String(T0 + 5000),
      price_changes: [{ asset_id: YES, price: '0.485', size: '10', side: 'BUY', hash: hashOf(T0 + 5000, after, '0.001'), best_bid: '0.49', best_ask: '0.51' }],
    });
    writeFileSync(path, meta + recordLine(T0, book(T0, '0.01')) + recordLine(T0 + 1000, tickChange) + recordLine(T0 + 2000, book(T0 + 2000, '0.001')) + meta + recordLine(T0 + 5000, change));
    const out: string[] = [];
    const io = { out: (s: string) => out.push(s), err: (s: string) => out.push(s) };
    expect(await verify.main([path], io as never), out.join('\n')).toBe(0);
  });
});
