// Held shares of a market no longer quoted got no book and no market_resolved: valued at their last
// mark for good, a losing side's stake never reached the PnL or the daily-loss check (found in
// review), whether the market left the set while running or was outside it at a restart. The
// resolution watch asks the venue (GET the CLOB market: `winner` on its tokens) and marks them at
// what they pay. Against the emulator, whose market answers closed with a winner once resolved.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startDaemon, takeOneBid, sleep } from '../status/daemon-fixture.js';
import { clobMarketSchema, type ClobMarket } from '../../src/api/schemas.js';
import { VirtualClock } from '../../src/core/clock.js';
import { createLogger, silentLogger } from '../../src/core/log.js';
import { ResolutionWatch } from '../../src/session/resolution-watch.js';
import { RecordingVenue, bandsEngine } from '../engine/helpers.js';
import { fixture } from '../api/http-server.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDb(): string {
  const dir = mkdtempSync(join(tmpdir(), 'makerd-resolution-'));
  dirs.push(dir);
  return join(dir, 'db.sqlite');
}

async function until<T>(what: string, f: () => T | undefined | false | Promise<T | undefined | false>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe('the markets of held shares outside the quoted set', () => {
  it('a market dropped while held that resolves against us: its shares valued at 0, kept so for a restart', async () => {
    const r = await startDaemon(3, { seed: 5, trade: 2, db: tempDb() });
    const d = r.daemon;
    try {
      const [mA, mB] = d.markets;
      await takeOneBid(r, mA.conditionId);
      const held = [mA.tokenId, mA.complementId].find((t) => d.engine.positions.qty(t) > 0) as string;
      expect(held).toBeDefined();
      d.setMarkets([mB]);
      await until('A dropped', () => d.engine.marketOf(mA.tokenId) === undefined);
      const before = d.engine.valueOf(held);
      expect(before).toBeGreaterThan(0);
      // unresolved: asked, nothing changes
      expect(await d.resolutions?.checkOnce()).toBe(0);
      expect(d.engine.valueOf(held)).toBe(before);
      // it resolves for the other token
      const emuA = r.emu.markets.find((m) => m.conditionId === mA.conditionId);
      if (!emuA) throw new Error('no market A at the emulator');
      emuA.facts.winner = held === mA.tokenId ? mA.complementId : mA.tokenId;
      expect(await d.resolutions?.checkOnce()).toBe(1);
      expect(d.engine.valueOf(held)).toBe(0);
      expect(d.store.keptMarks().get(held)).toBe(0);
      // asked about no more
      expect(d.engine.heldOutsideMarkets().size).toBe(0);
    } finally {
      await r.close();
    }
  }, 60_000);

  it('a market outside the set at a restart (held shares in the store) that resolves for us: valued at 1', async () => {
    const db = tempDb();
    const first = await startDaemon(3, { seed: 5, trade: 2, db });
    let held: string;
    let conditionId: string;
    let other: string;
    try {
      const [mA, mB] = first.daemon.markets;
      conditionId = mA.conditionId;
      other = mB.tokenId;
      await takeOneBid(first, mA.conditionId);
      held = [mA.tokenId, mA.complementId].find((t) => first.daemon.engine.positions.qty(t) > 0) as string;
    } finally {
      await first.close();
    }
    // restarted quoting the second market only, on the same store (the same seed: the same markets)
    const second = await startDaemon(3, { seed: 5, trade: 1, db, daemon: { tokens: [other] } });
    try {
      const d = second.daemon;
      expect(d.engine.marketOf(held)).toBeUndefined();
      expect(d.engine.positions.qty(held)).toBeGreaterThan(0);
      expect([...d.engine.heldOutsideMarkets().keys()]).toEqual([conditionId]);
      const emuA = second.emu.markets.find((m) => m.conditionId === conditionId);
      if (!emuA) throw new Error('no market A at the emulator');
      emuA.facts.winner = held;
      expect(await until('resolved', async () => (await d.resolutions?.checkOnce()) === 1 || d.engine.valueOf(held) === 10_000)).toBe(true);
      expect(d.engine.valueOf(held)).toBe(10_000);
    } finally {
      await second.close();
    }
  }, 60_000);
});

describe('the venue answer the watch reads (a real capture)', () => {
  it("a closed, resolved market's CLOB object parses with its winner token", () => {
    const m = clobMarketSchema.parse(fixture('nautilus_trader/rust_test_data/clob_market_closed_binary_accepting_false.json'));
    const winners = (m.tokens ?? []).filter((t) => t.winner === true);
    expect(winners).toHaveLength(1);
    expect(winners[0].outcome).toBe('No');
    expect((m.tokens ?? []).find((t) => t.winner === false)?.outcome).toBe('Yes');
  });
});

describe('the watch itself', () => {
  /** An engine holding 10 of token Z of market 0xz, which it does not quote. */
  async function holdingOutside() {
    const clock = new VirtualClock(1_700_000_000_000);
    const { engine } = await bandsEngine({ clock, venue: new RecordingVenue(() => clock.now()), params: { bands: [{ distance: 0.02, size: 10 }] } });
    engine.positions.apply('Z', 'BUY', 4000, 1000, 0);
    engine.noteMarketOf('Z', '0xz');
    return engine;
  }
  const answer = (winner: string | undefined, tokens = ['Z', 'Z2']): ClobMarket => ({ condition_id: '0xz', tokens: tokens.map((t) => ({ token_id: t, winner: t === winner })) });

  it('stopped while a question is out: the answer settles nothing (the engine may be stopping)', async () => {
    const engine = await holdingOutside();
    let reply: (m: ClobMarket) => void = () => undefined;
    const watch = new ResolutionWatch({ engine, market: () => new Promise((r) => (reply = r)), log: silentLogger });
    const run = watch.checkOnce();
    watch.stop();
    reply(answer('Z2'));
    expect(await run).toBe(0);
    expect(engine.settledMark('Z')).toBeUndefined();
    await engine.stop();
  });

  it('an answer naming two winners, or another market, settles nothing', async () => {
    const engine = await holdingOutside();
    const two: ClobMarket = {
      condition_id: '0xz',
      tokens: [
        { token_id: 'Z', winner: true },
        { token_id: 'Z2', winner: true },
      ],
    };
    expect(await new ResolutionWatch({ engine, market: async () => two, log: silentLogger }).checkOnce()).toBe(0);
    expect(await new ResolutionWatch({ engine, market: async () => ({ ...answer('Z2'), condition_id: '0xother' }), log: silentLogger }).checkOnce()).toBe(0);
    expect(engine.settledMark('Z')).toBeUndefined();
    expect(await new ResolutionWatch({ engine, market: async () => answer('Z2'), log: silentLogger }).checkOnce()).toBe(1);
    expect(engine.settledMark('Z')).toBe(0);
    await engine.stop();
  });

  it('a market that cannot be read is logged its first few times, however other markets fare', async () => {
    const engine = await holdingOutside();
    engine.positions.apply('W', 'BUY', 4000, 1000, 0);
    engine.noteMarketOf('W', '0xw');
    const lines: string[] = [];
    const log = createLogger({ level: 'warn', name: 't', destination: { write: (l: string) => void lines.push(l) } });
    const watch = new ResolutionWatch({
      engine,
      market: async (id) => {
        if (id === '0xz') throw new Error('404');
        return {
          condition_id: '0xw',
          tokens: [
            { token_id: 'W', winner: false },
            { token_id: 'W2', winner: false },
          ],
        };
      },
      log,
    });
    for (let i = 0; i < 10; i++) await watch.checkOnce();
    expect(lines.filter((l) => l.includes('could not be read')).length).toBe(3);
    await engine.stop();
  });
});
