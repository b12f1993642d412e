// No secret in any line the CLI prints (issue 10, item 6): a loopback venue whose error messages
// repeat the API key it was sent (as the real one did, "key <KEY> is not valid"), and every byte
// of the commands' output searched for the key.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../src/cli.js';

const KEY = 'sk-test-9f8e7d6c5b4a39281706';
const PK = '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6';
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

describe('every command, run as a process, prints no secret', () => {
  const CLI = join(process.cwd(), 'dist', 'cli.js');
  /**
   * Runs the compiled CLI with the key in its environment; every byte of stdout and stderr, its
   * exit code. SIGINT after killAfterMs, or (a server that runs until stopped) once it has printed
   * something, killAfterMs bounding the wait.
   */
  function spawnCli(argv: string[], killAfterMs: number, stopOnOutput = false): Promise<{ code: number | null; text: string }> {
    return new Promise((resolve) => {
      const p = spawn(process.execPath, [CLI, ...argv], {
        env: {
          PATH: process.env.PATH,
          MAKERD_API_KEY: KEY,
          MAKERD_API_SECRET: `${KEY}-secret`,
          MAKERD_API_PASSPHRASE: `${KEY}-pass`,
          MAKERD_PRIVATE_KEY: PK,
          MAKERD_CLOB_URL: `${base}/clob`,
          MAKERD_GAMMA_URL: `${base}/gamma`,
          MAKERD_DATA_URL: `${base}/data`,
          MAKERD_CONTENT_URL: `${base}/content`,
          MAKERD_WS_URL: base.replace('http', 'ws'),
          MAKERD_DB: join(dir, `p-${argv[0]}.sqlite`),
          MAKERD_STATUS_PORT: '0',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const chunks: Buffer[] = [];
      const t = setTimeout(() => p.kill('SIGINT'), killAfterMs);
      const take = (b: Buffer) => {
        chunks.push(b);
        if (stopOnOutput) p.kill('SIGINT');
      };
      p.stdout.on('data', take);
      p.stderr.on('data', take);
      p.once('exit', (code) => {
        clearTimeout(t);
        resolve({ code, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
  }
  const commands: Array<[string[], number]> = [
    [['run', '--mode', 'live', '--markets', '1'], 8000],
    [['run', '--mode', 'paper', '--markets', '1'], 8000],
    [['markets', '--limit', '1'], 8000],
    [['record', '--markets', '1', '--out', join(dir, 'rec.jsonl'), '--duration', '1', '--no-market-meta'], 8000],
    [['verify', join(dir, 'missing.jsonl')], 8000],
    [['backtest', '--data', join(dir, 'missing.jsonl')], 8000],
    [['demo', '--duration', '2', '--interval', '1'], 15000],
    // stopped once it prints its address (a fixed 1.5 s was too short for its start-up on a busy machine)
    [['emulator', '--port', '0'], 15000],
    [['keys', 'derive'], 8000],
  ];
  it.each(commands)(
    '%j',
    async (argv, ms) => {
      const r = await spawnCli(argv, ms, argv[0] === 'emulator');
      expect(r.text.length).toBeGreaterThan(0);
      for (const secret of [KEY, KEY.slice(3), `${KEY}-secret`, `${KEY}-pass`, PK.slice(2)]) expect(r.text).not.toContain(secret);
    },
    30_000,
  );
});
