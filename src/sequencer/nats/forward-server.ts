// The sequencer's end of forwarded routes: the HTTP requests a gateway cannot answer itself (the operator routes, a
// parlay request, best odds, cash-out quotes) come over NATS and are answered by this process's own HTTP API, as if
// the client had called it, so the reply is the one this process gives. Each carries the forwarded mark header set to
// this process's own secret, which only requests injected here can hold: the gateway already counted them against
// the client's rate limits.
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { FORWARDED_MARK, type ForwardedReply, type ForwardedRequest } from '../port.js';
import { connectInBackground } from './connection.js';
import { FORWARD_SUBJECT } from './wire.js';

/** The secret this process marks the requests it injects with: rate limits pass them over. */
export const forwardedMark = (): string => randomBytes(16).toString('hex');

/** Reply headers a gateway sends on: what the reply means, not how this connection carried it. */
const KEPT_HEADERS = ['content-type', 'retry-after', 'oddex-position', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'];
/** Request headers that belong to the gateway's connection, not to the client's request. */
const CONNECTION_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', FORWARDED_MARK]);

function decode(text: string): ForwardedRequest {
  const r = JSON.parse(text) as Partial<ForwardedRequest>;
  if (typeof r.method !== 'string' || typeof r.url !== 'string' || !r.url.startsWith('/') || typeof r.headers !== 'object' || r.headers === null) {
    throw new Error('a forwarded request without method, url or headers');
  }
  return { method: r.method, url: r.url, headers: r.headers, remoteAddress: typeof r.remoteAddress === 'string' ? r.remoteAddress : '127.0.0.1', ...(typeof r.body === 'string' ? { body: r.body } : {}) };
}

/** Answers forwarded requests with `app` until closed. */
export function serveForwardedRoutes(url: string, app: Pick<FastifyInstance, 'inject'>, mark: string, log: Pick<FastifyBaseLogger, 'error' | 'warn'>): { close(): Promise<void> } {
  const answer = async (text: string): Promise<ForwardedReply> => {
    let req: ForwardedRequest;
    try {
      req = decode(text);
    } catch (err) {
      return { status: 400, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ status: 'failure', errorCode: 'BAD_REQUEST', message: String(err) }) };
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (!CONNECTION_HEADERS.has(k.toLowerCase()) && typeof v === 'string') headers[k] = v;
    headers[FORWARDED_MARK] = mark;
    const res = await app.inject({
      method: req.method as 'GET',
      url: req.url,
      headers,
      remoteAddress: req.remoteAddress,
      ...(req.body !== undefined ? { payload: req.body } : {}),
    });
    const kept: Record<string, string> = {};
    for (const k of KEPT_HEADERS) {
      const v = res.headers[k];
      if (v !== undefined) kept[k] = String(v);
    }
    return { status: res.statusCode, headers: kept, body: res.body };
  };
  const close = connectInBackground(
    url,
    'oddex-sequencer-forwarded',
    (nc) => {
      nc.subscribe(FORWARD_SUBJECT, {
        queue: FORWARD_SUBJECT,
        callback: (err, msg) => {
          if (err) return log.error({ err }, 'NATS subscription of forwarded routes failed');
          answer(msg.string()).then(
            (reply) => msg.respond(JSON.stringify(reply)),
            (e: unknown) => log.error({ err: e }, 'a forwarded request could not be answered; the gateway answers SEQUENCER_UNAVAILABLE'),
          );
        },
      });
    },
    (err) => log.error({ err }, 'NATS connection failed: no forwarded routes from gateways'),
  );
  return { close };
}
