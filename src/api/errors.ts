// HTTP for the error catalogue (src/protocol/errors.ts): the one table from an error's kind to its status, and what
// only HTTP carries (reply headers). Domain modules throw ExchangeError with no status; the envelope renders it here.
import { ERROR_CODES, ERRORS, ExchangeError, type ErrorCode, type ErrorDetail, type ErrorKind } from '../protocol/errors.js';

export const HTTP_STATUS: Record<ErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  request_timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  rate_limited: 429,
  headers_too_large: 431,
  internal: 500,
  unavailable: 503,
};

export const httpStatusOfCode = (code: ErrorCode): number => HTTP_STATUS[ERRORS[code].kind];

/**
 * A catalogue error as HTTP answers it: its status, reply headers (Retry-After, ratelimit-*), and a status that
 * overrides the kind's for one case only: 4xx errors of Fastify or a plugin that we have no code for pass through as
 * BAD_REQUEST with the status they chose (FST_ERR_NOT_FOUND's 404, for one), as they always have:
 * the status says more than the generic code, and a table entry per foreign status would invent codes.
 */
export class ApiError extends ExchangeError {
  readonly httpStatus: number;
  readonly headers?: Record<string, string>;

  constructor(errorCode: ErrorCode, message?: string, http: { headers?: Record<string, string>; status?: number } = {}, details?: ErrorDetail[]) {
    super(errorCode, message, details);
    this.httpStatus = http.status ?? httpStatusOfCode(errorCode);
    if (http.headers) this.headers = http.headers;
  }
}

export const httpStatusOf = (err: ExchangeError): number =>
  err instanceof ApiError ? err.httpStatus : httpStatusOfCode(err.errorCode);

/** The OpenAPI document's info.description: what the API is, and every errorCode with its status. */
export const apiDescription = (): string =>
  'Order-book betting exchange\n\n## Error codes\n\nEvery failure reply is `{status: "failure", errorCode, message, details?}`. ' +
  'The errorCodes, their HTTP status and what they mean (the message of a reply may say more):\n\n' +
  errorCodeTable() +
  '\n\nBAD_REQUEST also carries the 4xx status of framework errors that have no code of their own. Every 503 carries ' +
  '`Retry-After` (1 s unless the error names its own wait).';

/** The catalogue as a Markdown table (errorCode | HTTP status | meaning). */
export function errorCodeTable(): string {
  const rows = ERROR_CODES.map((code) => `| ${code} | ${httpStatusOfCode(code)} | ${ERRORS[code].message.replace(/\|/g, '\\|')} |`);
  return ['| errorCode | HTTP status | meaning |', '| --- | --- | --- |', ...rows].join('\n');
}
