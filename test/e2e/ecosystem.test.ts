import { describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { assertBuilt, ROOT } from './harness.js';

interface App {
  name: string;
  script: string;
  args: string[];
  exec_mode: string;
  instances: number;
  wait_ready: boolean;
  kill_timeout: number;
  exp_backoff_restart_delay: number;
  max_memory_restart: string;
  out_file: string;
  error_file: string;
}

describe('pm2 ecosystem files', () => {
  it('the .cjs loads with require() and describes one forked daemon with a long kill timeout', () => {
    const require = createRequire(import.meta.url);
    const cfg = require(join(ROOT, 'ecosystem.config.cjs')) as { apps: App[] };
    expect(cfg.apps).toHaveLength(1);
    const a = cfg.apps[0];
    expect(a.script).toBe(join(ROOT, 'dist', 'cli.js'));
    expect(a.args[0]).toBe('run');
    expect(a.exec_mode).toBe('fork');
    expect(a.instances).toBe(1);
    expect(a.wait_ready).toBe(true);
    expect(a.kill_timeout).toBeGreaterThanOrEqual(10_000);
    expect(a.exp_backoff_restart_delay).toBeGreaterThan(0);
    expect(a.max_memory_restart).toMatch(/^\d+[MG]$/);
    expect(a.out_file).toContain(join('data', 'logs'));
    expect(a.error_file).toContain(join('data', 'logs'));
  });

  it('the .js (ESM, for "type": "module") exports the same apps', async () => {
    const esm = (await import(join(ROOT, 'ecosystem.config.js'))) as { apps: App[]; default: { apps: App[] } };
    const require = createRequire(import.meta.url);
    const cjs = require(join(ROOT, 'ecosystem.config.cjs')) as { apps: App[] };
    expect(esm.apps).toEqual(cjs.apps);
    expect(esm.default.apps).toEqual(cjs.apps);
  });

  it("the bin runs when another script imports it, as pm2's fork container does (argv[1] is not cli.js)", () => {
    assertBuilt();
    const dir = mkdtempSync(join(tmpdir(), 'makerd-pm2-'));
    const container = join(dir, 'container.mjs');
    writeFileSync(container, `await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'cli.js')).href)});\n`);
    const out = execFileSync(process.execPath, [container, '--version'], { encoding: 'utf8', timeout: 10_000 });
    expect(out.trim()).toBe('makerd 0.1.0');
  });
});
