// Shared by the per-signer bucket tests: makerd's clients and LiveVenue as one account of the
// polymarket-profile emulator (directly or through a proxy), and batches of orders for it.
import { createClients, type Clients } from '../../src/api/index.js';
import { polymarketCredentialsFromEnv } from '../../src/api/polymarket-credentials.js';
import { polymarketProfile } from '../../src/api/polymarket-profile.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/core/log.js';
import type { PolyTestAccount } from '../../src/emulator/polymarket-accounts.js';
import type { RunningEmulator } from '../../src/emulator/server.js';
import type { OrderRequest } from '../../src/venue/types.js';
import { LiveVenue } from '../../src/venue/live-venue.js';
import { accountEnv } from '../emulator/polymarket-helpers.js';
import { testHttp } from './http-server.js';

export interface SignerClientOptions {
  /** The limits' scales, as the emulator's. */
  limits: { windowScale: number; scale?: number };
  /** false: the limiter knows no per-signer buckets (the unpaced control). */
  pace?: boolean;
  /** Where the CLOB is reached (a proxy in front of the emulator); the emulator's own by default. */
  clobUrl?: string;
}

/** makerd's clients and LiveVenue as account `a` on `emu`, every HTTP status it got in `statuses`. */
export function makerdFor(emu: RunningEmulator, a: PolyTestAccount, o: SignerClientOptions): { clients: Clients; venue: LiveVenue; statuses: number[] } {
  const env = { ...accountEnv(a), MAKERD_CLOB_URL: o.clobUrl ?? emu.urls.clob };
  const cfg = loadConfig({ env, overrides: { limits: o.limits } });
  const profile = polymarketProfile(polymarketCredentialsFromEnv(env));
  // answers in seconds, not testHttp's 300 ms: the emulator checks every order's signature in this process,
  // and under a loaded suite a batch's answer came late, failed as unclear, and these tests are about pacing
  const clients = createClients({ ...cfg, http: { ...testHttp, headersTimeoutMs: 3000, bodyTimeoutMs: 3000 } }, o.pace === false ? { ...profile, signerBuckets: false } : profile);
  const statuses: number[] = [];
  clients.observeHttp((_api, _m, _p, status) => void (typeof status === 'number' && statuses.push(status)));
  const m = emu.markets[0];
  return { clients, statuses, venue: new LiveVenue({ clob: clients.clob, subscribeUser: () => {}, tickOf: () => m.facts.tick, log: silentLogger }) };
}

/** `n` batches of 15 post-only BUYs at the market's lowest price and least size, ids `${tag}${batch}-${i}`. */
export function orderBatches(m: RunningEmulator['markets'][number], n: number, tag: string): OrderRequest[][] {
  return Array.from({ length: n }, (_, b) =>
    Array.from({ length: 15 }, (_, i): OrderRequest => ({
      clientId: `${tag}${b}-${i}`,
      tokenId: m.facts.tokens[i % 2],
      side: 'BUY',
      price: m.facts.tick,
      size: m.facts.minSize,
      orderType: 'GTC',
      postOnly: true,
    })),
  );
}
