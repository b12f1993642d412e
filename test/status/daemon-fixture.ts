// A daemon in this process, live against the emulator on loopback, for the status server's and the
// session's tests: started, and waited for until every market it trades rests a bid and an ask.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { specProfile } from '../../src/api/clob-profile.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger, type Logger } from '../../src/core/log.js';
import type { SyntheticParams } from '../../src/emulator/agents.js';
import { startEmulator } from '../../src/emulator/server.js';
import { Daemon, type DaemonOptions } from '../../src/session/daemon.js';
import { urlsEnv } from '../../src/emulator/server.js';

export const KEY = 'status-test-key';

export interface Running {
  daemon: Daemon;
  url: string;
  emu: Awaited<ReturnType<typeof startEmulator>>;
  close(): Promise<void>;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface StartOptions {
  seed?: number;
  /** The daemon trades the first `trade` of the emulator's markets (default: all). */
  trade?: number;
  /** Config overrides merged over live mode and a silent log. */
  overrides?: Record<string, unknown>;
  /** The emulator's synthetic agents (rates). */
  params?: Partial<SyntheticParams>;
  /** More MAKERD_* variables (MAKERD_STATUS_HOST). */
  env?: Record<string, string>;
  log?: Logger;
  /** The SQLite file (default: a new one in a temporary folder). */
  db?: string;
  /** Wait until every traded market rests a bid and an ask (default); false: return once started. */
  waitQuoting?: boolean;
  /** Daemon options beyond the fixture's own (the held marks' keeping period). */
  daemon?: Pick<DaemonOptions, 'markKeepMs' | 'tokens'>;
}

/** Another account sells into one of our resting bids (of `market`, when given; FAK at its price), and the daemon's fill is waited for. */
export async function takeOneBid(r: Running, market?: string): Promise<void> {
  const bid = r.emu.exchange.openOrders(KEY).find((o) => o.side === 'BUY' && (market === undefined || o.market.conditionId === market));
  if (!bid) throw new Error(`no resting bid of ours${market ? ` in ${market}` : ''}`);
  const fills = async () => ((await (await fetch(`${r.url}/status?brief=1`)).json()) as { fills: number }).fills;
  const before = await fills();
  // everything bid at or above our price, so the sell reaches our order
  const book = r.daemon.feed.book(bid.assetId);
  const buf: number[] = [];
  const n = book ? book.depth('BUY', 100, buf) : 0;
  let size = 0;
  for (let i = 0; i < n; i++) if (buf[2 * i] >= bid.price) size += buf[2 * i + 1];
  const shares = Math.max(5, size / 100);
  r.emu.exchange.split('status-test-taker', bid.market.conditionId, shares * 100); // shares to sell, as the venue's balance check wants
  const out = await r.emu.exchange.place('status-test-taker', { tokenID: bid.assetId, side: 'SELL', price: bid.price / 10_000, size: shares, orderType: 'FAK' });
  if (out.errorMsg) throw new Error(`taker order refused: ${String(out.errorMsg)}`);
  const end = Date.now() + 10_000;
  while ((await fills()) === before) {
    if (Date.now() > end) throw new Error('our fill did not come in 10 s');
    await sleep(50);
  }
}

export async function startDaemon(markets: number, o: StartOptions = {}): Promise<Running> {
  const seed = o.seed ?? 5;
  const emu = await startEmulator({ seed, markets, keys: [KEY], params: o.params });
  const dir = mkdtempSync(join(tmpdir(), 'makerd-status-'));
  const u = emu.urls;
  const config = loadConfig({
    env: {
      ...urlsEnv(u),
      MAKERD_DB: o.db ?? join(dir, 's.sqlite'),
      ...o.env,
    },
    overrides: { mode: 'live', log: { level: 'silent' }, ...o.overrides },
  });
  const trade = o.trade ?? markets;
  const tokens = emu.markets.slice(0, trade).map((m) => m.facts.tokens[0]);
  const daemon = new Daemon({ config, venue: specProfile(KEY), log: o.log ?? silentLogger, tokens, statusPort: 0, ...o.daemon });
  const close = async () => {
    await daemon.stop('test');
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await daemon.start();
    const end = Date.now() + 15_000;
    while (o.waitQuoting !== false) {
      const s = (await (await fetch(`${daemon.status.url}/status?brief=1`)).json()) as { counts: { marketsQuotingBothSides: number } };
      if (s.counts.marketsQuotingBothSides >= trade) break;
      if (Date.now() > end) throw new Error(`not quoting both sides in 15 s: ${JSON.stringify(s.counts)}`);
      await sleep(100);
    }
  } catch (e) {
    await close();
    throw e;
  }
  return { daemon, url: daemon.status.url, emu, close };
}
