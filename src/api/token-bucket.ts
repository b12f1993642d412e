// A token bucket of the venue's per-signer limits (limit-table.ts SIGNER_TIERS): at most `burst`
// tokens, refilled continuously at `ratePerMs`; a request costs its number of orders. Pure: time is
// passed in. Shared by the client limiter and the emulator. The balance may go below zero: the
// venue debits a cancel-all's cancelled orders after the fact, on the tiers that allow it.
// The client's count of the venue's bucket takes a live request's tokens when it is answered
// (send/answered): the venue takes them on arrival, some time in between, and a full bucket there
// gains nothing meanwhile, so counting from the answer can only find fewer tokens than it holds.

/** Float slack on a token's arrival. */
const EPS = 1e-9;

export class TokenBucket {
  private tokens: number;
  private at = -Infinity;
  /** Tokens of requests sent and not yet answered: spent, but not yet taken from `tokens`. */
  private inFlight = 0;

  /**
   * `fullHoldMs`: after a spend from a full bucket, no refill for this long: the client's count
   * where no answer is awaited (record: the scheduler's virtual time), since the venue takes the
   * spend only when the request arrives and a full bucket there gains nothing meanwhile. 0 for the
   * venue's own bucket (the emulator); a live request is counted by send/answered instead.
   */
  constructor(
    public burst: number,
    public ratePerMs: number,
    private readonly fullHoldMs = 0,
  ) {
    if (!(burst >= 1) || !(ratePerMs > 0)) throw new RangeError(`a token bucket needs burst >= 1 and a positive rate, got ${burst}, ${ratePerMs}`);
    this.tokens = burst;
  }

  /** The burst as a window's limit, and the time a full refill takes as its length (the limiter's metrics). */
  get limit(): number {
    return this.burst;
  }
  get windowMs(): number {
    return this.burst / this.ratePerMs;
  }

  private refill(nowMs: number): void {
    if (this.at === -Infinity) this.at = nowMs;
    if (nowMs > this.at) {
      this.tokens = Math.min(this.burst, this.tokens + (nowMs - this.at) * this.ratePerMs);
      this.at = nowMs;
    }
  }

  /** Tokens at nowMs, less those in flight (negative while a debit is being paid off). */
  available(nowMs: number): number {
    this.refill(nowMs);
    return this.tokens - this.inFlight;
  }

  /** Tokens spent, as a window's count of grants (the limiter's metrics). */
  used(nowMs: number): number {
    return Math.min(this.burst, Math.max(0, Math.round(this.burst - this.available(nowMs))));
  }

  hasRoom(nowMs: number, cost = 1): boolean {
    return cost <= this.burst && this.available(nowMs) >= cost - EPS;
  }

  /** Spends `cost` tokens; the caller checked hasRoom at the same instant. */
  record(nowMs: number, cost = 1): void {
    this.refill(nowMs);
    const full = this.tokens >= this.burst - EPS;
    this.tokens -= cost;
    if (full && this.fullHoldMs > 0) this.at = nowMs + this.fullHoldMs;
  }

  /** Spends `cost` tokens of a request now sent: held apart until `answered` takes them from the bucket. */
  send(cost = 1): void {
    this.inFlight += cost;
  }

  /**
   * The request of `send(cost)` was answered, or failed on its way: the venue took its tokens by
   * now if ever, so they leave the bucket now, and it refills from here (no hold: this is later
   * than its arrival). `sent` false: it never left (given up before it was sent), they come back.
   */
  answered(nowMs: number, cost = 1, sent = true): void {
    this.inFlight = Math.max(0, this.inFlight - cost);
    if (!sent) return;
    this.refill(nowMs);
    this.tokens -= cost;
  }

  /** Earliest time >= nowMs with `cost` tokens (a whole ms, past any float edge); Infinity when cost exceeds the burst. */
  nextFreeAt(nowMs: number, cost = 1): number {
    if (cost > this.burst) return Infinity;
    const t = this.available(nowMs);
    // refill starts again at `at` when a hold (fullHoldMs) puts it ahead of now; with tokens in
    // flight this is when they would be free were those answered now (an answer pumps again anyway)
    return t >= cost - EPS ? nowMs : Math.max(nowMs, this.at) + Math.ceil((cost - t) / this.ratePerMs);
  }

  /** Takes the venue's count when it has fewer tokens than this bucket (Poly-RateLimit-Remaining): never more. */
  lowerTo(nowMs: number, remaining: number): void {
    this.refill(nowMs);
    if (remaining < this.tokens) this.tokens = remaining;
  }

  /** Spends `n` tokens after the fact (the venue's debit of a cancel-all's cancelled orders), down to zero at most unless `negative`. */
  debit(nowMs: number, n: number, negative: boolean): void {
    this.refill(nowMs);
    this.tokens -= n;
    if (!negative && this.tokens < 0) this.tokens = 0;
  }

  /** A new rate and burst (the account's tier changed); the tokens held stay, within the new burst. */
  retune(nowMs: number, burst: number, ratePerMs: number): void {
    this.refill(nowMs);
    this.burst = burst;
    this.ratePerMs = ratePerMs;
    if (this.tokens > burst) this.tokens = burst;
  }
}
