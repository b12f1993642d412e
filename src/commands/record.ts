// makerd record: captures raw market-channel frames with receive time and connection epoch as
// JSON lines (see src/feed/recorder.ts for the format and rotation names), across reconnects,
// with a live status line on stderr. Stops on SIGINT/SIGTERM or after --duration seconds.
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../config.js';
import { createLogger, type Logger } from '../core/log.js';
import { FeedConnection } from '../feed/connection.js';
import { channelOptions } from '../feed/channels.js';
import { isSystemPath, MAX_BUFFERED, Recorder } from '../feed/recorder.js';
import { META_CHANNEL } from '../feed/channels.js';
import { metaFrame } from '../backtest/market-meta-line.js';
import type { MarketMeta } from '../engine/strategy.js';
import { createClients, type Clients } from '../api/index.js';
import { clobProfileFromEnv } from '../api/profile-from-env.js';
import { marketsFromTokens } from '../session/markets.js';
import { settleWithin } from '../core/clock.js';
import { CryptoPriceStream, PRICES_CHANNEL } from '../feed/price-stream.js';
import { UsageError, type CommandIO, type CommandModule, numberFlag, TIMER_S } from './command.js';
import { newRecordingProblem, systemErrorLine } from './paths.js';

const help = `usage: makerd record --markets T1,T2 --out FILE [--prices S1,S2] [--config FILE] [--rotate-mb N] [--rotate-hourly] [--duration S] [--first-frame-timeout S] [--no-market-meta]

Records every raw market-channel frame for the given token ids as lines
{"t":<receive ms>,"e":<connection epoch>,"k":"market","f":<raw frame as is>} (a frame that is not a
one-line JSON object or array: "f":"<frame as a JSON string>"); gzipped when FILE ends in .gz.
  --prices S1,S2     also record the crypto price stream (urls.priceFeed) for these symbols, as
                     lines with "k":"prices" on the same clock (a backtest hands them to strategies)
  --rotate-mb N      start a new file after N MB (uncompressed) in the current one
  --rotate-hourly    start a new file when the UTC hour changes
  --duration S       stop after S seconds (default: until SIGINT/SIGTERM)
  --first-frame-timeout S
                     fail when no market frame (other than PONG) came within S seconds of the start:
                     the feed is unreachable or the token ids are unknown (default 30; 0 = wait forever)
  --no-market-meta   skip the look-up of the markets' metadata at the CLOB (urls.clob): by default
                     one line per market ("k":"meta": priced token, tick, minimum size, negRisk,
                     end time, fee rule) comes first, so a backtest quotes them as live does, and
                     both tokens of each market are recorded; when the look-up fails the recording
                     goes on without it (the tokens given only), with a warning
Rotated files insert a sequence number before the extension: rec.jsonl.gz, rec.1.jsonl.gz, rec.2.jsonl.gz ...
The WS base URL comes from the config (urls.ws, or MAKERD_WS_URL).
A .gz is flushed about once a second, so a killed run loses at most its last second.
Exit status: 0 when frames were recorded; 1 when none came within --first-frame-timeout, the run
recorded none, or a write failed (disk full: the line names the error and the frames lost); 2 on
bad usage, an invalid config, or an --out that cannot be written or already exists, as does any
of its rotated siblings: a recording is never overwritten.
SIGINT, SIGTERM and SIGHUP stop it (a second signal while it closes is ignored); a close that does
not finish within 10 s (an --out that takes no writes: a FIFO nobody reads) ends it with a line
and SIGKILL (exit status 137).`;

/** How long a stop may take to close the recording (flush, gzip trailer) before the process ends regardless. */
const CLOSE_BOUND_MS = 10_000;

export interface RecordRun {
  config: Config;
  markets: string[];
  out: string;
  /** Crypto symbols of the price stream recorded beside the market channel. */
  prices?: string[];
  rotateBytes?: number;
  rotateHourly?: boolean;
  log?: Logger;
  /** Stop and fail when no market data frame came within this many ms of the start (0/undefined: never). */
  firstFrameTimeoutMs?: number;
  /** The markets' metadata, written first (channel "meta": backtest/market-meta-line.ts) for a backtest to quote them as live. */
  meta?: readonly MarketMeta[];
}

export interface RecordOutcome {
  /** Lines written (market frames, PONGs included, and price frames). */
  frames: number;
  bytes: number;
  files: number;
  reconnects: number;
  /** Market frames other than PONG, and price-stream frames: what a recording is for. */
  dataFrames: number;
  /** Failed writes (disk full ...), and the lines lost to them after the error. */
  writeErrors: number;
  dropped: number;
  /** Why the run failed (one line), when it did: nothing came in time, or nothing at all. */
  failure?: string;
}

/**
 * Records until `signal` aborts (or, with firstFrameTimeoutMs, until no market frame came in
 * time); returns the recorder and connection counters. Rejects with the file system's error when
 * the first file cannot be created, before connecting.
 */
export async function recordUntil(r: RecordRun, io: CommandIO, signal: AbortSignal): Promise<RecordOutcome> {
  const f = r.config.feed;
  const opts = channelOptions(
    r.config.urls.ws,
    { kind: 'market' },
    { pingIntervalMs: f.pingIntervalMs, pongTimeoutMs: f.pongTimeoutMs, quietMs: f.quietMs, probeTimeoutMs: f.probeTimeoutMs, reconnectBaseMs: f.reconnectBaseMs, reconnectMaxMs: f.reconnectMaxMs },
    { log: r.log },
  );
  // every file starts with the markets' metadata (a rotated one is backtested on its own as the first is)
  const header = (r.meta ?? []).map((m) => ({ text: metaFrame(m), kind: META_CHANNEL }));
  const rec = new Recorder({ out: r.out, rotateBytes: r.rotateBytes, rotateHourly: r.rotateHourly, header });
  await rec.open();
  const conn = new FeedConnection(opts);
  let dataFrames = 0;
  let marketData = 0;
  let connected = false;
  conn.onState((s) => {
    if (s === 'live') connected = true;
  });
  conn.onFrame((fr) => {
    rec.write(fr, 'market');
    if (fr.text !== 'PONG') {
      marketData++;
      dataFrames++;
    }
  });
  const prices = r.prices?.length ? new CryptoPriceStream({ url: r.config.urls.priceFeed, symbols: r.prices, pingIntervalMs: f.priceFeedPingIntervalMs, log: r.log }) : undefined;
  prices?.connection.onFrame((fr) => {
    if (fr.text !== 'PONG' && fr.text !== 'pong') {
      rec.write(fr, PRICES_CHANNEL);
      dataFrames++;
    }
  });
  /** What came of the connection, for a failure line. */
  const why = (): string => (connected ? `connected to ${opts.url}, but nothing came for ${r.markets.join(',')} (unknown token ids?)` : `could not connect to ${opts.url}`);
  let failure: string | undefined;
  let stopNow = (): void => {};
  const timeoutMs = r.firstFrameTimeoutMs ?? 0;
  const firstFrameTimer =
    timeoutMs > 0
      ? setTimeout(() => {
          if (marketData > 0) return;
          failure = `no frame within ${timeoutMs / 1000} s: ${why()}`;
          stopNow();
        }, timeoutMs)
      : undefined;
  const started = Date.now();
  const tty = process.stderr.isTTY === true;
  let lastPrinted = 0;
  const status = (final: boolean) => {
    const up = Math.round((Date.now() - started) / 1000);
    // frames not recorded: lost to a write error, or not taken while the disk did not keep up
    const { errors: failed, dropped, droppedSlow } = rec.stats;
    const slow = droppedSlow ? ` (${droppedSlow} for a slow disk)` : '';
    const errors = failed ? ` write-errors=${failed} (${rec.lastError?.message ?? ''}) dropped=${dropped}${slow}` : dropped ? ` dropped=${dropped}${slow}` : '';
    const line = `record: ${conn.state} frames=${rec.stats.frames} bytes=${rec.stats.bytes} files=${rec.stats.files} reconnects=${Math.max(0, conn.epoch - 1)} uptime=${up}s${errors}`;
    if (tty && !final) process.stderr.write(`\r${line}\x1b[K`);
    else if (final || Date.now() - lastPrinted >= 10_000) {
      lastPrinted = Date.now();
      io.err(tty ? `\r${line}\x1b[K` : line);
    }
  };
  const timer = setInterval(() => status(false), 1000);
  conn.start(r.markets);
  prices?.start();
  await new Promise<void>((resolve) => {
    stopNow = resolve;
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
  clearInterval(timer);
  if (firstFrameTimer) clearTimeout(firstFrameTimer);
  conn.stop();
  prices?.stop();
  await rec.close();
  status(true);
  if (!failure && dataFrames === 0) failure = `recorded 0 frames in ${Math.round((Date.now() - started) / 1000)} s: ${why()}`;
  const { errors, dropped } = rec.stats;
  if (errors > 0) {
    // the recording has a hole or lost its tail: never a success
    const lost = `${errors} write error${errors === 1 ? '' : 's'}, ${dropped} frame${dropped === 1 ? '' : 's'} not recorded; the file is incomplete`;
    const write = `write failed: ${rec.lastErrorPath ?? r.out}: ${rec.lastError?.message ?? 'unknown error'} (${lost})`;
    failure = failure ? `${write}; and ${failure}` : write;
  } else if (rec.stats.droppedSlow > 0) {
    // a hole as much as a write error's: never a success either
    const slow = `${rec.stats.droppedSlow} frame${rec.stats.droppedSlow === 1 ? '' : 's'} not recorded: the disk did not keep up (more than ${MAX_BUFFERED / 1048576} MiB waiting to be written); the file has holes`;
    failure = failure ? `${slow}; and ${failure}` : slow;
  }
  return { frames: rec.stats.frames, bytes: rec.stats.bytes, files: rec.stats.files, reconnects: Math.max(0, conn.epoch - 1), dataFrames, writeErrors: errors, dropped, failure };
}

/** How long the metadata look-up may take before the recording starts without it. */
const META_LOOKUP_MS = 20_000;

/** The markets of `tokens` as the daemon would quote them (the CLOB's metadata), or why not. */
async function lookUpMarkets(config: Config, env: NodeJS.ProcessEnv, tokens: readonly string[], log: Logger): Promise<MarketMeta[] | string> {
  let clients: Clients | undefined;
  try {
    clients = createClients(config, await clobProfileFromEnv(config, env), log);
    const metas = await settleWithin(marketsFromTokens(clients.clob, tokens, log), META_LOOKUP_MS);
    return metas ?? `no answer within ${META_LOOKUP_MS / 1000} s`;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  } finally {
    await clients?.close().catch(() => undefined);
  }
}

export const command: CommandModule = {
  summary: 'record raw market frames (with receive times) to a JSON-lines file',
  help,
  async main(argv, io) {
    const { values } = parseArgs({
      args: argv,
      options: {
        markets: { type: 'string' },
        out: { type: 'string' },
        prices: { type: 'string' },
        config: { type: 'string' },
        'rotate-mb': { type: 'string' },
        'rotate-hourly': { type: 'boolean' },
        duration: { type: 'string' },
        'first-frame-timeout': { type: 'string' },
        'no-market-meta': { type: 'boolean' },
      },
    });
    const markets = (values.markets ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (markets.length === 0) throw new UsageError('--markets T1,T2 is required');
    for (const m of markets) if (!/^\d+$/.test(m)) throw new UsageError(`token ids are decimal strings, got ${m}`);
    if (!values.out) throw new UsageError('--out FILE is required');
    const mb = numberFlag(values['rotate-mb'], '--rotate-mb', { positive: true });
    const dur = numberFlag(values.duration, '--duration', { positive: true, max: TIMER_S });
    const firstFrameS = numberFlag(values['first-frame-timeout'], '--first-frame-timeout', { min: 0, max: TIMER_S }) ?? 30;
    const rotation = mb !== undefined ? '--rotate-mb' : values['rotate-hourly'] ? '--rotate-hourly' : undefined;
    if (rotation && isSystemPath(values.out)) throw new UsageError(`${rotation} does not apply to --out ${values.out}: a system file is written as it is (its next file would be ${values.out}.1)`);
    const outBad = newRecordingProblem(values.out);
    if (outBad) {
      io.err(`makerd record: --out ${values.out}: ${outBad}`);
      return 2;
    }
    const config = loadConfig({ file: values.config, env: io.env });
    // one connection carries them all: past the bound the venue serves some and drops the rest
    const most = config.feed.maxAssetsPerConnection;
    if (markets.length > most)
      throw new UsageError(
        `--markets names ${markets.length} tokens; record keeps them on one connection, which carries at most feed.maxAssetsPerConnection (${most}): split them over several record runs`,
      );
    const log = createLogger({ level: config.log.level, name: 'record' });
    // before the recording (and its --duration) starts: the lines go first in the file
    let meta: MarketMeta[] = [];
    if (values['no-market-meta'] !== true) {
      const found = await lookUpMarkets(config, io.env, markets, log);
      if (typeof found === 'string')
        io.err(
          `makerd record: WARNING: market metadata not recorded (${found}): a backtest of this recording prices the token whose book comes first and knows no end time or fee rule (--no-market-meta skips the look-up)`,
        );
      else meta = found;
    }
    // both tokens of each market: a backtest prices the first outcome (the metadata's), whose book
    // a recording of the other alone would never hold (the market would quote nothing)
    const tokens = [...new Set([...markets, ...meta.flatMap((m) => [m.tokenId, m.complementId])])];
    if (tokens.length > most)
      throw new UsageError(`--markets: their markets hold ${tokens.length} tokens, more than one connection carries (feed.maxAssetsPerConnection ${most}): split them over several record runs`);
    const ac = new AbortController();
    // A stop ends in an exit code: a close that never finishes (a pipe nobody reads, a stalled
    // mount) would hang it for ever. Further signals while closing are absorbed (a second Ctrl-C
    // killed it mid-close: a .gz without its last part and trailer). SIGHUP too: Node resets the
    // ignore nohup sets, so a closed terminal would otherwise kill it mid-file, nohup or not.
    let guard: NodeJS.Timeout | undefined;
    const stop = (): void => {
      if (ac.signal.aborted) return;
      ac.abort();
      guard = setTimeout(() => {
        io.err(`makerd record: closing the recording did not finish within ${CLOSE_BOUND_MS / 1000} s (${values.out} takes no writes); exiting, its last frames may be lost`);
        // not process.exit: a write or open blocked in the kernel (a FIFO with no reader) holds
        // Node's exit, which waits for its I/O threads, for ever; this ends it (exit status 137)
        process.kill(process.pid, 'SIGKILL');
      }, CLOSE_BOUND_MS);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    process.on('SIGHUP', stop);
    const t = dur !== undefined ? setTimeout(stop, dur * 1000) : undefined;
    try {
      const prices = (values.prices ?? '')
        .split(',')
        .map((s) => s.trim().toLowerCase())
        .filter(Boolean);
      for (const s of prices) if (!/^[a-z0-9]+$/.test(s)) throw new UsageError(`--prices takes symbols such as btcusdt, got ${s}`);
      let res: RecordOutcome;
      try {
        res = await recordUntil(
          {
            config,
            markets: tokens,
            prices,
            out: values.out,
            rotateBytes: mb === undefined ? undefined : Math.round(mb * 1024 * 1024),
            rotateHourly: values['rotate-hourly'],
            log,
            firstFrameTimeoutMs: firstFrameS * 1000,
            meta,
          },
          io,
          ac.signal,
        );
      } catch (e) {
        const line = systemErrorLine(e);
        if (!line) throw e;
        io.err(`makerd record: --out ${values.out}: ${line}`);
        return 2;
      }
      if (res.failure) {
        io.err(`makerd record: ${res.failure}`);
        return 1;
      }
    } finally {
      if (t) clearTimeout(t);
      if (guard) clearTimeout(guard);
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      process.off('SIGHUP', stop);
    }
    return 0;
  },
};
