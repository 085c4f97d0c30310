// The reasons the engine (or the runner in front of it) refuses a command: a subset of the error catalogue
// (src/protocol/errors.ts), which holds their messages and kinds. HTTP statuses are chosen by the API layer.
import { ExchangeError, type ErrorCode } from '../protocol/errors.js';

export const DOMAIN_ERROR_CODES = [
  'INSUFFICIENT_BALANCE',
  'MARKET_NOT_TRADEABLE',
  'FILL_ALREADY_SUBMITTED',
  'INVALID_ODDS_SLIPPAGE',
  'INSUFFICIENT_SPACE',
  'FILL_OR_KILL_NOT_FILLED',
  'FILL_BELOW_MIN_STAKE',
  'STALE_TIMESTAMP',
  'CANCEL_REQUEST_ALREADY_PROCESSED',
  'ACCOUNT_RESTRICTED',
  'ORDER_EXPIRED',
  'ORDERS_ALREADY_EXIST',
  'MAKER_SIGNATURE_MISMATCH',
  'ORDER_WOULD_CROSS',
  'MARKET_ALREADY_REPORTED',
  'STORAGE_FAILED',
  'STORAGE_UNAVAILABLE',
  'NO_POSITION',
  'NOTHING_TO_CASH_OUT',
  'CASHOUT_AFTER_REFUND',
  'CASHOUT_WRONG_SIDE',
  'CASHOUT_STAKE_TOO_HIGH',
  'CASHOUT_PENDING',
  'CHAIN_EVENTS_ALREADY_APPLIED',
] as const satisfies readonly ErrorCode[];

export type DomainErrorCode = (typeof DOMAIN_ERROR_CODES)[number];

/** A refused command. Nothing changed. */
export class DomainError extends ExchangeError {
  declare readonly errorCode: DomainErrorCode;

  constructor(errorCode: DomainErrorCode, message?: string) {
    super(errorCode, message);
  }
}
