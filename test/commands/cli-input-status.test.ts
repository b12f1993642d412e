// The status server answers HEAD like GET, without a body (a load balancer's or uptime probe's
// health check is often HEAD), and any other method 405 with the Allow header (RFC 9110 15.5.6).
// A daemon in this process against the emulator on loopback (test/status/daemon-fixture.ts).
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Running } from '../status/daemon-fixture.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function ask(method: string, url: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error(`${method} ${url}: no answer in 10 s`)));
    req.end();
  });
}

let run: Running;
beforeAll(async () => {
  run = await startDaemon(1, { waitQuoting: false });
}, 30_000);
afterAll(async () => {
  await run?.close();
});

describe('status server: HEAD and 405', () => {
  it('HEAD /health, /status, /metrics and / answer as GET does, without a body', async () => {
    for (const path of ['/health', '/status?brief=1', '/metrics', '/']) {
      const get = await ask('GET', `${run.url}${path}`);
      const head = await ask('HEAD', `${run.url}${path}`);
      expect(head.status, path).toBe(get.status);
      expect(head.headers['content-type'], path).toBe(get.headers['content-type']);
      expect(head.body, path).toBe('');
    }
    expect((await ask('HEAD', `${run.url}/nowhere`)).status).toBe(404);
  });

  it('any other method: 405 with Allow: GET, HEAD', async () => {
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const r = await ask(method, `${run.url}/health`);
      expect(r.status).toBe(405);
      expect(r.headers.allow).toBe('GET, HEAD');
    }
  });
});
