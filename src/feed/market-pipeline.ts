// The one market pipeline of every mode (live, paper, backtest, benchmarks): a raw frame (its
// connection epoch and text) is decoded once, shown to the venue when the venue keeps its own
// books (the simulated venue: the exchange's true view), then applied to the mirror and handed to
// the engine, in that order. Epochs are per source (the connection that carried the frame; a
// recording's frames are all source 0): a new epoch of a source is its reconnect, and the books it
// carries (assetsOf; every book without it) are out of sync until their fresh snapshots. A
// price_change the decoder rejects is an update lost: the tokens it names (its market's when none
// can be read) go out of sync, with a resync asked, once the rest of its frame is applied.
import type { BookMirror } from '../book/mirror.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import type { DecodeStats } from './decode-stats.js';
import { decodeMarketFrame, RejectedTokens } from './decode-market.js';
import type { BookEvent, MarketEvent, PriceChangeEvent } from '../core/events.js';

/** Where the mirror's events go: the engine (requotes). */
export interface MarketEventSink {
  handleMarketEvent(e: MarketEvent): void;
}

/** A venue that keeps its own books from the feed (the simulated venue). */
export interface FeedVenue {
  onMarketEvent(e: MarketEvent): void;
}

export interface MarketPipelineOptions {
  mirror: BookMirror;
  stats: DecodeStats;
  /** Every price_change the mirror applies (the resyncer holds them while a GET /book is out). */
  observe?: (e: PriceChangeEvent) => void;
  /**
   * Our view lags the venue's by this much (a backtest's sim.feedLatencyMs): the mirror and the
   * engine get a frame's events this long after the venue, on `clock`; the owner calls
   * deliverDue as time moves. 0: at once.
   */
  lagMs?: number;
  clock?: Clock;
  /**
   * Real time (paper mode): the lagged frames are handed on by the clock's timers, each when due,
   * instead of by an owner moving virtual time (a backtest calls deliverNext itself).
   */
  lagTimers?: boolean;
  /** Where a lagged frame's failure is said (lagTimers: it runs from a timer, where a throw would end the process). */
  log?: Logger;
  /** The assets a source (connection) carries; undefined: a reconnect of any source is every book's. */
  assetsOf?: (source: number) => Iterable<string>;
}

interface Lagged {
  at: number;
  source: number;
  epoch: number;
  events: MarketEvent[];
  /** Tokens of the frame's rejected price_change messages, marked after its events. */
  rejected?: RejectedTokens;
  /** A connection lost (no events): its tokens, marked out of sync again once the frames before the loss are delivered. */
  lost?: string[];
}

export class MarketPipeline {
  private venue: FeedVenue | undefined;
  private engine: MarketEventSink | undefined;
  /** The last epoch seen per source. */
  private readonly epochs = new Map<number, number>();
  private readonly buf: MarketEvent[] = [];
  private readonly lagged: Lagged[] = [];
  private laggedHead = 0;
  /** Tokens of the rejected price_change messages of the frame decoded last. */
  private rejected = new RejectedTokens();
  /** The frame decoded last had rejected messages and events: marked once those are applied (dispatch). */
  private rejectsPending = false;
  /** Epoch changes seen (reconnects). */
  reconnects = 0;

  constructor(private readonly o: MarketPipelineOptions) {}

  /** The venue (when it keeps its own books) and the engine the events go to. */
  connect(sinks: { venue?: FeedVenue; engine: MarketEventSink }): void {
    this.venue = sinks.venue;
    this.engine = sinks.engine;
  }

  /**
   * Decodes a frame (counted in stats); the events are valid until the next call. The tokens of a
   * rejected price_change are marked out of sync at once when the frame has no event left, else
   * after its events (dispatch; or at the next decode, when the frame was never dispatched).
   */
  decode(text: string): MarketEvent[] {
    if (this.rejectsPending) this.markRejected(this.rejected);
    const out = this.buf;
    out.length = 0;
    decodeMarketFrame(text, out, this.o.stats, this.rejected);
    this.rejectedOfFrame(out.length > 0);
    return out;
  }

  /**
   * The tokens of the rejected price_change messages of a frame decoded elsewhere (a backtest's
   * reader), taken as decode() takes its own: marked at once when the frame has no event left,
   * else after its events (dispatch).
   */
  rejectedElsewhere(r: RejectedTokens, hasEvents: boolean): void {
    if (this.rejectsPending) this.markRejected(this.rejected);
    this.rejected.add(r);
    this.rejectedOfFrame(hasEvents);
  }

  /**
   * The frame's rejected tokens (this.rejected): marked now when it has no event, else once its
   * events are applied. With a lag, a frame of no event waits its turn as one with events does: our
   * view learns of the loss no sooner, and after the frames before it (a snapshot among them).
   */
  private rejectedOfFrame(hasEvents: boolean): void {
    if (this.rejected.empty()) return;
    if (hasEvents) this.rejectsPending = true;
    else if ((this.o.lagMs ?? 0) > 0 && this.o.clock) {
      this.lagged.push({ at: this.o.clock.now() + (this.o.lagMs ?? 0), source: 0, epoch: 0, events: [], rejected: this.rejected });
      this.rejected = new RejectedTokens();
      if (this.o.lagTimers) this.armLag();
    } else this.markRejected(this.rejected);
  }

  /** One raw frame of `source`'s connection `epoch`: decoded once and dispatched. Returns how many events it held. */
  frame(epoch: number, text: string, source = 0): number {
    const events = this.decode(text);
    if (events.length) this.dispatch(epoch, events, source);
    return events.length;
  }

  /** Decoded events of one frame of `source`'s connection `epoch`: the venue first, then the mirror and the engine. */
  dispatch(epoch: number, events: readonly MarketEvent[], source = 0): void {
    const venue = this.venue;
    if (venue) for (let i = 0; i < events.length; i++) venue.onMarketEvent(events[i]);
    const lag = this.o.lagMs ?? 0;
    if (lag > 0 && this.o.clock) {
      const d: Lagged = { at: this.o.clock.now() + lag, source, epoch, events: events.slice() };
      if (this.rejectsPending) {
        // the frame's lost updates go with it: this set is the frame's now
        d.rejected = this.rejected;
        this.rejected = new RejectedTokens();
        this.rejectsPending = false;
      }
      this.lagged.push(d);
      if (this.o.lagTimers) this.armLag();
    } else {
      this.apply(source, epoch, events);
      if (this.rejectsPending) this.markRejected(this.rejected);
    }
  }

  /**
   * A connection lost: the tokens it carries are out of sync until their fresh snapshots. With a
   * lag, the frames it carried before the loss are still to be delivered, and a snapshot among them
   * would prove a book the loss has left behind: the tokens are marked again after those frames.
   */
  lost(assets: Iterable<string>, source = 0): void {
    const ids = [...assets];
    this.o.mirror.markOutOfSync(ids, 'reconnect', false);
    const clock = this.o.clock;
    if ((this.o.lagMs ?? 0) > 0 && clock && this.nextDueAt() !== Infinity) {
      this.lagged.push({ at: clock.now() + (this.o.lagMs ?? 0), source, epoch: this.epochs.get(source) ?? -1, events: [], lost: ids });
      if (this.o.lagTimers) this.armLag();
    }
  }

  /** Out of sync, a resync asked: the tokens of rejected price_change messages (their books missed an update). */
  private markRejected(r: RejectedTokens): void {
    if (r === this.rejected) this.rejectsPending = false;
    const mirror = this.o.mirror;
    mirror.markOutOfSync(r.assetIds, 'rejected_message', true);
    for (let i = 0; i < r.markets.length; i++) mirror.markMarketOutOfSync(r.markets[i], 'rejected_message', true);
    r.clear();
  }

  /** The timer handing on lagged frames (lagTimers): armed for the earliest, while any waits. */
  private lagTimer: number | undefined;
  private armLag(): void {
    const clock = this.o.clock;
    if (this.lagTimer !== undefined || !clock) return;
    const at = this.nextDueAt();
    if (at === Infinity) return;
    this.lagTimer = clock.schedule(at, () => {
      this.lagTimer = undefined;
      const now = clock.now();
      while (this.nextDueAt() <= now) {
        // as a socket's frame listener does: one frame's failure is logged, the next ones still go
        try {
          this.deliverNext();
        } catch (err) {
          this.o.log?.error({ err }, 'market pipeline: a lagged frame failed');
        }
      }
      this.armLag();
    });
  }

  /** Stops handing on lagged frames (lagTimers): what still waits is dropped with the feed. */
  stop(): void {
    if (this.lagTimer !== undefined) this.o.clock?.cancel(this.lagTimer);
    this.lagTimer = undefined;
    this.lagged.length = 0;
    this.laggedHead = 0;
  }

  /** When the next lagged frame is due (Infinity: none). */
  nextDueAt(): number {
    return this.laggedHead < this.lagged.length ? this.lagged[this.laggedHead].at : Infinity;
  }

  /** Hands the next lagged frame to the mirror and the engine (its time has come). */
  deliverNext(): void {
    const d = this.lagged[this.laggedHead++];
    if (this.laggedHead > 1024 && this.laggedHead * 2 > this.lagged.length) {
      this.lagged.splice(0, this.laggedHead);
      this.laggedHead = 0;
    }
    if (!d) return;
    if (d.lost) return this.o.mirror.markOutOfSync(d.lost, 'reconnect', false);
    // a frame of rejected messages only (no events): its source and epoch are not known, nor needed
    if (d.events.length) this.apply(d.source, d.epoch, d.events);
    if (d.rejected) this.markRejected(d.rejected);
  }

  /**
   * A book the mirror got apart from the stream (a REST resync: its snapshot with the deltas that
   * came meanwhile applied): a venue that keeps its own books takes it too (its book missed what
   * the mirror's did), and the engine requotes on it.
   */
  healed(book: BookEvent): void {
    this.venue?.onMarketEvent(book);
    this.engine?.handleMarketEvent(book);
  }

  /** The time of the last lagged frame (Infinity when none waits). */
  lastDueAt(): number {
    return this.laggedHead < this.lagged.length ? this.lagged[this.lagged.length - 1].at : Infinity;
  }

  private apply(source: number, epoch: number, events: readonly MarketEvent[]): void {
    const last = this.epochs.get(source);
    if (epoch !== last) {
      // a reconnect: the deltas missed in between make the source's books unprovable until their snapshots
      if (last !== undefined) {
        this.reconnects++;
        if (this.o.assetsOf) this.o.mirror.markOutOfSync(this.o.assetsOf(source), 'reconnect', false);
        else this.o.mirror.markAllOutOfSync('reconnect', false);
      }
      this.epochs.set(source, epoch);
    }
    const { mirror, observe } = this.o;
    const engine = this.engine;
    for (let i = 0; i < events.length; i++) {
      const e = events[i];
      mirror.apply(e);
      if (observe && e.type === 'price_change') observe(e);
      engine?.handleMarketEvent(e);
    }
  }
}
