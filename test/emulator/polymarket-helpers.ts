// Helpers for the polymarket-profile tests: the official client (@polymarket/clob-client-v2) with a
// viem wallet client for one of the emulator's test accounts, and raw signed requests made with
// makerd's own L1/L2 header and order-signing code (to send what the official client never would).
import { ClobClient, type ApiKeyCreds } from '@polymarket/clob-client-v2';
import { createWalletClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { polygon } from 'viem/chains';
import { l1Headers, l2Headers } from '../../src/api/polymarket-auth.js';
import type { RunningEmulator } from '../../src/emulator/server.js';
import type { PolyTestAccount } from '../../src/emulator/polymarket-accounts.js';
import { createClients, type Clients } from '../../src/api/index.js';
import { polymarketCredentialsFromEnv } from '../../src/api/polymarket-credentials.js';
import { polymarketProfile } from '../../src/api/polymarket-profile.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/core/log.js';
import { LiveVenue } from '../../src/venue/live-venue.js';
import { testHttp } from '../api/http-server.js';

export function walletOf(privateKey: `0x${string}`): ReturnType<typeof createWalletClient> {
  // the transport is never used: a local account signs typed data itself
  return createWalletClient({ account: privateKeyToAccount(privateKey), chain: polygon, transport: http('http://127.0.0.1:9') });
}

/** The official client for a test account; with `creds` (default: the account's pre-issued ones) it can make L2 calls. */
export function officialClient(emu: RunningEmulator, acct: PolyTestAccount, creds: ApiKeyCreds | null = { key: acct.apiKey, secret: acct.secret, passphrase: acct.passphrase }): ClobClient {
  return new ClobClient({
    host: emu.urls.clob,
    chain: 137,
    signer: walletOf(acct.privateKey),
    creds: creds ?? undefined,
    signatureType: acct.signatureType,
    funderAddress: acct.funder,
    throwOnError: true,
  });
}

export interface RawAnswer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests read arbitrary answers
  json: any;
}

async function send(url: string, method: string, headers: Record<string, string>, body?: string): Promise<RawAnswer> {
  const r = await fetch(url, { method, headers: { 'content-type': 'application/json', ...headers }, body, signal: AbortSignal.timeout(5000) });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : undefined };
}

/**
 * A private request signed with L2 headers over the path without its query, as the official client
 * signs (`tsOffsetSec` shifts POLY_TIMESTAMP, `secret` overrides the account's, `sentBody` is sent
 * instead of the signed body).
 */
export async function l2Call(
  emu: RunningEmulator,
  acct: PolyTestAccount,
  method: string,
  path: string,
  body?: unknown,
  o: { tsOffsetSec?: number; secret?: string; sentBody?: unknown } = {},
): Promise<RawAnswer> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const ts = Math.floor(Date.now() / 1000) + (o.tsOffsetSec ?? 0);
  const h = l2Headers(acct.address, { key: acct.apiKey, secret: o.secret ?? acct.secret, passphrase: acct.passphrase }, ts, method, path.split('?')[0], text);
  return send(emu.urls.clob + path, method, h, o.sentBody === undefined ? text : JSON.stringify(o.sentBody));
}

/** An L1 request (create or derive API credentials) signed by `privateKey`, claiming `address` when given. */
export async function l1Call(
  emu: RunningEmulator,
  privateKey: `0x${string}`,
  method: 'POST' | 'GET',
  path: string,
  o: { address?: string; nonce?: number; tsOffsetSec?: number } = {},
): Promise<RawAnswer> {
  const h = await l1Headers(privateKey, Math.floor(Date.now() / 1000) + (o.tsOffsetSec ?? 0), o.nonce ?? 0);
  if (o.address) h.POLY_ADDRESS = o.address;
  return send(emu.urls.clob + path, method, h);
}

/** Best bid and ask (price numbers) of a token's book as GET /book answers it. */
export async function bestPrices(emu: RunningEmulator, tokenId: string): Promise<{ bid: number; ask: number }> {
  const r = await fetch(`${emu.urls.clob}/book?token_id=${tokenId}`, { signal: AbortSignal.timeout(5000) });
  const b = (await r.json()) as { bids: Array<{ price: string }>; asks: Array<{ price: string }> };
  const bids = b.bids.map((l) => Number(l.price));
  const asks = b.asks.map((l) => Number(l.price));
  return { bid: Math.max(...bids), ask: Math.min(...asks) };
}

/** The environment a makerd process trades with as this test account (the polymarket profile's variables). */
export function accountEnv(a: PolyTestAccount): Record<string, string> {
  return {
    MAKERD_VENUE: 'polymarket',
    MAKERD_PRIVATE_KEY: a.privateKey,
    MAKERD_API_KEY: a.apiKey,
    MAKERD_API_SECRET: a.secret,
    MAKERD_API_PASSPHRASE: a.passphrase,
    MAKERD_SIGNATURE_TYPE: String(a.signatureType),
    ...(a.funder ? { MAKERD_FUNDER: a.funder } : {}),
  };
}

/** makerd's own LiveVenue over the emulator's CLOB as this account (profile built from accountEnv), on the first market. */
export function makerdVenueFor(emu: RunningEmulator, a: PolyTestAccount): { clients: Clients; venue: LiveVenue; market: RunningEmulator['markets'][number]; tick: number } {
  const env = { ...accountEnv(a), MAKERD_CLOB_URL: emu.urls.clob };
  const cfg = loadConfig({ env });
  const clients = createClients({ ...cfg, http: testHttp }, polymarketProfile(polymarketCredentialsFromEnv(env)));
  const market = emu.markets[0];
  const tick = market.facts.tick;
  return { clients, venue: new LiveVenue({ clob: clients.clob, subscribeUser: () => {}, tickOf: () => tick, log: silentLogger }), market, tick };
}
