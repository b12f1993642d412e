// An exact sliding-window log: the grant times of the last `windowMs` in a ring buffer of size
// `limit`. Any interval of `windowMs` holds at most `limit` grants (a grant at t counts during
// [t, t + windowMs + holdMs)). Pure: time is passed in. Shared by the client limiter (which holds
// each grant a little longer: the server counts a request when it arrives, after we grant it) and
// the emulator (holdMs 0).

export class SlidingWindow {
  private readonly ring: Float64Array;
  private head = 0; // index of the oldest grant
  private count = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    /** Extra time each grant counts, past windowMs. */
    readonly holdMs = 0,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`);
    if (!(windowMs > 0)) throw new RangeError(`windowMs must be positive, got ${windowMs}`);
    this.ring = new Float64Array(limit);
  }

  private evict(nowMs: number): void {
    const cutoff = nowMs - this.windowMs - this.holdMs;
    while (this.count > 0 && this.ring[this.head] <= cutoff) {
      this.head = this.head + 1 === this.limit ? 0 : this.head + 1;
      this.count--;
    }
  }

  /** Grants in the window ending at nowMs. */
  used(nowMs: number): number {
    this.evict(nowMs);
    return this.count;
  }

  hasRoom(nowMs: number): boolean {
    this.evict(nowMs);
    return this.count < this.limit;
  }

  /** Records a grant; the caller checked hasRoom at the same instant. */
  record(nowMs: number): void {
    let i = this.head + this.count;
    if (i >= this.limit) i -= this.limit;
    this.ring[i] = nowMs;
    this.count++;
  }

  /** Takes one slot at nowMs if there is room. */
  tryAcquire(nowMs: number): boolean {
    if (!this.hasRoom(nowMs)) return false;
    this.record(nowMs);
    return true;
  }

  /** Earliest time >= nowMs at which tryAcquire would succeed. */
  nextFreeAt(nowMs: number): number {
    this.evict(nowMs);
    return this.count < this.limit ? nowMs : this.ring[this.head] + this.windowMs + this.holdMs;
  }

  /**
   * The server says this window is full until resetAtMs (a 429 with nothing remaining) while this
   * log may hold fewer grants (another process on the key): the log is made full so that its slots
   * come back one at a time from resetAtMs, one per windowMs / limit, as a full sliding window's do,
   * and no grant of ours leaves before it would have. Not all at once at the reset: a queue drained
   * then into a window the server still counts full would be answered 429 request by request.
   */
  saturate(nowMs: number, resetAtMs: number): void {
    this.evict(nowMs);
    if (this.count >= this.limit || !(resetAtMs > nowMs)) return;
    const span = this.windowMs + this.holdMs;
    const step = this.windowMs / this.limit;
    const missing = this.limit - this.count;
    // rank k leaves at the later of the server's k-th slot and our own k-th grant's leaving (ours ranked last)
    const leave = new Float64Array(this.limit);
    for (let k = 0; k < this.limit; k++) {
      const ours = k >= missing ? this.ring[(this.head + k - missing) % this.limit] + span : -Infinity;
      leave[k] = Math.max(resetAtMs + k * step, ours);
    }
    for (let k = 0; k < this.limit; k++) this.ring[k] = leave[k] - span;
    this.head = 0;
    this.count = this.limit;
  }

  /** Remaining slots at nowMs (for X-RateLimit-Remaining). */
  remaining(nowMs: number): number {
    return this.limit - this.used(nowMs);
  }
}
