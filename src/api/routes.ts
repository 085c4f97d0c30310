// Every HTTP route of the exchange, one registration per resource module.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { registerHealthRoutes } from './health.js';
import { registerApiKeyRoutes } from '../admin/api-keys.js';

export function registerRoutes(app: FastifyInstance, ctx: AppContext): void {
  registerHealthRoutes(app, ctx);
  registerApiKeyRoutes(app, ctx);
}
