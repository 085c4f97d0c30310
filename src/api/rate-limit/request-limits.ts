// Size and time limits on a request, so one client cannot make the server hold memory or sockets for it.
import { STATUS_CODES, type ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import { ERRORS, ExchangeError, type ErrorCode } from '../../protocol/errors.js';
import { httpStatusOfCode } from '../errors.js';

/** Refuses a query string longer than `maxQueryBytes` (414 QUERY_TOO_LONG) before anything parses it. */
export function installQueryLimit(app: FastifyInstance, maxQueryBytes: number): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const url = request.url; // raw and percent-encoded: length is bytes
    const q = url.indexOf('?');
    if (q >= 0 && url.length - q - 1 > maxQueryBytes) {
      return done(new ExchangeError('QUERY_TOO_LONG', `the query string is longer than ${maxQueryBytes} bytes`));
    }
    done();
  });
}

/**
 * Fastify/Node server options that cut off slow clients: headers must arrive within `headersTimeoutMs`
 * and the whole request (body included) within `requestTimeoutMs`; Node answers 408 and closes. Node checks
 * these only every `connectionsCheckingInterval` (30 s by default), so check at a quarter of the shorter one.
 */
export interface SlowClientLimits {
  requestTimeout: number;
  connectionTimeout: number;
  http: ServerOptions;
}

export function slowClientLimits(config: Config): SlowClientLimits {
  const requestTimeout = config.requestTimeoutMs;
  // Node refuses a headers timeout longer than the request timeout.
  const headersTimeout = Math.min(config.headersTimeoutMs, requestTimeout);
  return {
    requestTimeout,
    // An idle socket (nothing sent, nothing pending) is closed after twice the request budget.
    connectionTimeout: 2 * requestTimeout,
    http: {
      headersTimeout,
      requestTimeout,
      connectionsCheckingInterval: Math.min(30_000, Math.max(10, Math.floor(headersTimeout / 4))),
    },
  };
}

const CLIENT_ERRORS: Record<string, ErrorCode> = {
  ERR_HTTP_REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
  HPE_HEADER_OVERFLOW: 'HEADERS_TOO_LARGE',
};

/**
 * Errors Node raises before a request reaches Fastify (timeouts, malformed HTTP) answered in the failure
 * envelope, then the socket is closed. Used as Fastify's `clientErrorHandler`.
 */
export function replyToClientError(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const errorCode = CLIENT_ERRORS[err.code ?? ''] ?? 'BAD_REQUEST';
  const status = httpStatusOfCode(errorCode);
  const message = ERRORS[errorCode].message;
  if (socket.writable) {
    const body = JSON.stringify({ status: 'failure', errorCode, message });
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nConnection: close\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
