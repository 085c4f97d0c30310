// The domain error catalogue: every reason the engine (or the runner in front of it) refuses a command.
// HTTP statuses are chosen by the API layer (src/api/engine-errors.ts), never here.

export const DOMAIN_ERRORS = {
  INSUFFICIENT_BALANCE: 'the wallet holds less than the command needs',
  MARKET_NOT_TRADEABLE: 'the market is not open for trading',
  FILL_ALREADY_SUBMITTED: 'this fillSalt was already used',
  INVALID_ODDS_SLIPPAGE: 'no order is within desiredOdds and oddsSlippage',
  INSUFFICIENT_SPACE: 'no order is available to fill',
  STALE_TIMESTAMP: 'the cancel timestamp is too far from server time',
  CANCEL_REQUEST_ALREADY_PROCESSED: 'this cancel salt was already used',
  ACCOUNT_RESTRICTED: 'the account may not post orders for a while after repeated balance shortfalls',
  ORDER_EXPIRED: 'the order is past its expiry',
  MARKET_ALREADY_REPORTED: 'the market was already reported with another outcome',
  STORAGE_FAILED: 'the exchange cannot write to its journal',
} as const;

export type DomainErrorCode = keyof typeof DOMAIN_ERRORS;

/** A refused command. Nothing changed. */
export class DomainError extends Error {
  constructor(
    readonly errorCode: DomainErrorCode,
    message: string = DOMAIN_ERRORS[errorCode],
  ) {
    super(message);
  }
}
