// Users' orders in replay mode: one SimulatedVenue per API key, every one fed the same recorded
// market events, so orders queue behind and fill against the recorded liquidity and trades.
// The recorded market does not react to them (external liquidity is not changed by user
// orders in replay; see the emulator command's help). Venue time is the replay's market time.
import { hex64 } from './ids.js';
import { VirtualClock } from '../core/clock.js';
import type { MarketEvent, UserEvent } from '../core/events.js';
import { SimulatedVenue, type SimMarket } from '../venue/simulated-venue.js';

/** Desks made by this process: with the start time, each desk's ids are its own. */
let desks = 0;

export class ReplayOrderDesk {
  /**
   * Tags this desk's ids: a second run over the same recording must not hand out the first's again
   * (a daemon store kept across rehearsals would take them for the first run's orders and trades).
   */
  private readonly runTag = `${Date.now().toString(36)}.${(++desks).toString(36)}`;
  private readonly venues = new Map<string, SimulatedVenue>();
  private readonly listeners: Array<(owner: string, e: UserEvent) => void> = [];
  /** Market time of the replay; venues time GTD expiry and fills by it. */
  readonly clock: VirtualClock;

  constructor(
    private readonly markets: SimMarket[],
    startMs: number,
    /** Book events of the current replayed state: a venue made mid-replay starts from them. */
    private readonly currentBooks: () => MarketEvent[],
  ) {
    this.clock = new VirtualClock(startMs);
  }

  onEvent(fn: (owner: string, e: UserEvent) => void): void {
    this.listeners.push(fn);
  }

  venueFor(owner: string): SimulatedVenue {
    let v = this.venues.get(owner);
    if (!v) {
      v = new SimulatedVenue({
        clock: this.clock,
        markets: this.markets.map((m) => ({ ...m, tokens: [m.tokens[0], m.tokens[1]] })),
        orderLatencyMs: 0,
        cancelLatencyMs: 0,
        makerFeeBps: 0,
        takerFeeBps: 0,
        queueModel: true,
        // the Exchange checks SELLs against the owner's shares (its split ones too) before they come here
        checkSellShares: false,
        owner,
        idPrefix: '0x' + hex64(`replay:${owner}:${this.runTag}`).slice(0, 12) + '-',
      });
      const venue = v;
      venue.onUserEvent((e) => {
        for (const fn of this.listeners) fn(owner, e);
      });
      // a venue made mid-replay has not seen the books yet: it starts from the current state
      for (const e of this.currentBooks()) venue.onMarketEvent(e);
      this.venues.set(owner, venue);
    }
    return v;
  }

  has(owner: string): boolean {
    return this.venues.has(owner);
  }

  /** One recorded event, at market time `t`, to every user's venue. */
  marketEvent(e: MarketEvent, t: number): void {
    if (t > this.clock.now()) this.clock.advanceTo(t);
    for (const v of this.venues.values()) v.onMarketEvent(e);
  }

  advanceTo(t: number): void {
    if (t > this.clock.now()) this.clock.advanceTo(t);
  }
}
