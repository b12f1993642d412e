// Values the CLI reads before doing anything (flags, MAKERD_* variables, the config file) are
// taken only when they mean what they say: integers that are integers (safe ones), numbers in
// plain decimal, and a config file that is not JSON is reported by position, never by quoting it
// (it may hold a key). Each refusal is exit 2 naming the flag or the variable. In this process
// (src/cli.ts cli()); nothing here reaches a network.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../../src/cli.js';
import { loadConfig } from '../../src/config.js';
import { configError } from '../config/helpers.js';

interface Ran {
  code: number;
  out: string;
  err: string;
}

/** Nothing reachable: a refusal must come before any request. */
const OFFLINE = { MAKERD_GAMMA_URL: 'http://127.0.0.1:9', MAKERD_CLOB_URL: 'http://127.0.0.1:9' };

async function run(args: string[], env: Record<string, string> = {}): Promise<Ran> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await cli(args, { out: (l) => void out.push(l), err: (l) => void err.push(l), env: { ...OFFLINE, ...env } });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'makerd-cli-values-'));
});

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

describe('integer flags: safe integers only', () => {
  it('markets --limit / --offset past 2^53 or empty: exit 2 naming the flag', async () => {
    for (const [flag, v] of [
      ['--limit', '1e21'],
      ['--limit', '9007199254740993'],
      ['--offset', '1e300'],
      ['--limit', ''],
    ]) {
      const r = await run(['markets', flag, v]);
      expect(r.code, r.err).toBe(2);
      expect(r.err.split('\n')[0]).toBe(`makerd markets: ${flag} must be a non-negative integer, got '${v}'`);
    }
  });

  it('keys derive --nonce: unsafe, fractional, negative or empty is exit 2 naming --nonce', async () => {
    for (const v of ['1e21', '9007199254740993', '', ' ', '1.5', '-1']) {
      const r = await run(['keys', 'derive', `--nonce=${v}`]);
      expect(r.code, r.err).toBe(2);
      expect(r.err.split('\n')[0]).toBe(`makerd keys: --nonce must be a non-negative integer, got '${v}'`);
    }
    // a good nonce goes on to the next check (the wallet's key)
    const ok = await run(['keys', 'derive', '--nonce', '9007199254740991']);
    expect(ok.code).toBe(2);
    expect(ok.err).toMatch(/^makerd: invalid config: MAKERD_PRIVATE_KEY: /);
  });
});

describe('numeric environment variables: plain decimal, named when wrong', () => {
  it('a blank, hex, exponent or out-of-range value names the variable', () => {
    for (const [name, v] of [
      ['MAKERD_STATUS_PORT', ' '],
      ['MAKERD_STATUS_PORT', '0x2400'],
      ['MAKERD_STATUS_PORT', '9e3'],
      ['MAKERD_STATUS_PORT', '80.5'],
      ['MAKERD_STATUS_PORT', '70000'],
      ['MAKERD_STATUS_PORT', 'Infinity'],
      ['MAKERD_LIMIT_SCALE', '0'],
      ['MAKERD_LIMIT_SCALE', '0b1'],
      ['MAKERD_LIMIT_SCALE', ' 1'],
      ['MAKERD_WINDOW_SCALE', '-1'],
      ['MAKERD_WINDOW_SCALE', '1_000'],
    ]) {
      const e = configError(() => loadConfig({ env: { [name]: v } }));
      expect(e.key, `${name}=${JSON.stringify(v)}: ${e.message}`).toBe(name);
    }
  });

  it('plain decimals are taken as they read', () => {
    const c = loadConfig({ env: { MAKERD_STATUS_PORT: '9216', MAKERD_LIMIT_SCALE: '0.5', MAKERD_WINDOW_SCALE: '.25' } });
    expect(c.status.port).toBe(9216);
    expect(c.limits.scale).toBe(0.5);
    expect(c.limits.windowScale).toBe(0.25);
    // unset or empty: the config's value
    expect(loadConfig({ env: { MAKERD_STATUS_PORT: '' } }).status.port).toBe(loadConfig({ env: {} }).status.port);
  });

  it('the CLI prints the variable, exit 2', async () => {
    const r = await run(['markets'], { MAKERD_LIMIT_SCALE: '0' });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^makerd: invalid config: MAKERD_LIMIT_SCALE: /);
    expect(r.err).not.toMatch(/limits\.scale/);
  });
});

describe('a config file that is not JSON', () => {
  const KEY = '0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318';

  it('is reported by line and column, never by quoting the file', async () => {
    const one = file('key-one-line.json', `{"privateKey": ${KEY}}`);
    const e = configError(() => loadConfig({ file: one, env: {} }));
    expect(e.key).toBe('--config');
    expect(e.reason).toMatch(/not valid JSON/);
    expect(e.reason).toMatch(/line 1, column 17/);
    expect(e.reason).not.toMatch(/4c0883|privateKey/);

    const multi = file('key-lines.json', `{\n  "mode": "paper",\n  "x": ${KEY}\n}\n`);
    const m = configError(() => loadConfig({ file: multi, env: {} }));
    expect(m.reason).toMatch(/line 3, column 9/);
    expect(m.reason).not.toMatch(/4c0883|"x"/);

    // V8 quotes the text around an unexpected token ("Unexpected token 'd', "{"privateKey": dead"... is not valid JSON")
    const bare = file('key-bare.json', `{"privateKey": ${KEY.slice(2).replace(/^4c/, 'dc')}}`);
    const b = configError(() => loadConfig({ file: bare, env: {} }));
    expect(b.reason).toMatch(/line 1, column 16/);
    expect(b.reason).not.toMatch(/dc0883|privateKey/);

    const r = await run(['markets', '--config', one]);
    expect(r.code).toBe(2);
    expect(r.err.split('\n')).toHaveLength(1);
    expect(r.err).not.toMatch(/4c0883|privateKey/);
    expect(r.err).toMatch(/line 1, column 17/);
  });

  it('other kinds of broken JSON get a position and a generic reason', () => {
    const cases: Array<[string, RegExp]> = [
      ['{"mode": "pap', /unexpected end of the file at line 1, column 14/],
      ['{"mode": "paper",}', /line 1, column 18/],
      ['{"mode": "pa\tper"}', /control character in a string at line 1, column 13/],
      ['{"mode": "p\\qaper"}', /line 1, column 12/],
      ['{"mode": "paper"} secret', /line 1, column 19/],
      ['', /unexpected end of the file at line 1, column 1/],
      ['\n\n  {\r\n  secret', /line 4, column 3/],
    ];
    for (const [text, re] of cases) {
      const path = file('broken.json', text);
      const e = configError(() => loadConfig({ file: path, env: {} }));
      expect(e.reason, JSON.stringify(text)).toMatch(re);
      expect(e.reason.replace(path, '')).not.toMatch(/secret|paper|pap|qaper/);
    }
  });
});
