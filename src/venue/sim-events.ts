// User-channel events of the simulated venue, shaped as the real user channel sends them
// (wire-formats.md 2.1, 2.2): a trade's top-level asset/side/price are the TAKER's; when our
// order was the maker it appears in makerOrders with its own token, side and price. feeRateBps
// at the top level is always the rate applied to OUR side of the fill.
import type { Side, UserOrderEvent, UserTradeEvent, OrderEventKind, TradeStatus } from '../core/events.js';

/** Our order inside the simulated venue. */
export interface SimOrder {
  orderId: string;
  clientId: string;
  market: string;
  tokenId: string;
  outcome: string;
  side: Side;
  price: number;
  originalSize: number;
  sizeMatched: number;
  orderType: string;
  postOnly: boolean;
  expiresAtMs?: number;
  createdAtMs: number;
  /** LIVE, MATCHED or CANCELED. */
  status: string;
  associateTrades: string[];
  expiryTimer?: number;
}

/** One fill of ours, with its fee. */
export interface SimFill {
  tradeId: string;
  orderId: string;
  clientId: string;
  market: string;
  tokenId: string;
  side: Side;
  price: number;
  size: number;
  liquidity: 'MAKER' | 'TAKER';
  /**
   * Our side's rate: the flat bps, or under a market fee rule the effective rate on notional
   * (core/fees.ts effectiveFeeRateBps; 0 for a maker fill).
   */
  feeRateBps: number;
  /** Fee amount in micro-dollars: flat, price units x size units x bps / 1e4; under a rule, ruleFeeMicros; rounded half up. */
  feeMicros: number;
  /** The external counterparty's synthetic order id. */
  counterpartyOrderId: string;
  timeMs: number;
}

export function opposite(side: Side): Side {
  return side === 'BUY' ? 'SELL' : 'BUY';
}

export function orderEvent(o: SimOrder, kind: OrderEventKind, nowMs: number): UserOrderEvent {
  return {
    type: 'order',
    kind,
    orderId: o.orderId,
    market: o.market,
    assetId: o.tokenId,
    side: o.side,
    price: o.price,
    originalSize: o.originalSize,
    sizeMatched: o.sizeMatched,
    status: o.status,
    orderType: o.orderType,
    outcome: o.outcome,
    associateTrades: [...o.associateTrades],
    createdAtMs: o.createdAtMs,
    timestampMs: nowMs,
  };
}

export function tradeEvent(f: SimFill, o: SimOrder, owner: string, status: TradeStatus, counterpartyFeeBps: number, nowMs: number): UserTradeEvent {
  const external = 'external';
  if (f.liquidity === 'TAKER') {
    return {
      type: 'trade',
      tradeId: f.tradeId,
      takerOrderId: o.orderId,
      market: o.market,
      assetId: o.tokenId,
      side: o.side,
      price: f.price,
      size: f.size,
      feeRateBps: f.feeRateBps,
      status,
      traderSide: 'TAKER',
      outcome: o.outcome,
      owner,
      makerOrders: [
        {
          orderId: f.counterpartyOrderId,
          assetId: o.tokenId,
          price: f.price,
          matchedAmount: f.size,
          feeRateBps: counterpartyFeeBps,
          outcome: o.outcome,
          side: opposite(o.side),
          owner: external,
        },
      ],
      matchTimeMs: f.timeMs,
      timestampMs: nowMs,
    };
  }
  return {
    type: 'trade',
    tradeId: f.tradeId,
    takerOrderId: f.counterpartyOrderId,
    market: o.market,
    assetId: o.tokenId,
    side: opposite(o.side),
    price: f.price,
    size: f.size,
    feeRateBps: f.feeRateBps,
    status,
    traderSide: 'MAKER',
    outcome: o.outcome,
    owner,
    makerOrders: [
      {
        orderId: o.orderId,
        assetId: o.tokenId,
        price: o.price,
        matchedAmount: f.size,
        feeRateBps: f.feeRateBps,
        outcome: o.outcome,
        side: o.side,
        owner,
      },
    ],
    matchTimeMs: f.timeMs,
    timestampMs: nowMs,
  };
}
