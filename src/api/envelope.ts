// The wire envelope of DECISIONS.md: {status:"success", data} or {status:"failure", errorCode, message, details?}.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Database from 'better-sqlite3';

export interface Success<T> {
  status: 'success';
  data: T;
}

export function ok<T>(data: T): Success<T> {
  return { status: 'success', data };
}

export interface ErrorDetail {
  field: string;
  rule: string;
  message: string;
}

/** A failure the client caused or must handle; carries its HTTP status and errorCode. */
export class ApiError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly errorCode: string,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export const badRequest = (errorCode: string, message: string, details?: ErrorDetail[]) =>
  new ApiError(400, errorCode, message, details);
export const notFound = (errorCode: string, message: string) => new ApiError(404, errorCode, message);

export function sendFailure(reply: FastifyReply, err: ApiError): FastifyReply {
  if (err.headers) reply.headers(err.headers);
  return reply.status(err.httpStatus).send({
    status: 'failure',
    errorCode: err.errorCode,
    message: err.message,
    ...(err.details ? { details: err.details } : {}),
  });
}

/** Fastify's own errors (schema, body parsing, limits) mapped onto the failure envelope. */
function fromFastifyError(err: FastifyError): ApiError | undefined {
  if (err.validation) {
    const context = err.validationContext ?? 'request';
    const details = err.validation.map((v) => {
      const path = v.instancePath.replace(/^\//, '').replace(/\//g, '.');
      const missing = (v.params as { missingProperty?: string }).missingProperty;
      const field = [path, missing].filter(Boolean).join('.') || context;
      return { field, rule: v.keyword, message: `${field} ${v.message ?? 'is invalid'}` };
    });
    const first = details[0];
    return badRequest('INVALID_PARAMETER', first ? `${context} ${first.message}` : err.message, details);
  }
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return badRequest('MALFORMED_JSON', 'request body is not valid JSON');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413, 'BODY_TOO_LARGE', 'request body is larger than the server accepts');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'send request bodies as application/json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return badRequest('BAD_CONTENT_LENGTH', 'content-length does not match the body');
    case 'FST_ERR_BAD_URL':
      return badRequest('BAD_URL', 'the URL is not valid (bad percent-encoding)');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError(414, 'PATH_PARAMETER_TOO_LONG', 'a path parameter is longer than the server accepts');
  }
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return new ApiError(err.statusCode, 'BAD_REQUEST', err.message);
  }
  return undefined;
}

/** Fastify's `frameworkErrors`: the router refuses a URL (bad percent-encoding, over-long path parameter) before
 * any route or error handler runs; without this the reply would leave the failure envelope. */
export function replyToFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  void sendFailure(reply, fromFastifyError(error) ?? new ApiError(500, 'INTERNAL_ERROR', 'internal error'));
}

/** SQLite result codes that mean the storage cannot take the write now (a retry may succeed), not a bad request. */
const STORAGE_UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|READONLY|CANTOPEN|PROTOCOL|NOLFS)/;

/** A write the disk refused (full, read-only, locked by another program): 503, so clients retry later. */
function fromStorageError(err: unknown): ApiError | undefined {
  if (!(err instanceof Database.SqliteError) || !STORAGE_UNAVAILABLE.test(err.code)) return undefined;
  return new ApiError(503, 'STORAGE_UNAVAILABLE', 'the exchange cannot write to its storage now; retry later');
}

export function installEnvelope(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    const apiError = error instanceof ApiError ? error : fromFastifyError(error);
    if (apiError) return sendFailure(reply, apiError);
    const storageError = fromStorageError(error);
    if (storageError) {
      request.log.error({ err: error }, 'storage write failed');
      return sendFailure(reply, storageError);
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendFailure(reply, new ApiError(500, 'INTERNAL_ERROR', 'internal error'));
  });
  app.setNotFoundHandler((request, reply) =>
    sendFailure(reply, notFound('NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`)),
  );
}
