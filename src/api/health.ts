// GET /health (the same as /health/live), /health/live and /health/ready.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from './envelope.js';
import { ExchangeError } from '../protocol/errors.js';
import { responses } from './schemas/envelope.js';
import { Live, Ready } from './schemas/admin.js';

export interface HealthDeps {
  /** False until start-up finished and while shutting down. */
  isReady: () => boolean;
  /** Run on every readiness check: a storage that stopped answering (it throws) makes the exchange unready. */
  probe: () => Promise<void>;
}

export const healthRoutes: FastifyPluginAsyncTypebox<HealthDeps> = async (app, { isReady, probe }) => {
  app.get('/health/live', { schema: { tags: ['health'], response: responses(Live) } }, async () => ok({ live: true }));
  // The path the role processes without this API (projector, settlement, realtime node) answer too: one probe fits all.
  app.get('/health', { schema: { tags: ['health'], description: 'The same as /health/live.', response: responses(Live) } }, async () => ok({ live: true }));
  app.get('/health/ready', { schema: { tags: ['health'], response: responses(Ready) } }, async () => {
    if (!isReady()) throw new ExchangeError('NOT_READY');
    await probe();
    return ok({ ready: true });
  });
};
