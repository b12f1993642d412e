// Polymarket's Polygon V2 exchange contracts: which one a market's orders are signed for and which
// takes a BUY's collateral. Kept apart from the signing (polymarket-order.ts, viem) so that what
// only needs an address does not load viem (~0.17 s of start-up on the spec profile).

/** Polygon V2 exchange contracts (the official client's config for chain 137). */
export const EXCHANGE_V2 = '0xE111180000d2663C0091e4f400237545B87B996B' as const;
export const NEG_RISK_EXCHANGE_V2 = '0xe2222d279d744050d28e00520010520000310F59' as const;

/** The exchange contract a market's orders are signed for, and which takes a BUY's collateral. */
export function exchangeOf(negRisk: boolean): typeof EXCHANGE_V2 | typeof NEG_RISK_EXCHANGE_V2 {
  return negRisk ? NEG_RISK_EXCHANGE_V2 : EXCHANGE_V2;
}

/**
 * The venue order version (GET /version) our orders are signed for: the V2 exchanges above, EIP-712
 * domain version "2". Version 3 signs for another exchange (the official client's config.js
 * exchangeV3, domain "3"); makerd does not sign it.
 */
export const ORDER_VERSION = 2;

/** Why a venue at this order version would refuse our orders (one line), or undefined when it would not. */
export function orderVersionProblem(venueVersion: number): string | undefined {
  return venueVersion === ORDER_VERSION ? undefined : `venue order version ${venueVersion}; makerd signs version ${ORDER_VERSION} orders: every order would be refused`;
}
