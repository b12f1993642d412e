// The market channel's state over several connections as the daemon sees it: every connection's
// state change is reported (not only a change of the worst), so a connection back while another
// still opens lets the daemon quote that connection's markets at once (feedLive), not when the
// other one next changes. The daemon live in process against the emulator, its WebSockets through
// a loopback proxy that can hold a connection before its handshake.
import { createServer, connect, type Server, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { specProfile } from '../../src/api/clob-profile.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/core/log.js';
import { startEmulator, urlsEnv } from '../../src/emulator/server.js';
import { Daemon } from '../../src/session/daemon.js';
import { KEY, sleep } from '../status/daemon-fixture.js';

async function until(what: string, ok: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

interface HoldProxy {
  url: string;
  /** New connections wait (their handshake unanswered) while set. */
  hold: boolean;
  held: Socket[];
  release(s: Socket): void;
  close(): Promise<void>;
}

async function holdProxy(target: string): Promise<HoldProxy> {
  const { hostname, port } = new URL(target);
  const all = new Set<Socket>();
  const pipe = (c: Socket) => {
    const up = connect(Number(port), hostname);
    all.add(up);
    c.pipe(up).pipe(c);
    const end = () => {
      c.destroy();
      up.destroy();
    };
    c.on('error', end).on('close', end);
    up.on('error', end).on('close', end);
  };
  const p: HoldProxy = {
    url: '',
    hold: false,
    held: [],
    release: (s) => {
      p.held.splice(p.held.indexOf(s), 1);
      pipe(s);
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of all) s.destroy();
        server.close(() => r());
      }),
  };
  const server: Server = createServer((c) => {
    all.add(c);
    if (p.hold) {
      c.on('error', () => {});
      p.held.push(c);
    } else pipe(c);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const addr = server.address();
  p.url = `ws://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  return p;
}

describe('daemon: market connections back one at a time', () => {
  it('one back live while the other still opens: quoting its markets resumes at once', async () => {
    // one market (two tokens) per connection; the daemon's WebSockets go through the proxy
    const emu = await startEmulator({ seed: 7, markets: 2, keys: [KEY] });
    const proxy = await holdProxy(emu.urls.ws);
    const dir = mkdtempSync(join(tmpdir(), 'makerd-feed-set-'));
    const config = loadConfig({
      env: { ...urlsEnv(emu.urls), MAKERD_WS_URL: proxy.url, MAKERD_DB: join(dir, 's.sqlite') },
      overrides: { mode: 'live', log: { level: 'silent' }, feed: { maxAssetsPerConnection: 2, reconnectBaseMs: 20, reconnectMaxMs: 40 } },
    });
    const d = new Daemon({ config, venue: specProfile(KEY), log: silentLogger, tokens: emu.markets.map((m) => m.facts.tokens[0]), statusPort: 0 });
    try {
      await d.start();
      const conns = d.feed.marketConnections();
      expect(conns).toHaveLength(2);
      await until('both live', () => conns.every((c) => c.conn.state === 'live') && d.feedLive());
      const flags: boolean[] = [];
      const setFeedLive = d.engine.setFeedLive.bind(d.engine);
      d.engine.setFeedLive = (live: boolean) => {
        flags.push(live);
        setFeedLive(live);
      };
      // #1 dropped: its reconnect held at the handshake ('connecting')
      proxy.hold = true;
      conns[1].conn.drop();
      await until('#1 held', () => proxy.held.length === 1 && conns[1].conn.state === 'connecting');
      // #0 dropped too: nothing live, quotes pulled
      conns[0].conn.drop();
      await until('#0 held', () => proxy.held.length === 2 && conns[0].conn.state === 'connecting');
      expect(flags[flags.length - 1]).toBe(false);
      // #0 back (its handshake let through); #1 still opening
      proxy.hold = false;
      proxy.release(proxy.held[1]);
      await until('#0 live', () => conns[0].conn.state === 'live');
      expect(conns[1].conn.state).toBe('connecting');
      expect(d.feedLive()).toBe(true);
      // the engine told at once (before: only when #1 next changed state, up to its handshake timeout)
      await until('the engine told the feed is live', () => flags[flags.length - 1] === true, 500);
      proxy.release(proxy.held[0]);
      await until('#1 live', () => conns[1].conn.state === 'live');
    } finally {
      for (const c of proxy.held) c.destroy();
      await d.stop('test');
      await emu.close();
      await proxy.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
