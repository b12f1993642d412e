// Seeded randomness for strategies, the simulated venue and the synthetic market: same seed,
// same sequence, on every machine (mulberry32 on a 32-bit state).

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [lo, hi]. */
  int(lo: number, hi: number): number;
  /** Standard normal (Box-Muller). */
  normal(): number;
  /** Exponential with the given rate (mean 1/rate). */
  exp(rate: number): number;
  /** A child generator with an independent stream, derived deterministically. */
  fork(label: string): Rng;
}

export class SeededRng implements Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0 || 0x9e3779b9;
  }
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
  exp(rate: number): number {
    return -Math.log(1 - this.next()) / rate;
  }
  fork(label: string): Rng {
    let h = this.state ^ 0x85ebca6b;
    for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193) >>> 0;
    return new SeededRng(h);
  }
}
