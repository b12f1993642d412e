// The Data API of the emulator: small but valid answers for every endpoint of spec 4.3, built from the synthetic markets, a sampled price history and users' trades.
import { PRICE_SCALE, formatSize } from '../core/units.js';
import type { Exchange } from './exchange.js';
import { midOf } from './clob-routes.js';
import { eventJson, gammaMarketJson } from './gamma-routes.js';
import { badRequest, notFound, offsetList, ok, type EmuReply, type EmuRequest } from './http-util.js';

/** Mid of every token sampled once per market second (a bounded ring per token). */
export class PriceHistory {
  private readonly points = new Map<string, Array<{ t: number; p: number }>>();
  private lastSec = -1;
  constructor(private readonly max = 86_400) {}
  sample(ex: Exchange): void {
    if (!ex.markets.length) return;
    const sec = Math.floor(ex.markets[0].time() / 1000);
    if (sec === this.lastSec) return;
    this.lastSec = sec;
    for (const m of ex.markets) {
      for (const t of m.tokens) {
        const mid = midOf(m, t);
        if (!Number.isFinite(mid)) continue;
        let a = this.points.get(t);
        if (!a) this.points.set(t, (a = []));
        a.push({ t: sec, p: Number((mid / PRICE_SCALE).toFixed(4)) });
        if (a.length > this.max) a.splice(0, a.length - this.max);
      }
    }
  }
  of(token: string): Array<{ t: number; p: number }> {
    return this.points.get(token) ?? [];
  }
}

export interface DataContext {
  exchange: Exchange;
  history: PriceHistory;
}

/** Finds the owner (API key) whose derived address is `address`. */
function ownerOf(ex: Exchange, address: string): string | undefined {
  const a = address.toLowerCase();
  for (const o of ex.orders.values()) if (ex.makerAddress(o.owner).toLowerCase() === a) return o.owner;
  for (const t of ex.trades) if (ex.makerAddress(t.owner).toLowerCase() === a) return t.owner;
  return undefined;
}

export function dataRoute(ctx: DataContext, req: EmuRequest): EmuReply {
  const ex = ctx.exchange;
  const q = req.query;
  if (req.method !== 'GET') return notFound(`no route ${req.method} ${req.path}`);
  if (req.path === '/health') return ok('OK');
  if (req.path === '/events') return offsetList(ex.markets.map(eventJson), q);
  if (req.path === '/markets') return offsetList(ex.markets.map(gammaMarketJson), q);
  if (req.path === '/prices') {
    const token = q.get('market') ?? q.get('token_id');
    if (!token) return badRequest('market (token id) is required');
    if (!ex.byToken.has(token)) return notFound('unknown token');
    const start = Number(q.get('startTs') ?? 0);
    const end = Number(q.get('endTs') ?? Infinity);
    const fidelity = Math.max(1, Number(q.get('fidelity') ?? 1) || 1);
    const pts = ctx.history.of(token).filter((x, i) => x.t >= start && x.t <= end && i % fidelity === 0);
    return ok({ history: pts });
  }
  let m = /^\/users\/([^/]+)(\/trades|\/positions|\/pnl)?$/.exec(req.path);
  if (m) {
    const address = decodeURIComponent(m[1]);
    if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return badRequest('address must be 0x + 40 hex');
    const owner = ownerOf(ex, address);
    const trades = owner ? ex.tradesOf(owner) : [];
    const acct = owner ? ex.account(owner) : undefined;
    const positions = acct ? [...acct.positions].filter(([, s]) => s !== 0) : [];
    const volume = trades.reduce((s, t) => s + (t.price * t.size) / 1e6, 0);
    switch (m[2]) {
      case '/trades':
        return offsetList(
          trades.map((t) => ({
            proxyWallet: address,
            side: t.side,
            asset: t.assetId,
            conditionId: t.market.conditionId,
            size: t.size / 100,
            price: t.price / PRICE_SCALE,
            timestamp: Math.floor(t.matchTimeMs / 1000),
            transactionHash: ex.tradeJson(t).transaction_hash,
            outcome: ex.outcomeName(t.assetId),
          })),
          q,
        );
      case '/positions':
        return offsetList(
          positions.map(([asset, size]) => {
            const mk = ex.byToken.get(asset)!.market;
            const mid = midOf(mk, asset);
            return { proxyWallet: address, asset, conditionId: mk.conditionId, size: Number(formatSize(size)), curPrice: Number.isFinite(mid) ? mid / PRICE_SCALE : 0, outcome: ex.outcomeName(asset) };
          }),
          q,
        );
      case '/pnl': {
        const cash = acct ? (acct.cashMicros - ex.startCashMicros) / 1e6 : 0;
        const mtm = positions.reduce((s, [asset, size]) => {
          const mid = midOf(ex.byToken.get(asset)!.market, asset);
          return s + (Number.isFinite(mid) ? (mid / PRICE_SCALE) * (size / 100) : 0);
        }, 0);
        return ok({ address, pnl: Number((cash + mtm).toFixed(6)), realized: Number(cash.toFixed(6)), unrealized: Number(mtm.toFixed(6)) });
      }
      default:
        return ok({ address, trades: trades.length, volume: Number(volume.toFixed(6)), markets: new Set(trades.map((t) => t.market.conditionId)).size, positions: positions.length });
    }
  }
  m = /^\/builders\/([^/]+)(\/volume)?$/.exec(req.path);
  if (m) {
    const key = decodeURIComponent(m[1]);
    const trades = ex.tradesOf(key);
    const volume = Number(trades.reduce((s, t) => s + (t.price * t.size) / 1e6, 0).toFixed(6));
    if (m[2]) return ok([{ date: new Date(ex.markets[0]?.time() ?? 0).toISOString().slice(0, 10), volume }]);
    return ok({ builder: key, volume, trades: trades.length, users: trades.length ? 1 : 0 });
  }
  return notFound(`no route ${req.method} ${req.path}`);
}
