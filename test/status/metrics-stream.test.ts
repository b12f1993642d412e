// GET /metrics is sent as it is written (status/server.ts writeMetrics), over a real server on
// 127.0.0.1: every piece arrives, in order; a scrape that fails before its first piece answers
// 500; one that fails midway cuts the connection, so the scraper sees a failed scrape, never a
// short one that parses.
import { describe, it, expect, afterEach } from 'vitest';
import { request } from 'node:http';
import { StatusServer } from '../../src/status/server.js';
import { SessionHistory } from '../../src/status/history.js';
import type { MetricsView, StatusSource } from '../../src/status/source.js';
import { silentLogger } from '../../src/core/log.js';

let server: StatusServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A status server whose only metrics are `pieces` (the rest of the source is never read by /metrics). */
async function serve(pieces: () => AsyncGenerator<string>): Promise<string> {
  const metrics: MetricsView = { history: new SessionHistory(), contentType: 'text/plain; version=0.0.4; charset=utf-8', pieces };
  server = new StatusServer({ metrics } as StatusSource, silentLogger);
  await server.listen(0);
  return server.url;
}

/** GET: the status and the body, or the error that ended the response. */
function get(url: string): Promise<{ status: number; body: string; error?: string }> {
  return new Promise((resolve) => {
    const req = request(url, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', (e) => resolve({ status: res.statusCode ?? 0, body, error: e.message }));
    });
    req.on('error', (e) => resolve({ status: 0, body: '', error: e.message }));
    req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
    req.end();
  });
}

describe('GET /metrics, streamed', () => {
  it('sends every piece in order', async () => {
    const n = 400;
    const url = await serve(async function* () {
      for (let i = 0; i < n; i++) {
        yield `x_series{i="${i}"} ${i}\n`;
        await new Promise((r) => setImmediate(r));
      }
    });
    const r = await get(`${url}/metrics`);
    expect(r.status).toBe(200);
    expect(r.error).toBeUndefined();
    const lines = r.body.trimEnd().split('\n');
    expect(lines).toHaveLength(n);
    expect(lines.map((l) => Number(l.split(' ')[1]))).toEqual(Array.from({ length: n }, (_, i) => i));
  });

  it('answers 500 when the scrape fails before its first piece', async () => {
    const url = await serve(async function* () {
      await new Promise((r) => setImmediate(r));
      throw new Error('a family failed');
    });
    const r = await get(`${url}/metrics`);
    expect(r.status).toBe(500);
    expect(r.body).toBe('internal error\n');
  });

  it('cuts the connection when the scrape fails midway (no short 200 that parses)', async () => {
    const url = await serve(async function* () {
      yield 'x_first 1\n';
      await new Promise((r) => setImmediate(r));
      throw new Error('a family failed');
    });
    const r = await get(`${url}/metrics`);
    expect(r.status).toBe(200);
    expect(r.error).toBeDefined();
  });
});
