// A seeded synthetic binary market: fair value, makers and takers (agents.ts) trading in ONE
// matching engine that users' orders share, so a quoting bot meets real queues, fills and adverse
// selection. Virtual-time driven (advanceTo) and deterministic for a seed. Every book change is
// published as wire frames shaped like the real feed (book-frames.ts): the level changes of one
// millisecond form a batch of price_change messages sharing a timestamp; batches and snapshots get
// strictly increasing timestamps. A trade moves the hashed last_trade_price (3 decimals; by default
// already in the batch sent before the last_trade_price event, and 1 - p on the complement), then
// fresh book frames follow without the last_trade_price key. The tick changes as the venue's does
// (tick-rule.ts): tick_size_change for both tokens, then fresh books.
import { hex64 } from './ids.js';
import { SeededRng, type Rng } from '../core/rng.js';
import { PRICE_SCALE } from '../core/units.js';
import type { MatchFill, MarketSpec, MatchOrder, PlaceOutcome, RestingOrder } from '../venue/matching-api.js';
import { MatchingEngine } from '../venue/matching-engine.js';
import { FairValue, Maker, Taker, defaultSyntheticParams, type AgentContext, type SyntheticParams } from './agents.js';
import { FrameBuilder, realFeedShape, type BookObject, type FeedShape, type MarketFacts, type RestBook } from './book-frames.js';
import { hashedLtp } from '../book/ltp-recovery.js';
import type { EmuMarket, FrameType, MarketFrame } from './market.js';
import { COARSE_TICK, ruleTick } from './tick-rule.js';

export type { FrameType, MarketFrame } from './market.js';

export interface SyntheticMarketOptions {
  seed: number;
  /** Market time at the start, ms since the epoch. */
  startMs: number;
  /** Index of the market when an emulator runs several (changes the ids and the stream). */
  index?: number;
  params?: Partial<SyntheticParams>;
  question?: string;
  /**
   * The feed's shape and the group-corruption fault, read at every batch (the emulator's admin may
   * change them while it runs); default the real feed, no fault.
   */
  feed?: FeedControls;
}

/** FeedShape plus a fault: the next N batches of two or more messages get one hash corrupted, at a seeded position. */
export interface FeedControls extends FeedShape {
  corruptGroupHashNext: number;
}

/** Owner names of synthetic agents start with this; anything else is a user (an API key). */
export const SYNTHETIC_OWNER_PREFIX = 'synthetic:';

/** A 77-digit decimal token id derived from a label, shaped like the venue's. */
function tokenIdFor(label: string): string {
  const n = BigInt('0x' + hex64(label)) % 10n ** 77n;
  return n.toString().padStart(77, '1');
}

type AgentKind = 0 | 1 | 2 | 3; // fair value, maker, taker, expiry sweep

export class SyntheticMarket implements EmuMarket {
  readonly facts: MarketFacts;
  readonly engine: MatchingEngine;
  readonly frames: FrameBuilder;
  readonly question: string;
  readonly slug: string;
  readonly params: SyntheticParams;
  private readonly rng: Rng;
  private readonly fair: FairValue;
  private readonly makers: Maker[] = [];
  private readonly takers: Taker[] = [];
  // agent schedule: parallel arrays, scanned linearly (a handful of agents)
  private readonly nextAt: number[] = [];
  private readonly kinds: AgentKind[] = [];
  private readonly agentIdx: number[] = [];
  private now: number;
  private lastTs = 0;
  private orderSeq = 0;
  private readonly ltp = new Map<string, string>();
  private readonly ltpUnits = new Map<string, number>();
  private pendingTrades: MatchFill[] = [];
  /** Trades whose prints wait for feed.printLagMs: the market time each is due, in order. */
  private readonly lagged: Array<{ due: number; trades: MatchFill[] }> = [];
  /** A forced tick (admin) holds until forced again or handed back to the rule. */
  private tickPinned = false;
  private readonly frameListeners: Array<(f: MarketFrame) => void> = [];
  private readonly fillListeners: Array<(fills: MatchFill[]) => void> = [];
  private readonly goneListeners: Array<(orders: RestingOrder[], reason: 'expired') => void> = [];
  private readonly ctx: AgentContext;
  private readonly feed: FeedControls;
  private readonly faultRng: Rng;
  /** Counters for benchmarks and status. */
  readonly stats = { agentEvents: 0, frames: 0, trades: 0, tickChanges: 0 };

  constructor(opts: SyntheticMarketOptions) {
    const index = opts.index ?? 0;
    const root = new SeededRng(opts.seed);
    this.rng = root.fork(`market-${index}`);
    this.params = { ...defaultSyntheticParams, ...opts.params };
    this.feed = opts.feed ?? { ...realFeedShape, corruptGroupHashNext: 0 };
    this.faultRng = root.fork(`faults-${index}`);
    const label = `makerd-synthetic:${opts.seed}:${index}`;
    this.facts = {
      conditionId: '0x' + hex64(label + ':condition'),
      tokens: [tokenIdFor(label + ':yes'), tokenIdFor(label + ':no')],
      tick: COARSE_TICK,
      minSize: 500,
      negRisk: false,
    };
    const spec: MarketSpec = { conditionId: this.facts.conditionId, tokens: this.facts.tokens, tick: this.facts.tick, minSize: this.facts.minSize };
    this.engine = new MatchingEngine(spec);
    this.frames = new FrameBuilder(this.facts, this.engine);
    this.question = opts.question ?? `Synthetic market ${opts.seed}-${index}: will the fair value end above 0.50?`;
    this.slug = `synthetic-${opts.seed}-${index}`;
    this.now = opts.startMs;
    this.fair = new FairValue(this.params, this.rng.fork('fair'));
    const start = Math.round(this.params.startPrice / this.facts.tick) * this.facts.tick;
    this.ltp.set(this.facts.tokens[0], hashedLtp(start, this.facts.tick));
    this.ltp.set(this.facts.tokens[1], hashedLtp(PRICE_SCALE - start, this.facts.tick));
    this.ctx = {
      engine: this.engine,
      tokens: this.facts.tokens,
      tick: this.facts.tick,
      minSize: this.facts.minSize,
      place: (o) => {
        this.placeInternal(o);
      },
      cancel: (id) => {
        this.engine.cancel(id);
      },
      nextOrderId: () => '0x' + (++this.orderSeq).toString(16).padStart(64, '0'),
    };
    this.schedule(0, 0, opts.startMs);
    for (let i = 0; i < this.params.makers; i++) {
      this.makers.push(new Maker(`${SYNTHETIC_OWNER_PREFIX}maker-${i}`, this.params, this.rng.fork(`maker-${i}`)));
      // seed the book at the start: every maker quotes at once
      this.makers[i].refresh(this.ctx, this.fair.value);
      this.schedule(1, i, opts.startMs + this.rng.exp(this.params.makerRefreshPerSec * this.params.activity) * 1000);
    }
    this.takers.push(new Taker(`${SYNTHETIC_OWNER_PREFIX}taker`, this.params, this.rng.fork('taker')));
    this.schedule(2, 0, opts.startMs + this.rng.exp(this.params.takerRatePerSec * this.params.activity) * 1000);
    this.schedule(3, 0, opts.startMs + 1000);
    // the seeding quotes are the initial book, not updates
    this.frames.apply(this.engine.drainChanges());
    this.pendingTrades = [];
    this.lastTs = opts.startMs;
  }

  get conditionId(): string {
    return this.facts.conditionId;
  }
  get tokens(): [string, string] {
    return this.facts.tokens;
  }
  /** Current market time, ms. */
  time(): number {
    return this.now;
  }
  fairValue(): number {
    return this.fair.value;
  }
  lastTradePrice(tokenId: string): string {
    return this.ltp.get(tokenId) ?? '';
  }
  lastTradePriceUnits(tokenId: string): number | undefined {
    return this.ltpUnits.get(tokenId);
  }

  onFrame(fn: (f: MarketFrame) => void): void {
    this.frameListeners.push(fn);
  }
  /** Every match, synthetic or not (the emulator picks out users' fills). */
  onFills(fn: (fills: MatchFill[]) => void): void {
    this.fillListeners.push(fn);
  }
  onOrdersGone(fn: (orders: RestingOrder[], reason: 'expired') => void): void {
    this.goneListeners.push(fn);
  }

  /** Runs every agent event up to `toMs` (market time) and publishes the frames. */
  advanceTo(toMs: number): void {
    let groupMs = -1;
    for (;;) {
      let k = 0;
      for (let i = 1; i < this.nextAt.length; i++) if (this.nextAt[i] < this.nextAt[k]) k = i;
      const at = this.nextAt[k];
      if (at > toMs) break;
      const ms = Math.floor(at);
      if (ms !== groupMs) {
        // the batch before (its trades queued for their prints here), then what is due by now
        if (groupMs >= 0) this.flush(groupMs);
        groupMs = ms;
      }
      if (this.lagged.length > 0 && this.lagged[0].due <= at) {
        // prints due before this agent: after the batch gathered so far at this ms, which they follow
        this.flush(ms);
        this.printDue(at);
      }
      this.now = Math.max(this.now, at);
      this.runAgent(k);
    }
    if (groupMs >= 0) this.flush(groupMs);
    this.printDue(toMs);
    if (toMs > this.now) this.now = toMs;
  }

  /** The lagged prints due by `ms` (market time), each stamped at its due time. */
  private printDue(ms: number): void {
    while (this.lagged.length > 0 && this.lagged[0].due <= ms) {
      const { due, trades } = this.lagged.shift() as { due: number; trades: MatchFill[] };
      this.printTrades(trades, this.nextTs(Math.floor(due)));
    }
  }

  /** A user's order (owner = API key), at the current market time. Frames are published at once. */
  place(order: MatchOrder): PlaceOutcome {
    const out = this.placeInternal(order);
    this.flush(Math.floor(this.now));
    return out;
  }

  cancel(orderId: string): RestingOrder | undefined {
    const o = this.engine.cancel(orderId);
    if (o) this.flush(Math.floor(this.now));
    return o;
  }

  cancelOwner(owner: string): RestingOrder[] {
    const os = this.engine.cancelOwner(owner);
    if (os.length) this.flush(Math.floor(this.now));
    return os;
  }

  /**
   * Forces the tick (price units: 1000, 100, 10 or 1) as an admin rehearsal does; it holds until
   * forced again. `'auto'` hands the tick back to the venue's price rule. Returns whether it changed.
   */
  forceTick(tick: number | 'auto'): boolean {
    this.tickPinned = tick !== 'auto';
    const before = this.facts.tick;
    const ms = Math.floor(this.now);
    this.flush(ms); // pending changes go out on the old grid
    if (tick === 'auto') this.applyTickRule(ms);
    else if (tick !== this.facts.tick) this.changeTick(tick, ms);
    return this.facts.tick !== before;
  }

  /** Whether the tick is held by forceTick rather than the price rule. */
  get tickForced(): boolean {
    return this.tickPinned;
  }

  /** The first-subscribe snapshot: a JSON array of book objects for the given tokens (default both). */
  snapshot(tokenIds: readonly string[] = this.facts.tokens): BookObject[] {
    const ts = this.nextTs(Math.floor(this.now));
    return tokenIds.map((t) => this.frames.bookObject(t, ts, this.lastTradePrice(t)));
  }

  restBook(tokenId: string): RestBook {
    return this.frames.restBook(tokenId, this.nextTs(Math.floor(this.now)), this.lastTradePrice(tokenId));
  }

  private schedule(kind: AgentKind, idx: number, at: number): void {
    this.kinds.push(kind);
    this.agentIdx.push(idx);
    this.nextAt.push(at);
  }

  private runAgent(k: number): void {
    this.stats.agentEvents++;
    const kind = this.kinds[k];
    const idx = this.agentIdx[k];
    const p = this.params;
    switch (kind) {
      case 0:
        this.fair.step(p.fairStepMs);
        this.nextAt[k] += p.fairStepMs;
        break;
      case 1:
        this.makers[idx].refresh(this.ctx, this.fair.value);
        this.nextAt[k] += Math.max(1, this.rng.exp(p.makerRefreshPerSec * p.activity) * 1000);
        break;
      case 2:
        this.takers[idx].act(this.ctx, this.fair.value);
        this.nextAt[k] += Math.max(1, this.rng.exp(p.takerRatePerSec * p.activity) * 1000);
        break;
      case 3: {
        const gone = this.engine.expire(this.now);
        if (gone.length) for (const fn of this.goneListeners) fn(gone, 'expired');
        this.nextAt[k] += 1000;
        break;
      }
    }
  }

  private placeInternal(order: MatchOrder): PlaceOutcome {
    const out = this.engine.place(order, this.now);
    if (out.fills.length) {
      for (const f of out.fills) this.pendingTrades.push(f);
      this.stats.trades += out.fills.length;
      for (const fn of this.fillListeners) fn(out.fills);
    }
    return out;
  }

  private nextTs(ms: number): number {
    this.lastTs = ms > this.lastTs ? ms : this.lastTs + 1;
    return this.lastTs;
  }

  private emit(ts: number, type: FrameType, text: string, assetId?: string): void {
    this.stats.frames++;
    const f: MarketFrame = { ts, type, conditionId: this.facts.conditionId, assetId, text };
    for (const fn of this.frameListeners) fn(f);
  }

  /** Publishes the changes and trades gathered since the last flush as frames stamped `ms` (or later). */
  private flush(ms: number): void {
    const changes = this.engine.drainChanges();
    const trades = this.pendingTrades;
    if (!changes.length && !trades.length) return;
    this.pendingTrades = [];
    const ts = this.nextTs(ms);
    const feed = this.feed;
    // the venue hashes a trade's price before it announces it (polytrader)
    if (feed.ltpLeads) for (const f of trades) this.noteTrade(f);
    if (changes.length) {
      const msgs = this.frames.priceChanges(changes, ts, (t) => this.lastTradePrice(t), feed);
      if (feed.corruptGroupHashNext > 0 && msgs.length >= 2) {
        feed.corruptGroupHashNext--;
        const at = Math.floor(this.faultRng.next() * msgs.length);
        msgs[at] = msgs[at].replace(/"hash":"([0-9a-f])/, (_m, c: string) => `"hash":"${c === '0' ? 'f' : '0'}`);
      }
      for (const text of msgs) this.emit(ts, 'price_change', text);
    }
    if (trades.length) this.publishTrades(trades, ts);
    this.applyTickRule(ms);
  }

  /** The hashed last_trade_price after a trade: its token's price, and 1 - p on the complement (when the feed does so). */
  private noteTrade(f: MatchFill): void {
    const [a, b] = this.facts.tokens;
    const pa = f.takerTokenId === a ? f.takerPrice : PRICE_SCALE - f.takerPrice;
    const tick = this.facts.tick;
    if (f.takerTokenId === a || this.feed.complementLtp) {
      this.ltpUnits.set(a, pa);
      this.ltp.set(a, hashedLtp(pa, tick));
    }
    if (f.takerTokenId === b || this.feed.complementLtp) {
      this.ltpUnits.set(b, PRICE_SCALE - pa);
      this.ltp.set(b, hashedLtp(PRICE_SCALE - pa, tick));
    }
  }

  private publishTrades(trades: MatchFill[], ts: number): void {
    const lag = this.feed.printLagMs;
    const q = this.lagged;
    // in the order made, whatever the lag did meanwhile (an admin patch): never before a queued one
    if (lag > 0 || q.length > 0) q.push({ due: Math.max(ts + lag, q.length > 0 ? q[q.length - 1].due : 0), trades });
    else this.printTrades(trades, ts);
  }

  private printTrades(trades: MatchFill[], ts: number): void {
    const leads = this.feed.ltpLeads;
    for (const f of trades) {
      this.emit(ts, 'last_trade_price', this.frames.lastTradePrice(f.takerTokenId, f.takerPrice, f.size, f.takerSide, ts), f.takerTokenId);
      if (!leads) this.noteTrade(f);
    }
    const bookTs = this.nextTs(ts + 1);
    this.emitBooks(bookTs);
  }

  /** Book frames after a trade or a tick change: no last_trade_price key (only a subscription's first snapshot has it). */
  private emitBooks(ts: number): void {
    for (const t of this.facts.tokens) this.emit(ts, 'book', JSON.stringify(this.frames.bookObject(t, ts, this.lastTradePrice(t), false)), t);
  }

  /** The venue's rule, checked after every published change. */
  private applyTickRule(ms: number): void {
    if (this.tickPinned) return;
    const a = this.facts.tokens[0];
    const want = ruleTick(this.facts.tick, this.engine.bestBid(a), this.engine.bestAsk(a));
    if (want !== this.facts.tick) this.changeTick(want, ms);
  }

  /**
   * tick_size_change for both tokens, then fresh book frames with the new tick_size (a mirror
   * drops a book on the change and re-syncs from them). Resting orders stay where they are; new
   * ones must be on the new grid (the engine rejects others with INVALID_ORDER_MIN_TICK_SIZE).
   */
  private changeTick(tick: number, ms: number): void {
    const old = this.frames.tickStr;
    this.engine.setTick(tick);
    this.facts.tick = tick;
    this.ctx.tick = tick;
    this.frames.setTick();
    this.stats.tickChanges++;
    const ts = this.nextTs(ms);
    for (const t of this.facts.tokens) this.emit(ts, 'tick_size_change', this.frames.tickSizeChange(t, old, ts), t);
    this.emitBooks(this.nextTs(ts + 1));
  }
}
