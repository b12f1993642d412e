// A real node:http server on 127.0.0.1:0 for API tests: records every request and answers
// through a handler the test supplies.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Config } from '../../src/config.js';

export interface Received {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
  /** The client's port: the same port means the same (kept-alive) connection. */
  remotePort: number;
}

export type Handler = (req: Received, res: ServerResponse) => void;

export interface TestServer {
  url: string;
  requests: Received[];
  setHandler(h: Handler): void;
  close(): Promise<void>;
}

export function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

export async function startServer(handler: Handler): Promise<TestServer> {
  let h = handler;
  const requests: Received[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const u = new URL(req.url ?? '/', 'http://127.0.0.1');
      const r: Received = {
        method: req.method ?? '',
        path: u.pathname,
        query: u.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        remotePort: req.socket.remotePort ?? 0,
      };
      requests.push(r);
      h(r, res);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setHandler: (nh) => (h = nh),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

const FIX = fileURLToPath(new URL('../fixtures/polymarket/', import.meta.url));
export function fixture(rel: string): unknown {
  return JSON.parse(readFileSync(FIX + rel, 'utf8'));
}

/** Small, fast settings for tests. */
export const testHttp: Config['http'] = {
  connectTimeoutMs: 1000,
  headersTimeoutMs: 300,
  bodyTimeoutMs: 300,
  keepAliveTimeoutMs: 1000,
  connectionsPerOrigin: 4,
  placeDeadlineMs: 5000,
  cancelDeadlineMs: 5000,
  readDeadlineMs: 5000,
};
export const testRetry: Config['retry'] = { baseMs: 5, maxMs: 20, attempts: 3 };
