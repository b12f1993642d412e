import { describe, it, expect } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SyntheticMarket, type MarketFrame } from '../../src/emulator/synthetic-market.js';
import { startEmulator } from '../../src/emulator/server.js';
import { writeSyntheticRecording } from '../../src/emulator/recording-writer.js';
import { ruleTick } from '../../src/emulator/tick-rule.js';
import { BookMirror } from '../../src/book/mirror.js';
import { createMarketDecodeStats, decodeMarketFrame } from '../../src/feed/decode-market.js';
import type { MarketEvent } from '../../src/core/events.js';
import { cli } from '../../src/cli.js';
import { openSocket, waitFor } from './helpers.js';
import { stressSyntheticParams } from '../../src/emulator/agents.js';

const T0 = Date.UTC(2026, 0, 1);
/** A fair value that wanders to the top edge within a minute of market time (seed 3). */
const EDGE = { ...stressSyntheticParams, startPrice: 9300, fairMax: 9900, volPerSqrtSec: 60 };

type Msg = Record<string, unknown>;

function mirrorFeeding(): { mirror: BookMirror; feed: (text: string) => void; resyncs: string[] } {
  const resyncs: string[] = [];
  const mirror = new BookMirror({ verifyEvery: 1, onResync: (a, why) => resyncs.push(`${a}:${why}`) });
  const stats = createMarketDecodeStats();
  const evs: MarketEvent[] = [];
  const feed = (text: string): void => {
    evs.length = 0;
    decodeMarketFrame(text, evs, stats);
    for (const ev of evs) mirror.apply(ev);
  };
  return { mirror, feed, resyncs };
}

describe('tick size change: the synthetic market', () => {
  it('follows the venue rule (0.01 -> 0.001 past 0.96 / under 0.04, back well inside)', () => {
    expect(ruleTick(100, 9500, 9700)).toBe(10);
    expect(ruleTick(100, 300, 500)).toBe(10);
    expect(ruleTick(100, 9500, 9600)).toBe(100);
    expect(ruleTick(100, 0, 10000)).toBe(100); // empty book
    expect(ruleTick(10, 9400, 9550)).toBe(10); // hysteresis: not yet back
    expect(ruleTick(10, 9400, 9500)).toBe(100);
    expect(ruleTick(1000, 9990, 9999)).toBe(1000); // other ticks are only forced
  });

  it('near the edge: tick_size_change for both tokens, then fresh books on the new tick; every hash verifies; deterministic', () => {
    const run = (): { frames: MarketFrame[]; market: SyntheticMarket } => {
      const market = new SyntheticMarket({ seed: 3, startMs: T0, params: EDGE });
      const frames: MarketFrame[] = [];
      market.onFrame((f) => frames.push(f));
      frames.push({ ts: T0, type: 'book', conditionId: market.conditionId, text: JSON.stringify(market.snapshot()) });
      market.advanceTo(T0 + 120_000);
      return { frames, market };
    };
    const { frames, market } = run();
    expect(run().frames.map((f) => f.text)).toEqual(frames.map((f) => f.text));
    const changes = frames.map((f, i) => [f, i] as const).filter(([f]) => f.type === 'tick_size_change');
    expect(changes.length).toBeGreaterThanOrEqual(4); // at least there and back again
    for (let k = 0; k < changes.length; k += 2) {
      const i = changes[k][1];
      const [a, b, c, d] = frames.slice(i, i + 4).map((f) => JSON.parse(f.text) as Msg);
      expect(Object.keys(a).sort()).toEqual(['asset_id', 'event_type', 'market', 'new_tick_size', 'old_tick_size', 'timestamp']);
      expect([a.asset_id, b.asset_id]).toEqual(market.tokens);
      expect(b.event_type).toBe('tick_size_change');
      expect(b.new_tick_size).toBe(a.new_tick_size);
      expect(a.old_tick_size).not.toBe(a.new_tick_size);
      expect([c.event_type, d.event_type]).toEqual(['book', 'book']);
      expect([c.asset_id, d.asset_id]).toEqual(market.tokens);
      expect([c.tick_size, d.tick_size]).toEqual([a.new_tick_size, a.new_tick_size]);
      expect(Number(c.timestamp)).toBeGreaterThan(Number(a.timestamp));
    }
    // the fine tick's prices are quoted: levels off the 0.01 grid appear while it holds
    const fine = frames.filter((f) => f.type === 'price_change').some((f) => /"price":"0\.\d\d[1-9]"/.test(f.text));
    expect(fine).toBe(true);
    const { mirror, feed, resyncs } = mirrorFeeding();
    for (const f of frames) feed(f.text);
    mirror.flush();
    for (const t of market.tokens) {
      const s = mirror.stats(t)!;
      expect(s.mismatches).toBe(0);
      expect(s.bestMismatches).toBe(0);
      expect(s.hashesVerified).toBeGreaterThan(500);
      expect(mirror.book(t)?.inSync() === true).toBe(true);
    }
    expect(resyncs.filter((r) => r.endsWith(':tick_size_change')).length).toBe(changes.length);
  });

  it('a recording written across tick changes verifies with makerd verify (0 mismatches)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'makerd-tick-'));
    try {
      const file = join(dir, 'edge.jsonl');
      await writeSyntheticRecording({ file, seed: 3, durationS: 90, params: EDGE });
      const out: string[] = [];
      const err: string[] = [];
      const code = await cli(['verify', file, '--json'], { out: (l) => out.push(l), err: (l) => err.push(l), env: {} });
      expect(err).toEqual([]);
      expect(code).toBe(0);
      const report = JSON.parse(out.join('')) as { ok: boolean; tokens: Array<{ hashesVerified: number; mismatches: number }> };
      expect(report.ok).toBe(true);
      for (const t of report.tokens) {
        expect(t.mismatches).toBe(0);
        expect(t.hashesVerified).toBeGreaterThan(100);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('tick size change: the emulator (forced by admin)', () => {
  it('WS gets the change then fresh books that verify; REST and Gamma answer the new tick; orders must be on the new grid', async () => {
    const emu = await startEmulator({ seed: 4, speed: 1, keys: ['k1'], params: stressSyntheticParams });
    const s = await openSocket(`${emu.urls.ws}/ws/market`);
    try {
      const m = emu.markets[0];
      const [yes, no] = m.tokens;
      const base = emu.urls.clob;
      const get = async (url: string): Promise<Msg> => ((await (await fetch(url)).json()) as { data: Msg }).data;
      const order = async (price: string): Promise<{ status: number; body: Msg }> => {
        const r = await fetch(`${base}/order`, {
          method: 'POST',
          headers: { authorization: 'Bearer k1', 'content-type': 'application/json' },
          body: JSON.stringify({ tokenID: yes, price, size: '5', side: 'BUY', orderType: 'GTC' }),
        });
        return { status: r.status, body: (await r.json()) as Msg };
      };
      const { mirror, feed } = mirrorFeeding();
      s.ws.on('message', (d) => feed(d.toString()));
      s.send(JSON.stringify({ assets_ids: [yes, no], type: 'market' }));
      await waitFor(() => mirror.book(yes)?.inSync() === true && mirror.book(no)?.inSync() === true, 3000, 'first snapshot');
      expect(await get(`${base}/tick-size?token_id=${yes}`)).toEqual({ minimum_tick_size: 0.01 });
      // on the 0.01 grid a 0.001 price is refused
      const early = await order('0.115');
      expect(early.status).toBe(400);
      expect((early.body.error as Msg).code).toBe('INVALID_ORDER_MIN_TICK_SIZE');

      const before = s.frames.length;
      const r = await fetch(`${emu.urls.clob.replace(/\/clob$/, '')}/admin/faults`, { method: 'POST', body: JSON.stringify({ tickSize: '0.001' }) });
      expect(r.status).toBe(200);
      expect(((await r.json()) as { data: Msg }).data.tickChanged).toBe(1);
      const after = (): Msg[] => s.frames.slice(before).map((t) => JSON.parse(t) as Msg);
      await waitFor(() => after().filter((x) => x.event_type === 'book').length >= 2, 3000, 'fresh books');
      const seq = after();
      const ti = seq.findIndex((x) => x.event_type === 'tick_size_change');
      expect(ti).toBeGreaterThanOrEqual(0);
      expect(seq.slice(ti, ti + 2).map((x) => [x.event_type, x.asset_id, x.old_tick_size, x.new_tick_size, x.market])).toEqual([
        ['tick_size_change', yes, '0.01', '0.001', m.conditionId],
        ['tick_size_change', no, '0.01', '0.001', m.conditionId],
      ]);
      const books = seq.slice(ti + 2).filter((x) => x.event_type === 'book');
      expect(books.slice(0, 2).map((x) => [x.asset_id, x.tick_size])).toEqual([
        [yes, '0.001'],
        [no, '0.001'],
      ]);
      // the mirror dropped the books on the change and re-synced from the fresh ones, hashes verified
      await waitFor(() => mirror.book(yes)?.inSync() === true && mirror.book(no)?.inSync() === true, 3000, 're-sync');
      for (const t of [yes, no]) {
        const st = mirror.stats(t)!;
        expect(st.mismatches).toBe(0);
        expect(st.outOfSync).toBe(1);
        expect(st.hashesVerified).toBeGreaterThanOrEqual(2);
      }
      expect(await get(`${base}/tick-size?token_id=${yes}`)).toEqual({ minimum_tick_size: 0.001 });
      expect((await get(`${base}/book?token_id=${no}`)).tick_size).toBe('0.001');
      const gm = (await (await fetch(`${emu.urls.gamma}/markets`)).json()) as { data: Msg[] };
      expect(gm.data[0].orderPriceMinTickSize).toBe(0.001);
      // the new grid is accepted
      const fineOk = await order('0.115');
      expect(fineOk.status).toBe(201);

      // forced back to 0.01: an order at the old (0.001) grid is rejected; one on the new grid accepted
      expect(emu.admin.setTickSize('0.01')).toBe(1);
      const old = await order('0.117');
      expect(old.status).toBe(400);
      expect((old.body.error as Msg).code).toBe('INVALID_ORDER_MIN_TICK_SIZE');
      expect((await order('0.12')).status).toBe(201);
      // the resting 0.115 order stays where it is
      expect(emu.exchange.openOrders('k1').map((o) => o.price)).toEqual(expect.arrayContaining([1150, 1200]));
      expect(emu.exchange.rejectionsOf('k1')).toEqual({ INVALID_ORDER_MIN_TICK_SIZE: 2 });
      await waitFor(() => mirror.book(yes)?.inSync() === true && mirror.stats(yes)!.outOfSync === 2, 3000, 'second re-sync');
      expect(mirror.stats(yes)!.mismatches).toBe(0);

      // bad admin input
      const bad = await fetch(`${emu.urls.clob.replace(/\/clob$/, '')}/admin/faults`, { method: 'POST', body: JSON.stringify({ tickSize: '0.02' }) });
      expect(bad.status).toBe(400);
      expect(() => emu.admin.setTickSize('0.001', '0xnope')).toThrow(/unknown market/);
    } finally {
      s.close();
      await emu.close();
    }
  });
});

describe('tick size change: makerd emulator --fault-tick-size', () => {
  it('forces the tick after the given seconds; a bad tick is a usage error (exit 2)', async () => {
    const quiet = { out: () => undefined, err: () => undefined, env: {} };
    expect(await cli(['emulator', '--fault-tick-size', '0.02'], quiet)).toBe(2);
    expect(await cli(['emulator', '--fault-tick-size', '0.001@soon'], quiet)).toBe(2);
    const dir = mkdtempSync(join(tmpdir(), 'makerd-tick-'));
    const urlsFile = join(dir, 'urls.json');
    const running = cli(['emulator', '--synthetic', '2', '--urls-out', urlsFile, '--fault-tick-size', '0.001@1.5'], quiet);
    try {
      const urls = await waitFor(
        () => {
          try {
            return JSON.parse(readFileSync(urlsFile, 'utf8')) as Record<string, string>;
          } catch {
            return undefined;
          }
        },
        3000,
        'urls file',
      );
      const tickOf = async (): Promise<number> => {
        const ms = ((await (await fetch(`${urls.clob}/markets`, { signal: AbortSignal.timeout(3000) })).json()) as { data: { data: Array<{ minimum_tick_size: number }> } }).data;
        return ms.data[0].minimum_tick_size;
      };
      expect(await tickOf()).toBe(0.01);
      const end = Date.now() + 5000;
      let tick = 0.01;
      while (tick !== 0.001 && Date.now() < end) {
        await new Promise((r) => setTimeout(r, 50));
        tick = await tickOf();
      }
      expect(tick).toBe(0.001);
    } finally {
      process.emit('SIGTERM');
      expect(await running).toBe(0);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
