// Operator authentication: Authorization: Bearer <admin token>.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { ApiError } from '../api/envelope.js';

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Fastify preHandler for every /admin route. */
export const requireAdmin = (ctx: AppContext) => async (request: FastifyRequest) => {
  const header = request.headers.authorization ?? '';
  const match = /^Bearer (.+)$/.exec(header);
  if (!match?.[1] || !sameSecret(match[1], ctx.adminToken)) {
    throw new ApiError(401, 'UNAUTHORIZED', 'admin routes need Authorization: Bearer <admin token>');
  }
};
