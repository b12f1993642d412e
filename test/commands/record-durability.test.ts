// `makerd record` on a failing disk and beside an earlier recording: a write error (ENOSPC: --out
// is a symlink to /dev/full, whose writes all fail so) ends the run with its final status line and
// exit 1 naming the error, never a silent exit 0; an --out that exists, or one of its rotated
// siblings, is refused before connecting (exit 2, one line naming the file) and left as it was.
// A real process (`node dist/cli.js`, built by npm test) against the emulator on 127.0.0.1;
// every wait is bounded.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../../src/cli.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { rotatedPath } from '../../src/feed/recorder.js';
import { assertBuilt, CLI, runCli } from '../e2e/harness.js';

interface Ran {
  code: number | null;
  errLines: string[];
}

/** Runs `node dist/cli.js ...args`; kills it and fails past `boundMs`. */
function makerd(args: string[], env: Record<string, string>, boundMs = 15_000): Promise<Ran> {
  return runCli(args, { env, boundMs });
}

let emu: RunningEmulator;
let dir = '';
let cfg = '';
let token = '';
beforeAll(async () => {
  assertBuilt();
  emu = await startEmulator({ seed: 4 });
  token = emu.markets[0].facts.tokens[0];
  dir = mkdtempSync(join(tmpdir(), 'record-dur-'));
  cfg = join(dir, 'cfg.json');
  writeFileSync(cfg, JSON.stringify({ log: { level: 'silent' }, feed: { reconnectBaseMs: 50, reconnectMaxMs: 100 } }));
});
afterAll(async () => {
  await emu?.close();
});

describe('makerd record: a write error (disk full)', () => {
  it.each(['full.jsonl', 'full.jsonl.gz'])(
    '--out %s -> /dev/full: the final status line, then exit 1 naming the error',
    async (name) => {
      const out = join(dir, name);
      symlinkSync('/dev/full', out);
      const r = await makerd(['record', '--markets', token, '--out', out, '--config', cfg, '--duration', '2', '--no-market-meta'], { MAKERD_WS_URL: emu.urls.ws });
      expect(r.code, r.errLines.join('\n')).toBe(1);
      const last = r.errLines.at(-1) ?? '';
      expect(last).toMatch(/^makerd record: write failed: .*ENOSPC: no space left on device/);
      expect(last).toContain(out);
      // the status line the run ends with, before the failure (the emulator's market may send one frame in 2 s: none dropped after it)
      expect(r.errLines.at(-2)).toMatch(/^record: \w+ frames=\d+ bytes=\d+ files=1 reconnects=\d+ uptime=\d+s write-errors=1 \(ENOSPC[^)]*\) dropped=\d+$/);
    },
    20_000,
  );
});

describe('makerd record: --out /dev/stdout', () => {
  it('with stdout redirected to a file (which exists): records into it, exit 0', async () => {
    const file = join(dir, 'stdout.jsonl');
    const fd = openSync(file, 'w');
    try {
      const proc = spawn(process.execPath, [CLI, 'record', '--markets', token, '--out', '/dev/stdout', '--config', cfg, '--duration', '2', '--no-market-meta'], {
        env: { PATH: process.env.PATH ?? '', MAKERD_WS_URL: emu.urls.ws },
        stdio: ['ignore', fd, 'pipe'],
      });
      let stderr = '';
      proc.stderr?.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
      const code = await new Promise<number | null>((resolve) => {
        const t = setTimeout(() => proc.kill('SIGKILL'), 15_000);
        proc.once('close', (c) => {
          clearTimeout(t);
          resolve(c);
        });
      });
      expect(code, stderr).toBe(0);
      expect(readFileSync(file, 'utf8')).toMatch(/^\{"t":\d+,"e":1,"k":"market","f":/);
    } finally {
      closeSync(fd);
    }
  }, 20_000);
});

describe('makerd record: an earlier recording', () => {
  async function run(args: string[]): Promise<{ code: number; err: string[]; ms: number }> {
    const err: string[] = [];
    const t0 = Date.now();
    const code = await cli(args, { out: () => {}, err: (l) => void err.push(l), env: { MAKERD_WS_URL: emu.urls.ws } });
    return { code, err, ms: Date.now() - t0 };
  }

  it('an --out that exists is refused before connecting (exit 2, one line naming it) and left as it was', async () => {
    const out = join(dir, 'yesterday.jsonl.gz');
    writeFileSync(out, 'the capture of yesterday');
    const r = await run(['record', '--markets', token, '--out', out, '--config', cfg, '--duration', '5', '--no-market-meta']);
    expect(r.code).toBe(2);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toMatch(new RegExp(`^makerd record: --out ${out.replace(/[/.]/g, '\\$&')}: exists`));
    expect(r.ms).toBeLessThan(2_000);
    expect(readFileSync(out, 'utf8')).toBe('the capture of yesterday');
  });

  it('rotation onto a system path (/dev/stdout) is refused: its next file would be /dev/stdout.1, not stdout', async () => {
    // review: as root it made a regular file /dev/stdout.1 and stdout got nothing more
    for (const flag of [['--rotate-hourly'], ['--rotate-mb', '1']]) {
      const r = await run(['record', '--markets', token, '--out', '/dev/stdout', ...flag, '--config', cfg, '--duration', '5', '--no-market-meta']);
      expect(r.code).toBe(2);
      expect(r.err.join('\n')).toMatch(/--rotate-\w+ does not apply to --out \/dev\/stdout/);
    }
  });

  it('a rotated sibling of --out that exists is refused too, naming it', async () => {
    const out = join(dir, 'rot.jsonl');
    const sibling = rotatedPath(out, 1);
    writeFileSync(sibling, 'hour 2 of yesterday\n');
    const r = await run(['record', '--markets', token, '--out', out, '--config', cfg, '--duration', '5', '--rotate-hourly', '--no-market-meta']);
    expect(r.code).toBe(2);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toMatch(new RegExp(`^makerd record: --out ${out.replace(/[/.]/g, '\\$&')}: ${sibling.replace(/[/.]/g, '\\$&')} exists`));
    expect(r.ms).toBeLessThan(2_000);
    expect(readFileSync(sibling, 'utf8')).toBe('hour 2 of yesterday\n');
  });
});

/**
 * `makerd record` of the emulator's token into `out`, a process of its own (stderr collected; each
 * chunk also to `onErr` with all so far): ended by SIGKILL past `boundMs`; `closed` its code and signal.
 */
function spawnRecord(out: string, boundMs: number, onErr?: (all: string) => void) {
  const proc = spawn(process.execPath, [CLI, 'record', '--markets', token, '--out', out, '--config', cfg, '--no-market-meta'], {
    env: { PATH: process.env.PATH ?? '', MAKERD_WS_URL: emu.urls.ws },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  proc.stderr?.on('data', (b: Buffer) => {
    stderr += b.toString('utf8');
    onErr?.(stderr);
  });
  const closed = new Promise<[number | null, string | null]>((resolve) => {
    const t = setTimeout(() => proc.kill('SIGKILL'), boundMs);
    proc.once('close', (c, sig) => {
      clearTimeout(t);
      resolve([c, sig]);
    });
  });
  return { proc, closed, stderr: () => stderr };
}

describe('makerd record: a stop that cannot finish', () => {
  // review: the signal handlers were `once`, so a second Ctrl-C while the recording closed killed it
  // by the signal (the .gz's last part and trailer lost, exit 130); and a close that never finished
  // (a pipe nobody reads, a stalled mount) hung the stop for ever, with no line
  it('--out a FIFO nobody reads: SIGINT twice; the second does not kill it, and it ends within its bound, one line naming the close', async () => {
    const fifo = join(dir, 'nobody-reads.jsonl');
    const mk = spawnSync('mkfifo', [fifo]);
    expect(mk.status, String(mk.stderr)).toBe(0);
    const { proc, closed, stderr: errText } = spawnRecord(fifo, 25_000);
    // once its recording's open waits for a reader (a thread of it in the kernel's wait_for_partner:
    // its signal handlers are in place by then; 6 s at most where /proc does not tell), two SIGINTs
    // 0.5 s apart. No status line ever comes: the open blocks the recording's start
    const timers: NodeJS.Timeout[] = [];
    const spawnedAt = Date.now();
    const opening = (): boolean => {
      try {
        return readdirSync(`/proc/${proc.pid}/task`).some((t) => readFileSync(`/proc/${proc.pid}/task/${t}/wchan`, 'utf8').trim() === 'wait_for_partner');
      } catch {
        return false;
      }
    };
    const poll = setInterval(() => {
      if (timers.length === 0 && (opening() || Date.now() - spawnedAt > 6000))
        timers.push(
          setTimeout(() => proc.kill('SIGINT'), 0),
          setTimeout(() => proc.kill('SIGINT'), 500),
        );
    }, 50);
    const t0 = Date.now();
    const [code, signal] = await closed;
    const stderr = errText();
    clearInterval(poll);
    for (const t of timers) clearTimeout(t);
    // ended by its own guard: SIGKILL, as the open blocked in the kernel holds process.exit (not the second SIGINT)
    expect([code, signal], stderr).toEqual([null, 'SIGKILL']);
    expect(timers).toHaveLength(2);
    expect(Date.now() - t0).toBeLessThan(20_000);
    const lines = stderr.split('\n').filter((l) => l.trim() !== '');
    expect(lines.at(-1)).toMatch(/^makerd record: closing the recording did not finish within 10 s/);
    expect(lines.at(-1)).toContain(fifo);
  }, 30_000);
});

describe('makerd record: a terminal that closes', () => {
  // Node resets the SIGHUP that nohup ignores to its default at start (measured: `nohup node` dies
  // of a SIGHUP, status 129), so without a handler a closed terminal killed the recorder mid-file,
  // under nohup too: a .gz without its trailer, which backtest and verify then call cut short
  it('SIGHUP stops it as SIGINT does: exit 0, the .gz whole', async () => {
    const out = join(dir, 'hangup.jsonl.gz');
    let hup: NodeJS.Timeout | undefined;
    // after its first status line (its handlers are in place by then)
    const { proc, closed, stderr } = spawnRecord(out, 20_000, (all) => {
      if (hup === undefined && all.includes('record: ')) hup = setTimeout(() => proc.kill('SIGHUP'), 300);
    });
    const [code, signal] = await closed;
    clearTimeout(hup);
    expect([code, signal], stderr()).toEqual([0, null]);
    const text = gunzipSync(readFileSync(out)).toString('utf8');
    expect(text).toMatch(/^\{"t":\d+,"e":1,"k":"market","f":/);
  }, 30_000);
});
