// The status folder shows a running daemon; this is its main file, the status server (127.0.0.1
// unless status.host says otherwise): GET / (the live page), /health, /status (JSON; ?brief=1,
// ?loop=reset, ?live=N) and /metrics (Prometheus text). Read-only: it changes nothing but the lag interval.
//
// HEAD answers as GET without the body; any other method 405 with Allow: GET, HEAD.
// GET /health: 200 when the feeds are live and every book is in sync, else 503. GET /status: JSON;
// ?brief=1: counts instead of the per-market, per-token and per-order lists; ?loop=reset: the
// event-loop lag figures start a new interval after this read; ?live=N: the live page's section
// (N book levels per side, PnL over the session, the last fills). GET /metrics: metrics.ts.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../core/log.js';
import type { MetricsView, StatusSource } from './source.js';
import { health, statusJson } from './report.js';
import { StatusMetrics } from './metrics.js';
import { samplePnl } from './live-view.js';
import { LIVE_PAGE } from './page.js';

/** Hosts that keep the server on this machine (no warning). */
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);
const SAMPLE_MS = 1000;

/** Whether a Host header names this machine's loopback (any port; none at all: an HTTP/1.0 client on the machine). */
function namesLoopback(hostHeader: string | undefined): boolean {
  if (hostHeader === undefined) return true;
  const h = hostHeader.trim().toLowerCase();
  const name = h.startsWith('[') ? h.slice(1, h.indexOf(']')) : h.replace(/:\d*$/, '');
  return LOOPBACK.has(name) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

export class StatusServer {
  private server: Server | undefined;
  private sampler: NodeJS.Timeout | undefined;
  readonly metrics: MetricsView;
  url = '';

  constructor(
    private readonly d: StatusSource,
    private readonly log: Logger,
  ) {
    this.metrics = d.metrics ?? new StatusMetrics(d);
  }

  /** Listens on host:port (port 0: any free one). A host other than loopback is warned about. */
  listen(port: number, host = '127.0.0.1'): Promise<void> {
    const loopbackOnly = LOOPBACK.has(host);
    const server = createServer((req, res) => {
      // on loopback, a request naming another host is a browser sent here by a name an attacker
      // points at 127.0.0.1 (DNS rebinding): its page would read positions, orders and PnL
      if (loopbackOnly && !namesLoopback(req.headers.host)) {
        res.writeHead(421, { 'content-type': 'text/plain' }).end('misdirected request: this status server answers only 127.0.0.1, localhost or [::1]\n');
        return;
      }
      const [path, query = ''] = (req.url ?? '/').split('?', 2);
      const fail = (err: unknown) => {
        this.log.error({ err, path }, 'status: handler failed');
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('internal error\n');
      };
      try {
        // HEAD is answered as GET (node sends no body for it); anything else 405, naming what is allowed
        if (req.method !== 'GET' && req.method !== 'HEAD') {
          res.writeHead(405, { 'content-type': 'text/plain', allow: 'GET, HEAD' }).end('method not allowed\n');
        } else if (path === '/') {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(LIVE_PAGE);
        } else if (path === '/health') {
          const h = health(this.d);
          res.writeHead(h.ok ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify(h) + '\n');
        } else if (path === '/status') {
          const q = new URLSearchParams(query);
          const brief = q.has('brief') && q.get('brief') !== '0';
          const liveDepth = Math.max(0, Math.floor(Number(q.get('live') ?? 0)) || 0);
          const body = statusJson(this.d, { brief, resetLoop: q.get('loop') === 'reset' && req.method === 'GET', liveDepth });
          res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body, null, 1) + '\n');
        } else if (path === '/metrics') {
          // HEAD: the headers a scrape would get, without making the scrape
          if (req.method === 'HEAD') res.writeHead(200, { 'content-type': this.metrics.contentType, 'cache-control': 'no-store' }).end();
          else void this.writeMetrics(res, fail);
        } else {
          res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
        }
      } catch (err) {
        fail(err);
      }
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        const a = server.address() as AddressInfo;
        this.url = `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`;
        if (!LOOPBACK.has(host))
          this.log.warn(
            { host, url: this.url },
            'status server listening beyond loopback (status.host / MAKERD_STATUS_HOST): anyone who reaches this address reads positions, orders, PnL and metrics (no credentials); put it behind a firewall or a proxy',
          );
        else this.log.info({ url: this.url }, 'status server listening');
        // the session's PnL for the live page, sampled from the start
        this.sampler = setInterval(() => {
          try {
            samplePnl(this.d, this.metrics.history);
          } catch (err) {
            this.log.debug({ err }, 'status: PnL sample failed');
          }
        }, SAMPLE_MS);
        this.sampler.unref();
        resolve();
      });
    });
  }

  /**
   * GET /metrics: each piece written as it is made (a scrape at 1,000 markets is ~5 MB over some
   * hundred loop turns). A failure before the first piece answers 500; after it, the connection is
   * cut, so the scraper sees a failed scrape rather than a short one.
   */
  private async writeMetrics(res: ServerResponse, fail: (err: unknown) => void): Promise<void> {
    try {
      for await (const p of this.metrics.pieces()) {
        if (res.destroyed) break;
        if (!res.headersSent) res.writeHead(200, { 'content-type': this.metrics.contentType, 'cache-control': 'no-store' });
        res.write(p);
      }
      res.end();
    } catch (err) {
      if (!res.headersSent) return fail(err);
      this.log.error({ err, path: '/metrics' }, 'status: handler failed');
      res.destroy();
    }
  }

  close(): Promise<void> {
    clearInterval(this.sampler);
    const s = this.server;
    if (!s) return Promise.resolve();
    this.server = undefined;
    return new Promise((r) => {
      s.close(() => r());
      s.closeAllConnections?.();
    });
  }
}
