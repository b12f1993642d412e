// Typed errors shared across layers. Every error a caller may branch on has its own class.

export class MakerdError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** A configuration value is wrong; `key` is the dotted path, printed by the CLI before exit 2. */
export class ConfigError extends MakerdError {
  constructor(
    readonly key: string,
    readonly reason: string,
  ) {
    super(`config ${key}: ${reason}`);
  }
}

/** A non-2xx answer from one of the APIs, after any retries. */
export class ApiError extends MakerdError {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly apiMessage: string,
    readonly method: string,
    readonly path: string,
    /** The parsed error body (a heartbeat refusal carries the id to continue with). */
    readonly body?: unknown,
  ) {
    super(`${method} ${path} -> ${status} ${code}: ${apiMessage}`);
  }
}

/**
 * 429 until the retry budget ran out; or, `notSent`, a 429 on an order submit, never retried: the
 * venue took nothing, and the same signed quote sent after the wait would be stale (the caller's
 * newest goes once the scope's pause is over).
 */
export class RateLimitError extends ApiError {
  constructor(
    method: string,
    path: string,
    readonly resetAtMs: number | undefined,
    readonly notSent = false,
  ) {
    super(429, 'RATE_LIMITED', notSent ? 'rate limited (429): not sent, not retried' : 'rate limited after all retries', method, path);
  }
}

/**
 * 425 Too Early: the venue's matching engine is restarting (Polymarket's weekly restart, about 90 s)
 * and did not carry the request out. Neither a refusal of the order nor a failure of ours.
 */
export class VenueNotReadyError extends ApiError {
  constructor(
    method: string,
    path: string,
    /** Until when (the limiter's clock) the request's order scope waits before it is tried again. */
    readonly retryAtMs: number,
  ) {
    super(425, 'TOO_EARLY', "the venue's matching engine is restarting", method, path);
  }
}

/** A request of more orders than the venue's per-signer bucket can ever hold (its tier's burst): it must be split, not retried. */
export class OverBurstError extends MakerdError {
  constructor(
    /** `METHOD /path`, or the bucket's scope when the limiter refuses a request it had queued. */
    readonly request: string,
    readonly cost: number,
    readonly burst: number,
    readonly tier: string,
  ) {
    super(`${request}: ${cost} orders exceed the per-signer burst of ${burst} (${tier} tier); split the request`);
  }
}

/** POST /order(s) ended in a 5xx, timeout or network error: the order may exist at the venue. */
export class AmbiguousSubmitError extends MakerdError {
  constructor(
    readonly method: string,
    readonly path: string,
    override readonly cause: unknown,
  ) {
    super(`${method} ${path}: outcome unknown (${cause instanceof Error ? cause.message : String(cause)})`);
  }
}

/** A response body that does not have the shape the client expects. */
export class ResponseShapeError extends MakerdError {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly detail: string,
  ) {
    super(`${method} ${path}: unexpected response shape: ${detail}`);
  }
}

/** A network-level failure (connect, timeout, reset) after any retries. */
export class TransportError extends MakerdError {
  constructor(
    readonly method: string,
    readonly path: string,
    override readonly cause: unknown,
  ) {
    super(`${method} ${path}: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

/** The kinds of venue call, each with its own overall deadline (config http.*DeadlineMs). */
export type CallKind = 'place' | 'cancel' | 'read';

/** A call that did not finish within its overall deadline (retries included); it was abandoned. */
export class DeadlineError extends TransportError {
  constructor(
    method: string,
    path: string,
    readonly kind: CallKind,
    readonly deadlineMs: number,
  ) {
    super(method, path, new Error(`no complete answer within the ${kind} deadline of ${deadlineMs} ms`));
  }
}

/** A value that must never occur reached a computation (a NaN size, a fill of no integer units). */
export class InvariantError extends MakerdError {}

/** A paginated walk did not end within its page bound (a cursor that never ends). */
export class PageLimitError extends MakerdError {
  constructor(
    readonly maxPages: number,
    /** What ran over, when not the page count (the items). */
    what?: string,
  ) {
    super(what === undefined ? `pagination did not end within ${maxPages} pages` : `pagination stopped after ${maxPages} pages: ${what}`);
  }
}
