// Operator authentication: Authorization: Bearer <admin token>.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { ApiError } from '../api/envelope.js';

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Checks the admin bearer token of a request. */
export const requireAdmin = (ctx: AppContext) => async (request: FastifyRequest) => {
  const header = request.headers.authorization ?? '';
  const match = /^Bearer (.+)$/.exec(header);
  if (!match?.[1] || !sameSecret(match[1], ctx.adminToken)) {
    throw new ApiError(401, 'UNAUTHORIZED', 'admin routes need Authorization: Bearer <admin token>');
  }
};

/**
 * Guards every /admin route in one place, at onRequest: the token is checked before the body is parsed or
 * validated, so strangers learn nothing, and no admin route can be registered unguarded.
 */
export function installAdminAuth(app: FastifyInstance, ctx: AppContext): void {
  const check = requireAdmin(ctx);
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.url?.startsWith('/admin/')) await check(request);
  });
}
