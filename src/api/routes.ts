// Every HTTP route of the exchange, one registration per resource module.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { registerHealthRoutes } from './health.js';
import { registerApiKeyRoutes } from '../admin/api-keys.js';
import { registerChainAdminRoutes } from '../admin/chain.js';
import { registerAccountAdminRoutes } from '../admin/accounts.js';
import { registerBalanceRoutes } from './balances.js';
import { registerCancelRoutes } from './cancels.js';
import { registerFillRoutes } from './fills.js';
import { registerHeartbeatRoutes } from './heartbeat.js';
import { registerOrderRoutes } from './orders.js';
import { registerTradeRoutes } from './trades.js';
import { registerRealtimeTokenRoutes } from './realtime-token.js';

export function registerRoutes(app: FastifyInstance, ctx: AppContext): void {
  registerHealthRoutes(app, ctx);
  registerApiKeyRoutes(app, ctx);
  registerChainAdminRoutes(app, ctx);
  registerAccountAdminRoutes(app, ctx);
  registerBalanceRoutes(app, ctx);
  registerOrderRoutes(app, ctx);
  registerFillRoutes(app, ctx);
  registerCancelRoutes(app, ctx);
  registerHeartbeatRoutes(app, ctx);
  registerTradeRoutes(app, ctx);
  registerRealtimeTokenRoutes(app, ctx);
}
