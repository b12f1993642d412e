// pm2 process file for the makerd daemon: `pm2 start ecosystem.config.cjs`.
// The package is "type": "module", so this file is .cjs (pm2 >= 5.3.1 loads it with require()).
// ecosystem.config.js re-exports the same apps for tools that import ESM (and pm2 on Node >= 22.12,
// where require() of an ES module works); on Node 20 pm2 cannot require a .js file in a "type":
// "module" package, so use this .cjs there.
//
// Secrets: export MAKERD_API_KEY in the shell that runs `pm2 start` (pm2 passes the environment
// through); never put it in this file.
const path = require('node:path');

module.exports = {
  apps: [
    {
      name: 'makerd',
      script: path.join(__dirname, 'dist', 'cli.js'),
      args: 'run --mode live',
      cwd: __dirname,
      exec_mode: 'fork', // one process: one engine loop, one rate-limit budget
      instances: 1,
      // Quoting starts only after startup reconciliation; pm2 waits for process.send('ready').
      wait_ready: true,
      listen_timeout: 60_000,
      // SIGINT -> stop quoting, DELETE /cancel-all, flush SQLite; give it time before SIGKILL.
      kill_timeout: 30_000,
      // Restart a crashing daemon with growing delays (100 ms doubling up to 15 s), not in a tight loop.
      exp_backoff_restart_delay: 100,
      max_memory_restart: '512M',
      autorestart: true,
      out_file: path.join(__dirname, 'data', 'logs', 'makerd.out.log'),
      error_file: path.join(__dirname, 'data', 'logs', 'makerd.err.log'),
      merge_logs: true,
      time: true,
      env: { NODE_ENV: 'production' },
      env_paper: { NODE_ENV: 'production' },
    },
  ],
};
