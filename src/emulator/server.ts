// The exchange emulator: one node:http server on 127.0.0.1 serving every API under a prefix
// (/clob, /gamma, /data, /content), the WebSocket endpoint (/ws/market|user|all), the price
// stream (/prices) and the fault admin (/admin/faults), around synthetic markets whose market
// time runs at `speed` x wall time, or a recording replayed as recorded at that speed.
// Rate limits are the spec's, as exact sliding windows. The CLOB API speaks the spec profile, or
// with profile 'polymarket' the real venue's paths, bodies and signed authentication.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { ApiName } from '../api/limit-table.js';
import { silentLogger, type Logger } from '../core/log.js';
import { WallClock, type Clock } from '../core/clock.js';
import { SeededRng } from '../core/rng.js';
import type { SyntheticParams } from './agents.js';
import { clobRoute } from './clob-routes.js';
import { contentRoute } from './content-routes.js';
import { dataRoute, PriceHistory } from './data-routes.js';
import { Exchange, addressOf } from './exchange.js';
import { FEED_KEYS, FaultState, noFaults, parseFaultPatch, type FaultConfig, type FaultControls } from './faults.js';
import { realFeedShape } from './book-frames.js';
import { gammaRoute } from './gamma-routes.js';
import { fail, ok, type EmuReply, type EmuRequest } from './http-util.js';
import { KeyRegistry } from './keys.js';
import { PriceFeed } from './price-feed.js';
import { ServerRateLimiter } from './rate-limit.js';
import { SyntheticMarket, type FeedControls } from './synthetic-market.js';
import { parseTickSize } from './tick-rule.js';
import type { EmuMarket } from './market.js';
import { ReplayFeed, scanRecording } from './replay-market.js';
import { MakerdError } from '../core/errors.js';
import { WsHub, type ChannelKind } from './ws-server.js';
import { SignerLimits, type SignerDecision } from './signer-limits.js';
import type { SignerTier } from '../api/limit-table.js';
import { PolymarketAccounts, type PolyTestAccount } from './polymarket-accounts.js';
import { Heartbeats, HEARTBEAT_TIMEOUT_MS } from './polymarket-heartbeats.js';
import { plainReply } from './polymarket-markets.js';
import { polymarketIntake, polymarketRoute, type PolymarketContext } from './polymarket-routes.js';

/** 'spec' (default): the envelope and Bearer keys of the spec; 'polymarket': the real venue's CLOB API. */
export type EmulatorProfile = 'spec' | 'polymarket';

export interface EmulatorOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Seed of the synthetic markets (default 1). */
  seed?: number;
  /** Replay this recording instead of synthetic markets (frames published as recorded). */
  replay?: string;
  /** How many synthetic markets (default 1). */
  markets?: number;
  /** Market time per wall time (default 1). */
  speed?: number;
  /** Accepted API keys; any non-empty key when absent or empty. */
  keys?: string[];
  limitScale?: number;
  windowScale?: number;
  faults?: Partial<FaultConfig>;
  params?: Partial<SyntheticParams>;
  /** Wall ms between market advances (default 20). */
  tickMs?: number;
  /** Wall ms from a trade's MATCHED to its CONFIRMED (default 200). */
  confirmDelayMs?: number;
  /**
   * Refuse a SELL (INVALID_ORDER_NOT_ENOUGH_BALANCE) unless the owner's shares bought in CONFIRMED
   * trades cover it and every open SELL of the token, as the venue's balance check does (default
   * true; false lets anyone sell short).
   */
  checkSellBalance?: boolean;
  /** Every account's collateral, micro-dollars (default $10,000); a BUY beyond it is refused (polymarket profile). */
  startCashMicros?: number;
  /** Every account's allowance to the exchanges, micro-dollars (default unlimited); BUY fills use up a finite one (polymarket profile). */
  allowanceMicros?: number;
  /** Wall ms between price-stream updates (default 1000). */
  priceIntervalMs?: number;
  clock?: Clock;
  log?: Logger;
  /** The CLOB API's dialect (default 'spec'). */
  profile?: EmulatorProfile;
  /** The venue's per-signer order and cancel buckets at this tier, per API key (off by default; emulator/signer-limits.ts). */
  signerTier?: SignerTier;
  /** Polymarket profile: wall ms without a valid heartbeat before an API key's open orders are cancelled (default 15000: 10 s + 5 s buffer). */
  heartbeatTimeoutMs?: number;
  /** Sees every API request as it arrives (what a test asserts about the client's calls). */
  onRequest?: (r: { method: string; api: string; path: string; query: URLSearchParams }) => void;
  /** A WebSocket client with no PING for this long is dropped, as the venue does (default 20000; 0 = never). */
  wsIdleDropMs?: number;
}

export interface EmulatorUrls {
  clob: string;
  gamma: string;
  data: string;
  content: string;
  ws: string;
  price_feed: string;
}

/** The MAKERD_* variables that point makerd at these URLs. */
export function urlsEnv(u: EmulatorUrls): Record<string, string> {
  return { MAKERD_CLOB_URL: u.clob, MAKERD_GAMMA_URL: u.gamma, MAKERD_DATA_URL: u.data, MAKERD_CONTENT_URL: u.content, MAKERD_WS_URL: u.ws, MAKERD_PRICE_FEED_URL: u.price_feed };
}

export interface RunningEmulator {
  urls: EmulatorUrls;
  port: number;
  admin: FaultControls;
  markets: EmuMarket[];
  /** Replay mode: the reader (decode counters, end of recording); undefined for synthetic markets. */
  replay?: ReplayFeed;
  exchange: Exchange;
  ws: WsHub;
  profile: EmulatorProfile;
  /** Polymarket profile: the seeded test accounts with their pre-issued API credentials (empty in the spec profile). */
  accounts: PolyTestAccount[];
  /** REST answers stalled by the trickle faults so far. */
  stalled(): number;
  close(): Promise<void>;
}

const APIS: ReadonlySet<string> = new Set(['clob', 'gamma', 'data', 'content']);
const MAX_BODY = 1 << 20;

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of req) {
    n += (c as Buffer).length;
    if (n > MAX_BODY) throw new RangeError('body too large');
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function bearer(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  if (!h) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : undefined;
}

function write(res: ServerResponse, r: EmuReply): void {
  const body = JSON.stringify(r.body);
  res.writeHead(r.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...r.headers });
  res.end(body);
}

/** A stalled answer: headers, then a byte every `everyMs` until the client goes away (nothing is carried out). */
function trickle(res: ServerResponse, everyMs: number): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{');
  const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(' ')), everyMs);
  res.on('close', () => clearInterval(t));
}

export async function startEmulator(opts: EmulatorOptions = {}): Promise<RunningEmulator> {
  // the venue's rate windows and buckets on the same monotonic time as the client's limiter: a step of
  // the system clock moves neither, and in one process (tests, the demo) both read the same instants
  const clock = opts.clock ?? new WallClock({ monotonic: true });
  const log = opts.log ?? silentLogger;
  const seed = opts.seed ?? 1;
  const speed = opts.speed ?? 1;
  const wallStart = clock.now();
  let marketStart = wallStart;
  let markets: EmuMarket[] = [];
  let replay: ReplayFeed | undefined;
  // the feed's shape and group-corruption fault, shared by every synthetic market (admin patches it)
  const feed: FeedControls = { ...realFeedShape, corruptGroupHashNext: 0 };
  let stalledCount = 0;
  const applyPatch = (patch: Partial<FaultConfig>): void => {
    const rest: Partial<FaultConfig> = { ...patch };
    for (const k of FEED_KEYS) {
      if (patch[k] === undefined) continue;
      (feed as unknown as Record<string, unknown>)[k] = patch[k];
      delete rest[k];
    }
    faults.cfg = { ...faults.cfg, ...rest };
  };
  if (opts.replay !== undefined) {
    const scan = await scanRecording(opts.replay).catch((e: unknown) => {
      throw new MakerdError(`cannot read recording ${opts.replay}: ${e instanceof Error ? e.message : String(e)}`);
    });
    if (!scan.markets.length) throw new MakerdError(`${opts.replay}: no market frames to replay`);
    replay = new ReplayFeed(opts.replay, scan);
    markets = replay.markets;
    marketStart = scan.firstT;
  } else {
    for (let i = 0; i < (opts.markets ?? 1); i++) markets.push(new SyntheticMarket({ seed, index: i, startMs: marketStart, params: opts.params, feed }));
  }
  const exchange = new Exchange(markets, clock, opts.confirmDelayMs ?? 200, replay?.desk, opts.checkSellBalance ?? true, opts.startCashMicros, opts.allowanceMicros);
  const keys = new KeyRegistry(opts.keys);
  const faults = new FaultState(new SeededRng(seed).fork('faults'));
  exchange.balanceLagMs = () => faults.cfg.balanceLagMs;
  exchange.takeTradeFailure = () => {
    if (faults.cfg.tradeFailNext <= 0) return false;
    faults.cfg.tradeFailNext--;
    return true;
  };
  if (opts.faults) applyPatch(opts.faults);
  const limiter = new ServerRateLimiter(opts.limitScale ?? 1, opts.windowScale ?? 1);
  const signer = opts.signerTier !== undefined ? new SignerLimits(opts.signerTier, opts.limitScale ?? 1, opts.windowScale ?? 1) : undefined;
  const profile: EmulatorProfile = opts.profile ?? 'spec';
  let poly: PolymarketContext | undefined;
  if (profile === 'polymarket') {
    const accounts = new PolymarketAccounts(seed);
    const heartbeats = new Heartbeats(clock, opts.heartbeatTimeoutMs ?? HEARTBEAT_TIMEOUT_MS, (owner) => {
      exchange.cancelWhere(owner, () => true).catch((e: unknown) => log.error({ err: e }, 'emulator: heartbeat cancel failed'));
    });
    exchange.makerAddress = (owner) => accounts.makerOf(owner) ?? addressOf(owner);
    poly = { exchange, keys, accounts, heartbeats, intake: polymarketIntake(exchange, accounts), funded: new Set(), nowMs: () => clock.now() + faults.cfg.clockAheadMs };
  }
  const hub = new WsHub({ exchange, keys, faults, log, userAuth: poly ? (a) => poly.accounts.userAuth(a) : undefined, idleDropMs: opts.wsIdleDropMs });
  const prices = new PriceFeed(clock, new SeededRng(seed).fork('prices'), opts.priceIntervalMs ?? 1000);
  const history = new PriceHistory();
  const comments: Array<Record<string, unknown>> = [];
  for (const m of markets) m.onFrame((f) => hub.publishMarket(f));
  exchange.onUserFrame((f) => hub.publishUser(f));

  // market time follows wall time x speed
  const advance = (): void => {
    const t = marketStart + (clock.now() - wallStart) * speed;
    for (const m of markets) m.advanceTo(t);
    history.sample(exchange);
  };
  const tick = setInterval(() => {
    try {
      advance();
    } catch (e) {
      log.error({ err: e }, 'emulator: market advance failed');
    }
  }, opts.tickMs ?? 20);
  tick.unref();

  const admin: FaultControls = {
    set: (patch) => {
      applyPatch(patch);
      return { ...faults.cfg, ...feed };
    },
    get: () => ({ ...faults.cfg, ...feed }),
    clear: () => {
      faults.cfg = { ...noFaults };
      applyPatch(noFaults);
    },
    dropConnections: () => hub.dropAll() + prices.dropAll(),
    setTickSize: (tickSize, market) => {
      const tick = parseTickSize(tickSize);
      if (typeof tick === 'string') throw new RangeError(tick);
      if (replay) throw new RangeError('a replay publishes the recorded ticks; tickSize applies to synthetic markets');
      const targets = markets.filter((m) => market === undefined || m.conditionId === market);
      if (!targets.length) throw new RangeError(`unknown market '${market}'`);
      advance(); // the change lands at the current market time, after everything before it
      let changed = 0;
      for (const m of targets) if (m instanceof SyntheticMarket && m.forceTick(tick)) changed++;
      return changed;
    },
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const seg = url.pathname.split('/')[1] ?? '';
    const method = (req.method ?? 'GET').toUpperCase();
    // the polymarket profile's CLOB answers plain bodies: every envelope built here is unwrapped
    const polyClob = poly !== undefined && seg === 'clob';
    const send = (r: EmuReply): void => write(res, polyClob ? plainReply(r) : r);
    let raw = '';
    try {
      raw = await readBody(req);
    } catch {
      return send(fail(413, 'PAYLOAD_TOO_LARGE', 'body too large'));
    }
    let body: unknown;
    if (raw.trim()) {
      try {
        body = JSON.parse(raw);
      } catch {
        return send(fail(400, 'BAD_REQUEST', polyClob ? 'Invalid order payload' : 'body is not valid JSON'));
      }
    }
    if (seg === 'admin' && url.pathname === '/admin/faults') {
      if (method === 'GET') return write(res, ok(admin.get()));
      if (method !== 'POST') return write(res, fail(404, 'NOT_FOUND', 'no route'));
      const patch = parseFaultPatch(body ?? {});
      if (typeof patch === 'string') return write(res, fail(400, 'BAD_REQUEST', patch));
      const b = (body ?? {}) as Record<string, unknown>;
      if (b.market !== undefined && typeof b.market !== 'string') return write(res, fail(400, 'BAD_REQUEST', 'market must be a condition id string'));
      let tickChanged = 0;
      if (b.tickSize !== undefined) {
        try {
          tickChanged = admin.setTickSize(b.tickSize as string, b.market as string | undefined);
        } catch (e) {
          return write(res, fail(400, 'BAD_REQUEST', e instanceof Error ? e.message : String(e)));
        }
      }
      const dropped = b.drop === true ? admin.dropConnections() : 0;
      return write(res, ok({ ...admin.set(patch), dropped, tickChanged }));
    }
    if (!APIS.has(seg)) return write(res, fail(404, 'NOT_FOUND', `no API at /${seg}`));
    const api = seg as ApiName;
    const path = url.pathname.slice(seg.length + 1) || '/';
    opts.onRequest?.({ method, api, path, query: url.searchParams });
    const polyKey = req.headers.poly_api_key;
    const apiKey = polyClob ? (typeof polyKey === 'string' && polyKey ? polyKey : undefined) : bearer(req);
    const trickleMs = api !== 'clob' ? 0 : method === 'DELETE' ? faults.cfg.cancelTrickleMs : method === 'GET' ? faults.cfg.readTrickleMs : 0;
    if (trickleMs > 0) {
      stalledCount++;
      return trickle(res, trickleMs);
    }
    const now = clock.now();
    const client = apiKey ?? req.socket.remoteAddress ?? 'anon';
    let reply: EmuReply;
    const injected = api === 'clob' && faults.cfg.engineRestart && (method === 'POST' || method === 'DELETE') ? 425 : faults.restFault();
    const rlHeaders = (limit: number, remaining: number, reset: number): Record<string, string> => ({
      'X-RateLimit-Limit': String(limit),
      'X-RateLimit-Remaining': String(remaining),
      'X-RateLimit-Reset': String(reset),
    });
    // an injected fault takes no rate-limit slot
    const rl = injected ? undefined : limiter.check(client, api, method, path, now);
    let signed: SignerDecision | undefined;
    if (injected === 425) reply = fail(425, 'TOO_EARLY', 'injected fault: the matching engine is restarting');
    else if (injected === 500) reply = fail(500, 'INTERNAL_ERROR', 'injected fault: server error');
    else if (injected === 429) reply = fail(429, 'RATE_LIMITED', 'injected fault: rate limited', rlHeaders(limiter.peek(client, api, method, path, now).limit, 0, now + 1000));
    else if (!rl || !rl.ok) reply = fail(429, 'RATE_LIMITED', `rate limit of scope ${rl?.scopeId} reached`, rlHeaders(rl?.limit ?? 0, 0, rl?.resetAtMs ?? now));
    else if ((signed = signer?.check(client, api, method, path, body, now)) && !signed.ok) reply = fail(429, 'RATE_LIMITED', signed.message, signed.headers);
    else {
      const er: EmuRequest = { method, path, query: url.searchParams, body, apiKey, headers: req.headers, raw };
      try {
        advance(); // answers reflect the market as of now
        reply =
          api === 'clob'
            ? poly
              ? await polymarketRoute(poly, er)
              : await clobRoute({ exchange, keys }, er)
            : api === 'gamma'
              ? gammaRoute({ exchange, comments }, er)
              : api === 'data'
                ? dataRoute({ exchange, history }, er)
                : contentRoute(er);
      } catch (e) {
        log.error({ err: e, method, path }, 'emulator: route failed');
        reply = fail(500, 'INTERNAL_ERROR', 'internal error');
      }
      const settled = signed ? signer?.settle(client, method, path, reply.body, clock.now()) : undefined;
      reply.headers = { ...rlHeaders(rl.limit, rl.remaining, rl.resetAtMs), ...signed?.headers, ...settled, ...reply.headers };
    }
    const delay = faults.cfg.latencyMs;
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    send(reply);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      log.error({ err: e }, 'emulator: request failed');
      if (!res.headersSent) write(res, fail(500, 'INTERNAL_ERROR', 'internal error'));
    });
  });
  // idle keep-alive connections stay open a minute, as behind a load balancer (node's default: 5 s)
  server.keepAliveTimeout = 60_000;
  server.on('upgrade', (req, socket, head) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname.replace(/\/+$/, '');
    const m = /^\/ws\/(market|user|all)$/.exec(path);
    if (m) return hub.handleUpgrade(req, socket, head, m[1] as ChannelKind);
    if (path === '/prices') return prices.handleUpgrade(req, socket, head);
    socket.destroy();
  });
  server.listen(opts.port ?? 0, '127.0.0.1');
  try {
    await once(server, 'listening');
  } catch (e) {
    // a port taken: nothing started may keep running (the caller reports the error)
    clearInterval(tick);
    poly?.heartbeats.close();
    replay?.close();
    hub.close();
    prices.close();
    throw e;
  }
  const port = (server.address() as AddressInfo).port;
  const base = `http://127.0.0.1:${port}`;
  const urls: EmulatorUrls = {
    clob: `${base}/clob`,
    gamma: `${base}/gamma`,
    data: `${base}/data`,
    content: `${base}/content`,
    ws: `ws://127.0.0.1:${port}`,
    price_feed: `ws://127.0.0.1:${port}/prices`,
  };
  log.info({ urls, seed, speed }, 'emulator: listening');
  let closed = false;
  return {
    urls,
    port,
    admin,
    markets,
    replay,
    exchange,
    ws: hub,
    profile,
    accounts: poly ? poly.accounts.testAccounts.map((a) => ({ ...a })) : [],
    stalled: () => stalledCount,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(tick);
      poly?.heartbeats.close();
      replay?.close();
      hub.close();
      prices.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
