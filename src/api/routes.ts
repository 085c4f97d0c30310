// Every HTTP route of the exchange, one registration per resource module.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { registerHealthRoutes } from './health.js';
import { registerMarketRoutes } from './markets.js';
import { registerSearchRoutes } from './search.js';
import { registerSportRoutes } from './sports.js';
import { registerFixtureRoutes } from './fixtures.js';
import { registerMetadataRoutes } from './metadata.js';
import { registerCatalogueAdminRoutes } from '../admin/catalogue.js';
import { registerApiKeyRoutes } from '../admin/api-keys.js';
import { registerChainAdminRoutes } from '../admin/chain.js';
import { registerAccountAdminRoutes } from '../admin/accounts.js';
import { registerBalanceRoutes } from './balances.js';
import { registerCancelRoutes } from './cancels.js';
import { registerFillRoutes } from './fills.js';
import { registerHeartbeatRoutes } from './heartbeat.js';
import { registerOrderRoutes } from './orders.js';
import { registerTradeRoutes } from './trades.js';
import { registerConsolidatedRoutes } from './consolidated.js';
import { registerRefundRoutes } from './refunds.js';
import { registerRealtimeTokenRoutes } from './realtime-token.js';
import { registerJournalAdminRoutes } from '../admin/journal.js';

export function registerRoutes(app: FastifyInstance, ctx: AppContext): void {
  registerHealthRoutes(app, ctx);
  registerMarketRoutes(app, ctx);
  registerSearchRoutes(app, ctx);
  registerSportRoutes(app, ctx);
  registerFixtureRoutes(app, ctx);
  registerMetadataRoutes(app, ctx);
  registerCatalogueAdminRoutes(app, ctx);
  registerApiKeyRoutes(app, ctx);
  registerChainAdminRoutes(app, ctx);
  registerAccountAdminRoutes(app, ctx);
  registerJournalAdminRoutes(app, ctx.trading);
  registerBalanceRoutes(app, ctx);
  registerOrderRoutes(app, ctx);
  registerFillRoutes(app, ctx);
  registerCancelRoutes(app, ctx);
  registerHeartbeatRoutes(app, ctx);
  registerTradeRoutes(app, ctx);
  registerConsolidatedRoutes(app, ctx);
  registerRefundRoutes(app, ctx);
  registerRealtimeTokenRoutes(app, ctx);
}
