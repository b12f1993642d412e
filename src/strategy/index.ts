// The public strategy API, package export "makerd/strategy": the types and helpers a strategy
// needs, in one entry point. A strategy kept outside the repository imports only this, compiles
// against its declarations and is loaded by path (`"strategy": {"name": "/path/to/mine.js"}`).
export type { Strategy, StrategyClock, StrategyContext, StrategyModule, StrategyFill, Quote, MarketMeta, PositionView, ReferencePrice, QuotePairOptions, Offered } from '../engine/strategy.js';
export { quotePair, toTick, clamp, clampPrice, askQuote, bidQuote, passive, fairPrice } from '../engine/strategy.js';
export type { BookView } from '../book/view.js';
export type { Side, LastTradePriceEvent, MarketEvent } from '../core/events.js';
export type { Clock } from '../core/clock.js';
export type { Rng } from '../core/rng.js';
export { PRICE_SCALE, SIZE_SCALE, formatPrice, formatSize, parsePrice, parseSize } from '../core/units.js';
export { minNotAboveMax } from './params.js';
