// Typed failures of the client: the exchange's failure envelope, or no usable answer at all.

/** The exchange answered with its failure envelope (or a non-JSON error status). */
export class OddexApiError extends Error {
  override readonly name = 'OddexApiError';
  constructor(
    /** The envelope's `errorCode` (UPPER_SNAKE), or `HTTP_<status>` when the body had none. */
    readonly errorCode: string,
    readonly status: number,
    message: string,
    /** Validation details the server attached (which field, what rule). */
    readonly details?: unknown,
    /** Milliseconds the server asked to wait (`Retry-After`), when given. */
    readonly retryAfterMs?: number,
  ) {
    super(`${errorCode} (HTTP ${status}): ${message}`);
    this.reason = message;
  }

  /** The exchange's own words, without the code and status the message starts with. */
  readonly reason: string;
}

/** The request never got an answer (connection refused, reset, timeout). It may or may not have been processed. */
export class OddexNetworkError extends Error {
  override readonly name = 'OddexNetworkError';
  constructor(
    readonly method: string,
    readonly path: string,
    override readonly cause: unknown,
  ) {
    super(`${method} ${path}: no answer (${cause instanceof Error ? cause.message : String(cause)})`);
  }
}

/** A per-order status other than OK from POST /orders/new, raised by helpers that need every order posted. */
export class OddexOrderRejectedError extends Error {
  override readonly name = 'OddexOrderRejectedError';
  constructor(readonly statuses: Readonly<Record<string, string>>) {
    super(`orders not posted: ${Object.entries(statuses).filter(([, s]) => s !== 'OK').map(([h, s]) => `${h.slice(0, 10)}… ${s}`).join(', ')}`);
  }
}
