// Benchmark: how fast the synthetic market generates wire frames (hashes included) from its
// agents' events, in market time run as fast as possible. Goal: >= 20,000 frames per second.
import { SyntheticMarket } from '../emulator/synthetic-market.js';
import { stressSyntheticParams as params } from '../emulator/agents.js';

const GOAL_PER_S = 20_000;

export async function run(): Promise<Record<string, unknown>> {
  const t0 = Date.UTC(2026, 0, 1);
  // warm-up market (JIT), then the measured one
  new SyntheticMarket({ seed: 99, startMs: t0, params }).advanceTo(t0 + 300_000);
  const m = new SyntheticMarket({ seed: 1, startMs: t0, params });
  let bytes = 0;
  m.onFrame((f) => {
    bytes += f.text.length;
  });
  const marketSeconds = 3600;
  const cpu0 = process.cpuUsage();
  const w0 = performance.now();
  m.advanceTo(t0 + marketSeconds * 1000);
  const wallS = (performance.now() - w0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuS = (cpu.user + cpu.system) / 1e6;
  const framesPerS = m.stats.frames / wallS;
  return {
    bench: 'synthetic',
    market_seconds: marketSeconds,
    frames: m.stats.frames,
    agent_events: m.stats.agentEvents,
    trades: m.stats.trades,
    mb: Number((bytes / 1e6).toFixed(1)),
    wall_s: Number(wallS.toFixed(3)),
    cpu_s: Number(cpuS.toFixed(3)),
    frames_per_s: Math.round(framesPerS),
    frames_per_cpu_s: Math.round(m.stats.frames / cpuS),
    events_per_s: Math.round((m.stats.frames + m.stats.agentEvents) / wallS),
    goal_frames_per_s: GOAL_PER_S,
    meets_goal: framesPerS >= GOAL_PER_S,
  };
}
