// Every HTTP route of the exchange, each route module given only what it uses: the same plugin for a process that
// runs the sequencer (commands are calls) and for a gateway process (commands travel over NATS). Routes that need
// the sequencer's own objects (the catalogue's writes, the journal's archive) are registered only beside it; on a
// gateway they answer NOT_ON_GATEWAY, as do the engine reads the read side cannot answer yet.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Config } from './config.js';
import { ExchangeError } from './protocol/errors.js';
import type { ApiKeys } from './admin/api-keys.js';
import { apiKeyRoutes } from './admin/api-keys.js';
import type { RealtimeTokens } from './realtime/tokens.js';
import type { Publisher } from './realtime/publisher.js';
import type { RenderContexts } from './render/contexts.js';
import type { Catalogue } from './catalogue/catalogue.js';
import type { EvmChain } from './chain/evm/evm-chain.js';
import type { SignatureVerifier } from './verify/verifier.js';
import type { ReadModels } from './store/ports.js';
import type { Sequencer } from './sequencer/sequencer.js';
import type { RouteForwarder, SequencerPort } from './sequencer/port.js';
import { forwardSequencerRoutes } from './api/forwarded-routes.js';
import { addReadYourWrites, type ReadYourWritesDeps } from './api/read-your-writes.js';
import { healthRoutes } from './api/health.js';
import { priceHistoryRoutes } from './api/price-history.js';
import { asyncApiRoutes } from './api/asyncapi.js';
import { marketRoutes } from './api/markets.js';
import { searchRoutes } from './api/search.js';
import { sportRoutes } from './api/sports.js';
import { fixtureRoutes } from './api/fixtures.js';
import { metadataRoutes } from './api/metadata.js';
import { catalogueAdminRoutes } from './admin/catalogue.js';
import { chainAdminRoutes } from './admin/chain.js';
import { accountAdminRoutes } from './admin/accounts.js';
import { journalAdminRoutes } from './admin/journal.js';
import { feeAdminRoutes } from './admin/fees.js';
import { balanceRoutes } from './api/balances.js';
import { cashOutRoutes } from './api/cashout.js';
import { demoFundsRoutes } from './api/demo-funds.js';
import { orderRoutes } from './api/orders.js';
import { fillRoutes } from './api/fills.js';
import { parlayRoutes } from './api/parlays.js';
import { cancelRoutes } from './api/cancels.js';
import { replaceRoutes } from './api/replace.js';
import { heartbeatRoutes } from './api/heartbeat.js';
import { tradeRoutes } from './api/trades.js';
import { consolidatedRoutes } from './api/consolidated.js';
import { refundRoutes } from './api/refunds.js';
import { accountRoutes } from './api/account.js';
import { realtimeTokenRoutes } from './api/realtime-token.js';
import { userApiKeyRoutes } from './api/user-api-keys.js';

export interface ExchangeRouteDeps {
  config: Config;
  now: () => number;
  catalogue: Catalogue;
  readModels: ReadModels;
  rendering: RenderContexts;
  /** Where commands go: the sequencer in this process, or over NATS. */
  trading: SequencerPort;
  /** The sequencer itself when it runs in this process; absent on a gateway. */
  sequencer: Sequencer | undefined;
  /** What reads wait for (read-your-writes). */
  projection: ReadYourWritesDeps['projection'];
  /** Best odds as published; a gateway has no publisher (it forwards the route). */
  publisher: Pick<Publisher, 'bestOddsEntry'>;
  /** On a gateway: the sequencer's process, which answers the routes a gateway forwards (api/forwarded-routes.ts). */
  forwarder?: RouteForwarder;
  verifier: SignatureVerifier;
  apiKeys: ApiKeys;
  tokens: RealtimeTokens;
  /** Ends an API key's realtime sessions (and shares the revocation). */
  disconnectKey: (keyId: string) => number;
  isReady: () => boolean;
  probe: () => Promise<void>;
  evm: (() => EvmChain | undefined) | undefined;
}

export const exchangeRoutes =
  (deps: ExchangeRouteDeps): FastifyPluginAsyncTypebox =>
  async (api) => {
    const { config, now, catalogue, readModels, rendering, trading, sequencer, publisher, verifier, apiKeys, disconnectKey } = deps;
    addReadYourWrites(api, {
      acknowledged: () => trading.acknowledged(),
      latest: () => trading.latestPosition(),
      projection: deps.projection,
      waitMs: config.readWaitMs,
    });
    if (deps.forwarder) forwardSequencerRoutes(api, deps.forwarder);
    const balanceDeps = { trading, readModels, config };
    await api.register(healthRoutes, { isReady: deps.isReady, probe: deps.probe });
    await api.register(marketRoutes, { catalogue, readModels });
    await api.register(priceHistoryRoutes, { catalogue, readModels, now });
    await api.register(searchRoutes, { catalogue });
    await api.register(sportRoutes, { catalogue });
    await api.register(fixtureRoutes, { catalogue });
    await api.register(metadataRoutes, { config, catalogue });
    await api.register(apiKeyRoutes, { apiKeys, now, disconnectKey });
    await api.register(userApiKeyRoutes, { apiKeys, config, now, disconnectKey });
    if (sequencer) {
      await api.register(catalogueAdminRoutes, { catalogue, trading: sequencer, now });
      await api.register(chainAdminRoutes, { ...balanceDeps, now, evm: deps.evm });
      await api.register(accountAdminRoutes, { ...balanceDeps, now });
      await api.register(journalAdminRoutes, { journal: sequencer });
    } else {
      // The catalogue's writes, the faucet (a chain's mint), accounts and the journal are the sequencer process's: a
      // gateway forwards them there, so this answers only where nothing forwards.
      api.all('/admin/*', { schema: { hide: true } }, async (request) => {
        throw new ExchangeError('NOT_ON_GATEWAY', `${request.method} ${request.url.split('?')[0]} runs on a process with the sequencer role`);
      });
    }
    await api.register(feeAdminRoutes, { readModels, config, now });
    await api.register(balanceRoutes, balanceDeps);
    await api.register(cashOutRoutes, { trading, config, now });
    await api.register(demoFundsRoutes, { ...balanceDeps, now });
    await api.register(orderRoutes, { config, catalogue, trading, readModels, publisher, verifier, apiKeys, now });
    await api.register(fillRoutes, { config, catalogue, trading, verifier, now });
    await api.register(cancelRoutes, { config, trading, verifier, now });
    // A parlay request creates a market in the catalogue, which the sequencer's process holds (a gateway forwards it).
    if (sequencer) await api.register(parlayRoutes, { config, catalogue, trading, verifier, now });
    else {
      api.post('/parlays/request', { schema: { hide: true } }, async () => {
        throw new ExchangeError('NOT_ON_GATEWAY', 'POST /parlays/request creates a market: call it on a process with the sequencer role');
      });
    }
    await api.register(replaceRoutes, { config, catalogue, trading, readModels, publisher, verifier, now });
    await api.register(heartbeatRoutes, { apiKeys, trading, config, now });
    await api.register(tradeRoutes, { readModels, render: rendering.trades });
    await api.register(consolidatedRoutes, { readModels, consolidated: rendering.consolidated });
    await api.register(refundRoutes, { readModels, decimals: config.baseTokenDecimals });
    await api.register(accountRoutes, { readModels });
    await api.register(realtimeTokenRoutes, { apiKeys, tokens: deps.tokens, now });
    await api.register(asyncApiRoutes);
  };
