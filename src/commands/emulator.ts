// makerd emulator: runs the exchange emulator on 127.0.0.1 (every API, the WebSocket endpoint and
// the price stream on one port) and prints its base URLs; or, with --write, writes a synthetic
// recording of --duration seconds of market time as fast as it can and exits. --profile polymarket
// makes the CLOB API speak the real venue's dialect (signed orders, L1/L2 auth, heartbeats).
import { SIGNER_TIERS, signerTierOf } from '../api/limit-table.js';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, MakerdError } from '../core/errors.js';
import { createLogger, envLogLevel } from '../core/log.js';
import { startEmulator, type EmulatorOptions } from '../emulator/server.js';
import { writeSyntheticRecording } from '../emulator/recording-writer.js';
import { openFlags } from '../feed/recorder.js';
import type { FaultConfig } from '../emulator/faults.js';
import { parseTickSize } from '../emulator/tick-rule.js';
import { UsageError, type CommandModule, numberFlag, seedFlag, TIMER_S } from './command.js';
import { HEARTBEAT_TIMEOUT_MS } from '../emulator/polymarket-heartbeats.js';
import { outputFileProblem, systemErrorLine } from './paths.js';
import { MAX_WINDOW_SCALE } from '../config.js';

const help = `usage: makerd emulator [--port P] [--synthetic SEED] [--markets N] [--speed X] [--activity X]
                       [--keys K1,K2] [--limit-scale X] [--window-scale X] [--urls-out F] [--feed-...] [--fault-...]
                       [--profile spec|polymarket] [--signer-tier T] [--heartbeat-timeout-ms N] [--allow-short-sells]
                       [--start-cash USD] [--allowance USD]
       makerd emulator --synthetic SEED --write F --duration S [--markets N] [--activity X]
       makerd emulator --replay F [--speed X] [...]

Serves on 127.0.0.1, one port (default 0 = any free port):
  {base}/clob, {base}/gamma, {base}/data, {base}/content   the four HTTP APIs
  ws://127.0.0.1:P/ws/market|user|all                       the WebSocket endpoint (ws url = ws://127.0.0.1:P)
  ws://127.0.0.1:P/prices                                   the crypto price stream (RTDS format)
  POST {base}/admin/faults  JSON {"silentFeed":true, "malformedNext":2, "wrongHashNext":1, "skipNext":1,
       "http500Next":1, "http500Rate":0.1, "http429Next":1, "http429Rate":0.1, "latencyMs":200, "drop":true,
       "tickSize":"0.001" (with optional "market":"<condition id>"; "auto" hands back to the price rule),
       "corruptGroupHashNext":1, "balanceLagMs":3000 (a bought share counts toward the SELL balance
       check 3 s after its trade is CONFIRMED: a stale balance cache), "clockAheadMs":10000 (polymarket:
       the venue's clock, GET /time and signed requests' freshness, runs 10 s ahead), "userOpsIgnored":true
       (the user channel keeps its first subscription, ignoring live markets subscribe/unsubscribe),
       "userTradeUnreadableNext":1 (the next user-channel trade message is sent truncated), and the feed's shape: "topsAfterBatch", "hashPerMessage",
       "oneMessagePerBatch", "ltpLeads", "complementLtp" (booleans), "printLagMs" (ms)}
Options:
  --synthetic SEED     seed of the synthetic market(s) (default 1); same seed, same market
  --replay F           publish a recording (recorder lines, plain or .gz) frame by frame as recorded,
                       at --speed; users' orders go to a simulated venue per API key fed by the same
                       recorded events: they queue and fill against the recorded liquidity and
                       trades, but the recorded market does not react to them (its books and
                       hashes stay exactly as recorded)
  --markets N          number of synthetic markets (default 1)
  --speed X            market time per wall time (default 1)
  --activity X         multiplies the synthetic makers' and takers' rates (default 1: the real captures'
                       ~1.4 price_change messages/s per market and a trade every ~25 s; 28 ~ the
                       stress rates of earlier versions: 31 messages/s, 2 trades/s)
The feed is shaped like the real captures: one price_change message per changed level (the token and
its complement), several messages per timestamp sharing the hash after the batch, tops after each
message, prices in their shortest form, the hashed last_trade_price with 3 decimals and updated before
the last_trade_price event (1 - p on the complement), later book frames without last_trade_price.
Each variant a client must also accept (wire-formats.md 5.4):
  --feed-tops-after-batch      every entry of a batch carries the top after the whole batch
  --feed-hash-per-message      every entry carries the hash after its own message (not the batch)
  --feed-one-message-per-batch one price_change message holding all of a batch's changes
  --feed-ltp-after-event       the hashed last trade price changes only after its announcement
  --feed-own-token-ltp         a trade does not move the complement's hashed last trade price
  --feed-print-lag-ms N        a trade's last_trade_price (and the book frames after it) comes N ms
                               after the batch that shows it, stamped then, as the real feed prints
                               a trade ~70-200 ms late (default 0: with its batch; --write too)
  --profile P          the CLOB API's dialect: spec (default: the spec's envelope and Bearer keys) or
                       polymarket (the real venue's paths and plain JSON bodies, errors {"error": "..."};
                       L1 ClobAuth for POST /auth/api-key and GET /auth/derive-api-key, L2 HMAC headers on
                       every private route, signed V2 orders, POST /v1/heartbeats; seeded test accounts,
                       an EOA (signature type 0), a Gnosis-safe proxy (type 2) and a deposit wallet
                       (type 3) with their funders, each with API credentials for nonce 0, listed under
                       "accounts" in --urls-out)
  --signer-tier T      the venue's per-signer token buckets at tier T (standard, copper, bronze, silver,
                       gold, platinum, diamond, elite: docs.polymarket.com/api-reference/trading-rate-limits),
                       per API key: orders (POST /order, /orders: a batch costs its orders) and cancels
                       (DELETE /order, /orders, /cancel-all, /cancel-market-orders); a short bucket refuses
                       with 429, Retry-After and Poly-RateLimit-Reset; answers name Poly-RateLimit-Tier and
                       -Remaining. Off by default
  --heartbeat-timeout-ms N   polymarket profile: once a key has sent a heartbeat, this long without a
                       valid one cancels all its open orders (default ${HEARTBEAT_TIMEOUT_MS}: the venue's documented
                       window, without the buffer it may add)
  --allow-short-sells  accept a SELL without the shares for it. By default a SELL is refused
                       (INVALID_ORDER_NOT_ENOUGH_BALANCE; polymarket: "not enough balance / allowance")
                       unless the shares of CONFIRMED trades cover it and every open SELL of the token:
                       shares bought in a trade still MATCHED are not sellable yet, as on the venue
  --start-cash USD     every account's collateral (default 10000). The polymarket profile refuses a
                       BUY whose cost, with every open BUY of the account, exceeds it ("not enough
                       balance / allowance"), as the venue does
  --allowance USD      every account's allowance to the exchanges (default unlimited, as the usual
                       approval). The polymarket profile refuses a BUY beyond it as beyond the cash;
                       BUY fills use it up, as on chain; GET /balance-allowance shows it
  --keys K1,K2         accepted Bearer API keys (default: any non-empty key; spec profile)
  --limit-scale X      multiplies every rate limit; --window-scale X every window length
                       (429 answers carry X-RateLimit-Limit/-Remaining/-Reset; Reset is epoch ms)
  --urls-out F         writes {"clob","gamma","data","content","ws","price_feed"} as JSON to F (the
                       polymarket profile adds "accounts": [{address, privateKey, signatureType, funder?,
                       apiKey, secret, passphrase}], test keys made from the seed)
  --write F --duration S   writes S seconds of synthetic market time to F (recorder lines; gzip
                       when F ends in .gz) as fast as possible, then exits; --markets N of them.
                       Takes only --synthetic, --markets and --activity besides: any other option
                       is refused (no server runs for it to apply to). F must not exist: a
                       recording is never overwritten (exit 2)
  --fault-latency-ms N, --fault-500-rate X, --fault-429-rate X, --fault-silent   faults from the start
  --fault-cancel-trickle-ms N, --fault-read-trickle-ms N   CLOB DELETEs / GETs stall: not carried
                    out, answered one byte every N ms, never finished
  --fault-corrupt-group-hash N   the next N batches of 2+ messages carry one corrupted hash (seeded position)
  --fault-tick-size T[@S]  forces every synthetic market's tick to T (0.1, 0.01, 0.001, 0.0001) after S
                       seconds of wall time (default 0: from the start): a tick_size_change rehearsal.
                       Without it the tick follows the venue's rule (0.001 past 0.96 or under 0.04)
Stops cleanly on SIGINT/SIGTERM.`;

/** "0.001" or "0.001@30" (seconds of wall time before the change). */
function parseTickFault(v: string): { tick: string; afterS: number } {
  const [tick, at] = v.split('@');
  const t = parseTickSize(tick);
  if (t === 'auto') throw new UsageError('--fault-tick-size takes a tick, not auto');
  if (typeof t === 'string') throw new UsageError(`--fault-tick-size: ${t}`);
  // a delay past what a timer holds would fire at once
  return { tick, afterS: numberFlag(at, '--fault-tick-size @S', { min: 0, max: TIMER_S }) ?? 0 };
}

/** The options a --write applies; any other given with it is refused (it would be ignored). */
const WRITE_OPTIONS = new Set(['write', 'duration', 'synthetic', 'markets', 'activity', 'feed-print-lag-ms']);

export const command: CommandModule = {
  summary: 'run the exchange emulator (synthetic market, every API, WS feeds, faults)',
  help,
  async main(argv, io) {
    const { values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        synthetic: { type: 'string' },
        replay: { type: 'string' },
        markets: { type: 'string' },
        speed: { type: 'string' },
        keys: { type: 'string' },
        'limit-scale': { type: 'string' },
        'window-scale': { type: 'string' },
        'urls-out': { type: 'string' },
        write: { type: 'string' },
        duration: { type: 'string' },
        'fault-latency-ms': { type: 'string' },
        'fault-cancel-trickle-ms': { type: 'string' },
        'fault-read-trickle-ms': { type: 'string' },
        'fault-500-rate': { type: 'string' },
        'fault-429-rate': { type: 'string' },
        'fault-silent': { type: 'boolean' },
        'fault-tick-size': { type: 'string' },
        'fault-corrupt-group-hash': { type: 'string' },
        activity: { type: 'string' },
        'feed-tops-after-batch': { type: 'boolean' },
        'feed-hash-per-message': { type: 'boolean' },
        'feed-one-message-per-batch': { type: 'boolean' },
        'feed-ltp-after-event': { type: 'boolean' },
        'feed-own-token-ltp': { type: 'boolean' },
        'feed-print-lag-ms': { type: 'string' },
        'allow-short-sells': { type: 'boolean' },
        'start-cash': { type: 'string' },
        allowance: { type: 'string' },
        profile: { type: 'string' },
        'heartbeat-timeout-ms': { type: 'string' },
        'signer-tier': { type: 'string' },
      },
    });
    if (values.replay !== undefined && values.synthetic !== undefined) throw new UsageError('--replay and --synthetic exclude each other');
    if (values.replay !== undefined && values.write !== undefined) throw new UsageError('--write makes a synthetic recording; it does not take --replay');
    if (values.write !== undefined) {
      // checked before the write's own flags: an option it would not apply is never silently dropped
      const ignored = Object.entries(values).find(([k, v]) => v !== undefined && !WRITE_OPTIONS.has(k));
      if (ignored)
        throw new UsageError(`--${ignored[0]} does not apply to --write (it writes a recording: no server runs); --write takes --synthetic, --markets, --activity, --duration and --feed-print-lag-ms`);
    }
    // counts, seeds and ports are integers: a fraction is refused, never truncated
    const seed = seedFlag(values.synthetic, '--synthetic') ?? 1;
    const markets = numberFlag(values.markets, '--markets', { min: 1, integer: true }) ?? 1;
    const activity = numberFlag(values.activity, '--activity', { min: 0.001 });
    const params = activity === undefined ? undefined : { activity };
    const printLagMs = numberFlag(values['feed-print-lag-ms'], '--feed-print-lag-ms', { min: 0, max: 60_000 });
    if (values.write !== undefined) {
      const durationS = numberFlag(values.duration, '--duration', { min: 1 }) ?? NaN;
      if (!Number.isFinite(durationS)) throw new UsageError('--write needs --duration S (seconds of market time)');
      const file = values.write;
      if (openFlags(file) === 'wx' && existsSync(file)) throw new UsageError(`--write ${file}: the file exists; a recording is never overwritten (remove it, or name another)`);
      const r = await writeSyntheticRecording({ file, seed, durationS, params, markets, printLagMs }).catch((e: unknown) => {
        throw new MakerdError(`cannot write ${file}: ${e instanceof Error ? e.message : String(e)}`);
      });
      io.out(`wrote ${values.write}: ${markets} market${markets === 1 ? '' : 's'}, ${r.frames} frames, ${r.trades} trades, ${durationS} s of market time (seed ${seed})`);
      return 0;
    }
    if (values.duration !== undefined) throw new UsageError('--duration goes with --write');
    const profile = values.profile ?? 'spec';
    if (profile !== 'spec' && profile !== 'polymarket') throw new UsageError(`--profile must be spec or polymarket, got '${profile}'`);
    if (profile === 'polymarket' && values.keys !== undefined) throw new UsageError('--keys applies to the spec profile; the polymarket profile issues credentials per wallet (L1)');
    if (profile !== 'polymarket' && values['heartbeat-timeout-ms'] !== undefined) throw new UsageError('--heartbeat-timeout-ms goes with --profile polymarket');
    const signerTier = values['signer-tier'] === undefined ? undefined : signerTierOf(values['signer-tier']);
    if (values['signer-tier'] !== undefined && signerTier === undefined) throw new UsageError(`--signer-tier must be one of ${Object.keys(SIGNER_TIERS).join(', ')}, got '${values['signer-tier']}'`);
    const heartbeatTimeoutMs = numberFlag(values['heartbeat-timeout-ms'], '--heartbeat-timeout-ms', { min: 1, max: TIMER_S * 1000 });
    const port = numberFlag(values.port, '--port', { min: 0, max: 65535, integer: true }) ?? 0;
    const faults: Partial<FaultConfig> = {};
    // delays that become timers: at most what one holds (a longer one fires at once)
    const timerMs = { min: 0, max: TIMER_S * 1000 };
    if (values['fault-latency-ms'] !== undefined) faults.latencyMs = numberFlag(values['fault-latency-ms'], '--fault-latency-ms', timerMs) ?? 0;
    const cancelTrickle = numberFlag(values['fault-cancel-trickle-ms'], '--fault-cancel-trickle-ms', timerMs);
    if (cancelTrickle !== undefined) faults.cancelTrickleMs = cancelTrickle;
    const readTrickle = numberFlag(values['fault-read-trickle-ms'], '--fault-read-trickle-ms', timerMs);
    if (readTrickle !== undefined) faults.readTrickleMs = readTrickle;
    if (values['fault-500-rate'] !== undefined) faults.http500Rate = Math.min(1, numberFlag(values['fault-500-rate'], '--fault-500-rate', { min: 0 }) ?? 0);
    if (values['fault-429-rate'] !== undefined) faults.http429Rate = Math.min(1, numberFlag(values['fault-429-rate'], '--fault-429-rate', { min: 0 }) ?? 0);
    if (values['fault-silent']) faults.silentFeed = true;
    if (values['fault-corrupt-group-hash'] !== undefined) faults.corruptGroupHashNext = numberFlag(values['fault-corrupt-group-hash'], '--fault-corrupt-group-hash', { min: 0, integer: true }) ?? 0;
    if (values['feed-tops-after-batch']) faults.topsAfterBatch = true;
    if (values['feed-hash-per-message']) faults.hashPerMessage = true;
    if (values['feed-one-message-per-batch']) faults.oneMessagePerBatch = true;
    if (values['feed-ltp-after-event']) faults.ltpLeads = false;
    if (values['feed-own-token-ltp']) faults.complementLtp = false;
    if (printLagMs !== undefined) faults.printLagMs = printLagMs;
    const tickFault = values['fault-tick-size'] === undefined ? undefined : parseTickFault(values['fault-tick-size']);
    if (tickFault && values.replay !== undefined) throw new UsageError('--fault-tick-size applies to synthetic markets, not --replay');
    const opts: EmulatorOptions = {
      port,
      seed,
      replay: values.replay,
      markets,
      speed: numberFlag(values.speed, '--speed', { min: 0.001 }) ?? 1,
      keys: values.keys
        ? values.keys
            .split(',')
            .map((k) => k.trim())
            .filter(Boolean)
        : undefined,
      limitScale: numberFlag(values['limit-scale'], '--limit-scale', { min: 1e-6 }) ?? 1,
      windowScale: numberFlag(values['window-scale'], '--window-scale', { min: 1e-6, max: MAX_WINDOW_SCALE }) ?? 1,
      faults,
      params,
      profile,
      heartbeatTimeoutMs,
      signerTier,
      checkSellBalance: values['allow-short-sells'] !== true,
      startCashMicros: Math.round((numberFlag(values['start-cash'], '--start-cash', { min: 0 }) ?? 10_000) * 1_000_000),
      allowanceMicros: values.allowance === undefined ? undefined : Math.round((numberFlag(values.allowance, '--allowance', { min: 0 }) ?? 0) * 1_000_000),
      log: createLogger({ name: 'emulator', level: envLogLevel(io.env, 'warn') }),
    };
    // --urls-out checked before the server starts: a failure after it would leave it listening
    const urlsOutFile = values['urls-out'];
    const urlsOutBad = urlsOutFile ? outputFileProblem(urlsOutFile) : undefined;
    if (urlsOutBad) {
      io.err(`makerd emulator: --urls-out ${urlsOutFile}: ${urlsOutBad}`);
      return 2;
    }
    // an earlier run's file (ours: it names a clob URL) goes first: a script waiting for it must not read
    // dead ports while this one starts; any other file there is left until the new one replaces it
    if (urlsOutFile && earlierUrlsFile(urlsOutFile)) rmSync(urlsOutFile, { force: true });
    const emu = await startEmulator(opts).catch((e: unknown) => {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE') throw new ConfigError('--port', `127.0.0.1:${port} is already in use (0 = any free port)`);
      if (code === 'EACCES') throw new ConfigError('--port', `127.0.0.1:${port} is not allowed to this user`);
      throw e;
    });
    const urls = emu.urls;
    for (const [k, v] of Object.entries(urls)) io.out(`${k.padEnd(10)} ${v}`);
    io.out(`markets    ${emu.markets.map((m) => `${m.conditionId} [${m.tokens.join(', ')}]`).join('; ')}`);
    for (const a of emu.accounts) io.out(`account    ${a.address} (signature type ${a.signatureType}${a.funder ? `, funder ${a.funder}` : ''}; keys in --urls-out)`);
    const urlsOut = profile === 'polymarket' ? { ...urls, accounts: emu.accounts } : urls;
    if (urlsOutFile) {
      try {
        // whole or not at all: a script polling for the file never reads half of it
        const tmp = `${urlsOutFile}.${process.pid}.tmp`;
        writeFileSync(tmp, JSON.stringify(urlsOut, null, 2) + '\n');
        renameSync(tmp, urlsOutFile);
      } catch (e) {
        // failed all the same (the disk full): stopped, not left listening with nobody told where
        await emu.close();
        throw new MakerdError(`cannot write --urls-out ${urlsOutFile}: ${systemErrorLine(e) ?? String(e)}`);
      }
    }
    const tickTimer = tickFault ? setTimeout(() => emu.admin.setTickSize(tickFault.tick), tickFault.afterS * 1000) : undefined;
    await new Promise<void>((resolve) => {
      const stop = (): void => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    clearTimeout(tickTimer);
    await emu.close();
    io.out('emulator stopped');
    return 0;
  },
};

/** Whether `path` holds an earlier emulator's --urls-out (a JSON object naming a clob URL). */
function earlierUrlsFile(path: string): boolean {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    return typeof v === 'object' && v !== null && typeof (v as { clob?: unknown }).clob === 'string';
  } catch {
    return false;
  }
}
