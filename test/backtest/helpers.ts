// Shared by the backtest tests: configs, temp dirs, and small hand-made recordings in the
// recorder's line format whose effect on fills can be worked out by hand.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../src/config.js';
import { recordLine } from '../../src/emulator/recording-writer.js';

export function tempDir(label: string): string {
  return mkdtempSync(join(tmpdir(), `makerd-${label}-`));
}

/** Default config with overrides (objects merge key by key). */
export function config(overrides: Record<string, unknown> = {}): Config {
  return loadConfig({ env: {}, overrides: overrides as never });
}

export const M = '0x' + 'ab'.repeat(32);
export const YES = '1'.repeat(20);
export const NO = '2'.repeat(20);
export const T0 = Date.UTC(2026, 0, 1);

type Lv = Array<[string, string]>;
const lv = (xs: Lv): Array<{ price: string; size: string }> => xs.map(([price, size]) => ({ price, size }));
const comp = (p: string): string => (1 - Number(p)).toFixed(2);

/** A snapshot frame of both tokens (the NO book mirrors the YES book). Bids ascending, asks descending. */
export function snapshotFrame(ts: number, bids: Lv, asks: Lv): string {
  const yes = { event_type: 'book', market: M, asset_id: YES, timestamp: String(ts), hash: '', bids: lv(bids), asks: lv(asks), tick_size: '0.01' };
  const noBids: Lv = asks.map(([p, s]) => [comp(p), s]);
  const noAsks: Lv = bids.map(([p, s]) => [comp(p), s]);
  const no = { event_type: 'book', market: M, asset_id: NO, timestamp: String(ts), hash: '', bids: lv(noBids), asks: lv(noAsks), tick_size: '0.01' };
  return JSON.stringify([yes, no]);
}

export function tradeFrame(ts: number, price: string, size: string, side: 'BUY' | 'SELL'): string {
  return JSON.stringify({ event_type: 'last_trade_price', market: M, asset_id: YES, price, size, side, fee_rate_bps: '0', timestamp: String(ts) });
}

/**
 * A static book (YES 0.48/0.49 bid, 0.51/0.52 ask; `queue` shares resting at 0.49) and a taker
 * selling `tradeSize` into the 0.49 bid every `everyMs`, for `durationMs`.
 */
export function sellerRecording(dir: string, o: { queue: string; tradeSize: string; everyMs: number; durationMs: number }): string {
  let text = recordLine(
    T0,
    snapshotFrame(
      T0,
      [
        ['0.48', '100'],
        ['0.49', o.queue],
      ],
      [
        ['0.52', '100'],
        ['0.51', o.queue],
      ],
    ),
  );
  for (let t = T0 + o.everyMs; t <= T0 + o.durationMs; t += o.everyMs) text += recordLine(t, tradeFrame(t, '0.49', o.tradeSize, 'SELL'));
  const path = join(dir, `seller-${o.queue}-${o.tradeSize}-${o.everyMs}.jsonl`);
  writeFileSync(path, text);
  return path;
}

/** Test config for the hand-made books: no hashes to verify, books never stale, no inventory skew. */
export function handConfig(sim: Partial<Config['sim']>): Config {
  return config({
    book: { verifyEvery: 0 },
    risk: { staleBookMs: 3_600_000, maxPositionPerToken: 100_000, maxPositionPerMarket: 100_000, maxTotalNotional: 100_000 },
    strategy: { name: 'bands', params: { skewPerShare: 0 } },
    sim,
  });
}

/**
 * For the parity test: a quiet lead-in (`leadMs`, time for a live daemon to connect and quote
 * against the same book), then a taker selling `tradeSize` into the 0.49 bid every `everyMs`
 * (`trades` times); then the book moves up a cent (a new snapshot), and after `everyMs` the taker
 * sells into the new 0.50 bid as many times again.
 */
export function parityRecording(dir: string, o: { queue: string; tradeSize: string; leadMs: number; everyMs: number; trades: number }): string {
  let text = recordLine(
    T0,
    snapshotFrame(
      T0,
      [
        ['0.48', '100'],
        ['0.49', o.queue],
      ],
      [
        ['0.52', '100'],
        ['0.51', o.queue],
      ],
    ),
  );
  let t = T0 + o.leadMs;
  for (let i = 0; i < o.trades; i++, t += o.everyMs) text += recordLine(t, tradeFrame(t, '0.49', o.tradeSize, 'SELL'));
  text += recordLine(
    t,
    snapshotFrame(
      t,
      [
        ['0.49', '100'],
        ['0.50', o.queue],
      ],
      [
        ['0.53', '100'],
        ['0.52', o.queue],
      ],
    ),
  );
  t += o.everyMs;
  for (let i = 0; i < o.trades; i++, t += o.everyMs) text += recordLine(t, tradeFrame(t, '0.50', o.tradeSize, 'SELL'));
  const path = join(dir, 'parity.jsonl');
  writeFileSync(path, text);
  return path;
}

/** Time of the last trade of parityRecording. */
export function parityLastTrade(o: { leadMs: number; everyMs: number; trades: number }): number {
  return T0 + o.leadMs + 2 * o.trades * o.everyMs;
}
