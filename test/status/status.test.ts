// GET /status of a running daemon (in-process, live against the emulator on loopback): the
// process section (RSS, event-loop lag since start or the last ?loop=reset), feed reconnects and
// frames, and ?brief=1 (counts instead of the per-market, per-token and per-order lists).
import { describe, it, expect } from 'vitest';
import type { Daemon } from '../../src/session/daemon.js';
import { startDaemon } from './daemon-fixture.js';

interface Loop {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  samples: number;
  sinceMs: number;
}
interface Status {
  process: { rssMb: number; heapUsedMb: number; loop: Loop };
  feeds: { marketConnections: string[]; reconnects: { market: number; user: number }; frames: { market: number; user: number } };
  counts?: { markets: number; marketsQuoting: number; marketsQuotingBothSides: number; openOrders: number; positions: number };
  tokens?: unknown[];
  markets?: unknown[];
  openOrders?: unknown[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function status(d: Daemon, query = ''): Promise<Status> {
  const r = await fetch(`${d.status.url}/status${query}`);
  expect(r.status).toBe(200);
  return (await r.json()) as Status;
}

describe('GET /status', () => {
  it('reports RSS and event-loop lag (reset on ?loop=reset), feed reconnects, and counts under ?brief=1', async () => {
    const run = await startDaemon(2, { seed: 3 });
    const { daemon: d, emu } = run;
    try {
      // both markets rest a bid and an ask
      const end = Date.now() + 15_000;
      let b = await status(d, '?brief=1');
      while ((b.counts?.marketsQuotingBothSides ?? 0) < 2 && Date.now() < end) {
        await sleep(100);
        b = await status(d, '?brief=1');
      }
      expect(b.counts).toMatchObject({ markets: 2, marketsQuoting: 2, marketsQuotingBothSides: 2, openOrders: 4 });
      expect(b.tokens).toBeUndefined();
      expect(b.markets).toBeUndefined();
      expect(b.openOrders).toBeUndefined();
      expect(b.feeds.marketConnections).toEqual(['live']);
      expect(b.feeds.reconnects).toEqual({ market: 0, user: 0 });
      expect(b.feeds.frames.market).toBeGreaterThan(0);
      expect(b.process.rssMb).toBeGreaterThan(10);
      // the full view keeps its lists, and has the process section too (the lag monitor's first
      // sample needs two of its 10 ms ticks: a start on a loaded machine may be read before them)
      let full = await status(d);
      for (const until = Date.now() + 2000; full.process.loop.samples === 0 && Date.now() < until;) {
        await sleep(20);
        full = await status(d);
      }
      expect(full.tokens).toHaveLength(4);
      expect(full.openOrders).toHaveLength(4);
      expect(full.counts).toBeUndefined();
      expect(full.process.loop.samples).toBeGreaterThan(0);
      // an interval starts at the reset: a 60 ms block of the loop shows in it, and not after the next reset
      await status(d, '?brief=1&loop=reset');
      await sleep(50);
      const t = performance.now();
      while (performance.now() - t < 60);
      await sleep(100);
      const blocked = (await status(d, '?brief=1&loop=reset')).process.loop;
      expect(blocked.maxMs).toBeGreaterThan(40);
      expect(blocked.p50Ms).toBeLessThan(blocked.maxMs);
      expect(blocked.sinceMs).toBeLessThan(1000);
      await sleep(200);
      const calm = (await status(d, '?brief=1')).process.loop;
      // the 60 ms block is gone (a shorter stall of a busy machine may still show)
      expect(calm.maxMs).toBeLessThan(60);
      expect(calm.samples).toBeGreaterThan(5);
      // a dropped market connection is one reconnect
      emu.admin.dropConnections();
      const end2 = Date.now() + 10_000;
      let r = (await status(d, '?brief=1')).feeds;
      while ((r.reconnects.market < 1 || r.marketConnections[0] !== 'live') && Date.now() < end2) {
        await sleep(100);
        r = (await status(d, '?brief=1')).feeds;
      }
      expect(r.reconnects.market).toBe(1);
    } finally {
      await run.close();
    }
  }, 60_000);
});
