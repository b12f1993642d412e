// Connection options for the CLOB WebSocket channels (wire-formats.md 1.1 and 2): the URL
// `{ws}/ws/{market|user|all}`, the initial subscription, live subscribe/unsubscribe and the probe
// the data watchdog sends. The user channel has no snapshot to probe with: PONG liveness only.
// Live subscribe/unsubscribe on the user channel names condition ids in `markets` (the venue's
// wss-overview page: "markets ... (for user channel)" beside "operation"), with no auth again.
import type { ConnectionOptions } from './connection.js';

export type ChannelKind = 'market' | 'user' | 'all';

/** The channel name of the price stream's lines in a recording (`makerd record --prices`). */
export const PRICES_CHANNEL = 'prices';
/** The channel ("k") of a recording's market metadata lines (backtest/market-meta-line.ts). */
export const META_CHANNEL = 'meta';

export interface UserAuth {
  apiKey: string;
  secret?: string;
  passphrase?: string;
}

export function channelUrl(wsBase: string, kind: ChannelKind): string {
  return `${wsBase.replace(/\/+$/, '')}/ws/${kind}`;
}

export interface ChannelSubscription {
  kind: ChannelKind;
  /** Condition ids for the user channel (`markets`). */
  markets?: readonly string[];
  auth?: UserAuth;
}

function authJson(a: UserAuth | undefined): Record<string, string> {
  const o: Record<string, string> = { apiKey: a?.apiKey ?? '' };
  if (a?.secret !== undefined) o.secret = a.secret;
  if (a?.passphrase !== undefined) o.passphrase = a.passphrase;
  return o;
}

/** A live subscribe to more assets, and an unsubscribe (wire-formats.md 1.1). */
const subscribeAssets = (ids: readonly string[]): string => JSON.stringify({ assets_ids: ids, operation: 'subscribe', custom_feature_enabled: true, initial_dump: true });
const unsubscribeAssets = (ids: readonly string[]): string => JSON.stringify({ assets_ids: ids, operation: 'unsubscribe' });

/** Connection options for a CLOB channel: the subscription messages of wire-formats.md 1.1 and 2. */
export function channelOptions(
  wsBase: string,
  sub: ChannelSubscription,
  timing: Pick<ConnectionOptions, 'pingIntervalMs' | 'pongTimeoutMs' | 'quietMs' | 'probeTimeoutMs' | 'reconnectBaseMs' | 'reconnectMaxMs'>,
  extra: Partial<ConnectionOptions> = {},
): ConnectionOptions {
  const kind = sub.kind;
  const subscribeAll = (ids: readonly string[]): string[] => {
    // initial_dump (default true) sent as the official clients send it: NautilusTrader issue 3963 saw books missing without it
    if (kind === 'market') return [JSON.stringify({ assets_ids: ids, type: 'market', custom_feature_enabled: true, initial_dump: true })];
    if (kind === 'user') return [JSON.stringify({ auth: authJson(sub.auth), markets: [...new Set([...(sub.markets ?? []), ...ids])], type: 'user' })];
    return [JSON.stringify({ auth: authJson(sub.auth), markets: sub.markets ?? [], assets_ids: ids, type: 'all', custom_feature_enabled: true })];
  };
  const hasAssets = kind !== 'user';
  return {
    url: channelUrl(wsBase, kind),
    subscribeAll,
    subscribeMore: hasAssets ? subscribeAssets : (ids) => JSON.stringify({ markets: ids, operation: 'subscribe' }),
    unsubscribeMsg: hasAssets ? unsubscribeAssets : (ids) => JSON.stringify({ markets: ids, operation: 'unsubscribe' }),
    // a subscribe to what the socket carries may be ignored (NautilusTrader: "only a real cycle
    // produces a fresh book snapshot"): unsubscribe first, as connection.resubscribe does
    probe: hasAssets ? (ids) => [unsubscribeAssets(ids), subscribeAssets(ids)] : undefined,
    // a book snapshot, array-wrapped or single; cheap substring test (no parse on the socket path)
    isSnapshot: (t) => t.includes('"event_type":"book"') || t.includes('"event_type": "book"'),
    pingText: 'PING',
    isPong: (t) => t === 'PONG',
    ...timing,
    // the user channel has no snapshot to probe with: liveness by PONG only
    quietMs: hasAssets ? timing.quietMs : 0,
    name: kind,
    ...extra,
  };
}
