// GET /metrics of a running daemon (in process, live against the emulator), read with an
// independent Prometheus text parser (parse-prometheus-text-format) and held to the exposition
// lint: names, `_total` on counters only, HELP and TYPE on every family, base units, no -1 or NaN
// sentinels; promtool's own `check metrics` too where it is installed. Then the families the issue
// asks for, quoting 0 while quotes are pulled, the halt's reason, and the Grafana dashboard's
// PromQL (parsed with Prometheus' lezer grammar): every metric it names is exposed.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFileSync } from 'node:child_process';
import { request } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import parsePrometheusTextFormat, { type ParsedFamily } from 'parse-prometheus-text-format';
import { parser } from '@prometheus-io/lezer-promql';
import { startDaemon, sleep, takeOneBid, type Running } from './daemon-fixture.js';

const PROMTOOL = '/usr/bin/promtool';
const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
/** Families whose values may be negative (money and net exposure); every other value is >= 0. */
const SIGNED = new Set(['makerd_pnl_dollars', 'makerd_cash_dollars', 'makerd_market_pnl_dollars', 'makerd_net_exposure_shares']);

let run: Running;
beforeAll(async () => {
  run = await startDaemon(2);
  // a fill of ours, and a few seconds of quoting: places caused by market events, feed deltas
  await takeOneBid(run);
  await sleep(2000);
  // a place a market event caused (tick to order): the first quotes follow start-up's look-ups, so
  // one comes when the book next moves a quote (seconds at the emulator's default rate)
  const end = Date.now() + 30_000;
  while (!/^makerd_tick_to_order_seconds_count [1-9]/m.test(await (await fetch(`${run.url}/metrics`)).text()) && Date.now() < end) await sleep(200);
  // prom-client's event-loop lag summary restarts at each scrape: samples for the tests' own
  await sleep(1000);
}, 90_000);
afterAll(async () => {
  await run?.close();
});

async function scrape(): Promise<{ text: string; families: ParsedFamily[]; byName: Map<string, ParsedFamily> }> {
  const r = await fetch(`${run.url}/metrics`);
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await r.text();
  const families = parsePrometheusTextFormat(text);
  return { text, families, byName: new Map(families.map((f) => [f.name, f])) };
}

/** The label names and values of a family's sample lines in the text (a histogram's _bucket, _sum and _count lines included). */
function series(text: string, name: string): Array<{ labels: Record<string, string>; value: number; line: string }> {
  const out = [];
  const re = new RegExp(`^${name}(?:_bucket|_sum|_count)?(?:\\{(.*)\\})? (\\S+)$`, 'gm');
  for (const m of text.matchAll(re)) {
    const labels: Record<string, string> = {};
    for (const l of (m[1] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    out.push({ labels, value: Number(m[2]), line: m[0] });
  }
  return out;
}
const countOf = (text: string, name: string) => series(text, name).filter((s) => s.line.startsWith(`${name}_count`));

const values = (f: ParsedFamily | undefined) => (f?.metrics ?? []).map((m) => Number(m.value));
const only = (f: ParsedFamily | undefined, labels: Record<string, string>) => (f?.metrics ?? []).filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));

describe('GET /metrics', () => {
  it('passes the exposition lint', async () => {
    const { text, families } = await scrape();
    expect(families.length).toBeGreaterThan(60);
    const names = new Set<string>();
    for (const f of families) {
      expect(f.name, f.name).toMatch(NAME);
      expect(names.has(f.name), `${f.name} twice`).toBe(false);
      names.add(f.name);
      expect(f.help.trim().length, `HELP of ${f.name}`).toBeGreaterThan(0);
      expect(f.type, `TYPE of ${f.name}`).not.toBe('UNTYPED');
      expect(text).toContain(`# HELP ${f.name} `);
      expect(text).toContain(`# TYPE ${f.name} ${f.type.toLowerCase()}`);
      if (f.type === 'COUNTER') expect(f.name, 'a counter ends in _total').toMatch(/_total$/);
      else expect(f.name, 'only counters end in _total').not.toMatch(/_total$/);
      // base units: seconds and bytes, never ms, us, kb, mb or percent
      expect(f.name).not.toMatch(/_(ms|millis|milliseconds|us|micros|microseconds|kb|mb|gb|kilobytes|megabytes|percent)(_|$)/);
      if (/(latency|duration|delay|_age|lag)/.test(f.name)) expect(f.name, 'a time is in seconds').toMatch(/_seconds(_total)?$/);
      for (const m of f.metrics) {
        for (const l of Object.keys(m.labels ?? {})) expect(l).toMatch(/^[a-zA-Z_][a-zA-Z0-9_]*$/);
        if (f.type === 'HISTOGRAM') continue; // checked from the text below
        const v = Number(m.value);
        expect(Number.isFinite(v), `${f.name} ${JSON.stringify(m)}`).toBe(true);
        if (f.name.startsWith('makerd_') && !SIGNED.has(f.name)) expect(v, `${f.name} ${JSON.stringify(m.labels)}`).toBeGreaterThanOrEqual(0);
      }
    }
    // histograms: each series has buckets up to +Inf, a sum and a count, all finite
    for (const f of families.filter((x) => x.type === 'HISTOGRAM')) {
      // (a labelled histogram has no series before its first observation)
      const lines = series(text, f.name);
      for (const l of lines) expect(Number.isFinite(l.value), l.line).toBe(true);
      expect(lines.filter((l) => l.labels.le === '+Inf').length).toBe(countOf(text, f.name).length);
    }
    // no catch-all family: the feed's counters are one family per meaning
    expect(text).not.toMatch(/^makerd_feed\{/m);
    if (existsSync(PROMTOOL)) {
      // promtool exits 0 with no output when the lint passes (`check metrics` reads stdin)
      const out = execFileSync(PROMTOOL, ['check', 'metrics'], { input: text, encoding: 'utf8' });
      expect(out.trim()).toBe('');
    } else {
      console.warn(`${PROMTOOL} not found (apt-get install prometheus): promtool's lint skipped, the checks above still ran`);
    }
  });

  it('has latency histograms, positions, book and quote gauges, rate limits and process metrics', async () => {
    const { text, byName } = await scrape();
    const count = (name: string) => countOf(text, name).reduce((a, s) => a + s.value, 0);
    expect(count('makerd_tick_to_order_seconds')).toBeGreaterThan(0);
    expect(count('makerd_feed_delay_seconds')).toBeGreaterThan(0);
    const http = byName.get('makerd_http_request_duration_seconds');
    expect(http?.type).toBe('HISTOGRAM');
    const httpCounts = countOf(text, 'makerd_http_request_duration_seconds');
    expect(httpCounts.filter((s) => s.labels.api === 'clob' && s.labels.endpoint === 'POST /orders' && /^2\d\d$/.test(s.labels.status)).length).toBeGreaterThan(0);
    expect(httpCounts.filter((s) => s.labels.endpoint === 'GET /book' && s.labels.status === '200')).toHaveLength(1);
    // the fill: counted by market, token and side
    expect(only(byName.get('makerd_fills_total'), { side: 'BUY' }).map((m) => m.value)).toEqual(['1']);
    expect(values(byName.get('makerd_position_shares')).filter((v) => v > 0)).toHaveLength(1);
    expect(values(byName.get('makerd_filled_shares_total'))).toEqual(values(byName.get('makerd_position_shares')).filter((v) => v > 0));
    expect(byName.get('makerd_position_shares')?.metrics).toHaveLength(4);
    expect(byName.get('makerd_net_exposure_shares')?.metrics).toHaveLength(2);
    expect(byName.get('makerd_book_mid')?.metrics).toHaveLength(4);
    expect(byName.get('makerd_book_spread')?.metrics).toHaveLength(4);
    for (const v of values(byName.get('makerd_book_mid'))) expect(v > 0 && v < 1).toBe(true);
    // both markets rest a bid and an ask: distance from the top on each side
    const dist = byName.get('makerd_quote_distance_from_top');
    expect(only(dist, { side: 'bid' })).toHaveLength(2);
    expect(only(dist, { side: 'ask' })).toHaveLength(2);
    expect(values(byName.get('makerd_open_orders')).reduce((a, b) => a + b, 0)).toBe(4);
    expect(values(byName.get('makerd_book_in_sync'))).toEqual([1, 1, 1, 1]);
    const ages = values(byName.get('makerd_book_age_seconds'));
    expect(ages).toHaveLength(4);
    for (const a of ages) expect(a).toBeGreaterThanOrEqual(0);
    expect(only(byName.get('makerd_rate_limit_used'), { scope: 'clob:POST /orders:burst' })).toHaveLength(1);
    expect(values(byName.get('makerd_rate_limit_used_ratio')).every((v) => v >= 0 && v <= 1)).toBe(true);
    expect(only(byName.get('makerd_feed_frames_total'), { channel: 'market' }).map((m) => Number(m.value))[0]).toBeGreaterThan(0);
    expect(only(byName.get('makerd_feed_live'), { channel: 'user' }).map((m) => m.value)).toEqual(['1']);
    for (const n of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_p99_seconds']) expect(byName.has(n), n).toBe(true);
    expect(values(byName.get('makerd_healthy'))).toEqual([1]);
    expect(values(byName.get('makerd_quoting'))).toEqual([1]);
    // what runs: a paper run's PnL must not pass for live on a dashboard
    const info = byName.get('makerd_info')?.metrics ?? [];
    expect(info.map((m) => ({ ...m.labels, value: m.value }))).toEqual([{ mode: 'live', profile: 'spec', value: '1' }]);
  });

  it('every metric the Grafana dashboard queries is exposed, with the labels it matches on', async () => {
    const { text, byName } = await scrape();
    const dash = JSON.parse(readFileSync(new URL('../../dashboards/makerd.json', import.meta.url), 'utf8')) as {
      __inputs: Array<{ name: string }>;
      panels: Array<{ id: number; title: string; gridPos: { x: number; y: number; w: number; h: number }; targets?: Array<{ expr: string }> }>;
      templating: { list: Array<{ definition?: string }> };
    };
    // a model Grafana imports: the data source as an input, unique panel ids, panels inside the 24 columns and not overlapping
    expect(dash.__inputs.map((i) => i.name)).toEqual(['DS_PROMETHEUS']);
    expect(new Set(dash.panels.map((p) => p.id)).size).toBe(dash.panels.length);
    for (const [i, a] of dash.panels.entries()) {
      const g = a.gridPos;
      expect(g.x + g.w, a.title).toBeLessThanOrEqual(24);
      for (const b of dash.panels.slice(i + 1)) {
        const h = b.gridPos;
        expect(g.x < h.x + h.w && h.x < g.x + g.w && g.y < h.y + h.h && h.y < g.y + g.h, `${a.title} overlaps ${b.title}`).toBe(false);
      }
    }
    const exprs = dash.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ title: p.title, expr: t.expr })));
    for (const v of dash.templating.list) if (v.definition) exprs.push({ title: 'variable', expr: v.definition.replace(/^label_values\((\w+), \w+\)$/, '$1') });
    expect(exprs.length).toBeGreaterThan(30);
    const familyOf = (name: string) => byName.get(name) ?? byName.get(name.replace(/_(bucket|sum|count)$/, ''));
    const used = new Set<string>();
    for (const { title, expr } of exprs) {
      // Grafana's variables, as Grafana substitutes them
      const q = expr.replace(/\$__rate_interval|\$__interval/g, '1m');
      const tree = parser.parse(q);
      const labelsOf = new Map<string, string[]>();
      let current = '';
      tree.iterate({
        enter: (n) => {
          expect(n.type.isError, `${title}: ${expr} does not parse at ${n.from}`).toBe(false);
          if (n.name === 'Identifier' && n.node.parent?.name === 'VectorSelector') {
            current = q.slice(n.from, n.to);
            labelsOf.set(current, []);
          } else if (n.name === 'LabelName' && n.node.parent?.name.endsWith('LabelMatcher')) labelsOf.get(current)?.push(q.slice(n.from, n.to));
        },
      });
      expect(labelsOf.size, `${title}: ${expr} names no metric`).toBeGreaterThan(0);
      for (const [name, labels] of labelsOf) {
        const fam = familyOf(name);
        expect(fam, `${title}: ${name} is not in /metrics`).toBeDefined();
        used.add(name);
        const have = new Set(series(text, fam?.name ?? name).flatMap((s) => Object.keys(s.labels)));
        for (const l of labels) expect(have.has(l), `${title}: ${name} has no label ${l}`).toBe(true);
      }
    }
    // the panels cover what the issue names: PnL, exposure, quotes vs top, fills, latency, limits, health
    for (const n of [
      'makerd_pnl_dollars',
      'makerd_net_exposure_shares',
      'makerd_quote_distance_from_top',
      'makerd_fills_total',
      'makerd_tick_to_order_seconds_bucket',
      'makerd_http_request_duration_seconds_bucket',
      'makerd_feed_delay_seconds_bucket',
      'makerd_rate_limit_used_ratio',
      'makerd_healthy',
      'makerd_halted',
    ])
      expect(used.has(n), n).toBe(true);
  });

  it('reads quoting 0 while the quotes are pulled, and the halt with its reason', async () => {
    const e = run.daemon.engine;
    // the feed watchdog pulls every market's quotes: still started, not halted
    e.setFeedLive(false);
    let m = (await scrape()).byName;
    expect(values(m.get('makerd_quoting'))).toEqual([0]);
    expect(values(m.get('makerd_market_quoting'))).toEqual([0, 0]);
    expect(values(m.get('makerd_halted'))).toEqual([0, 0, 0, 0, 0]);
    e.setFeedLive(true);
    m = (await scrape()).byName;
    expect(values(m.get('makerd_quoting'))).toEqual([1]);
    e.halt('daily loss 12.00 exceeds limit 10');
    m = (await scrape()).byName;
    expect(values(m.get('makerd_quoting'))).toEqual([0]);
    expect(only(m.get('makerd_halted'), { reason: 'daily_loss' }).map((x) => x.value)).toEqual(['1']);
    expect(values(m.get('makerd_halted')).reduce((a, b) => a + b, 0)).toBe(1);
    expect(values(m.get('makerd_healthy'))).toEqual([0]);
  });
});

describe('a scrape and the loop', () => {
  it('reads its families in loop turns of their own: the feed and orders are not held for a whole scrape', async () => {
    const text = (async () => {
      let out = '';
      for await (const p of run.daemon.status.metrics.pieces()) out += p;
      return out;
    })();
    let turns = 0;
    let done = false;
    void text.then(() => (done = true));
    while (!done && turns < 10_000) {
      await new Promise((r) => setImmediate(r));
      turns++;
    }
    expect(done).toBe(true);
    // a turn per family read from the daemon (dozens; the histograms and fill counters are kept
    // as they go and take none); read in one turn, the scrape would be done after 1
    const families = (await text).split('\n').filter((l) => l.startsWith('# TYPE makerd_')).length;
    expect(families).toBeGreaterThan(30);
    expect(turns).toBeGreaterThan(families / 2);
  });
});

describe('a scraper that goes away', () => {
  it('a scrape abandoned after its first bytes does not hold the next one (scrapes run one at a time)', async () => {
    // the client reads the first chunk and cuts the connection, twice
    for (let i = 0; i < 2; i++) {
      await new Promise<void>((resolve, reject) => {
        const req = request(`${run.url}/metrics`, (res) => res.once('data', () => (req.destroy(), resolve())));
        req.on('error', (e) => (e.message === 'socket hang up' ? resolve() : reject(e)));
        req.setTimeout(10_000, () => req.destroy(new Error('no first chunk in 10 s')));
        req.end();
      });
    }
    // the next scrape is answered whole, within a bound
    const r = await fetch(`${run.url}/metrics`, { signal: AbortSignal.timeout(10_000) });
    expect(r.status).toBe(200);
    const text = await r.text();
    expect(text).toMatch(/^# HELP /);
    expect(text).toContain('# TYPE makerd_book_hash_checks_total counter');
    expect(text.endsWith('\n')).toBe(true);
  });
});

describe('GET /metrics before a book', () => {
  it('leaves out the age, mid and spread of a token with no book yet (never -1 or NaN)', async () => {
    const d = run.daemon;
    const m = d.markets[0];
    const fake = { ...m, conditionId: '0x' + 'ab'.repeat(32), tokenId: '1'.repeat(70), complementId: '2'.repeat(70) };
    d.setMarkets([...d.markets, fake]);
    const text = await (await fetch(`${run.url}/metrics`)).text();
    const byName = new Map(parsePrometheusTextFormat(text).map((f) => [f.name, f]));
    const tokens = (name: string) => (byName.get(name)?.metrics ?? []).map((x) => x.labels?.token);
    expect(tokens('makerd_book_in_sync')).toContain(fake.tokenId);
    expect(only(byName.get('makerd_book_in_sync'), { token: fake.tokenId }).map((x) => x.value)).toEqual(['0']);
    for (const name of ['makerd_book_age_seconds', 'makerd_book_mid', 'makerd_book_spread', 'makerd_book_best_price']) {
      expect(tokens(name), name).not.toContain(fake.tokenId);
      expect(tokens(name).length, name).toBeGreaterThanOrEqual(4);
    }
    // ours; prom-client's event-loop mean and stddev read NaN between two close scrapes (no samples)
    expect(text.split('\n').filter((l) => l.startsWith('makerd_') && / (-1|NaN)$/.test(l))).toEqual([]);
  });
});
