// Request quotas of spec section 8 as an onRequest hook: classify by route, count per client, answer 429
// with Retry-After when a bucket or the global ceiling is exhausted, and report the quota on every counted reply.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimitConfig } from '../config.js';
import { ExchangeError } from '../protocol/errors.js';
import { ApiError } from './errors.js';
import { classifyRoute, EXEMPT } from './rate-limit/buckets.js';
import { clientKeyOf } from './rate-limit/client-key.js';
import {
  InProcessRateLimiter,
  rateLimitsFromConfig,
  type RateDecision,
  type RateLimiter,
} from './rate-limit/limiter.js';

export interface RateLimitOptions {
  limits: RateLimitConfig;
  /** The server clock (ms). */
  now: () => number;
  /** Defaults to the in-process limiter built from `limits`. */
  limiter?: RateLimiter;
  /** Whether an X-Api-Key value is an issued, unrevoked key: only those get a bucket of their own. */
  isIssuedKey(apiKey: string): boolean;
  /** A request a gateway forwarded, which it counted already (the sequencer's process marks them). */
  isForwarded?(request: FastifyRequest): boolean;
}

/** Routes whose schema declares the API key scheme cannot do anything for an unknown key. */
function needsApiKey(schema: unknown): boolean {
  const security = (schema as { security?: Record<string, unknown>[] } | undefined)?.security;
  return security?.some((s) => 'apiKey' in s) ?? false;
}

const unknownKey = () => new ExchangeError('INVALID_API_KEY');

/** Whole seconds until the window resets, at least 1 (a client retrying after 0 s would be refused again). */
export const resetSeconds = (d: RateDecision) => Math.max(1, Math.ceil(d.resetMs / 1000));

function quotaHeaders(d: RateDecision): Record<string, string> {
  return {
    'ratelimit-limit': String(d.limit),
    'ratelimit-remaining': String(d.remaining),
    'ratelimit-reset': String(resetSeconds(d)),
  };
}

function applyDecision(d: RateDecision, reply: FastifyReply): ApiError | undefined {
  const headers = quotaHeaders(d);
  if (!d.allowed) {
    headers['retry-after'] = headers['ratelimit-reset']!;
    const what = d.scope === 'global' ? 'the global request ceiling' : `the ${d.scope} request limit`;
    const message = `${what} of ${d.limit} is exhausted; retry after ${headers['retry-after']} s`;
    return new ApiError('RATE_LIMITED', message, { headers });
  }
  reply.headers(headers);
  return undefined;
}

/** Register before the routes. Does nothing when rate limits are disabled. */
export function installRateLimit(app: FastifyInstance, options: RateLimitOptions): void {
  if (!options.limits.enabled) return;
  const limiter = options.limiter ?? new InProcessRateLimiter(rateLimitsFromConfig(options.limits));
  app.addHook('onRequest', (request, reply, done) => {
    const bucket = classifyRoute(request.method, request.routeOptions.url);
    if (bucket === EXEMPT || options.isForwarded?.(request)) return done();
    // A key that was never issued (or is revoked) is counted under the client's address, so inventing keys
    // cannot open fresh buckets; a route that needs a key refuses it here, before the body is even read.
    const header = request.headers['x-api-key'];
    const sentKey = typeof header === 'string' && header !== '';
    const issued = sentKey && options.isIssuedKey(header);
    const refuse = sentKey && !issued && needsApiKey(request.routeOptions.schema) ? unknownKey() : undefined;
    const client = clientKeyOf(issued ? header : undefined, request.ip);
    const decision = limiter.consume(client, bucket, options.now());
    if (decision instanceof Promise) {
      decision.then((d) => done(applyDecision(d, reply) ?? refuse), done);
    } else {
      done(applyDecision(decision, reply) ?? refuse);
    }
  });
}
