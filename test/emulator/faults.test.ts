import { describe, it, expect, afterAll, beforeAll } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { BookMirror } from '../../src/book/mirror.js';
import { createMarketDecodeStats, decodeMarketFrame } from '../../src/feed/decode-market.js';
import type { MarketEvent } from '../../src/core/events.js';
import { openSocket, waitFor, type TestSocket } from './helpers.js';
import { stressSyntheticParams } from '../../src/emulator/agents.js';

let emu: RunningEmulator;
// fast market so frames keep coming
beforeAll(async () => {
  emu = await startEmulator({ seed: 9, speed: 20, tickMs: 10, params: stressSyntheticParams });
});
afterAll(async () => {
  await emu.close();
});

async function marketSocket(): Promise<TestSocket> {
  const s = await openSocket(`${emu.urls.ws}/ws/market`);
  s.send(JSON.stringify({ assets_ids: emu.markets[0].tokens, type: 'market', custom_feature_enabled: true }));
  await waitFor(() => s.frames.length > 0 || undefined, 3000, 'snapshot');
  return s;
}

async function admin(patch: Record<string, unknown>): Promise<{ status: number; json: { data: Record<string, unknown> } }> {
  const r = await fetch(`http://127.0.0.1:${emu.port}/admin/faults`, { method: 'POST', body: JSON.stringify(patch), signal: AbortSignal.timeout(3000) });
  return { status: r.status, json: (await r.json()) as { data: Record<string, unknown> } };
}

/** Feeds the socket's frames (from index `from`) through the project decoder and mirror. */
function mirrorOf(s: TestSocket): { mirror: BookMirror; feed: () => void; rejects: () => number } {
  const mirror = new BookMirror({ verifyEvery: 1 });
  const stats = createMarketDecodeStats();
  const evs: MarketEvent[] = [];
  let i = 0;
  return {
    mirror,
    feed() {
      for (; i < s.frames.length; i++) {
        evs.length = 0;
        decodeMarketFrame(s.frames[i], evs, stats);
        for (const e of evs) mirror.apply(e);
      }
      // no flush(): the frames so far may end inside a batch; a group is checked when the next
      // timestamp arrives (the stream goes on), as a live mirror does
    },
    rejects: () => [...stats.rejects.values()].reduce((a, b) => a + b, 0),
  };
}

describe('emulator faults', () => {
  it('a clean feed verifies; a wrong hash and a skipped update are caught by the mirror', async () => {
    const s = await marketSocket();
    try {
      const m = mirrorOf(s);
      // the messages of a batch share one check: enough frames for several batches
      await waitFor(() => s.frames.length > 120 || undefined, 5000, 'frames');
      m.feed();
      const [yes] = emu.markets[0].tokens;
      expect(m.mirror.stats(yes)!.mismatches).toBe(0);
      expect(m.mirror.stats(yes)!.hashesVerified).toBeGreaterThan(5);
      expect((await admin({ wrongHashNext: 1 })).status).toBe(200);
      await waitFor(() => (m.feed(), m.mirror.stats(yes)!.mismatches > 0) || undefined, 5000, 'wrong hash caught');
    } finally {
      s.close();
    }
    const s2 = await marketSocket();
    try {
      const m = mirrorOf(s2);
      await waitFor(() => s2.frames.length > 5 || undefined, 5000, 'frames');
      const [yes, no] = emu.markets[0].tokens;
      // A skipped update is caught (hash or best bid/ask mismatch, either takes the token out of
      // sync) unless the next frame is a book after a trade, which heals it: skip until caught.
      const caught = (): boolean => (m.feed(), m.mirror.stats(yes)!.outOfSync + m.mirror.stats(no)!.outOfSync > 0);
      for (let i = 0; i < 10 && !caught(); i++) {
        await admin({ skipNext: 1 });
        await waitFor(() => emu.admin.get().skipNext === 0 || undefined, 3000, 'skip used');
        await new Promise((r) => setTimeout(r, 150));
      }
      expect(caught()).toBe(true);
    } finally {
      s2.close();
    }
  });

  it('malformed frames are sent and counted by the decoder', async () => {
    const s = await marketSocket();
    try {
      const m = mirrorOf(s);
      await admin({ malformedNext: 2 });
      await waitFor(() => (m.feed(), m.rejects() >= 2) || undefined, 5000, 'malformed frames');
    } finally {
      s.close();
    }
  });

  it('dropped connections close; a silent feed answers PONG but sends no data and ignores resubscribes', async () => {
    const s = await marketSocket();
    const r = await admin({ drop: true });
    expect(r.json.data.dropped).toBeGreaterThanOrEqual(1);
    await waitFor(() => s.closed() || undefined, 3000, 'socket closed');
    const s2 = await marketSocket();
    try {
      await admin({ silentFeed: true });
      const n = s2.frames.length;
      s2.send(JSON.stringify({ assets_ids: emu.markets[0].tokens, operation: 'subscribe' }));
      s2.send('PING');
      await waitFor(() => s2.frames.includes('PONG') || undefined, 2000, 'PONG');
      await new Promise((res) => setTimeout(res, 300));
      expect(s2.frames.slice(n)).toEqual(['PONG']);
      await admin({ silentFeed: false });
      await waitFor(() => s2.frames.length > n + 1 || undefined, 5000, 'data again');
    } finally {
      s2.close();
    }
  });

  it('REST 500s and 429s (next N), latency', async () => {
    const url = `${emu.urls.clob}/tick-size?token_id=${emu.markets[0].tokens[0]}`;
    await admin({ http500Next: 1, http429Next: 1 });
    const r1 = await fetch(url);
    expect(r1.status).toBe(500);
    const r2 = await fetch(url);
    expect(r2.status).toBe(429);
    expect(r2.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
    expect((await fetch(url)).status).toBe(200);
    await admin({ latencyMs: 150 });
    const t0 = Date.now();
    expect((await fetch(url)).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
    await admin({ latencyMs: 0 });
    expect((await admin({ nope: 1 })).status).toBe(400);
  });
});
