// Operator authentication: Authorization: Bearer <admin token>.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { ApiError } from '../api/errors.js';
import { ExchangeError } from '../protocol/errors.js';
import { AuthFailures } from './auth-failures.js';

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export interface AdminAuthDeps {
  adminToken: string;
  config: Pick<Config, 'rateLimits'>;
  now: () => number;
}

/** Checks the admin bearer token of a request. */
export const requireAdmin = (adminToken: string) => async (request: FastifyRequest) => {
  const header = request.headers.authorization ?? '';
  const match = /^Bearer (.+)$/.exec(header);
  if (!match?.[1] || !sameSecret(match[1], adminToken)) {
    throw new ExchangeError('UNAUTHORIZED');
  }
};

/**
 * Guards every /admin route in one place, at onRequest: the token is checked before the body is parsed or
 * validated, so strangers learn nothing, and no admin route can be registered unguarded.
 */
export function installAdminAuth(app: FastifyInstance, { adminToken, config, now }: AdminAuthDeps): void {
  const check = requireAdmin(adminToken);
  const { enabled, windowMs, adminAuthFailuresPerWindow } = config.rateLimits;
  const failures = enabled ? new AuthFailures(adminAuthFailuresPerWindow, windowMs) : undefined;
  app.addHook('onRequest', async (request) => {
    if (!request.routeOptions.url?.startsWith('/admin/')) return;
    if (!failures) return check(request);
    // An address that failed too often is refused without looking at its token, so guesses cost time.
    const wait = failures.blockedFor(request.ip, now());
    if (wait > 0) {
      const seconds = String(Math.max(1, Math.ceil(wait / 1000)));
      throw new ApiError('RATE_LIMITED', `too many failed admin authentications; retry after ${seconds} s`, {
        headers: { 'retry-after': seconds },
      });
    }
    try {
      await check(request);
    } catch (err) {
      failures.record(request.ip, now());
      throw err;
    }
  });
}
