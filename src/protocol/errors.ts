// The error catalogue: every `errorCode` the exchange can answer, declared once with its kind and default message.
// A kind says what went wrong, not how HTTP says it: src/api/errors.ts alone maps kinds to statuses. To add an
// error, add its code here (the type checker then accepts it at throw sites; the OpenAPI document lists it).
// Pure: no Node or Fastify imports, so the engine, the catalogue and the SDK can all use it.

export type ErrorKind =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'uri_too_long'
  | 'unsupported_media_type'
  | 'request_timeout'
  | 'headers_too_large'
  | 'rate_limited'
  | 'unavailable'
  | 'internal';

export interface ErrorSpec {
  kind: ErrorKind;
  message: string;
}

export const ERRORS = {
  // The request itself is malformed (body, URL, framing, parameters).
  INVALID_PARAMETER: { kind: 'invalid', message: 'a request parameter is invalid' },
  // Also a __proto__ or constructor.prototype key, which Fastify's parser refuses (prototype poisoning).
  MALFORMED_JSON: { kind: 'invalid', message: 'request body is not valid JSON, or has a __proto__ or constructor.prototype key' },
  BAD_CONTENT_LENGTH: { kind: 'invalid', message: 'content-length does not match the body' },
  BAD_URL: { kind: 'invalid', message: 'the URL is not valid (bad percent-encoding)' },
  BAD_REQUEST: { kind: 'invalid', message: 'malformed HTTP request' },
  BODY_TOO_LARGE: { kind: 'payload_too_large', message: 'request body is larger than the server accepts' },
  QUERY_TOO_LONG: { kind: 'uri_too_long', message: 'the query string is longer than the server accepts' },
  PATH_PARAMETER_TOO_LONG: { kind: 'uri_too_long', message: 'a path parameter is longer than the server accepts' },
  UNSUPPORTED_MEDIA_TYPE: { kind: 'unsupported_media_type', message: 'send request bodies as application/json' },
  REQUEST_TIMEOUT: { kind: 'request_timeout', message: 'the request did not arrive in time' },
  HEADERS_TOO_LARGE: { kind: 'headers_too_large', message: 'the request line and headers are too large' },
  NOT_FOUND: { kind: 'not_found', message: 'no such route' },

  // Query parameters of the read routes.
  CONFLICTING_FILTERS: { kind: 'invalid', message: 'the request combines filters that exclude each other' },
  MISSING_FILTER: { kind: 'invalid', message: 'one of marketHashes, maker or orderHashes is required' },
  MISSING_SCOPE_FILTER: { kind: 'invalid', message: 'send at least one of bettor, marketHashes, exchangeEventId or startDate' },
  EXACTLY_ONE_OF: { kind: 'invalid', message: 'send exactly one of marketHashes or leagueIds' },
  BAD_MARKET_HASHES: { kind: 'invalid', message: 'marketHashes is required: 1 to 30 comma-separated market hashes' },
  INVALID_PAGINATION_KEY: { kind: 'invalid', message: 'paginationKey is not a nextKey this server returned' },
  INVALID_DATE_RANGE: { kind: 'invalid', message: 'from and to are UTC days (YYYY-MM-DD), from not after to, at most 366 days apart' },

  // Credentials and signatures.
  UNAUTHORIZED: { kind: 'unauthenticated', message: 'admin routes need Authorization: Bearer <admin token>' },
  MISSING_API_KEY: { kind: 'unauthenticated', message: 'send your API key in X-Api-Key' },
  INVALID_API_KEY: { kind: 'unauthenticated', message: 'the API key is unknown or revoked' },
  API_KEY_ADDRESS_MISMATCH: { kind: 'forbidden', message: 'the API key belongs to another address than requestor' },
  API_KEY_NOT_FOUND: { kind: 'not_found', message: 'no live API key with this id' },
  SIGNATURE_MISMATCH: { kind: 'forbidden', message: 'the signature is not the address signing the expected text' },
  API_KEY_LIMIT_REACHED: { kind: 'conflict', message: 'the address holds as many live API keys as it may; revoke one first' },
  MAKER_SIGNATURE_MISMATCH: { kind: 'forbidden', message: 'the signature does not match the maker' },
  TAKER_SIGNATURE_MISMATCH: { kind: 'forbidden', message: 'the signature does not match the taker' },
  RATE_LIMITED: { kind: 'rate_limited', message: 'too many requests; retry later' },

  // Orders, fills, cancels and heartbeats: checks before the engine.
  INVALID_AMOUNT: { kind: 'invalid', message: 'an amount is not a positive uint256 decimal string' },
  INVALID_SALT: { kind: 'invalid', message: 'a salt is not a 256-bit number (decimal or 0x hex)' },
  INVALID_ODDS: { kind: 'invalid', message: 'odds are not strictly between 0 and 10^20 or not on the odds ladder' },
  INVALID_BASE_TOKEN: { kind: 'invalid', message: 'the base token is not the exchange base token' },
  INVALID_EXECUTOR: { kind: 'invalid', message: 'the executor is not the exchange executor' },
  INVALID_TIMEOUT: { kind: 'invalid', message: 'timeoutSeconds is out of range' },
  MAKER_AMOUNT_TOO_LOW: { kind: 'invalid', message: 'totalBetSize is below the maker minimum' },
  TAKER_AMOUNT_TOO_LOW: { kind: 'invalid', message: 'stakeWei is below the taker minimum' },
  TOO_MANY_MARKETS: { kind: 'invalid', message: 'one request posts to too many markets' },
  MARKET_NOT_FOUND: { kind: 'not_found', message: 'no such market' },
  MARKET_NOT_LIVE_ENABLED: { kind: 'invalid', message: 'the market is not enabled for in-play betting and its fixture is live' },
  INVALID_MIN_STAKE: { kind: 'invalid', message: 'minStakeWei is not a positive amount at most stakeWei' },
  CHAIN_BACKLOG: { kind: 'unavailable', message: 'too many fills are waiting for the settlement chain; try again later' },

  // Refusals of the engine (src/engine/errors.ts) or the runner in front of it.
  INSUFFICIENT_BALANCE: { kind: 'invalid', message: 'the wallet holds less than the command needs' },
  MARKET_NOT_TRADEABLE: { kind: 'invalid', message: 'the market is not open for trading' },
  FILL_ALREADY_SUBMITTED: { kind: 'conflict', message: 'this fillSalt was already used' },
  INVALID_ODDS_SLIPPAGE: { kind: 'invalid', message: 'no order is within desiredOdds and oddsSlippage' },
  INSUFFICIENT_SPACE: { kind: 'invalid', message: 'no order is available to fill' },
  NO_POSITION: { kind: 'not_found', message: 'the bettor holds no confirmed, unsettled position in this market' },
  NOTHING_TO_CASH_OUT: { kind: 'conflict', message: 'the position pays the same whichever outcome wins: there is nothing to hedge' },
  CASHOUT_AFTER_REFUND: { kind: 'conflict', message: 'capital-efficiency refunds were paid on this position: it cannot be cashed out' },
  CASHOUT_WRONG_SIDE: { kind: 'invalid', message: 'a cash out must back the outcome that hedges the position (the quote\'s isTakerBettingOutcomeOne)' },
  CASHOUT_STAKE_TOO_HIGH: { kind: 'invalid', message: 'the cash out would hedge more than the position: stake at most the quoted stakeWei' },
  CASHOUT_PENDING: { kind: 'conflict', message: 'another cash out of this position waits for the chain' },
  INVALID_CASHOUT_TARGET: { kind: 'invalid', message: 'cashOutTarget is neither the zero hash (an ordinary fill) nor the fill\'s market hash (a cash out)' },
  FILL_OR_KILL_NOT_FILLED: { kind: 'invalid', message: 'fillOrKill: the book cannot fill the whole stake, so nothing was filled' },
  FILL_BELOW_MIN_STAKE: { kind: 'invalid', message: 'the book would fill less than minStakeWei, so nothing was filled' },
  STALE_TIMESTAMP: { kind: 'invalid', message: 'the signed timestamp is too far from server time' },
  CANCEL_REQUEST_ALREADY_PROCESSED: { kind: 'conflict', message: 'this cancel salt was already used' },
  ACCOUNT_RESTRICTED: { kind: 'forbidden', message: 'the account may not post orders for a while after repeated balance shortfalls' },
  ORDER_EXPIRED: { kind: 'invalid', message: 'the order is past its expiry' },
  ORDERS_ALREADY_EXIST: { kind: 'conflict', message: 'an order with this hash was already posted' },
  ORDER_WOULD_CROSS: { kind: 'invalid', message: 'the order would cross the opposite side of its book' },
  MARKET_ALREADY_REPORTED: { kind: 'conflict', message: 'the market was already reported with another outcome' },
  STORAGE_FAILED: { kind: 'unavailable', message: 'the exchange cannot write to its journal' },

  // The sports catalogue and its operator routes.
  SPORT_NOT_FOUND: { kind: 'not_found', message: 'no such sport' },
  LEAGUE_NOT_FOUND: { kind: 'not_found', message: 'no such league' },
  TEAM_NOT_FOUND: { kind: 'not_found', message: 'no such team' },
  FIXTURE_NOT_FOUND: { kind: 'not_found', message: 'no such fixture' },
  SPORT_EXISTS: { kind: 'conflict', message: 'the sport exists' },
  LEAGUE_EXISTS: { kind: 'conflict', message: 'the league exists' },
  TEAM_EXISTS: { kind: 'conflict', message: 'the team exists' },
  FIXTURE_EXISTS: { kind: 'conflict', message: 'the fixture exists' },
  MARKET_EXISTS: { kind: 'conflict', message: 'the market exists' },
  TEAM_NOT_IN_SPORT: { kind: 'invalid', message: 'the team plays another sport than the league' },
  INVALID_MARKET_TYPE: { kind: 'invalid', message: 'the market type is not one the exchange lists' },
  INVALID_LINE: { kind: 'invalid', message: 'the line does not fit the market type' },
  NOT_A_LINE_MARKET: { kind: 'invalid', message: 'the market type has no main line' },
  QUARTER_LINE_PARENT: { kind: 'invalid', message: 'a quarter-line market settles through its legs' },

  // Parlays (POST /parlays/request, and fills on a parlay's book).
  BETTOR_SIGNATURE_MISMATCH: { kind: 'forbidden', message: 'the signature does not match the bettor' },
  PARLAY_LEG_COUNT: { kind: 'invalid', message: 'a parlay has 2 to 10 legs' },
  PARLAY_DUPLICATE_MARKET: { kind: 'invalid', message: 'two legs name the same market' },
  PARLAY_SAME_EVENT: { kind: 'invalid', message: 'two legs are markets of the same event' },
  PARLAY_LEG_NOT_ALLOWED: { kind: 'invalid', message: 'a parlay or a quarter-line market cannot be a leg' },
  PARLAY_LEG_NOT_TRADEABLE: { kind: 'invalid', message: 'a leg market is not ACTIVE, or its game has started' },
  PARLAY_REQUEST_TOO_SMALL: { kind: 'invalid', message: 'requestSize is below the taker minimum' },
  PARLAY_REQUEST_ALREADY_PROCESSED: { kind: 'conflict', message: 'this parlay request salt was already used' },
  PARLAY_QUOTE_WINDOW_OPEN: { kind: 'invalid', message: 'makers are still quoting this parlay: fill once its quote window closed' },
  PARLAY_FILL_WINDOW_CLOSED: { kind: 'invalid', message: 'the parlay book no longer takes fills: its fill window is over' },
  PARLAY_SETTLES_FROM_LEGS: { kind: 'invalid', message: 'a parlay settles from its legs: report the leg markets' },

  // Funds, operations and the exchange's own state.
  CHAIN_EVENTS_ALREADY_APPLIED: { kind: 'conflict', message: 'the chain events overlap a block range applied already (another settlement process reported it)' },
  CHAIN_DIVERGED: {
    kind: 'unavailable',
    message: 'the settlement chain is no longer the chain the journal followed (reset, or another chain at ODDEX_RPC_URL): nothing is sent to it; restore it or restart on the right chain',
  },
  CHAIN_UNAVAILABLE: { kind: 'unavailable', message: 'the settlement chain did not take the operator\'s transaction (node unreachable, or the transaction failed); retry later' },
  NOT_ON_LOCAL_LEDGER: { kind: 'invalid', message: 'only the local ledger moves funds this way' },
  DEMO_MODE_OFF: { kind: 'forbidden', message: 'demo funds are given only in demo mode (ODDEX_DEMO): ask the operator for funds' },
  DEMO_FUNDS_CAP_REACHED: { kind: 'conflict', message: 'a grant would lift the balance plus escrow above the demo ceiling' },
  NOTHING_TO_ARCHIVE: { kind: 'conflict', message: 'no journal rows are covered by the oldest kept snapshot yet' },
  NOT_READY: { kind: 'unavailable', message: 'the exchange is starting or shutting down' },
  STORAGE_UNAVAILABLE: { kind: 'unavailable', message: 'the exchange cannot write to its storage now; retry later' },
  SEQUENCER_UNAVAILABLE: { kind: 'unavailable', message: 'no sequencer answered the command in time; retry later (it may have been applied: retries are safe)' },
  NOT_ON_GATEWAY: { kind: 'unavailable', message: "this route reads the sequencer's live state: call it on a process that runs the sequencer role" },
  READ_MODEL_BEHIND: { kind: 'unavailable', message: 'the read side has not yet caught up with the position this read must see; retry shortly' },
  INTERNAL_ERROR: { kind: 'internal', message: 'internal error' },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;

export const ERROR_CODES = Object.keys(ERRORS) as ErrorCode[];

/**
 * Codes clients make up themselves, never answered by the exchange: the SDK (BAD_METADATA), the CLI (USAGE,
 * UNREACHABLE, INTERNAL). Listed so one namespace stays free of clashes.
 */
export const CLIENT_ERRORS = {
  BAD_METADATA: 'the exchange metadata lacks what the client needs',
  USAGE: 'the command line is not valid',
  UNREACHABLE: 'the exchange did not answer',
  INTERNAL: 'the client failed',
} as const;

/** One validation failure: which field broke which rule. */
export interface ErrorDetail {
  field: string;
  rule: string;
  message: string;
}

/** A refusal with a catalogued code; the API layer answers it with its kind's HTTP status. */
export class ExchangeError extends Error {
  constructor(
    readonly errorCode: ErrorCode,
    message: string = ERRORS[errorCode].message,
    readonly details?: ErrorDetail[],
  ) {
    super(message);
  }

  get kind(): ErrorKind {
    return ERRORS[this.errorCode].kind;
  }
}

/** A request value that breaks a rule: the failure names the field and the rule in `details`, as schema failures do. */
export function invalidField(field: string, rule: string, message: string, code: ErrorCode = 'INVALID_PARAMETER'): ExchangeError {
  return new ExchangeError(code, message, [{ field, rule, message }]);
}
