// Starts a gateway process (ODDEX_ROLES=gateway): the HTTP API on the PostgreSQL read side, with no engine, journal
// writer, projector or chain (with ODDEX_CHAIN=evm it reads the deployment file only, for its configuration).
// Signatures are verified here; commands go to the sequencer process over NATS and their replies are answered as the
// exchange answers them in one process. Reads wait for the read side to cover the writes this gateway saw
// acknowledged, or the position a client names (Oddex-Min-Position).
import type pino from 'pino';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { createLoggers, resolveLogFormat } from './log.js';
import { buildApp } from './app.js';
// For its side effect: the request path hashes with the WebAssembly keccak, about 10x faster than the default.
import './protocol/keccak-wasm.js';
import { ExchangeError } from './protocol/errors.js';
import { ApiKeys, reloadKeysEvery, SHARED_KEYS_RELOAD_MS } from './admin/api-keys.js';
import { EventBus } from './events.js';
import { Catalogue } from './catalogue/catalogue.js';
import { followCatalogue } from './catalogue/catalogue-follower.js';
import { RealtimeTokens } from './realtime/tokens.js';
import { renderContexts } from './render/contexts.js';
import { sharedRateLimiter, sharedRevocations } from './redis-shared.js';
import { openReadSide } from './storage-backends.js';
import { ProjectionFollower } from './store/projection-follower.js';
import { RemoteSequencer } from './sequencer/nats/command-client.js';
import { SignatureVerifier } from './verify/verifier.js';
import { VerifyPool } from './verify/pool.js';
import { exchangeRoutes } from './exchange-routes.js';
import { resolveAdminToken, resolveExecutorAddress } from './server.js';
import { configFromDeployment } from './chain/evm/deployment-config.js';

/** How long a readiness check waits for a sequencer's answer (a load balancer's check times out after a few seconds). */
const READINESS_SEQUENCER_MS = 1000;

export interface Gateway {
  app: FastifyInstance;
  url: string;
  port: number;
  log: pino.Logger;
  close(): Promise<void>;
}

export async function startGateway(baseConfig: Config, opts: { now?: () => number; logDestination?: pino.DestinationStream } = {}): Promise<Gateway> {
  if (!baseConfig.databaseUrl || !baseConfig.natsUrl) throw new Error('a gateway needs ODDEX_DATABASE_URL and ODDEX_NATS_URL (loadConfig checks both)');
  // With ODDEX_CHAIN=evm, the configuration the sequencer's process points at the same deployment file: the chain
  // id, contracts, fill domain and fees /metadata names and signatures are checked against. No chain client, no keys.
  const pointed =
    baseConfig.chain === 'evm'
      ? configFromDeployment(baseConfig, 'a gateway reads the deployment file its sequencer reads: copy it here or set ODDEX_EVM_DEPLOYMENT').config
      : baseConfig;
  const logFormat = resolveLogFormat(baseConfig.logFormat, !opts.logDestination && process.stdout.isTTY === true);
  const { log, http: httpLog } = createLoggers(baseConfig.logLevel, logFormat, opts.logDestination);
  const now = opts.now ?? Date.now;
  const readSide = await openReadSide(baseConfig.databaseUrl);
  const closers: (() => Promise<void> | void)[] = [() => readSide.close()];
  const closeAll = async () => {
    for (const close of closers.reverse()) await close();
  };
  try {
    log.info({ storage: readSide.where }, `gateway reading ${readSide.where}`);
    const config = { ...pointed, logFormat, executorAddress: await resolveExecutorAddress(readSide, pointed.executorAddress, log) };
    const projection = new ProjectionFollower(() => readSide.projectedPosition());
    await projection.start();
    closers.push(() => projection.stop());
    const trading = new RemoteSequencer({
      url: config.natsUrl!,
      ...config.sequencerRequest,
      balances: readSide.readModels.balances,
      projection,
      readWaitMs: config.readWaitMs,
      log,
    });
    closers.push(() => trading.close());
    // The catalogue as the database holds it at start, then the statuses journaled since and the definitions
    // written since, as the sequencer's catalogue changes.
    const followFrom = { position: await readSide.journalEnd(), revisions: await readSide.catalogueRevisions() };
    const catalogue = await Catalogue.open(readSide.catalogue, new EventBus(), config.chainVersion);
    closers.push(followCatalogue(catalogue, readSide, followFrom, (err) => log.warn({ err }, 'catalogue not read again; tried again shortly')));
    const apiKeys = await ApiKeys.open(readSide.apiKeys);
    // Keys issued or revoked on the sequencer's process or other gateways.
    closers.push(reloadKeysEvery(apiKeys, SHARED_KEYS_RELOAD_MS, (err) => log.warn({ err }, 'API keys not reloaded; tried again shortly')));
    const verifier = new SignatureVerifier(new VerifyPool({ threads: config.verifyThreads, log }));
    closers.push(() => verifier.close());
    const tokens = config.realtimeTokenSecret
      ? new RealtimeTokens(Buffer.from(config.realtimeTokenSecret), config.realtimeTokenTtlSeconds, now, (keyId) => apiKeys.isLive(keyId))
      : RealtimeTokens.ofSettings(readSide.settings, config.realtimeTokenTtlSeconds, now, (keyId) => apiKeys.isLive(keyId));
    const revocations = await sharedRevocations(config, log, () => {});
    closers.push(() => revocations?.close());
    const rateLimiter = sharedRateLimiter(config, log);
    closers.push(() => rateLimiter?.close());
    let ready = false;
    const routes = exchangeRoutes({
      config,
      now,
      catalogue,
      readModels: readSide.readModels,
      rendering: renderContexts({ decimals: config.baseTokenDecimals, chainVersion: config.chainVersion }, catalogue),
      trading,
      sequencer: undefined,
      projection,
      // Best odds follow the engine's books, which a gateway does not hold: the route is forwarded (below).
      publisher: {
        bestOddsEntry: () => {
          throw new ExchangeError('NOT_ON_GATEWAY', 'GET /orders/odds/best follows the engine: call it on a process with the sequencer role');
        },
      },
      forwarder: trading,
      verifier,
      apiKeys,
      tokens,
      // A gateway holds no realtime sessions: a revocation reaches the realtime nodes through Redis.
      disconnectKey: (keyId) => {
        revocations?.revoke(keyId).catch((err: unknown) => log.error({ err, keyId }, 'could not share an API key revocation through redis'));
        return 0;
      },
      isReady: () => ready,
      // Ready means it can take reads and writes: the read side answers, and a sequencer answers over NATS (NATS down
      // or no sequencer: every write would end in 503 SEQUENCER_UNAVAILABLE, while reads are still served).
      probe: async () => {
        await readSide.probe();
        await trading.assertSequencerAnswers(Math.min(config.sequencerRequest.attemptTimeoutMs, READINESS_SEQUENCER_MS));
      },
      evm: undefined,
    });
    const app = await buildApp({
      ...(rateLimiter ? { rateLimiter } : {}),
      config,
      log: httpLog,
      now,
      adminToken: resolveAdminToken(config, log),
      isIssuedKey: (key) => apiKeys.addressOf(key) !== undefined,
      metrics: { databasePool: () => readSide.poolFigures() },
      routes,
    });
    closers.push(() => app.close());
    await app.listen({ host: config.host, port: config.port });
    verifier.start();
    ready = true;
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    httpLog.info({ port, host: config.host }, `Oddex gateway listening on http://${config.host}:${port}`);
    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= (async () => {
        ready = false;
        await closeAll();
      })());
    return { app, url: `http://${config.host}:${port}`, port, log, close };
  } catch (err) {
    await closeAll().catch(() => {});
    throw err;
  }
}
