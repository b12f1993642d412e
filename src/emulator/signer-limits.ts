// The venue's per-signer token buckets (src/api/limit-table.ts SIGNER_TIERS), the emulator's
// --signer-tier switch: an order and a cancel bucket per API key, a request costing its orders
// (a batch its entries, a cancel-all 1 and then 1 per order it cancelled), under --limit-scale and
// --window-scale. As docs.polymarket.com/api-reference/trading-rate-limits describes: a batch is
// refused whole when the bucket is short, with Retry-After and Poly-RateLimit-Reset; a cost above
// the burst is refused with no wait named (it can never go); every answer names the tier.
import { SIGNER_TIERS, scaledBucket, signerScopeOf, type ApiName, type SignerBucket, type SignerTier } from '../api/limit-table.js';
import { TokenBucket } from '../api/token-bucket.js';

export type SignerDecision = { ok: true; headers: Record<string, string> } | { ok: false; message: string; headers: Record<string, string> };

/** The header's spelling of a tier (the client reads any case). */
const tierName = (t: SignerTier): string => t[0].toUpperCase() + t.slice(1);
/** Whole seconds, rounded up: Retry-After is an HTTP delay in seconds, Poly-RateLimit-Reset a Unix timestamp. */
const secs = (ms: number): string => String(Math.ceil(ms / 1000 - 1e-9));

export class SignerLimits {
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(
    readonly tier: SignerTier,
    private readonly limitScale = 1,
    private readonly windowScale = 1,
  ) {}

  private bucket(client: string, b: SignerBucket): TokenBucket {
    const key = client + '\u0000' + b;
    let t = this.buckets.get(key);
    if (!t) {
      t = new TokenBucket(...scaledBucket(this.tier, b, this.limitScale, this.windowScale));
      this.buckets.set(key, t);
    }
    return t;
  }

  /** The orders a request counts: a batch's entries (DELETE /orders: the spec profile's {orderIds} too), else 1. */
  static cost(method: string, path: string, body: unknown): number {
    if (method === 'POST' && path === '/orders') return Array.isArray(body) ? Math.max(1, body.length) : 1;
    if (method === 'DELETE' && path === '/orders') {
      const ids = Array.isArray(body) ? body : (body as { orderIds?: unknown } | undefined)?.orderIds;
      return Array.isArray(ids) ? Math.max(1, ids.length) : 1;
    }
    return 1;
  }

  /** Admits or refuses a request by its bucket; undefined when it draws from none. */
  check(client: string, api: ApiName, method: string, path: string, body: unknown, nowMs: number): SignerDecision | undefined {
    const scope = signerScopeOf(api, method, path);
    if (!scope?.bucket) return undefined;
    const b = this.bucket(client, scope.bucket);
    const cost = SignerLimits.cost(method, path, body);
    const common = { 'Poly-RateLimit-Tier': tierName(this.tier) };
    if (cost > b.burst) {
      return {
        ok: false,
        message: `request costs ${cost} tokens, above the ${scope.bucket} burst of ${b.burst}: split it`,
        headers: { ...common, 'Poly-RateLimit-Remaining': String(Math.floor(b.available(nowMs))) },
      };
    }
    if (!b.hasRoom(nowMs, cost)) {
      const at = b.nextFreeAt(nowMs, cost);
      return {
        ok: false,
        message: 'Too Many Requests',
        headers: { ...common, 'Retry-After': secs(at - nowMs), 'Poly-RateLimit-Reset': secs(at), 'Poly-RateLimit-Remaining': String(Math.floor(b.available(nowMs))) },
      };
    }
    b.record(nowMs, cost);
    return { ok: true, headers: { ...common, 'Poly-RateLimit-Remaining': String(Math.floor(b.available(nowMs))), 'Poly-RateLimit-Reset': secs(nowMs) } };
  }

  /**
   * After a cancel-all or cancel-market-orders: 1 more token per order cancelled (below zero on the
   * tiers that allow it); the answer's Poly-RateLimit-Remaining then shows the balance after it, as
   * the venue's docs say (it may be negative). Undefined for other requests.
   */
  settle(client: string, method: string, path: string, replyBody: unknown, nowMs: number): Record<string, string> | undefined {
    if (method !== 'DELETE' || (path !== '/cancel-all' && path !== '/cancel-market-orders')) return undefined;
    const r = replyBody as { canceled?: unknown; data?: { canceled?: unknown } } | undefined;
    const canceled = r?.canceled ?? r?.data?.canceled;
    const b = this.bucket(client, 'cancels');
    if (Array.isArray(canceled) && canceled.length > 0) b.debit(nowMs, canceled.length, SIGNER_TIERS[this.tier].negative);
    return { 'Poly-RateLimit-Remaining': String(Math.floor(b.available(nowMs))) };
  }
}
