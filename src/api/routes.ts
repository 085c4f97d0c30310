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
import { tradeRoutes } from './trades.js';
import { consolidatedRoutes } from './consolidated.js';
import { refundRoutes } from './refunds.js';
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
  // Read routes of the trading side are plugins with only the read models and renderers they use.
  const { readModels, render, consolidated } = ctx.trading;
  void app.register(tradeRoutes, { readModels, render });
  void app.register(consolidatedRoutes, { readModels, consolidated });
  void app.register(refundRoutes, { readModels, decimals: ctx.config.baseTokenDecimals });
  registerRealtimeTokenRoutes(app, ctx);
}
