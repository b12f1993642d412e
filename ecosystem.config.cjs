// pm2 process file for the makerd daemon: `pm2 start ecosystem.config.cjs`.
// The package is "type": "module", so the apps live in this .cjs; ecosystem.config.js re-exports
// them as ESM. pm2 7 loads either (checked with pm2 7.0.4 on Node 20).
//
// Secrets: export MAKERD_API_KEY in the shell that runs `pm2 start` (pm2 passes the environment
// through); never put it in this file.
const fs = require('node:fs');
const path = require('node:path');

// Your settings (markets, strategy, mode, risk) go in config/local.json, git-ignored; the mode
// comes from it (config/default.json says "paper", the safe default: set "mode": "live" to trade).
// Without that file the daemon refuses in one line on stderr (data/logs/makerd.err.log) and exits 2.
const local = path.join(__dirname, 'config', 'local.json');
// said where `pm2 start` is typed, too (the daemon's own refusal goes to the err log)
if (!fs.existsSync(local)) {
  process.stderr.write(`makerd: ${local} does not exist: the daemon will refuse to start (exit 2, not restarted); copy config/default.json there and keep what you change\n`);
}

// pm2 sends SIGKILL kill_timeout after its SIGINT: it must outlast the daemon's own stop bound
// (daemon.shutdownTimeoutMs + 5 s), or a raised bound is cut short mid cancel-all. Read from
// local.json when it sets one (the daemon itself refuses a bad file: here the default stands).
function killTimeoutMs() {
  let shutdownMs = 20_000;
  try {
    const v = JSON.parse(fs.readFileSync(local, 'utf8'))?.daemon?.shutdownTimeoutMs;
    if (typeof v === 'number' && Number.isFinite(v) && v > 0) shutdownMs = v;
  } catch {
    // missing or unreadable: said above, or by the daemon at start
  }
  return Math.max(30_000, shutdownMs + 10_000);
}

module.exports = {
  apps: [
    {
      name: 'makerd',
      script: path.join(__dirname, 'dist', 'cli.js'),
      args: ['run', '--config', local],
      cwd: __dirname,
      exec_mode: 'fork', // one process: one engine loop, one rate-limit budget
      instances: 1,
      // Quoting starts only after startup reconciliation; pm2 waits for process.send('ready').
      wait_ready: true,
      listen_timeout: 60_000,
      // SIGINT -> stop quoting, DELETE /cancel-all, flush SQLite; give it time before SIGKILL.
      kill_timeout: killTimeoutMs(),
      // Restart a crashing daemon with growing delays (100 ms doubling up to 15 s), not in a tight loop.
      exp_backoff_restart_delay: 100,
      // Exit 2 is a usage or configuration error (a missing config/local.json or credential, no
      // markets, the status port taken): restarting cannot fix it, so pm2 does not restart.
      stop_exit_codes: [2],
      // above the 600 MB a thousand markets may take (the scale goal; about 200 MB measured): a restart
      // cancels every quote, so it is for a leak, not for a large set
      max_memory_restart: '1G',
      autorestart: true,
      out_file: path.join(__dirname, 'data', 'logs', 'makerd.out.log'),
      error_file: path.join(__dirname, 'data', 'logs', 'makerd.err.log'),
      merge_logs: true,
      // No `time: true`: pm2 would prefix every line with a timestamp and the logs would no longer be
      // JSON lines; each pino line already carries its "time".
      env: { NODE_ENV: 'production' },
      env_paper: { NODE_ENV: 'production' },
    },
  ],
};
