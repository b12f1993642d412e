// The daemon's Prometheus registry (prom-client): default process metrics, the families read from
// the running daemon at each scrape (families.ts), and the latency histograms fed by small taps
// the daemon installs: the market events handed to the engine (feed delay, and the start of a
// tick-to-order sample), the venue's place calls (its end), every HTTP attempt (REST latency), and
// the journal's fills (fill counters, the live page's last fills).
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ExchangeObserver } from '../api/transport.js';
import type { MarketEvent } from '../core/events.js';
import type { MarketEventSink } from '../feed/market-pipeline.js';
import type { Journal } from '../engine/engine-sink.js';
import type { Fill } from '../engine/fills.js';
import type { Venue } from '../venue/types.js';
import { registerFamilies } from './families.js';
import { expositionPieces } from './exposition.js';
import { SessionHistory, marketsKept } from './history.js';
import type { MetricsView, StatusSource } from './source.js';

const LATENCY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25];
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const DELAY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** A path's ids replaced by ':id' (an order id, a condition id, an address), so endpoints stay few. */
export function endpointOf(method: string, path: string): string {
  const p = path
    .split('/')
    .map((seg) => (/^0x/i.test(seg) || (seg.length >= 8 && /\d/.test(seg)) ? ':id' : seg))
    .join('/');
  return `${method} ${p}`;
}

type FillLabels = { market: string; token: string; side: string };

export class StatusMetrics implements MetricsView {
  readonly registry = new Registry();
  /** PnL samples and the last fills of this session (the live page). */
  readonly history = new SessionHistory();
  /** Starts a scrape: the families read the tokens afresh (once for all of them). */
  private readonly newScrape: () => void;
  private readonly tickToOrder: Histogram;
  private readonly http: Histogram<'api' | 'endpoint' | 'status'>;
  private readonly feedDelay: Histogram;
  private readonly fills: Counter<'market' | 'token' | 'side'>;
  private readonly filledShares: Counter<'market' | 'token' | 'side'>;
  /** The fill counters' label sets by market (token|side), so a gone market's series can be removed. */
  private readonly fillSeries = new Map<string, Map<string, FillLabels>>();
  /** performance.now() of the first market event handed to the engine in this loop turn; NaN outside one. */
  private turnStart = NaN;
  /** The scrape in progress (settled when none is). */
  private scrapes: Promise<void> = Promise.resolve();
  private lastDelayTs = NaN;

  constructor(private readonly d: StatusSource) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    // gauges named like counters fail the exposition lint; the per-type gauges (nodejs_active_handles{type}) stay
    for (const n of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) this.registry.removeSingleMetric(n);
    this.tickToOrder = new Histogram({
      name: 'makerd_tick_to_order_seconds',
      help: 'From the first market event handed to the engine in a loop turn to a place call to the venue in that turn (decode excluded, the HTTP exchange is makerd_http_request_duration_seconds).',
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.http = new Histogram({
      name: 'makerd_http_request_duration_seconds',
      help: 'REST attempts by API, endpoint (ids as :id) and HTTP status (error: no answer, timeout: the call deadline).',
      labelNames: ['api', 'endpoint', 'status'],
      buckets: HTTP_BUCKETS,
      registers,
    });
    this.feedDelay = new Histogram({
      name: 'makerd_feed_delay_seconds',
      help: "From a market change's venue timestamp to its handoff to the engine (price changes and trades; clock skew included, negative clamped to 0).",
      buckets: DELAY_BUCKETS,
      registers,
    });
    this.fills = new Counter({ name: 'makerd_fills_total', help: 'Our fills recorded in this process, by market, token and side.', labelNames: ['market', 'token', 'side'], registers });
    this.filledShares = new Counter({
      name: 'makerd_filled_shares_total',
      help: 'Shares of our fills recorded in this process, by market, token and side.',
      labelNames: ['market', 'token', 'side'],
      registers,
    });
    this.newScrape = registerFamilies(this.registry, d);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /**
   * The text exposition of every family (GET /metrics), in pieces a few hundred series long with
   * loop turns between them (exposition.ts). Scrapes run one after another: a family's read spans
   * turns, and a second scrape's reset would empty it midway. Iterate to the end (or break).
   */
  async *pieces(): AsyncGenerator<string> {
    const before = this.scrapes;
    let done = (): void => undefined;
    this.scrapes = new Promise<void>((r) => (done = r));
    try {
      await before;
      this.newScrape();
      this.pruneFills();
      yield* expositionPieces(this.registry);
    } finally {
      done();
    }
  }

  /** The engine as the pipeline's sink, with each event's delay measured and the turn's start noted. */
  tapEvents(engine: MarketEventSink): MarketEventSink {
    return {
      handleMarketEvent: (e: MarketEvent) => {
        if (this.turnStart !== this.turnStart) {
          this.turnStart = performance.now();
          setImmediate(() => (this.turnStart = NaN));
        }
        // one sample per timestamp: the changes of one venue instant arrive together
        if ((e.type === 'price_change' || e.type === 'last_trade_price') && e.timestampMs !== this.lastDelayTs) {
          this.lastDelayTs = e.timestampMs;
          this.feedDelay.observe(Math.max(0, this.d.clock.now() - e.timestampMs) / 1000);
        }
        engine.handleMarketEvent(e);
      },
    };
  }

  /** `venue` with its place calls timed from the turn's first market event (tick to order). */
  tapPlaces<V extends Venue>(venue: V): V {
    const many = venue.placeOrders.bind(venue);
    const one = venue.placeOrder.bind(venue);
    venue.placeOrders = (reqs) => (this.placed(), many(reqs));
    venue.placeOrder = (req) => (this.placed(), one(req));
    return venue;
  }

  private placed(): void {
    const t = this.turnStart;
    if (t === t) this.tickToOrder.observe((performance.now() - t) / 1000);
  }

  /** The HTTP observer for the API clients (clients.observeHttp). */
  readonly observeHttp: ExchangeObserver = (api, method, path, status, seconds) => {
    this.http.observe({ api, endpoint: endpointOf(method, path), status: String(status) }, seconds);
  };

  /**
   * Removes the fill counters' series of the markets gone from the daemon's set (history.ts
   * marketsKept): the other families are read afresh from the set at each scrape, these count on.
   */
  private pruneFills(): void {
    const keep = marketsKept(this.d);
    for (const [market, series] of this.fillSeries) {
      if (keep(market)) continue;
      for (const labels of series.values()) {
        this.fills.remove(labels);
        this.filledShares.remove(labels);
      }
      this.fillSeries.delete(market);
    }
  }

  /** The journal with every new fill counted and kept for the live page. */
  tapJournal(j: Journal): Journal {
    const fill = (f: Fill) => {
      const labels = { market: f.market, token: f.tokenId, side: f.side };
      let series = this.fillSeries.get(f.market);
      if (!series) {
        // a market's first fill: the gone markets' series go now too, whether /metrics is scraped or not
        this.pruneFills();
        this.fillSeries.set(f.market, (series = new Map()));
      }
      series.set(`${f.tokenId}|${f.side}`, labels);
      this.fills.inc(labels);
      this.filledShares.inc(labels, f.size / 100);
      this.history.fill(f);
    };
    const tapped: Journal = {
      orderChanged: (o) => j.orderChanged(o),
      fill: (f) => {
        j.fill(f);
        fill(f);
      },
      fillStatus: (f) => j.fillStatus(f),
    };
    if (j.unit) {
      const unit = j.unit.bind(j);
      tapped.unit = (fn) => unit(fn);
    }
    return tapped;
  }
}
