// The status server (loopback only): GET /health (200 when the feeds are live and every book is
// in sync, else 503), GET /status (JSON; ?brief=1: counts instead of the per-market, per-token and
// per-order lists; ?loop=reset: the event-loop lag figures start a new interval after this read),
// GET /metrics (Prometheus text). Read-only views of a running daemon; it changes nothing but the
// lag interval.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../core/log.js';
import type { StatusSource } from './source.js';
import { health, metricsText, statusJson } from './report.js';

export class StatusServer {
  private server: Server | undefined;
  url = '';

  constructor(
    private readonly d: StatusSource,
    private readonly log: Logger,
  ) {}

  listen(port: number): Promise<void> {
    const server = createServer((req, res) => {
      const [path, query = ''] = (req.url ?? '/').split('?', 2);
      try {
        if (req.method !== 'GET') {
          res.writeHead(405, { 'content-type': 'text/plain' }).end('method not allowed\n');
        } else if (path === '/health') {
          const h = health(this.d);
          res.writeHead(h.ok ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify(h) + '\n');
        } else if (path === '/status') {
          const q = new URLSearchParams(query);
          const brief = q.has('brief') && q.get('brief') !== '0';
          const body = statusJson(this.d, { brief, resetLoop: q.get('loop') === 'reset' });
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body, null, 1) + '\n');
        } else if (path === '/metrics') {
          res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(metricsText(this.d));
        } else {
          res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
        }
      } catch (err) {
        this.log.error({ err, path }, 'status: handler failed');
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('internal error\n');
      }
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        const a = server.address() as AddressInfo;
        this.url = `http://127.0.0.1:${a.port}`;
        this.log.info({ url: this.url }, 'status server listening');
        resolve();
      });
    });
  }

  close(): Promise<void> {
    const s = this.server;
    if (!s) return Promise.resolve();
    this.server = undefined;
    return new Promise((r) => {
      s.close(() => r());
      s.closeAllConnections?.();
    });
  }
}
