// A SELL replaced while its predecessor's cancel is in flight: the shares it promises are the
// same shares the leaving order promised, not a second lot. It was counted twice (the old order
// still open plus the new one) and blocked as sell_exceeds_position on every price move of a
// held position, until the cancel's answer came back. It is not blocked; it waits for that
// answer, since the venue's balance check counts the old SELL until its cancel is done there
// (sent beside the cancel it was refused "not enough balance" when the POST was carried out first).
import { describe, it, expect } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import { Limiter } from '../../src/api/limiter.js';
import { BookMirror } from '../../src/book/mirror.js';
import { SimulatedVenue } from '../../src/venue/simulated-venue.js';
import { loadStrategy } from '../../src/strategy/loader.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/core/log.js';
import { OrderTracker } from '../../src/engine/orders.js';
import { Positions } from '../../src/engine/positions.js';
import { RiskGate } from '../../src/engine/risk.js';
import { riskInputs, sellsCovered } from '../../src/engine/risk-inputs.js';
import type { MarketMeta, Quote } from '../../src/engine/strategy.js';
import type { CancelResult, OrderRequest, PlaceResult } from '../../src/venue/types.js';
import { Y, N, M, books, deliver, testEngine } from './helpers.js';

const meta: MarketMeta = { conditionId: M, tokenId: Y, complementId: N, tick: 100, minSize: 500, negRisk: false };

class LoggingVenue extends SimulatedVenue {
  readonly sent: Array<{ t: number; kind: 'place' | 'cancel'; reqs?: OrderRequest[]; ids?: string[] }> = [];
  override placeOrders(reqs: OrderRequest[]): Promise<PlaceResult[]> {
    this.sent.push({ t: this.now(), kind: 'place', reqs: reqs.slice() });
    return super.placeOrders(reqs);
  }
  override cancelOrders(ids: string[]): Promise<CancelResult> {
    this.sent.push({ t: this.now(), kind: 'cancel', ids: ids.slice() });
    return super.cancelOrders(ids);
  }
  private now = (): number => 0;
  setNow(f: () => number): void {
    this.now = f;
  }
}

describe('a SELL replaced while the cancel of the one it replaces is in flight', () => {
  it('is placed once the cancel has landed, not blocked as exceeding the position', async () => {
    const cfg = loadConfig({ env: {} });
    const clock = new VirtualClock(1_700_000_000_000);
    const venue = new LoggingVenue({
      clock,
      markets: [{ conditionId: M, tokens: [Y, N], tick: 100, minSize: 500 }],
      orderLatencyMs: 20,
      cancelLatencyMs: 400,
      makerFeeBps: 0,
      takerFeeBps: 0,
      queueModel: false,
    });
    venue.setNow(() => clock.now());
    const mirror = new BookMirror({ verifyEvery: 0, now: () => clock.now() });
    const strategy = await loadStrategy('bands', { bands: [{ distance: 0.01, size: 10 }], skewPerShare: 0 });
    const engine = testEngine({
      clock,
      venue,
      limiter: new Limiter({ clock }),
      books: mirror,
      strategy,
      config: { reconciler: { ...cfg.reconciler, debounceMs: 0 }, risk: { ...cfg.risk, staleBookMs: 3_600_000 }, scheduler: cfg.scheduler },
      markets: [meta],
    });
    const advance = async (ms: number): Promise<void> => {
      const to = clock.now() + ms;
      for (let guard = 0; guard < 10_000; guard++) {
        const at = clock.nextTimerAt();
        if (at > to) break;
        clock.advanceTo(at);
        await new Promise((r) => setImmediate(r));
      }
      clock.advanceTo(to);
      await new Promise((r) => setImmediate(r));
    };
    // 10 YES shares held: the strategy's ask is a SELL of all 10
    engine.positions.apply(Y, 'BUY', 5000, 1000, 0);
    venue.holdShares(Y, 1000);
    deliver(mirror, engine, books(4900, 5100, clock.now()), venue);
    engine.start();
    await advance(100);
    const sell = (p: number) => [...engine.orders.open()].find((o) => o.tokenId === Y && o.side === 'SELL' && o.price === p);
    expect(sell(5100)?.state).toBe('live');
    // the market moves up a cent: the SELL at 0.51 is replaced by one at 0.52
    const moveAt = clock.now();
    deliver(mirror, engine, books(5000, 5200, clock.now()), venue);
    await advance(50); // the cancel (400 ms) is still out
    expect(sell(5100)?.state).toBe('pending_cancel');
    expect(sell(5200)).toBeUndefined();
    const held = engine.counters.heldForCancel;
    expect(held).toBeGreaterThan(0);
    // another book update while the cancel is still out requotes without a block
    deliver(mirror, engine, books(5000, 5200, clock.now()), venue);
    await advance(1000);
    expect(engine.counters.heldForCancel).toBeGreaterThan(held);
    const cancelled = venue.sent.find((s) => s.kind === 'cancel' && s.t >= moveAt);
    const placed = venue.sent.find((s) => s.kind === 'place' && s.t >= moveAt && s.reqs?.some((r) => r.side === 'SELL' && r.price === 5200));
    expect(cancelled?.t).toBe(moveAt);
    expect(placed?.t).toBe(moveAt + 400); // when the cancel's answer came back
    expect(sell(5200)?.state).toBe('live');
    expect(sell(5100)).toBeUndefined();
    expect(engine.risk.blocks.get('sell_exceeds_position')).toBeUndefined();
    const done = engine.stop();
    await advance(2000);
    await done;
  });
});

describe('risk inputs: SELLs on their way out', () => {
  const cfg = loadConfig({ env: {} }).risk;
  const m: MarketMeta = { conditionId: 'm', tokenId: 'Y', complementId: 'N', tick: 100, minSize: 500, negRisk: false };
  const sellQ = (price: number, size = 1000): Quote => ({ tokenId: 'Y', side: 'SELL', price, size });
  function setup() {
    const tr = new OrderTracker();
    const pos = new Positions();
    pos.apply('Y', 'BUY', 5000, 1000, 0); // 10 shares held
    const old = tr.create({ clientId: 'old', tokenId: 'Y', market: 'm', side: 'SELL', price: 5200, size: 1000, createdMs: 0 });
    tr.placeResult({ clientId: 'old', ok: true, orderId: 'o1', status: 'live' }, 0);
    return {
      tr,
      pos,
      old,
      s: riskInputs(
        tr,
        pos,
        () => 5100,
        () => 0,
      ),
      g: new RiskGate(cfg, silentLogger),
    };
  }

  it('a SELL whose cancel is out does not count against the position; a live one does', () => {
    const { tr, old, s, g } = setup();
    g.begin();
    expect(g.checkPlace(sellQ(5300), m, s, 0)).toBe('sell_exceeds_position'); // the old one still works
    tr.cancelSent(old, 1);
    g.begin();
    expect(g.checkPlace(sellQ(5300), m, s, 1)).toBeUndefined();
    // but only once: a second lot in the same batch is more than is held
    expect(g.checkPlace(sellQ(5400), m, s, 1)).toBe('sell_exceeds_position');
    // the cancel refused: the old SELL works again and counts
    tr.cancelRefused('o1', 'busy', 2);
    g.begin();
    expect(g.checkPlace(sellQ(5300), m, s, 2)).toBe('sell_exceeds_position');
  });

  it('sellsCovered: a SELL is covered when the shares held cover every open SELL of its token, leaving ones too, and the SELLs before it', () => {
    const { tr, pos, old } = setup(); // 10 shares held, a SELL of 10 open
    expect(sellsCovered(tr, (t) => pos.qty(t), [sellQ(5300)], [])).toEqual([false]);
    pos.apply('Y', 'BUY', 5000, 1500, 1); // 25 held
    tr.cancelSent(old, 1); // on its way out, it still holds its shares at the venue
    const buy: Quote = { tokenId: 'Y', side: 'BUY', price: 5000, size: 1000 };
    expect(sellsCovered(tr, (t) => pos.qty(t), [buy, sellQ(5300), sellQ(5400, 500), sellQ(5500, 500)], [])).toEqual([false, true, true, false]);
  });

  it('a SELL this very requote cancels counts as leaving (its cancel goes out before the place)', () => {
    const { old, s, g } = setup();
    s.cancelling = [old];
    g.begin();
    expect(g.checkPlace(sellQ(5300), m, s, 0)).toBeUndefined();
    s.cancelling = [];
    g.begin();
    expect(g.checkPlace(sellQ(5300), m, s, 0)).toBe('sell_exceeds_position');
  });
});
