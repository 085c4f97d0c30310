// Starts one exchange process: storage, services, HTTP. Used by main.ts and by black-box tests.
// The one place objects are built: every module below receives only what it uses, here.
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type pino from 'pino';
import { createLoggers, resolveLogFormat } from './log.js';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import type { Db } from './store/sqlite/db.js';
import { openBackend, type StorageBackend } from './storage-backends.js';
import { checksumAddress } from './protocol/address.js';
import { buildApp } from './app.js';
// For its side effect: the request path hashes with the WebAssembly keccak, about 10x faster than the default.
import './protocol/keccak-wasm.js';
import { collectGarbage } from './collect-garbage.js';
import { ApiKeys, reloadKeysEvery, SHARED_KEYS_RELOAD_MS } from './admin/api-keys.js';
import { EventBus } from './events.js';
import { within } from './within.js';
import { RealtimeServer } from './realtime/server.js';
import { brokerFactory, sharedRateLimiter, sharedRevocations } from './redis-shared.js';
import { RealtimeTokens } from './realtime/tokens.js';
import { SHUTDOWN_PROJECTION_WAIT_MS, Sequencer, engineParams } from './sequencer/sequencer.js';
import { REMEMBERED_REPLIES, serveCommands, type CommandServer } from './sequencer/nats/command-server.js';
import { standBy, type TakenOver } from './sequencer/standby.js';
import { JournalReader } from './store/postgres/journal-reader.js';
import { PostgresTradingStore } from './store/postgres/trading-store.js';
import { Engine } from './engine/engine.js';
import type { SequencerDeps } from './sequencer/sequencer.js';
import { Publisher } from './realtime/publisher.js';
import { renderContexts, type RenderContexts } from './render/contexts.js';
import { ProjectorProcessLink } from './sequencer/nats/projector-link.js';
import { forwardedMark, serveForwardedRoutes } from './sequencer/nats/forward-server.js';
import { ProjectionLoop } from './store/projection-loop.js';
import { exchangeRoutes } from './exchange-routes.js';
import { LocalChain } from './chain/settlement-chain.js';
import { SettledElsewhere } from './chain/settled-elsewhere.js';
import { SignerLockedChain } from './chain/signer-locked-chain.js';
import { takeSettlementLock } from './store/postgres/settlement-lock.js';
import type { EvmChain } from './chain/evm/evm-chain.js';
import { ExchangeError } from './protocol/errors.js';
import { Catalogue } from './catalogue/catalogue.js';
import { seedDemoCatalogue } from './catalogue/demo.js';
import { settleReportedMarkets } from './catalogue/reporting.js';
import { SignatureVerifier } from './verify/verifier.js';
import { VerifyPool } from './verify/pool.js';
import { DemoLiquidity } from './demo/liquidity.js';
import { readPrivateFile, writePrivateFile } from './private-file.js';

/**
 * The objects one exchange process is made of, handed to whoever started it (main.ts, tests) to observe or stop
 * it. No module receives this: each gets its own dependencies in startOnStorage.
 */
export interface ExchangeParts {
  config: Config;
  /** The data dir's SQLite database; undefined when the exchange keeps its data on PostgreSQL. */
  db: Db | undefined;
  log: pino.Logger;
  now: () => number;
  adminToken: string;
  apiKeys: ApiKeys;
  bus: EventBus;
  verifier: SignatureVerifier;
  trading: Sequencer;
  /** Publishes what each projected group changed on the realtime channels. */
  publisher: Publisher;
  /** What rendering trades and consolidated entries reads besides the records. */
  rendering: RenderContexts;
  catalogue: Catalogue;
  realtime: RealtimeServer;
  /** With ODDEX_CHAIN=evm: the chain (faucet, balances on chain). */
  evm?: () => EvmChain | undefined;
}

export interface Exchange {
  ctx: ExchangeParts;
  app: FastifyInstance;
  /** http://host:port */
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Replace the clock (tests). */
  now?: () => number;
  /** Write logs to this destination; default stdout. */
  logDestination?: pino.DestinationStream;
  /** Replace the settlement chain (tests of chain faults). */
  createChain?: SequencerDeps['createChain'];
  /** Called once the HTTP server listens, just before that is logged (a stop asked from then on must be graceful). */
  listening?: () => void;
}

/** The admin token: from config, else the one stored in the data dir, else a new one. */
export function resolveAdminToken(config: Config, log: pino.Logger): string {
  if (config.adminToken) return config.adminToken;
  const file = join(config.dataDir, 'admin-token');
  const stored = readPrivateFile(file);
  if (stored !== undefined) return stored.trim();
  const token = randomBytes(24).toString('hex');
  // On PostgreSQL nothing else creates the data dir first (SQLite's store does): owner only, as there.
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  writePrivateFile(file, token + '\n');
  // Logs are shipped and kept: they name the file (owner-only), never the token.
  log.warn({ adminTokenFile: file }, `generated an admin token; it is in ${file}`);
  return token;
}

/** Where a process reaches its own listener: a wildcard address is not one to connect to. */
/** Journal commands replayed at start from which a full collection afterwards is worth its few milliseconds. */
const REBUILD_WORTH_COLLECTING = 10_000;

/** Commands per transaction of the projector's thread at most. */
const PROJECTOR_BATCH = 2000;

const loopbackHost = (host: string) => (host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host);

export async function startExchange(baseConfig: Config, opts: StartOptions = {}): Promise<Exchange> {
  const logFormat = resolveLogFormat(baseConfig.logFormat, !opts.logDestination && process.stdout.isTTY === true);
  const { log, http: httpLog } = createLoggers(baseConfig.logLevel, logFormat, opts.logDestination);
  // Loaded only when used: viem is a large import the local ledger does not need. Without the settlement role here
  // the chain (its client and keys) is a settlement process's: this one reads the deployment as a gateway does.
  const settlesHere = baseConfig.roles.includes('settlement');
  const evm = baseConfig.chain === 'evm' && settlesHere ? (await import('./chain/evm/setup.js')).setUpEvm(baseConfig, log) : undefined;
  const pointed =
    baseConfig.chain === 'evm' && !settlesHere
      ? (await import('./chain/evm/deployment-config.js')).configFromDeployment(baseConfig, 'a sequencer without the settlement role reads the deployment file its settlement process reads: copy it here or set ODDEX_EVM_DEPLOYMENT').config
      : baseConfig;
  const config = { ...(evm?.config ?? pointed), logFormat };
  const now = opts.now ?? Date.now;
  // A standby waits here, following the journal, until it holds the writer's lock.
  const standby = config.standby && config.databaseUrl ? await standByFor(config, config.databaseUrl, log, now) : undefined;
  let storage: StorageBackend;
  try {
    storage = await openBackend(config, log, now(), standby?.writer);
  } catch (err) {
    await standby?.writer.close().catch(() => {});
    throw err;
  }
  try {
    const evmChain = config.chain === 'evm' ? (evm?.chain ?? (() => undefined)) : undefined;
    return await startOnStorage(storage, config, { log, httpLog, listening: opts.listening }, now, opts.createChain ?? evm?.createChain, evmChain, standby);
  } catch (err) {
    await storage.close(); // a failed start gives the data dir (or the database's writer lock) back
    throw err;
  }
}

/**
 * A hot standby (ODDEX_STANDBY): follows the journal in PostgreSQL with a warm engine while another process writes
 * it, and resolves once this process holds the writer's lock under a new epoch, the engine at the journal's end.
 * It answers no HTTP, no NATS command, projects and settles nothing until then: the rest of start-up follows.
 */
async function standByFor(config: Config, url: string, log: pino.Logger, now: () => number): Promise<TakenOver<PostgresTradingStore>> {
  const journal = await JournalReader.open(url);
  try {
    const params = engineParams(config);
    return await standBy({
      journal,
      createEngine: (snapshot) => (snapshot ? Engine.restore(params, snapshot) : new Engine(params)),
      takeOver: (signal) =>
        PostgresTradingStore.open({
          connectionString: url,
          waitForLock: { signal, onRetry: (err) => log.warn({ err }, 'standby: the wait for the writer lock lost its connection; waiting again') },
        }),
      now,
      log,
      remember: REMEMBERED_REPLIES,
    });
  } finally {
    await journal.close();
  }
}

/** The deployment's executor address: configured, else the one stored, else a new one stored for good. */
export async function resolveExecutorAddress(storage: Pick<StorageBackend, 'settings'>, configured: string, log: pino.Logger): Promise<string> {
  if (configured) return checksumAddress(configured);
  const generated = checksumAddress('0x' + randomBytes(20).toString('hex'));
  const address = await storage.settings.getOrPut('deployment.executorAddress', generated);
  if (address === generated) log.info({ executorAddress: address }, 'generated this deployment executor address');
  return address;
}

async function startOnStorage(
  storage: StorageBackend,
  config: Config,
  { log, httpLog, listening }: { log: pino.Logger; httpLog: pino.Logger; listening?: () => void },
  now: () => number,
  createChain: SequencerDeps['createChain'] | undefined,
  evmChain: ExchangeParts['evm'],
  /** What a standby that took over hands on: its warm engine, and the replies of requests journaled before. */
  standby?: Pick<TakenOver<unknown>, 'warm' | 'replies'>,
): Promise<Exchange> {
  const db = storage.db;
  log.info({ storage: storage.where }, `data kept in ${storage.where}`);
  config = { ...config, executorAddress: await resolveExecutorAddress(storage, config.executorAddress, log) };
  const bus = new EventBus();
  const catalogue = await Catalogue.open(storage.catalogue, bus, config.chainVersion, { settledCached: config.catalogueSettledCache });
  // The journal's consumers: the projector writes the read models, the publisher publishes what each group changed.
  const readModels = storage.readModels;
  const rendering = renderContexts({ decimals: config.baseTokenDecimals, chainVersion: config.chainVersion }, catalogue);
  const publisher = new Publisher({
    bus,
    readModels,
    catalogue,
    engine: () => trading.engine,
    baseToken: config.baseTokenAddress,
    render: rendering.trades,
    consolidated: rendering.consolidated,
    now,
  });
  // Until the realtime server exists (start-up's catch-up), no feed listens and no stream holds a position to restart.
  let restartAllStreams = () => {};
  const projection = new ProjectionLoop(storage.projector, storage.projected, {
    awaitedProjector: storage.awaitedProjector,
    prepareFanOut: (entries) => publisher.prepare(entries),
    onProblem: (err) => log.error({ err }, 'read models not projected; the journal holds the commands and projection is tried again'),
    publicationsLost: (err) => {
      log.error({ err }, 'realtime publications of a journaled group could not be prepared; every channel starts a new stream');
      restartAllStreams();
    },
    ...(config.projectorDelayMs ? { delayMs: config.projectorDelayMs } : {}),
  });
  // Without the projector role here, a projector process follows the journal (projector-node.ts): from the start,
  // this process only learns how far it got, to publish and to answer readers.
  const projectorProcess = config.roles.includes('projector') ? undefined : projectorProcessLink(config, storage, projection, log);
  /** Set once another writer took the journal over: no commands from gateways, never ready again. */
  let superseded = false;
  let commandServer: CommandServer | undefined;
  let forwardedRoutes: { close(): Promise<void> } | undefined;
  const trading: Sequencer = new Sequencer({
    config,
    store: storage.journal,
    projection,
    readModels,
    rebuilt: () => publisher.resetBestOdds(),
    log,
    now,
    catalogue,
    createChain: settlementChain(config, createChain ?? ((sink) => new LocalChain(config.chainConfirmationDelayMs, now, sink)), log),
    archiveDir: join(config.dataDir, 'journal-archive'),
    // Out of the gateways' queue group and not ready: their commands go to the writer that took over.
    superseded: () => {
      log.fatal('another writer took the journal over: this process stops answering gateways and reports not ready; restart it (as a standby)');
      superseded = true;
      commandServer?.close().catch((err: unknown) => log.error({ err }, 'the NATS command subscription did not close'));
      forwardedRoutes?.close().catch((err: unknown) => log.error({ err }, 'the NATS subscription of forwarded routes did not close'));
    },
  });
  const adminToken = resolveAdminToken(config, log);
  const apiKeys = await ApiKeys.open(storage.apiKeys);
  // With gateways apart, keys are issued and revoked on theirs too.
  const stopKeyReloads = config.natsUrl
    ? reloadKeysEvery(apiKeys, SHARED_KEYS_RELOAD_MS, (err) => log.warn({ err }, 'API keys not reloaded; tried again shortly'))
    : undefined;
  const verifier = new SignatureVerifier(new VerifyPool({ threads: config.verifyThreads, log }));
  if (config.demo && catalogue.isEmpty()) await seedDemoCatalogue(catalogue, now());

  let rebuilt;
  const rebuildStarted = performance.now();
  try {
    rebuilt = await trading.start(standby?.warm);
  } catch (err) {
    // No state could be rebuilt: refuse to start rather than serve a wrong one (the caller gives the data dir back).
    trading.chain.stop();
    throw err;
  }
  // Caught up at start on this thread, which goes on projecting until the projector's own thread has loaded (tsx
  // compiles its code for a while) and takes over.
  const projectorThread = config.projectorThread && !projectorProcess
    ? storage.projectorThread?.(
        {
          loaded: () => {
            projection.useThread(projectorThread!);
            log.debug({ position: projection.position }, 'the read models are projected on their own thread from here on');
          },
          projected: (position, commands) => projection.projectedBy(position, commands),
          problem: (message) => log.error({ message }, 'read models not projected; the journal holds the commands and projection is tried again'),
        },
        { maxBatch: PROJECTOR_BATCH },
      )
    : undefined;
  // What the rebuild decoded is garbage now; an idle exchange would hold it until trading triggered a major GC.
  const rebuildMs = Math.round(performance.now() - rebuildStarted);
  let collectMs: number | undefined;
  // Not after a standby's takeover: its engine was built long before, and a full collection would delay the answers.
  if (!standby && (rebuilt.snapshotSeq !== undefined || rebuilt.replayed >= REBUILD_WORTH_COLLECTING)) {
    collectGarbage();
    collectMs = Math.round(performance.now() - rebuildStarted - rebuildMs);
  }
  const rebuiltHow = standby
    ? 'engine taken over warm from the standby'
    : rebuilt.snapshotSeq === undefined
      ? 'engine rebuilt from the journal'
      : 'engine rebuilt from a snapshot and the journal tail';
  log.info({ ...rebuilt, rebuildMs, collectMs }, rebuiltHow);
  if (await storage.rebuilt(trading.engine)) log.debug('balances and restrictions of the read models seeded from the engine');
  // Only the reports of markets the catalogue holds unsettled, not every market's ever reported (bench/history.ts at
  // 1M commands holds 6,600: with the seeding above, 87-124 ms of a PostgreSQL start before, 23-52 ms after).
  const settled = await settleReportedMarkets(catalogue, await readModels.reportsBehindCatalogue((h) => catalogue.isUnsettled(h), catalogue.unsettledHashes()));
  if (settled.length > 0) log.warn({ markets: settled.map((m) => m.marketHash) }, 'catalogue settled from journaled reports');

  /** False until start-up finished and while shutting down (drives /health/ready, 503s and WebSocket upgrades). */
  let ready = false;
  const isReady = () => ready && !superseded;
  const tokens = config.realtimeTokenSecret
    ? new RealtimeTokens(Buffer.from(config.realtimeTokenSecret), config.realtimeTokenTtlSeconds, now, (keyId) => apiKeys.isLive(keyId))
    : RealtimeTokens.ofSettings(storage.settings, config.realtimeTokenTtlSeconds, now, (keyId) => apiKeys.isLive(keyId));
  const realtime = new RealtimeServer({ config, makeBroker: brokerFactory(config, now, log), feeds: { bus, catalogue, progress: projection, bestOdds: (marketHash) => publisher.bestOddsItems(marketHash) }, tokens, isReady, now, log });
  publisher.audience = () => realtime.audience;
  restartAllStreams = () => realtime.restartAllStreams();
  // Streams kept in Redis outlive the writer that published on them. The one before this process may have stopped
  // between journaling a group and publishing it (kill -9, a standby's takeover), and the groups start-up caught up
  // were projected before any feed listened: every subscriber resubscribes once with recovered:false rather than
  // skip them silently.
  if (realtime.streamsOutliveProcess) {
    log.info('realtime streams of earlier writers start again under new epochs: their subscribers resubscribe');
    realtime.restartAllStreams();
  }
  // With Redis, a revocation also ends the key's sessions on the realtime nodes (this process's own end below).
  const revocations = await sharedRevocations(config, log, () => {});
  // Gateways in processes of their own send their commands over NATS: answered from here on, before the HTTP API is
  // built (most of a start after the rebuild; a standby that took over answers gateways that much sooner).
  // Chain reports only from a settlement process, and so only without the settlement role here (one signer).
  if (config.natsUrl && !superseded) commandServer = serveCommands(config.natsUrl, trading, catalogue, log, standby?.replies, !config.roles.includes('settlement'));

  const routes = exchangeRoutes({
    config,
    now,
    catalogue,
    readModels,
    rendering,
    trading,
    sequencer: trading,
    projection,
    publisher,
    verifier,
    apiKeys,
    tokens,
    disconnectKey: (keyId) => {
      revocations?.revoke(keyId).catch((err: unknown) => log.error({ err, keyId }, 'could not share an API key revocation through redis'));
      return realtime.disconnectKey(keyId);
    },
    // A leader another writer superseded runs on: its readiness says so (probe), not "starting or shutting down".
    isReady: () => ready,
    probe: async () => {
      if (superseded) {
        throw new ExchangeError('NOT_READY', 'another writer took the journal over: this process takes no commands; restart it (as a standby)');
      }
      // A journal that refuses commands (healing after a failed commit) is not ready, even while the database answers reads.
      const problem = trading.storageProblem();
      if (problem) throw new ExchangeError(problem);
      await storage.probe();
      // A node that no longer holds the chain the journal followed makes the exchange unready, saying why.
      evmChain?.()?.assertSameChain();
    },
    evm: evmChain,
  });
  const rateLimiter = sharedRateLimiter(config, log);
  const mark = forwardedMark();
  let app: FastifyInstance;
  try {
    app = await buildApp({
      ...(rateLimiter ? { rateLimiter } : {}),
      config,
      log: httpLog,
      now,
      adminToken,
      isIssuedKey: (key) => apiKeys.addressOf(key) !== undefined,
      metrics: { trading, publisher, realtime, ...(storage.poolFigures ? { databasePool: storage.poolFigures } : {}) },
      routes,
      forwardedMark: mark,
    });
    // Without the realtime role here, WebSocket clients connect to realtime nodes; publications still go out
    // through the broker.
    if (config.roles.includes('realtime')) realtime.attach(app.server);
    await app.listen({ host: config.host, port: config.port });
  } catch (err) {
    await commandServer?.close();
    throw err;
  }
  // The routes gateways forward are answered by this HTTP API from here on.
  if (config.natsUrl && !superseded) forwardedRoutes = serveForwardedRoutes(config.natsUrl, app, mark, log);
  // Once nothing can fail any more: verification threads come up in the background, not on the first trade.
  verifier.start();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  // Ready once the data dir takes writes: now, or when a dir found unwritable at start heals.
  const stopProbe = storage.whenWritable(() => (ready = true));
  listening?.();
  httpLog.info({ port, host: config.host }, `Oddex listening on http://${config.host}:${port}`);

  // Demo liquidity talks HTTP to this very server, like any outside bot; it never runs outside demo mode.
  let demo: DemoLiquidity | undefined;
  if (config.demo && config.demoLiquidity) {
    // On a chain the faucet mints, but a wallet's orders are backed only once it approved the transfer proxy.
    const onChain = evmChain;
    const prepareWallet = onChain
      ? async (privateKey: `0x${string}`) => {
          const chain = onChain();
          if (!chain) throw new Error('demo wallets on a chain are readied by the process with the settlement role, which holds its keys');
          await chain.prepareDemoWallet(privateKey);
        }
      : undefined;
    demo = new DemoLiquidity({
      url: `http://${loopbackHost(config.host)}:${port}`,
      adminToken,
      dataDir: config.dataDir,
      log: log.child({ module: 'demo' }),
      ...(prepareWallet ? { prepareWallet } : {}),
    });
    demo.start().then(
      // Resolved by a stop too, after attempts the exchange refused (a full disk): then it never ran.
      () => {
        if (!closing) log.info('demo liquidity running');
      },
      (err: unknown) => log.error({ err }, 'demo liquidity failed to start'),
    );
  }

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      ready = false;
      // A demo bot's round in progress retries refused requests (a full disk answers 503s): not waited for long.
      if (demo && !(await within(demo.stop(), SHUTDOWN_PROJECTION_WAIT_MS))) {
        log.warn(`stopping without waiting longer for demo liquidity: a round of its requests was still under way after ${SHUTDOWN_PROJECTION_WAIT_MS} ms`);
      }
      stopProbe();
      await realtime.closeConnections(); // clients get 3001 and reconnect elsewhere or later
      revocations?.close();
      stopKeyReloads?.();
      await app.close(); // waits for in-flight requests
      rateLimiter?.close();
      await commandServer?.close();
      await forwardedRoutes?.close();
      await trading.stop(); // waits for the read models a few seconds at most, then says what is left
      await projection.stop(SHUTDOWN_PROJECTION_WAIT_MS);
      await projectorThread?.stop(SHUTDOWN_PROJECTION_WAIT_MS);
      // Only now: the groups of requests answered during the stop are published (kept in Redis for other nodes).
      await realtime.close();
      await verifier.close();
      await storage.close();
    })());
  const ctx: ExchangeParts = { config, db, log, now, adminToken, apiKeys, bus, verifier, trading, publisher, rendering, catalogue, realtime, ...(evmChain ? { evm: evmChain } : {}) };
  return { ctx, app, url: `http://${config.host}:${port}`, port, close };
}

/**
 * The chain this sequencer hands its fills to: the local ledger unless one was given (EVM, or a test's faulty chain);
 * on a database server behind the settlement lock (the one signer's, which settlement processes take too); none
 * without the settlement role.
 */
function settlementChain(config: Config, createChain: SequencerDeps['createChain'], log: pino.Logger): SequencerDeps['createChain'] {
  if (!config.roles.includes('settlement')) return settledElsewhere(log);
  const databaseUrl = config.databaseUrl;
  if (!databaseUrl) return createChain;
  return (sink, engine) => new SignerLockedChain(createChain(sink, engine), (wait) => takeSettlementLock({ connectionString: databaseUrl }, wait), log);
}

/** A sequencer without the settlement role: a settlement process settles its fills and reports over NATS. */
function settledElsewhere(log: pino.Logger): SequencerDeps['createChain'] {
  return (_sink, engine) => {
    log.info('fills are settled by a settlement process (ODDEX_ROLES without settlement here)');
    return new SettledElsewhere(() => engine().pendingFillCount);
  };
}

/** The link to the projector process that projects this sequencer's journal (NATS and PostgreSQL: config checks both). */
function projectorProcessLink(config: Config, storage: StorageBackend, projection: ProjectionLoop, log: pino.Logger): ProjectorProcessLink {
  if (!config.natsUrl || !config.databaseUrl) throw new Error('a sequencer without the projector role needs ODDEX_NATS_URL and ODDEX_DATABASE_URL');
  const link = new ProjectorProcessLink(config.natsUrl, () => storage.projectedPosition(), storage.projected, {
    projected: (position, commands) => projection.projectedBy(position, commands),
    problem: (err) => log.warn({ err }, 'the projector process was not reached; its checkpoint is read instead'),
  });
  projection.useThread(link);
  log.info('the read models are projected by a projector process (ODDEX_ROLES without projector here)');
  return link;
}
