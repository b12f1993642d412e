import { describe, it, expect } from 'vitest';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT } from './harness.js';

interface App {
  name: string;
  script: string;
  args: string;
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
    expect(a.args).toMatch(/^run\b/);
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
});
