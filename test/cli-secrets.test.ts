// No secret in any line the CLI prints (issue 10, item 6): a loopback venue whose error messages
// repeat the API key it was sent (as the real one did, "key <KEY> is not valid"), and every byte
// of the commands' output searched for the key.
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../src/cli.js';

const KEY = 'sk-test-9f8e7d6c5b4a39281706';
let server: Server;
let base = '';
const dir = mkdtempSync(join(tmpdir(), 'makerd-secrets-'));

beforeAll(async () => {
  server = createServer((req, res) => {
    const auth = String(req.headers.authorization ?? '');
    res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `key ${KEY} is not valid (sent: ${auth})` }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const a = server.address();
  base = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

async function run(argv: string[]): Promise<{ code: number; text: string }> {
  const lines: string[] = [];
  const env = {
    MAKERD_API_KEY: KEY,
    MAKERD_CLOB_URL: `${base}/clob`,
    MAKERD_GAMMA_URL: `${base}/gamma`,
    MAKERD_DATA_URL: `${base}/data`,
    MAKERD_CONTENT_URL: `${base}/content`,
    MAKERD_WS_URL: 'ws://127.0.0.1:9',
    MAKERD_DB: join(dir, 'x.sqlite'),
    MAKERD_STATUS_PORT: '0',
  };
  const code = await cli(argv, { out: (l) => void lines.push(l), err: (l) => void lines.push(l), env });
  return { code, text: lines.join('\n') };
}

describe('the CLI prints no secret', () => {
  it.each([[['markets', '--limit', '1']], [['markets', '--active', '--json']]])('%j: the venue echoes the key, the output does not', async (argv) => {
    const r = await run(argv);
    expect(r.code).toBe(1);
    expect(r.text).toMatch(/HTTP 401/);
    expect(r.text).toContain('[redacted]');
    expect(r.text).not.toContain(KEY);
    expect(r.text).not.toContain(KEY.slice(3));
  });
});
