import { describe, it, expect } from 'vitest';
import { bounded, kill, KEY, setup, spawnDaemon, until, type Env, useTestScope } from './harness.js';

useTestScope();

/** Ids and prices of every order of ours the venue accepted (live or done). */
function ourOrders(e: Env): Map<string, number> {
  const out = new Map<string, number>();
  for (const o of e.emu.exchange.orders.values()) if (o.owner === KEY) out.set(o.id, o.price);
  return out;
}

function newSince(e: Env, before: ReadonlySet<string>): number[] {
  return [...ourOrders(e)].filter(([id]) => !before.has(id)).map(([, p]) => p);
}

interface Status {
  quoting: boolean;
  haltReason: string | null;
}

describe('tick size change', () => {
  it('the daemon keeps quoting across a forced tick change, on the new grid, with no tick-size rejection', async () => {
    const e = await setup();
    const m = e.emu.markets[0];
    const daemon = spawnDaemon(e);
    await bounded(daemon.ready, 15_000, 'ready');
    await until('quotes at the venue', () => e.emu.exchange.openOrders(KEY).length > 0, 8000);
    expect([...ourOrders(e).values()].every((p) => p % 100 === 0)).toBe(true);

    // 0.01 -> 0.001: the daemon's books drop, re-sync from the fresh snapshots, and it quotes on
    // the finer grid (a price off the 0.01 grid shows that it uses the new tick, not just keeps the old)
    const before = new Set(ourOrders(e).keys());
    expect(e.emu.admin.setTickSize('0.001')).toBe(1);
    expect(m.facts.tick).toBe(10);
    const fine = await until('a quote off the 0.01 grid', () => newSince(e, before).some((p) => p % 100 !== 0), 15_000, 50);
    expect(fine).toBe(true);
    expect(newSince(e, before).every((p) => p % 10 === 0)).toBe(true);
    expect(e.emu.exchange.openOrders(KEY).length).toBeGreaterThan(0);
    const url = daemon.statusUrl();
    const st = (await (await fetch(`${url}/status`)).json()) as Status;
    expect(st.quoting).toBe(true);
    expect(st.haltReason).toBeNull();

    // to a finer grid nothing the daemon sends can be off it: no rejection at all
    expect(e.emu.exchange.rejectionsOf(KEY).INVALID_ORDER_MIN_TICK_SIZE ?? 0).toBe(0); // (a crossing post-only may be refused)
    expect(daemon.output.filter((l) => l.includes('INVALID_ORDER_MIN_TICK_SIZE'))).toEqual([]);

    // 0.001 -> 0.01: new quotes go back to the coarse grid; resting fine-grid ones may stay
    // (they are valid at the venue) until the daemon replaces them. An order already on its way
    // when the venue changes tick is rejected, as at the real venue (seen about once in 30 runs:
    // one requote's pair); so this part asserts that rejections stop once the daemon has the news.
    const fineIds = new Set(ourOrders(e).keys());
    expect(e.emu.admin.setTickSize('0.01')).toBe(1);
    await until('new quotes after the change back', () => newSince(e, fineIds).length >= 4, 15_000, 50);
    const raced = e.emu.exchange.rejectionsOf(KEY).INVALID_ORDER_MIN_TICK_SIZE ?? 0;
    expect(raced).toBeLessThanOrEqual(4);
    const coarseIds = new Set(ourOrders(e).keys());
    await until('more quotes on the coarse grid', () => newSince(e, coarseIds).length >= 6, 15_000, 50);
    expect(e.emu.exchange.rejectionsOf(KEY).INVALID_ORDER_MIN_TICK_SIZE ?? 0).toBe(raced);
    expect(newSince(e, fineIds).every((p) => p % 100 === 0)).toBe(true);
    // the daemon saw both changes; its books re-synced from the fresh snapshots, never on a hash mismatch
    expect(daemon.output.filter((l) => l.includes('tick size changed')).length).toBeGreaterThanOrEqual(2);
    const metrics = await until(
      'books back in sync',
      async () => {
        const text = await (await fetch(`${url}/metrics`)).text();
        return (text.match(/^makerd_book_in_sync\{[^}]*\} 1$/gm) ?? []).length === 2 ? text : undefined;
      },
      10_000,
      100,
    );
    const episodes = (reason: string): number => Number(new RegExp(`^makerd_book_out_of_sync_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0);
    expect(episodes('tick_size_change')).toBeGreaterThanOrEqual(4); // two changes x two tokens
    expect(episodes('hash_mismatch')).toBe(0);
    expect(episodes('inconsistent_group')).toBe(0);
    expect(episodes('best_mismatch')).toBe(0);
    kill(daemon, 'SIGTERM');
    expect(await bounded(daemon.exited, 15_000, 'exit')).toBe(0);
    expect(e.emu.exchange.openOrders(KEY)).toEqual([]);
  }, 60_000);
});
