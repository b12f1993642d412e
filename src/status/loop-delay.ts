// Event-loop lag of the running daemon, for /status: node's monitorEventLoopDelay samples a timer
// every RESOLUTION_MS and records how late it fired. A sample holds the interval itself, so the lag
// is the recorded value minus the resolution. Figures are since start or since the last reset
// (`GET /status?loop=reset` reads then resets, so a poller gets each interval's figures).
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

const RESOLUTION_MS = 10;
const NS = 1e6;

export interface LoopDelayFigures {
  /** Lag percentiles and maximum, in ms (0 when nothing was sampled). */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
  samples: number;
  /** The time these figures cover, in ms (since start or the last reset). */
  sinceMs: number;
}

export class LoopDelay {
  private readonly h: IntervalHistogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  private since = performance.now();

  start(): void {
    this.h.enable();
    this.since = performance.now();
  }
  stop(): void {
    this.h.disable();
  }

  /** The figures since start or the last reset; `reset` starts a new interval after reading. */
  read(reset = false): LoopDelayFigures {
    const h = this.h;
    const lag = (ns: number) => (h.count > 0 && Number.isFinite(ns) ? Math.max(0, Math.round((ns / NS - RESOLUTION_MS) * 1000) / 1000) : 0);
    const f: LoopDelayFigures = {
      p50Ms: lag(h.percentile(50)),
      p99Ms: lag(h.percentile(99)),
      maxMs: lag(h.max),
      meanMs: lag(h.mean),
      samples: h.count,
      sinceMs: Math.round(performance.now() - this.since),
    };
    if (reset) {
      h.reset();
      this.since = performance.now();
    }
    return f;
  }
}
