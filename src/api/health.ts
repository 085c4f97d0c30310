// GET /health/live and /health/ready.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../store/sqlite/db.js';
import { ok } from './envelope.js';
import { ExchangeError } from '../protocol/errors.js';
import { responses } from './schemas/envelope.js';
import { Live, Ready } from './schemas/admin.js';

export interface HealthDeps {
  /** False until start-up finished and while shutting down. */
  isReady: () => boolean;
  /** Probed on every readiness check: a storage that stopped answering makes the exchange unready. */
  db: Pick<Db, 'prepare'>;
}

export const healthRoutes: FastifyPluginAsyncTypebox<HealthDeps> = async (app, { isReady, db }) => {
  app.get('/health/live', { schema: { tags: ['health'], response: responses(Live) } }, async () => ok({ live: true }));
  app.get('/health/ready', { schema: { tags: ['health'], response: responses(Ready) } }, async () => {
    if (!isReady()) throw new ExchangeError('NOT_READY');
    db.prepare('SELECT 1').get();
    return ok({ ready: true });
  });
};
