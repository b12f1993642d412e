// Three gaps in a running daemon's life, each against the emulator on loopback (with a node:http
// proxy in front of its CLOB API where the test needs to hold or refuse requests):
// (A) fills made while the user channel was away are looked up when it is back, not at the
//     2-minute reconciliation;
// (B) no market quotes while the venue's dead-man switch is not known to be armed (polymarket
//     heartbeats failing), and quoting resumes once a heartbeat lands;
// (C) a stop reports the places the venue never answered even when it read the venue's list (and
//     its last look-up could not settle them).
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, Agent, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { specProfile, type ClobProfile } from '../../src/api/clob-profile.js';
import { polymarketProfile } from '../../src/api/polymarket-profile.js';
import { polymarketCredentialsFromEnv } from '../../src/api/polymarket-credentials.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/core/log.js';
import { SIZE_SCALE } from '../../src/core/units.js';
import { stressSyntheticParams, type SyntheticParams } from '../../src/emulator/agents.js';
import { startEmulator, urlsEnv, type RunningEmulator } from '../../src/emulator/server.js';
import { Daemon, type StopReport } from '../../src/session/daemon.js';
import { accountEnv } from '../emulator/polymarket-helpers.js';

const KEY = 'lifecycle-test-key';
/** Never in a test's time: the periodic jobs (the 2-minute reconciliation above all) stay out of it. */
const NEVER = '0 0 1 1 *';

async function until<T>(what: string, fn: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs: number, everyMs = 20): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

async function bounded<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, rej) => (t = setTimeout(() => rej(new Error(`timed out after ${ms} ms: ${what}`)), ms)));
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(t);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A node:http proxy in front of the emulator: forwards every request, except that it answers 503
 * to POST /v1/heartbeats while failHeartbeats, and never answers (nor forwards) POST /order and
 * /orders while holdPlaces. Records when each place arrived.
 */
interface Proxy {
  url: string;
  failHeartbeats: boolean;
  holdPlaces: boolean;
  /** Answer 503 to GET /trades and /data/trades (the final look-up cannot settle anything). */
  failTrades: boolean;
  /** Answer 400 to GET of the open orders and trades lists (a look-up fails at once, no retry). */
  refuseLookUps: boolean;
  /** Answer 400 to DELETE /cancel-all, and to this many GETs of the open orders list (then forwarded). */
  refuseCancelAll: boolean;
  refuseLists: number;
  /** Answer 400 to every cancel (DELETE of any path). */
  refuseCancels: boolean;
  /** Answer 400 to this many cancels by id (DELETE /orders), then forward them. */
  refuseIdCancels: number;
  /** Hold GET of the open orders and trades lists (a look-up) until released (forwarded then). */
  holdLookUps: boolean;
  /** Look-up requests held (not yet forwarded). */
  heldLookUps: number;
  /** Forwards the held look-up requests. */
  releaseLookUps(): void;
  /** Arrival times (Date.now()) of POST /order and /orders. */
  places: number[];
  /** Places held unanswered. */
  held: number;
  /**
   * The next GET of the open orders list is read from the venue first, then the held places are
   * sent on to the venue (they land there), then the list read before them is answered: a place
   * that lands just after the list was read.
   */
  landHeldAfterNextList: boolean;
  close(): Promise<void>;
}

async function startProxy(targetPort: number): Promise<Proxy> {
  const agent = new Agent({ keepAlive: true });
  const held: ServerResponse[] = [];
  /** The held places as they came, to be sent on later (landHeldAfterNextList). */
  const heldBodies: Array<{ path: string; headers: IncomingMessage['headers']; body: Buffer }> = [];
  const heldLookUps: Array<() => void> = [];
  const p: Proxy = {
    url: '',
    failHeartbeats: false,
    holdPlaces: false,
    failTrades: false,
    holdLookUps: false,
    refuseLookUps: false,
    refuseCancelAll: false,
    refuseLists: 0,
    refuseCancels: false,
    refuseIdCancels: 0,
    heldLookUps: 0,
    releaseLookUps: () => {
      p.heldLookUps = 0;
      for (const go of heldLookUps.splice(0)) go();
    },
    places: [],
    held: 0,
    landHeldAfterNextList: false,
    close: async () => undefined,
  };
  /** One request to the venue, its answer read whole. */
  const upstream = (method: string, path: string, headers: IncomingMessage['headers'], body?: Buffer): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> =>
    new Promise((resolve, reject) => {
      const up = request({ host: '127.0.0.1', port: targetPort, method, path, headers, agent }, (ur) => {
        const chunks: Buffer[] = [];
        ur.on('data', (c: Buffer) => chunks.push(c));
        ur.on('end', () => resolve({ status: ur.statusCode ?? 502, headers: ur.headers, body: Buffer.concat(chunks) }));
      });
      up.on('error', reject);
      up.end(body);
    });
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    if (req.method === 'GET' && /\/orders$/.test(path) && p.landHeldAfterNextList) {
      p.landHeldAfterNextList = false;
      req.resume();
      void (async () => {
        const list = await upstream('GET', req.url ?? '/', req.headers);
        for (const h of heldBodies.splice(0)) await upstream('POST', h.path, h.headers, h.body);
        res.writeHead(list.status, list.headers);
        res.end(list.body);
      })().catch(() => res.destroy());
      return;
    }
    const refuseList = req.method === 'GET' && /\/orders$/.test(path) && p.refuseLists > 0;
    if (refuseList) p.refuseLists--;
    const refuseIdCancel = req.method === 'DELETE' && /\/orders$/.test(path) && p.refuseIdCancels > 0;
    if (refuseIdCancel) p.refuseIdCancels--;
    if ((req.method === 'DELETE' && (p.refuseCancels || (path.endsWith('/cancel-all') && p.refuseCancelAll))) || refuseList || refuseIdCancel) {
      req.resume();
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'refused by the test' }));
      return;
    }
    if (req.method === 'GET' && /\/(orders|trades)$/.test(path) && p.refuseLookUps) {
      req.resume();
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'refused by the test' }));
      return;
    }
    if (req.method === 'GET' && /\/(orders|trades)$/.test(path) && p.holdLookUps) {
      p.heldLookUps++;
      heldLookUps.push(() => forward(req, res));
      return;
    }
    forward(req, res);
  });
  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    if (req.method === 'POST' && path.endsWith('/v1/heartbeats') && p.failHeartbeats) {
      req.resume();
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'service unavailable' }));
      return;
    }
    if (req.method === 'GET' && /\/trades$/.test(path) && p.failTrades) {
      req.resume();
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'service unavailable' }));
      return;
    }
    if (req.method === 'POST' && /\/orders?$/.test(path)) {
      p.places.push(Date.now());
      if (p.holdPlaces) {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => heldBodies.push({ path: req.url ?? '/', headers: { ...req.headers }, body: Buffer.concat(chunks) }));
        held.push(res);
        p.held++;
        return;
      }
    }
    const up = request({ host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers: req.headers, agent }, (ur) => {
      res.writeHead(ur.statusCode ?? 502, ur.headers);
      ur.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  p.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  p.close = async () => {
    for (const r of held) r.destroy();
    server.closeAllConnections();
    agent.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return p;
}

interface Running {
  emu: RunningEmulator;
  daemon: Daemon;
  proxy: Proxy | undefined;
  /** Whose orders and trades are the daemon's at the venue. */
  owner: string;
  close(): Promise<void>;
}

const running: Running[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.close();
});

interface LaunchOptions {
  profile?: 'spec' | 'polymarket';
  params?: Partial<SyntheticParams>;
  /** A proxy in front of the CLOB API (the daemon's MAKERD_CLOB_URL). */
  proxy?: boolean;
  overrides?: Record<string, unknown>;
  /** The emulator's dead-man switch window (polymarket profile). */
  heartbeatTimeoutMs?: number;
  /** The emulator's markets (the daemon trades the first; default 1). */
  markets?: number;
}

/** The emulator, maybe a proxy, and a daemon live on the emulator's first market, started. */
async function launch(o: LaunchOptions = {}): Promise<Running> {
  const poly = o.profile === 'polymarket';
  const emu = await startEmulator({ seed: 7, markets: o.markets ?? 1, keys: [KEY], params: o.params, heartbeatTimeoutMs: o.heartbeatTimeoutMs, ...(poly ? { profile: 'polymarket' as const } : {}) });
  const proxy = o.proxy ? await startProxy(emu.port) : undefined;
  const dir = mkdtempSync(join(tmpdir(), 'makerd-lifecycle-'));
  const acct = poly ? emu.accounts[0] : undefined;
  const venueEnv = acct ? accountEnv(acct) : {};
  const config = loadConfig({
    env: { ...urlsEnv(emu.urls), ...(proxy ? { MAKERD_CLOB_URL: `${proxy.url}/clob` } : {}), ...venueEnv, MAKERD_DB: join(dir, 's.sqlite') },
    overrides: { mode: 'live', log: { level: 'silent' }, cron: { refreshMarkets: NEVER, reconcile: NEVER, dailySummary: NEVER }, ...o.overrides },
  });
  const profile: ClobProfile = acct ? polymarketProfile(polymarketCredentialsFromEnv(venueEnv)) : specProfile(KEY);
  const daemon = new Daemon({ config, venue: profile, log: silentLogger, tokens: [emu.markets[0].facts.tokens[0]], statusPort: 0 });
  let closed: Promise<void> | undefined;
  const r: Running = {
    emu,
    daemon,
    proxy,
    owner: acct ? acct.apiKey : KEY,
    close: () =>
      (closed ??= (async () => {
        await bounded(daemon.stop('test'), 30_000, 'daemon stop').catch(() => undefined);
        await proxy?.close();
        await emu.close();
        rmSync(dir, { recursive: true, force: true });
      })()),
  };
  running.push(r);
  await bounded(daemon.start(), 20_000, 'daemon start');
  return r;
}

interface MarketStatus {
  conditionId: string;
  quoting: boolean;
  notQuoting: string | null;
}

async function marketStatus(d: Daemon): Promise<MarketStatus> {
  const s = (await (await fetch(`${d.status.url}/status`, { signal: AbortSignal.timeout(5000) })).json()) as { markets: MarketStatus[] };
  return s.markets[0];
}

describe('the user channel back after a gap', () => {
  it('a fill made while it was away is in the position within seconds of its return (not at the 2-minute look-up)', async () => {
    // a still market: no agents; the book is what another account rests, and our quotes
    const { emu, daemon, owner } = await launch({ params: { makers: 0, takerRatePerSec: 0 } });
    const m = emu.markets[0];
    const token = m.facts.tokens[0];
    const ex = emu.exchange;
    ex.split('lifecycle-book', m.conditionId, 100 * SIZE_SCALE);
    await ex.place('lifecycle-book', { tokenID: token, side: 'BUY', price: 0.4, size: 100, orderType: 'GTC' });
    await ex.place('lifecycle-book', { tokenID: token, side: 'SELL', price: 0.6, size: 100, orderType: 'GTC' });
    const bid = await until('our bid resting', () => ex.openOrders(owner).find((o) => o.assetId === token && o.side === 'BUY'), 15_000);
    // ours alone at the best bid: a sell of part of it at its price fills only ours
    const book = m.frames.book(token);
    expect(book.bestBid()).toBe(bid.price);
    expect(book.sizeAt('BUY', bid.price)).toBe(bid.originalSize - bid.sizeMatched);
    const userStates: string[] = [];
    daemon.feed.onState((ch, s) => {
      if (ch === 'user') userStates.push(s);
    });
    // the user channel goes quiet, a trade fills part of our bid, then every connection drops:
    // the daemon pulls its quotes (the cancel lands: the order is partly filled, still open)
    emu.admin.set({ silentUser: true });
    const part = Math.floor((bid.originalSize - bid.sizeMatched) / 2 / SIZE_SCALE) * SIZE_SCALE;
    expect(part).toBeGreaterThan(0);
    ex.split('lifecycle-taker', m.conditionId, part);
    const out = await ex.place('lifecycle-taker', { tokenID: token, side: 'SELL', price: bid.price / 10_000, size: part / SIZE_SCALE, orderType: 'FAK' });
    expect(out.errorMsg).toBe('');
    expect(ex.tradesOf(owner).length).toBe(1);
    emu.admin.dropConnections();
    await until('our partly filled bid cancelled', () => daemon.engine.orders.byVenueId(bid.id)?.state === 'canceled', 5000);
    expect(ex.openOrders(owner).some((o) => o.id === bid.id)).toBe(false);
    await until('the user channel live again', () => userStates.includes('down') && daemon.feedStates.user === 'live', 10_000);
    emu.admin.set({ silentUser: false });
    // the fill was never reported over the user channel: only a look-up at the venue finds it
    await until('the fill in the position', () => daemon.engine.positions.qty(token) === part, 5000);
    // taken once
    expect(daemon.engine.ledger.count()).toBe(1);
  }, 60_000);
});

/**
 * The emulator behind a proxy, a still market (no agents) whose book another account rests at 0.40 /
 * 0.60, and a daemon quoting it; the user channel's states from then on.
 */
async function quotingStill(): Promise<Running & { p: Proxy; userStates: string[] }> {
  const r = await launch({ proxy: true, params: { makers: 0, takerRatePerSec: 0 } });
  const m = r.emu.markets[0];
  const token = m.facts.tokens[0];
  const ex = r.emu.exchange;
  ex.split('lifecycle-book', m.conditionId, 100 * SIZE_SCALE);
  await ex.place('lifecycle-book', { tokenID: token, side: 'BUY', price: 0.4, size: 100, orderType: 'GTC' });
  await ex.place('lifecycle-book', { tokenID: token, side: 'SELL', price: 0.6, size: 100, orderType: 'GTC' });
  await until('our quotes resting', () => ex.openOrders(r.owner).length > 0, 15_000);
  const userStates: string[] = [];
  r.daemon.feed.onState((ch, s) => {
    if (ch === 'user') userStates.push(s);
  });
  return { ...r, p: r.proxy as Proxy, userStates };
}

describe('the user channel back after a gap, its look-up slow', () => {
  it('places nothing until the look-up of what happened while it was away has landed', async () => {
    const { emu, daemon, p, owner, userStates } = await quotingStill();
    const ex = emu.exchange;
    // every connection drops: the quotes are pulled; the look-up on the user channel's return is held
    p.holdLookUps = true;
    emu.admin.dropConnections();
    await until('our quotes pulled', () => ex.openOrders(owner).length === 0, 5000);
    await until('the user channel live again', () => userStates.includes('down') && daemon.feedStates.user === 'live', 10_000);
    await until('the look-up asked for', () => p.heldLookUps > 0, 5000);
    const backAt = Date.now();
    // both feeds live, the books in: still no place while the look-up is out
    await sleep(1500);
    expect(daemon.feedStates.market).toBe('live');
    expect(p.places.filter((t) => t >= backAt)).toEqual([]);
    expect(ex.openOrders(owner)).toEqual([]);
    const waiting = await marketStatus(daemon);
    expect(waiting.quoting).toBe(false);
    // the look-up lands: quoting resumes
    p.holdLookUps = false;
    p.releaseLookUps();
    await until('our quotes resting again', () => ex.openOrders(owner).length > 0, 10_000);
  }, 60_000);
});

describe('the user channel back after a gap, its look-up failing', () => {
  it('places nothing while the look-up fails, and quotes once one succeeds', async () => {
    const { emu, daemon, p, owner, userStates } = await quotingStill();
    const ex = emu.exchange;
    // the lists cannot be read: no look-up can tell what happened while the channel was away
    p.refuseLookUps = true;
    emu.admin.dropConnections();
    await until('our quotes pulled', () => ex.openOrders(owner).length === 0, 5000);
    await until('the user channel live again', () => userStates.includes('down') && daemon.feedStates.user === 'live', 10_000);
    const backAt = Date.now();
    // a failed look-up (and its retry 2 s later) lifts nothing
    await sleep(3000);
    expect(p.places.filter((t) => t >= backAt)).toEqual([]);
    expect(ex.openOrders(owner)).toEqual([]);
    // and /health says so (found in review: it was 200, every feed live, while nothing was quoted)
    const healthOf = async () => {
      const r = await fetch(`${daemon.status.url}/health`, { signal: AbortSignal.timeout(5000) });
      return { status: r.status, reasons: ((await r.json()) as { reasons: string[] }).reasons };
    };
    const h = await until(
      '/health unhealthy while catching up',
      async () => {
        const x = await healthOf();
        return x.status === 503 ? x : undefined;
      },
      10_000,
    );
    expect(h.reasons.join('; ')).toMatch(/user channel back .* look-up .* not succeeded/);
    p.refuseLookUps = false;
    await until('our quotes resting again', () => ex.openOrders(owner).length > 0, 10_000);
    await until('/health healthy again', async () => (await healthOf()).status === 200, 10_000);
  }, 60_000);
});

describe("the venue's dead-man switch not known to be armed", () => {
  it('quotes nothing while heartbeats fail, says so per market, and quotes again once one is accepted', async () => {
    const { emu, daemon, proxy, owner } = await launch({
      profile: 'polymarket',
      proxy: true,
      params: stressSyntheticParams,
      overrides: { venue: { profile: 'polymarket', heartbeatIntervalMs: 500 } },
    });
    const p = proxy as Proxy;
    const ex = emu.exchange;
    await until('our quotes resting', () => ex.openOrders(owner).length > 0, 15_000);
    expect(daemon.heartbeats?.failing()).toBeUndefined();
    p.failHeartbeats = true;
    await until('heartbeats lapsing (a heartbeat and its retry failed)', () => daemon.heartbeats?.lapsing(), 5000);
    const failingAt = Date.now();
    // every quote pulled, and the market says why
    await until('no quote of ours resting', () => ex.openOrders(owner).length === 0, 5000);
    const blocked = await until(
      'the market not quoting',
      async () => {
        const s = await marketStatus(daemon);
        return s.notQuoting ? s : undefined;
      },
      3000,
      50,
    );
    expect(blocked.quoting).toBe(false);
    expect(blocked.notQuoting).toMatch(/dead-man switch lapsing/);
    // a busy market (several requotes a second): still no place while the switch is not armed
    await sleep(1500);
    expect(p.places.filter((t) => t > failingAt + 200)).toEqual([]);
    expect(ex.openOrders(owner)).toEqual([]);
    // accepted again: quoting resumes
    p.failHeartbeats = false;
    await until('heartbeats accepted again', () => daemon.heartbeats?.failing() === undefined, 5000);
    await until('our quotes resting again', () => ex.openOrders(owner).length > 0, 5000);
    const back = await marketStatus(daemon);
    expect(back.notQuoting).toBeNull();
  }, 60_000);
});

describe('a stop whose cancel-all and first list fail', () => {
  it("cancels by id the orders the final look-up lists resting (the venue's list read late is still the venue's word)", async () => {
    // found in review: with the first list unread, the orders the final look-up listed were only
    // reported, never cancelled, though their ids were known (no dead-man switch on this venue)
    const r = await launch({ proxy: true, params: stressSyntheticParams, markets: 2 });
    const p = r.proxy as Proxy;
    await until('our quotes resting', () => r.emu.exchange.openOrders(r.owner).length > 0, 15_000);
    // an order on the key outside the daemon's markets (placed by hand): the final look-up cancels
    // it as another program's, and the stop must not then report it as unconfirmed
    const other = r.emu.markets[1].facts.tokens[0];
    const placed = await r.emu.exchange.place(r.owner, { tokenID: other, side: 'BUY', price: 0.02, size: 10, orderType: 'GTC' });
    expect(placed.errorMsg ?? '').toBe('');
    p.refuseCancelAll = true;
    p.refuseLists = 1;
    const rep: StopReport = await bounded(r.daemon.stop('test'), 20_000, 'stop');
    expect(p.refuseLists).toBe(0); // the first list was refused, the final look-up's read
    expect(r.emu.exchange.openOrders(r.owner)).toEqual([]);
    expect(rep.unconfirmed).toEqual([]);
  }, 60_000);

  it("another program's order whose cancel by the final look-up failed is cancelled by the stop, not dropped", async () => {
    const r = await launch({ proxy: true, params: stressSyntheticParams, markets: 2 });
    const p = r.proxy as Proxy;
    await until('our quotes resting', () => r.emu.exchange.openOrders(r.owner).length > 0, 15_000);
    const other = r.emu.markets[1].facts.tokens[0];
    expect((await r.emu.exchange.place(r.owner, { tokenID: other, side: 'BUY', price: 0.02, size: 10, orderType: 'GTC' })).errorMsg ?? '').toBe('');
    p.refuseCancelAll = true;
    p.refuseLists = 1;
    p.refuseIdCancels = 1; // the look-up's cancel of the other program's order
    const rep: StopReport = await bounded(r.daemon.stop('test'), 20_000, 'stop');
    expect(p.refuseIdCancels).toBe(0);
    expect(r.emu.exchange.openOrders(r.owner)).toEqual([]);
    expect(rep.unconfirmed).toEqual([]);
  }, 60_000);
});

describe('/health during start-up', () => {
  it('is 503 naming the start-up while its check with the venue runs, though the feeds and books are good; 200 once quoting', async () => {
    // found in review: /health said 200 through start-up's reconciliation (up to startupTimeoutMs)
    const emu = await startEmulator({ seed: 7, markets: 1, keys: [KEY] });
    const proxy = await startProxy(emu.port);
    const dir = mkdtempSync(join(tmpdir(), 'makerd-lifecycle-'));
    const config = loadConfig({
      env: { ...urlsEnv(emu.urls), MAKERD_CLOB_URL: `${proxy.url}/clob`, MAKERD_DB: join(dir, 's.sqlite') },
      overrides: { mode: 'live', log: { level: 'silent' }, cron: { refreshMarkets: NEVER, reconcile: NEVER, dailySummary: NEVER } },
    });
    const daemon = new Daemon({ config, venue: specProfile(KEY), log: silentLogger, tokens: [emu.markets[0].facts.tokens[0]], statusPort: 0 });
    running.push({
      emu,
      daemon,
      proxy,
      owner: KEY,
      close: async () => {
        proxy.releaseLookUps();
        await bounded(daemon.stop('test'), 30_000, 'daemon stop').catch(() => undefined);
        await proxy.close();
        await emu.close();
        rmSync(dir, { recursive: true, force: true });
      },
    });
    proxy.holdLookUps = true;
    const started = daemon.start();
    started.catch(() => undefined); // awaited below; a failed test stops it, which rejects it
    const health = async () => {
      const r = await fetch(`${daemon.status.url}/health`, { signal: AbortSignal.timeout(5000) });
      return { status: r.status, reasons: ((await r.json()) as { reasons: string[] }).reasons };
    };
    await until('start-up holding its look-up', () => proxy.heldLookUps > 0 && daemon.status?.url !== undefined, 15_000);
    // the feed live and the books in sync meanwhile: only the start-up is left
    const during = await until(
      'the feeds and books good',
      async () => {
        const h = await health();
        return h.reasons.every((x) => /start-up/.test(x)) ? h : undefined;
      },
      10_000,
      100,
    );
    expect(during.status).toBe(503);
    expect(during.reasons).toEqual([expect.stringMatching(/not quoting yet: start-up/)]);
    proxy.holdLookUps = false;
    proxy.releaseLookUps();
    await bounded(started, 20_000, 'start');
    await until('healthy once quoting', async () => (await health()).status === 200, 10_000, 100);
  }, 60_000);
});

describe('a halt whose cancels the venue refuses', () => {
  it("stops the heartbeats, so the venue's dead-man switch cancels what the cancels cannot", async () => {
    // found in review: a halt only retried the cancel-all; with it refused and the heartbeats
    // accepted, our quotes rested for as long as that lasted, though nothing would quote again
    const r = await launch({ profile: 'polymarket', proxy: true, heartbeatTimeoutMs: 3000, overrides: { venue: { heartbeatIntervalMs: 1000 } } });
    const p = r.proxy as Proxy;
    const ex = r.emu.exchange;
    await until('our quotes resting', () => ex.openOrders(r.owner).length > 0, 15_000);
    p.refuseCancels = true;
    r.daemon.engine.halt('test: a store write failed');
    await until('the venue cancelled our orders by itself', () => ex.openOrders(r.owner).length === 0, 10_000, 100);
  }, 60_000);
});

describe('a stop with a place unanswered', () => {
  /** A daemon quoting through the proxy, a place of its held unanswered (cut by its deadline inside the shutdown bound). */
  async function withPlaceHeld(): Promise<Running & { p: Proxy }> {
    const r = await launch({ proxy: true, params: stressSyntheticParams, overrides: { http: { placeDeadlineMs: 1500 } } });
    const p = r.proxy as Proxy;
    await until('our quotes resting', () => r.emu.exchange.openOrders(r.owner).length > 0, 15_000);
    p.holdPlaces = true;
    await until('a place held', () => p.held > 0, 10_000);
    return { ...r, p };
  }

  it("reports the unanswered place (client:ID) though the venue's list was read, when the last look-up could not settle it", async () => {
    const { emu, daemon, p, owner } = await withPlaceHeld();
    const unanswered = [...daemon.engine.orders.open()].filter((o) => o.orderId === undefined).map((o) => `client:${o.clientId}`);
    expect(unanswered.length).toBeGreaterThan(0);
    // the list of open orders reads, the trades do not: nothing tells whether the place landed
    p.failTrades = true;
    const rep: StopReport = await bounded(daemon.stop('test'), 20_000, 'stop');
    // the venue lists nothing of ours (the cancel-all went out; the held place never reached it)
    expect(emu.exchange.openOrders(owner)).toEqual([]);
    expect(rep.unconfirmed).toEqual(expect.arrayContaining(unanswered));
  }, 60_000);

  it('cancels by id a place that landed after the final list was read, which the last look-up then found resting (the stop does not end with it resting)', async () => {
    // found in review: the last look-up bound it (live, with its venue id), and the stop reported
    // only orders without one: exit 0, "unconfirmed 0", an order resting (no dead-man switch here)
    const { emu, daemon, p, owner } = await withPlaceHeld();
    p.landHeldAfterNextList = true;
    const rep: StopReport = await bounded(daemon.stop('test'), 20_000, 'stop');
    expect(p.landHeldAfterNextList).toBe(false); // the held places did land, after the list
    // nothing of ours rests at the venue, or what does is reported
    const resting = emu.exchange.openOrders(owner).map((o) => o.id);
    for (const id of resting) expect(rep.unconfirmed).toContain(id);
    expect(resting).toEqual([]);
  }, 60_000);
});
