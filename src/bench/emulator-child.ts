// The emulator of a benchmark in a process of its own, so that its work (publishing frames,
// matching our orders) does not share the measured process's event loop. Started with fork():
// argv[2] holds the EmulatorOptions as JSON; the child answers {urls, tokens} over IPC (the
// first token of each market) and exits when the parent disconnects.
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startEmulator, type EmulatorOptions, type EmulatorUrls } from '../emulator/server.js';

export interface ChildEmulator {
  urls: EmulatorUrls;
  /** The first token of each market. */
  tokens: string[];
  close(): Promise<void>;
}

type Ready = Omit<ChildEmulator, 'close'>;

/** Forks the emulator with `opts` (JSON-able: no functions) and resolves once it serves. */
export async function forkEmulator(opts: EmulatorOptions, timeoutMs = 30_000): Promise<ChildEmulator> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [JSON.stringify(opts)], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  // Niced: on a machine of few cores the emulator, woken by each of our writes, would otherwise
  // preempt the measured process inside its write() (Linux's wake-up preemption; 0.7 ms at p90),
  // a cost that a venue on another machine never puts on the sender.
  if (child.pid !== undefined) setPriority(child.pid, 19);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  try {
    const [msg] = (await Promise.race([once(child, 'message'), once(child, 'exit').then(([code]) => Promise.reject(new Error(`emulator child exited (${String(code)})`)))])) as [Ready];
    return {
      ...msg,
      close: async () => {
        if (child.exitCode !== null) return;
        const exited = once(child, 'exit');
        child.disconnect();
        const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(kill);
      },
    };
  } finally {
    clearTimeout(timer);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.send) {
  const opts = JSON.parse(process.argv[2] ?? '{}') as EmulatorOptions;
  const emu = await startEmulator(opts);
  process.on('disconnect', () => void emu.close().finally(() => process.exit(0)));
  process.send({ urls: emu.urls, tokens: emu.markets.map((m) => m.facts.tokens[0]) } satisfies Ready);
}
