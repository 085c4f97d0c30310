import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { ApiError, ok } from './envelope.js';
import { responses } from './schemas/envelope.js';
import { Live, Ready } from './schemas/admin.js';

export function registerHealthRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get('/health/live', { schema: { tags: ['health'], response: responses(Live) } }, async () => ok({ live: true }));
  app.get('/health/ready', { schema: { tags: ['health'], response: responses(Ready) } }, async () => {
    if (!ctx.ready) throw new ApiError(503, 'NOT_READY', 'the exchange is starting or shutting down');
    ctx.db.prepare('SELECT 1').get();
    return ok({ ready: true });
  });
}
