// The exposition writer (status/exposition.ts) against prom-client's own formatter, the reference:
// the same registry gives the same text. And the reason it exists: a family of thousands of
// series is written over many loop turns, not in one.
import { describe, it, expect } from 'vitest';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { EXPOSITION_SLICE, expositionPieces } from '../../src/status/exposition.js';
import { scrapeFamily } from '../../src/status/scrape-family.js';

async function whole(reg: Registry): Promise<string> {
  let out = '';
  for await (const p of expositionPieces(reg)) out += p;
  return out;
}

describe('expositionPieces', () => {
  it("writes what prom-client's registry.metrics() writes", async () => {
    const reg = new Registry();
    const registers = [reg];
    const g = new Gauge({ name: 'x_gauge', help: 'A help with a back\\slash and a\nnewline.', labelNames: ['market', 'side'], registers });
    g.set({ market: 'plain', side: 'bid' }, 0.25);
    g.set({ market: 'q"uote', side: 'a\\b' }, -3);
    g.set({ market: 'new\nline', side: 'ask' }, Infinity);
    g.set({ market: 'neg', side: 'ask' }, -Infinity);
    g.set({ market: 'big', side: 'ask' }, 1e21);
    new Gauge({ name: 'x_empty', help: 'No series.', labelNames: ['a'], registers });
    new Gauge({ name: 'x_one', help: 'One series, no labels.', registers }).set(7);
    const c = new Counter({ name: 'x_things_total', help: 'A counter.', labelNames: ['kind'], registers });
    c.inc({ kind: 'a' }, 3);
    c.inc({ kind: 'b' });
    const h = new Histogram({ name: 'x_seconds', help: 'A histogram.', labelNames: ['api', 'status'], buckets: [0.001, 0.01, 0.1], registers });
    h.observe({ api: 'clob', status: '200' }, 0.005);
    h.observe({ api: 'clob', status: '429' }, 0.5);
    new Histogram({ name: 'x_bare_seconds', help: 'No labels.', buckets: [1, 2], registers }).observe(1.5);
    const ours = await whole(reg);
    expect(ours).toBe(await reg.metrics());
    expect(ours).toContain('x_gauge{market="q\\"uote",side="a\\\\b"} -3');
    expect(ours).toContain('x_seconds_bucket{le="+Inf",api="clob",status="429"} 1');
  });

  it('writes a family of thousands of series over many loop turns', async () => {
    const reg = new Registry();
    const g = new Gauge({ name: 'x_many', help: 'Many.', labelNames: ['token'], registers: [reg] });
    const n = 5000;
    for (let i = 0; i < n; i++) g.set({ token: String(i) }, i);
    let turns = 0;
    let counting = true;
    const tick = () => {
      turns++;
      if (counting) setImmediate(tick);
    };
    setImmediate(tick);
    const seenAt: number[] = [];
    let text = '';
    for await (const p of expositionPieces(reg)) {
      seenAt.push(turns);
      text += p;
      expect(p.split('\n').filter((l) => l.startsWith('x_many{')).length).toBeLessThanOrEqual(EXPOSITION_SLICE);
    }
    counting = false;
    expect(text).toBe(await reg.metrics());
    expect(seenAt.length).toBe(n / EXPOSITION_SLICE);
    // other work ran between every two pieces
    for (let i = 1; i < seenAt.length; i++) expect(seenAt[i]).toBeGreaterThan(seenAt[i - 1]);
  });

  it('reads a family of thousands of series (one per token) over many loop turns', async () => {
    const reg = new Registry();
    const n = 3000;
    const samples = Array.from({ length: n }, (_, i) => [{ token: String(i) }, i % 7 === 0 ? NaN : i] as const);
    scrapeFamily(reg, 'gauge', 'per_token', 'Per token.', ['token'], () => samples);
    scrapeFamily(reg, 'counter', 'per_token_events', 'Per token.', ['token'], () => samples.map(([l, v]) => [l, v % 2 ? -v : v] as const));
    const g = reg.getSingleMetric('makerd_per_token');
    let turns = 0;
    let done = false;
    const read = g!.get().then((m) => ((done = true), m));
    while (!done && turns < 1000) {
      await new Promise((r) => setImmediate(r));
      turns++;
    }
    const m = await read;
    expect(turns).toBeGreaterThanOrEqual(Math.floor(n / EXPOSITION_SLICE));
    // non-finite values left out, the rest as read
    expect(m.values.length).toBe(n - Math.ceil(n / 7));
    expect(m.values.find((v) => v.labels.token === '10')?.value).toBe(10);
    const text = await reg.metrics();
    expect(text).toContain('makerd_per_token_events_total{token="2"} 2');
    // a counter leaves out the negative samples
    expect(text).not.toContain('makerd_per_token_events_total{token="3"}');
  });
});
