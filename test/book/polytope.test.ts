// Replays the real polytope capture (39 frames) through the shared decoder and the mirror: the
// snapshot hash and all 70 price_change hashes must reproduce, and best bid/ask must match the
// values the venue sent after every message.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BookMirror } from '../../src/book/mirror.js';
import { createMarketDecodeStats, decodeMarketFrame } from '../../src/feed/decode-market.js';
import type { MarketEvent } from '../../src/core/events.js';
import { parsePrice } from '../../src/core/units.js';

const dir = new URL('../fixtures/polymarket/polytope/', import.meta.url);
const lines = readFileSync(new URL('market_39.jsonl', dir), 'utf8').split('\n');
const expected = JSON.parse(readFileSync(new URL('market_39.replay_expected.json', dir), 'utf8')) as {
  assets: Record<string, string>;
  messages: Array<{ asset_id: string; hash: string; timestamp: string }>;
  final_books: Record<string, { bids: Array<{ price: string; size: string }>; asks: Array<{ price: string; size: string }> }>;
};
const A = '98022490269692409998126496127597032490334070080325855126491859374983463996227';
const B = '53831553061883006530739877284105938919721408776239639687877978808906551086026';

describe('polytope market_39 replay', () => {
  it('verifies the snapshot and every price_change hash, best bid/ask after every message', () => {
    const m = new BookMirror({ now: () => 0 });
    const oos: string[] = [];
    m.onOutOfSync((a, r) => oos.push(`${a}:${r}`));
    const stats = createMarketDecodeStats();
    const out: MarketEvent[] = [];
    let bestChecked = 0;
    for (const line of lines) {
      if (line === '') continue;
      out.length = 0;
      decodeMarketFrame(line, out, stats);
      for (const ev of out) {
        m.apply(ev);
        if (ev.type !== 'price_change') continue;
        // the last entry per asset in this message carries the top of book after the message
        for (const c of ev.changes) {
          const b = m.book(c.assetId)!;
          expect(b.inSync()).toBe(true);
          if (c.bestBid !== undefined) {
            const last = [...ev.changes].reverse().find((x) => x.assetId === c.assetId)!;
            expect(b.bestBid()).toBe(last.bestBid);
            expect(b.bestAsk()).toBe(last.bestAsk);
            bestChecked++;
          }
        }
      }
    }
    m.flush();
    expect(oos).toEqual([]);
    expect(stats.pongs).toBe(3);
    expect(stats.rejected()).toBe(0);
    const sa = m.stats(A)!;
    const sb = m.stats(B)!;
    expect(sa.snapshots).toBe(1);
    expect(sb.snapshots).toBe(0);
    expect(sb.seeded).toBe(1);
    expect(sa.deltas + sb.deltas).toBe(70);
    expect(sa.mismatches + sb.mismatches).toBe(0);
    expect(sa.bestMismatches + sb.bestMismatches).toBe(0);
    // one snapshot hash + one per timestamp group and token
    const groups = new Set(expected.messages.map((x) => `${x.asset_id}:${x.timestamp}`)).size;
    expect(sa.hashesVerified + sb.hashesVerified).toBe(1 + groups);
    expect(bestChecked).toBe(70);
    expect(sa.entriesVerified + sb.entriesVerified).toBe(70);
    // final books equal the derived expectation
    for (const id of [A, B]) {
      const fb = expected.final_books[id];
      const b = m.book(id)!;
      expect(b.wireLevels('BUY')).toEqual(fb.bids.map((l) => [l.price, l.size]));
      expect(b.wireLevels('SELL')).toEqual(fb.asks.map((l) => [l.price, l.size]));
      expect(b.bestBid()).toBe(parsePrice(fb.bids[fb.bids.length - 1].price));
    }
  });

  it('with verifyEvery 0 nothing is hashed; with 2 every second group per token is', () => {
    const perToken = (id: string) => new Set(expected.messages.filter((x) => x.asset_id === id).map((x) => x.timestamp)).size;
    for (const [every, want] of [
      [0, 0],
      [2, 1 + Math.floor(perToken(A) / 2) + Math.floor(perToken(B) / 2)],
    ] as const) {
      const m = new BookMirror({ verifyEvery: every, now: () => 0 });
      const stats = createMarketDecodeStats();
      const out: MarketEvent[] = [];
      for (const line of lines) {
        if (!line) continue;
        out.length = 0;
        decodeMarketFrame(line, out, stats);
        for (const ev of out) m.apply(ev);
      }
      m.flush();
      const n = m.stats(A)!.hashesVerified + m.stats(B)!.hashesVerified;
      expect(n).toBe(want);
      expect(m.stats(A)!.deltas + m.stats(B)!.deltas).toBe(70);
    }
  });
});
