// Submits a command to the engine and turns its refusals into API errors: the one place domain error codes get
// HTTP statuses.
import { DomainError, type DomainErrorCode } from '../engine/errors.js';
import type { Command, ResultOf } from '../engine/types.js';
import { ApiError } from './envelope.js';

const HTTP_STATUS: Record<DomainErrorCode, number> = {
  INSUFFICIENT_BALANCE: 400,
  MARKET_NOT_TRADEABLE: 400,
  FILL_ALREADY_SUBMITTED: 409,
  INVALID_ODDS_SLIPPAGE: 400,
  INSUFFICIENT_SPACE: 400,
  STALE_TIMESTAMP: 400,
  CANCEL_REQUEST_ALREADY_PROCESSED: 409,
  ACCOUNT_RESTRICTED: 403,
  ORDER_EXPIRED: 400,
  MARKET_ALREADY_REPORTED: 409,
  STORAGE_FAILED: 503,
};

/** The API error for a domain refusal; anything else is passed through unchanged. */
export function toApiError(err: unknown): unknown {
  return err instanceof DomainError ? new ApiError(HTTP_STATUS[err.errorCode], err.errorCode, err.message) : err;
}

/** Where commands go: the trading service (its runner journals and applies them one at a time). */
export interface CommandSubmitter {
  submit<C extends Command>(cmd: C): Promise<ResultOf<C>>;
}

export async function submitToEngine<C extends Command>(trading: CommandSubmitter, cmd: C): Promise<ResultOf<C>> {
  try {
    return await trading.submit(cmd);
  } catch (err) {
    throw toApiError(err);
  }
}
