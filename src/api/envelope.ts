// The wire envelope of DECISIONS.md: {status:"success", data} or {status:"failure", errorCode, message, details?}.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Database from 'better-sqlite3';
import pg from 'pg';
import { ExchangeError, type ErrorDetail } from '../protocol/errors.js';
import { ApiError, httpStatusOf } from './errors.js';

export interface Success<T> {
  status: 'success';
  data: T;
}

export function ok<T>(data: T): Success<T> {
  return { status: 'success', data };
}

export function sendFailure(reply: FastifyReply, err: ExchangeError): FastifyReply {
  if (err instanceof ApiError && err.headers) reply.headers(err.headers);
  const status = httpStatusOf(err);
  // Every 503 says when to try again (a client backs off by it), unless its error named its own wait.
  if (status === 503 && !reply.hasHeader('retry-after')) reply.header('retry-after', '1');
  return reply.status(status).send({
    status: 'failure',
    errorCode: err.errorCode,
    message: err.message,
    ...(err.details ? { details: err.details } : {}),
  });
}

/** Fastify's own errors (schema, body parsing, limits) mapped onto the failure envelope. */
function fromFastifyError(err: FastifyError): ExchangeError | undefined {
  if (err.validation) {
    const context = err.validationContext ?? 'request';
    const details = validationDetails(err.validation, context);
    const first = details[0];
    // The message says where the field is ("querystring pageSize must be integer"), unless the field is that place.
    const where = first && first.field !== context ? `${context} ` : '';
    return new ExchangeError('INVALID_PARAMETER', first ? `${where}${first.message}` : err.message, details);
  }
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ExchangeError('MALFORMED_JSON');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ExchangeError('BODY_TOO_LARGE');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ExchangeError('UNSUPPORTED_MEDIA_TYPE');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ExchangeError('BAD_CONTENT_LENGTH');
    case 'FST_ERR_BAD_URL':
      return new ExchangeError('BAD_URL');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ExchangeError('PATH_PARAMETER_TOO_LONG');
  }
  // Any other client error Fastify raises keeps Fastify's status (see ApiError): the one status not from the table.
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return new ApiError('BAD_REQUEST', err.message, { status: err.statusCode });
  }
  return undefined;
}

/** Fastify's `frameworkErrors`: the router refuses a URL (bad percent-encoding, over-long path parameter) before
 * any route or error handler runs; without this the reply would leave the failure envelope. */
export function replyToFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  void sendFailure(reply, fromFastifyError(error) ?? new ExchangeError('INTERNAL_ERROR'));
}

/** SQLite result codes that mean the storage cannot take the write now (a retry may succeed), not a bad request. */
const STORAGE_UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|READONLY|CANTOPEN|PROTOCOL|NOLFS)/;

/**
 * PostgreSQL's error classes that mean the server cannot answer now (a connection exception, insufficient resources,
 * an operator intervention such as a shutdown or restart), not a bad request.
 */
const SERVER_UNAVAILABLE = /^(08|53|57P)/;
/** How a connection to a database server that went away fails, before or instead of an answer. */
const CONNECTION_LOST = /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH)$|^Connection terminated|not queryable/;

/** A PostgreSQL error code (SQLSTATE): five digits or capital letters. */
const SQLSTATE = /^[0-9A-Z]{5}$/;

const isUnreachable = (err: unknown): boolean => {
  if (err instanceof pg.DatabaseError) return err.code !== undefined && SERVER_UNAVAILABLE.test(err.code);
  if (!(err instanceof Error)) return false;
  const code = (err as NodeJS.ErrnoException).code;
  // A gateway gets the sequencer's database failure over NATS as a plain Error with its SQLSTATE (wire.ts
  // resultOfReply): the database starting up or shutting down there is as unavailable as it is here.
  if (code !== undefined && SQLSTATE.test(code) && SERVER_UNAVAILABLE.test(code)) return true;
  return CONNECTION_LOST.test(code ?? '') || CONNECTION_LOST.test(err.message);
};

/**
 * A write the disk refused (full, read-only, locked by another program), or a database server that cannot be reached
 * now: 503, so clients retry later.
 */
function fromStorageError(err: unknown): ExchangeError | undefined {
  const refused = err instanceof Database.SqliteError && STORAGE_UNAVAILABLE.test(err.code);
  return refused || isUnreachable(err) ? new ExchangeError('STORAGE_UNAVAILABLE') : undefined;
}

export function installEnvelope(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | ExchangeError, request, reply) => {
    const known = error instanceof ExchangeError ? error : fromFastifyError(error);
    if (known) return sendFailure(reply, known);
    const storageError = fromStorageError(error);
    if (storageError) {
      request.log.error({ err: error }, 'storage write failed');
      return sendFailure(reply, storageError);
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendFailure(reply, new ExchangeError('INTERNAL_ERROR'));
  });
  app.setNotFoundHandler((request, reply) =>
    sendFailure(reply, new ExchangeError('NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`)),
  );
}

/**
 * One detail per broken rule, naming its field. A choice of constants (a union of literals) fails as one `const` per
 * choice and an `anyOf`: reported as one `enum` detail that lists the allowed values.
 */
function validationDetails(validation: NonNullable<FastifyError['validation']>, context: string): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const choices = new Map<string, unknown[]>();
  for (const v of validation) {
    const path = v.instancePath.replace(/^\//, '').replace(/\//g, '.');
    const missing = (v.params as { missingProperty?: string }).missingProperty;
    const field = [path, missing].filter(Boolean).join('.') || context;
    if (v.keyword === 'const') {
      let allowed = choices.get(field);
      if (!allowed) choices.set(field, (allowed = []));
      allowed.push((v.params as { allowedValue?: unknown }).allowedValue);
      continue;
    }
    // Ajv words a missing property from its parent's side ("must have required property 'orders'"): said of the field.
    const says = v.keyword === 'required' ? 'is required' : (v.message ?? 'is invalid');
    details.push({ field, rule: v.keyword, message: `${field} ${says}` });
  }
  const enums = [...choices].map(([field, allowed]) => ({ field, rule: 'enum', message: `${field} must be one of ${allowed.join(', ')}` }));
  return [...enums, ...details.filter((d) => !(d.rule === 'anyOf' && choices.has(d.field)))];
}
