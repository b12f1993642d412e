// Replay mode: a recording (the recorder's lines, read by src/feed/replay.ts) is published frame
// by frame as recorded, at market time = recording time (the server maps wall time x speed onto
// it). The project's mirror keeps each token's book for REST /book and for first-subscribe
// snapshots; the same decoded events feed the users' simulated venues (replay-orders.ts).
// The reader runs ahead asynchronously into a bounded buffer; when it ends the market goes quiet.
import { BookMirror } from '../book/mirror.js';
import { DenseBook } from '../book/book.js';
import { bookHashPayloadFromText, sha1Hex } from '../book/hash.js';
import { formatPrice, parsePrice, parseSize, tickDecimals, PRICE_SCALE } from '../core/units.js';
import { createMarketDecodeStats, decodeMarketFrame } from '../feed/decode-market.js';
import type { BookEvent, MarketEvent } from '../core/events.js';
import { readRecording, type ReplayRecord } from '../feed/replay.js';
import type { DecodeStats } from '../feed/decode-stats.js';
import type { BookObject, MarketFacts, RestBook } from './book-frames.js';
import type { EmuMarket, FrameType, MarketFrame } from './market.js';
import { ReplayOrderDesk } from './replay-orders.js';

interface ScannedMarket {
  conditionId: string;
  tokens: string[];
  tick: number;
}

export interface RecordingScan {
  markets: ScannedMarket[];
  firstT: number;
  lastT: number;
  frames: number;
}

/** First pass over a recording: which markets and tokens it holds, and its time span. */
export async function scanRecording(path: string): Promise<RecordingScan> {
  const stats = createMarketDecodeStats();
  const markets = new Map<string, ScannedMarket>();
  const evs: MarketEvent[] = [];
  let firstT = Infinity;
  let lastT = -Infinity;
  let frames = 0;
  for await (const r of readRecording(path)) {
    if (r.k !== 'market') continue;
    evs.length = 0;
    decodeMarketFrame(r.f, evs, stats);
    if (!evs.length) continue;
    frames++;
    firstT = Math.min(firstT, r.t);
    lastT = Math.max(lastT, r.t);
    for (const e of evs) {
      let m = markets.get(e.market);
      if (!m) markets.set(e.market, (m = { conditionId: e.market, tokens: [], tick: 100 }));
      const ids = e.type === 'price_change' ? e.changes.map((c) => c.assetId) : 'assetId' in e ? [e.assetId] : [];
      for (const id of ids) if (!m.tokens.includes(id)) m.tokens.push(id);
      if (e.type === 'book' && e.tickSize !== undefined && e.tickSize > 0) m.tick = e.tickSize;
    }
  }
  return { markets: [...markets.values()], firstT: Number.isFinite(firstT) ? firstT : 0, lastT: Number.isFinite(lastT) ? lastT : 0, frames };
}

const BUFFER = 4096;

/** The one reader of the recording, shared by its markets; advances them all by time. */
export class ReplayFeed {
  readonly markets: ReplayMarket[] = [];
  readonly mirror = new BookMirror({ verifyEvery: 1 });
  readonly desk: ReplayOrderDesk;
  readonly decodeStats: DecodeStats = createMarketDecodeStats();
  private readonly byCondition = new Map<string, ReplayMarket>();
  private buf: ReplayRecord[] = [];
  private head = 0;
  private done = false;
  private closed = false;
  /** Read failures (e.g. a truncated gzip tail). */
  readErrors = 0;
  private wake: (() => void) | undefined;
  private now: number;
  private readonly evs: MarketEvent[] = [];

  constructor(
    readonly path: string,
    readonly scan: RecordingScan,
  ) {
    this.now = scan.firstT;
    for (const s of scan.markets) {
      const m = new ReplayMarket(this, s, this.markets.length);
      this.markets.push(m);
      this.byCondition.set(s.conditionId, m);
    }
    this.desk = new ReplayOrderDesk(
      this.markets.map((m) => ({ conditionId: m.conditionId, tokens: m.tokens, tick: m.facts.tick, minSize: m.facts.minSize })),
      scan.firstT,
      () => this.markets.flatMap((m) => m.bookEvents()),
    );
    void this.pump();
  }

  time(): number {
    return this.now;
  }
  ended(): boolean {
    return this.done && this.head >= this.buf.length;
  }

  private async pump(): Promise<void> {
    try {
      // a gzip error ends the file without a throw (the frames before it are published): counted here
      for await (const r of readRecording(this.path, () => this.readErrors++)) {
        if (this.closed) break;
        if (r.k !== 'market') continue;
        this.buf.push(r);
        if (this.buf.length - this.head >= BUFFER) await new Promise<void>((res) => (this.wake = res));
      }
    } catch {
      this.readErrors++; // any other read failure ends the replay early too; what was read is published
    } finally {
      this.done = true;
    }
  }

  /** Stops the reader (closes the file). */
  close(): void {
    this.closed = true;
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  advanceTo(toMs: number): void {
    while (this.head < this.buf.length && this.buf[this.head].t <= toMs) {
      const r = this.buf[this.head++];
      this.now = Math.max(this.now, r.t);
      this.apply(r);
    }
    if (this.head > BUFFER) {
      this.buf = this.buf.slice(this.head);
      this.head = 0;
    }
    if (this.wake && this.buf.length - this.head < BUFFER / 2) {
      const w = this.wake;
      this.wake = undefined;
      w();
    }
    if (toMs > this.now && (this.head < this.buf.length || this.done)) this.now = toMs;
    this.desk.advanceTo(this.now);
  }

  private apply(r: ReplayRecord): void {
    const evs = this.evs;
    evs.length = 0;
    decodeMarketFrame(r.f, evs, this.decodeStats);
    if (!evs.length) return;
    for (const e of evs) {
      this.mirror.apply(e);
      this.desk.marketEvent(e, r.t);
      this.byCondition.get(e.market)?.noteEvent(e);
    }
    const first = evs[0];
    const m = this.byCondition.get(first.market);
    if (!m) return;
    const single = evs.length === 1 && 'assetId' in first ? first.assetId : undefined;
    m.publish({ ts: r.t, type: first.type as FrameType, conditionId: first.market, assetId: single, text: r.f });
  }
}

export class ReplayMarket implements EmuMarket {
  readonly conditionId: string;
  readonly tokens: [string, string];
  readonly facts: MarketFacts;
  readonly question: string;
  readonly slug: string;
  readonly stats = { trades: 0 };
  private readonly listeners: Array<(f: MarketFrame) => void> = [];
  private readonly ltpStr = new Map<string, string>();
  private readonly ltpUnits = new Map<string, number>();
  private tickStr: string;
  private lastTs = 0;
  private readonly empty = new Map<string, DenseBook>();
  readonly frames = {
    book: (tokenId: string): DenseBook => {
      const b = this.feed.mirror.book(tokenId);
      if (b && b.inSync()) return b;
      let e = this.empty.get(tokenId);
      if (!e) this.empty.set(tokenId, (e = new DenseBook(tokenId)));
      return e;
    },
    price: (p: number): string => formatPrice(p, tickDecimals(this.facts.tick)),
  };

  constructor(
    private readonly feed: ReplayFeed,
    s: ScannedMarket,
    index: number,
  ) {
    this.conditionId = s.conditionId;
    // a recording of one token only: the second slot repeats it
    this.tokens = [s.tokens[0] ?? '', s.tokens[1] ?? s.tokens[0] ?? ''];
    this.facts = { conditionId: s.conditionId, tokens: this.tokens, tick: s.tick, minSize: 500, negRisk: false };
    this.tickStr = formatPrice(s.tick);
    this.question = `Replayed market ${index + 1} (${s.conditionId.slice(0, 10)}...)`;
    this.slug = `replay-${index + 1}-${s.conditionId.slice(2, 10)}`;
  }

  time(): number {
    return this.feed.time();
  }
  advanceTo(toMs: number): void {
    this.feed.advanceTo(toMs);
  }
  onFrame(fn: (f: MarketFrame) => void): void {
    this.listeners.push(fn);
  }
  lastTradePriceUnits(tokenId: string): number | undefined {
    return this.ltpUnits.get(tokenId);
  }

  publish(f: MarketFrame): void {
    this.lastTs = Math.max(this.lastTs, f.ts);
    for (const fn of this.listeners) fn(f);
  }

  noteEvent(e: MarketEvent): void {
    if (e.type === 'book') {
      if (e.lastTradePriceStr !== undefined) this.ltpStr.set(e.assetId, e.lastTradePriceStr);
      if (e.tickSizeStr !== undefined) this.tickStr = e.tickSizeStr;
      this.lastTs = Math.max(this.lastTs, e.timestampMs);
    } else if (e.type === 'price_change') {
      this.lastTs = Math.max(this.lastTs, e.timestampMs);
    } else if (e.type === 'last_trade_price') {
      this.stats.trades++;
      this.ltpUnits.set(e.assetId, e.price);
      const other = this.tokens[0] === e.assetId ? this.tokens[1] : this.tokens[0];
      if (other !== e.assetId) this.ltpUnits.set(other, PRICE_SCALE - e.price);
    } else if (e.type === 'tick_size_change') {
      this.tickStr = e.newTickSizeStr;
    }
  }

  private known(tokenIds: readonly string[]): string[] {
    return [...new Set(tokenIds)].filter((t) => this.feed.mirror.book(t)?.inSync());
  }

  private bookObject(tokenId: string): BookObject {
    const b = this.feed.mirror.book(tokenId)!;
    const timestamp = String(this.lastTs);
    // a token never snapshotted (seeded from its sibling) hashes with the sibling's value, as the mirror does
    const sibling = this.tokens[0] === tokenId ? this.tokens[1] : this.tokens[0];
    const ltp = this.ltpStr.get(tokenId) ?? this.ltpStr.get(sibling) ?? '';
    const hash = sha1Hex(
      bookHashPayloadFromText(
        { market: this.conditionId, assetId: tokenId, timestamp, minOrderSize: '5', tickSize: this.tickStr, negRisk: false, lastTradePrice: ltp },
        b.sideText('BUY'),
        b.sideText('SELL'),
      ),
    );
    const lv = (side: 'BUY' | 'SELL') => b.wireLevels(side).map(([price, size]) => ({ price, size }));
    return { market: this.conditionId, asset_id: tokenId, timestamp, hash, bids: lv('BUY'), asks: lv('SELL'), tick_size: this.tickStr, event_type: 'book', last_trade_price: ltp };
  }

  snapshot(tokenIds: readonly string[] = this.tokens): BookObject[] {
    return this.known(tokenIds).map((t) => this.bookObject(t));
  }

  restBook(tokenId: string): RestBook | undefined {
    if (!this.known([tokenId]).length) return undefined;
    const b = this.bookObject(tokenId);
    return {
      market: b.market,
      asset_id: b.asset_id,
      timestamp: b.timestamp,
      hash: b.hash,
      bids: b.bids,
      asks: b.asks,
      min_order_size: '5',
      tick_size: b.tick_size,
      neg_risk: false,
      last_trade_price: b.last_trade_price ?? '',
    };
  }

  /** The current books as typed events (seeds a user's venue created mid-replay). */
  bookEvents(): BookEvent[] {
    return this.known(this.tokens).map((t) => {
      const o = this.bookObject(t);
      const lv = (l: { price: string; size: string }) => ({ price: parsePrice(l.price), size: parseSize(l.size), priceStr: l.price, sizeStr: l.size });
      return {
        type: 'book',
        market: o.market,
        assetId: t,
        timestampMs: Number(o.timestamp),
        timestampStr: o.timestamp,
        hash: o.hash,
        bids: o.bids.map(lv),
        asks: o.asks.map(lv),
        tickSize: this.facts.tick,
        tickSizeStr: this.tickStr,
      };
    });
  }
}
