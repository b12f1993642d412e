import { describe, it, expect } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
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
  stop_exit_codes?: number[];
  time?: boolean;
  autorestart?: boolean;
  cwd: string;
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

  it("pm2's kill timeout outlasts the daemon's own stop bound (daemon.shutdownTimeoutMs + 5 s) as config/local.json sets it: a raised bound was cut short by SIGKILL mid cancel-all", () => {
    const require = createRequire(import.meta.url);
    const root = mkdtempSync(join(tmpdir(), 'makerd-pm2-kill-'));
    mkdirSync(join(root, 'config'));
    copyFileSync(join(ROOT, 'ecosystem.config.cjs'), join(root, 'ecosystem.config.cjs'));
    writeFileSync(join(root, 'config', 'local.json'), JSON.stringify({ mode: 'paper', daemon: { shutdownTimeoutMs: 60_000 } }));
    const raised = (require(join(root, 'ecosystem.config.cjs')) as { apps: App[] }).apps[0];
    expect(raised.kill_timeout).toBeGreaterThan(65_000);
    // the default bound (20 s): pm2's 30 s
    const dflt = (require(join(ROOT, 'ecosystem.config.cjs')) as { apps: App[] }).apps[0];
    expect(dflt.kill_timeout).toBeGreaterThanOrEqual(30_000);
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
    expect(out.trim()).toMatch(/^makerd \d+\.\d+\.\d+/);
  });

  // Issue 13, item 6: pm2 must not restart a daemon that refused its configuration (exit 2), and
  // its log files must stay JSON lines (pm2's `time: true` prefixes each line with a timestamp).
  it('pm2 stops restarting on exit 2 and leaves the JSON lines as they are', () => {
    const require = createRequire(import.meta.url);
    const a = (require(join(ROOT, 'ecosystem.config.cjs')) as { apps: App[] }).apps[0];
    expect(a.stop_exit_codes).toEqual([2]);
    expect(a.autorestart).toBe(true);
    expect(a.time ?? false).toBe(false);
    expect(a.args).toEqual(['run', '--config', join(ROOT, 'config', 'local.json')]);
  });

  it('without config/local.json the command the app runs refuses in one line and exits 2', () => {
    assertBuilt();
    const require = createRequire(import.meta.url);
    const a = (require(join(ROOT, 'ecosystem.config.cjs')) as { apps: App[] }).apps[0];
    // the app's own command line; its config file swapped for a missing one should config/local.json exist here
    const missing = join(mkdtempSync(join(tmpdir(), 'makerd-pm2-')), 'config', 'local.json');
    const args = a.args.map((x) => (x === join(ROOT, 'config', 'local.json') ? missing : x));
    const r = spawnSync(process.execPath, [a.script, ...args], { cwd: a.cwd, encoding: 'utf8', timeout: 15_000, env: { PATH: process.env.PATH } });
    expect(r.status).toBe(2);
    const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(`makerd: invalid config: --config: ${missing} does not exist (copy config/default.json there and keep what you change; README "pm2")`);
    expect(r.stderr + r.stdout).not.toMatch(/\n\s+at /);
  });
});
