// A starting point for your own strategy. Copy this file (into strategies/ to load it by name,
// or anywhere to load it by path: `"strategy": { "name": "./my-strategy.js" }` after compiling;
// outside this repository import the API from 'makerd/strategy' instead of '../src/...', with
// makerd installed beside it), rename it, and change quote(). The rules:
//  - quote() returns the orders you WANT resting now; the engine keeps, cancels and places orders
//    to match (an order already close enough keeps its place in the queue).
//  - no I/O, no Date.now(), no Math.random(): time is ctx.clock.now(), randomness ctx.rng.
//  - prices are integers in 1e-4 (5500 = 0.55), sizes integers in 1e-2 shares (500 = 5 shares).
import { z } from 'zod';
import { SIZE_SCALE, quotePair, type BookView, type Quote, type Strategy, type StrategyContext, type StrategyModule } from '../src/strategy/index.js';

// 1. Your parameters. The engine validates `strategy.params` of the config with this schema and
//    names the bad key in the error (e.g. "strategy.params.edgeTicks: Too small").
//    Describe each field (.describe): `makerd strategies` lists them from here.
export const params = z
  .strictObject({
    edgeTicks: z.number().int().nonnegative().default(1).describe('how many ticks behind the best bid and ask to quote'),
    size: z.number().positive().default(5).describe('shares per quote'),
  })
  .describe('A starting point for your own strategy: one bid and one ask a few ticks behind the best prices.');
type Params = z.infer<typeof params>;

class Template implements Strategy {
  constructor(private readonly p: Params) {}

  // 2. Called after every book change of ctx.market.tokenId (debounced by the engine). `book` is
  //    the market without our own resting orders (a live venue's book shows them; the engine takes
  //    them out), so best bid, mid and depth are what everyone else is quoting.
  quote(ctx: StrategyContext, book: BookView): readonly Quote[] {
    const bid = book.bestBid();
    const ask = book.bestAsk();
    if (bid < 0 || ask < 0) return []; // one side empty: quote nothing
    const tick = ctx.market.tick;
    const quotes: Quote[] = [];
    // quotePair rounds to the tick, keeps both quotes post-only, and picks the cheapest way to
    // express each: an ask without inventory becomes a BUY of the complement token at 1 - price
    // (same exposure, no shares needed).
    quotePair(ctx, book, bid - this.p.edgeTicks * tick, ask + this.p.edgeTicks * tick, Math.round(this.p.size * SIZE_SCALE), quotes);
    return quotes;
  }

  // 3. Optional hooks: onTrade(ctx, trade) sees every public trade, onFill(ctx, fill) our fills.
  //    Optional promise `readonly reads = 'topPrices'` (or 'top' when the sizes at the top matter):
  //    quote() reads only the best bid/ask, ctx.market and ctx.position (as this one does), so the
  //    engine may skip a requote when none of them changed. Leave it out if you use the clock,
  //    randomness, depth, hooks or any state kept between calls.
}

// 4. Export the module: a name, the params schema, and a factory (one instance per market).
const mod: StrategyModule<Params> = {
  name: 'template',
  params,
  create: (p) => new Template(p),
};
export default mod;
