// Starts one exchange process: storage, services, HTTP. Used by main.ts and by black-box tests.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { openStorage, resolveExecutorAddress, whenWritable, type Storage } from './store/storage.js';
import { buildApp } from './app.js';
import { ApiKeys } from './admin/api-keys.js';
import { EventBus } from './events.js';
import { startRealtime } from './realtime/server.js';
import { TradingService } from './trading/service.js';
import type { TradingDeps } from './trading/service.js';
import { SqliteTradingStore } from './store/trading-store.js';
import { Catalogue } from './catalogue/catalogue.js';
import { seedDemoCatalogue } from './catalogue/demo.js';
import { settleReportedMarkets } from './catalogue/reporting.js';
import { SignatureVerifier } from './verify/verifier.js';
import { VerifyPool } from './verify/pool.js';
import { DemoLiquidity } from './demo/liquidity.js';

export interface Exchange {
  ctx: AppContext;
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
  createChain?: TradingDeps['createChain'];
}

/** The admin token: from config, else the one stored in the data dir, else a new one. */
function resolveAdminToken(config: Config, log: pino.Logger): string {
  if (config.adminToken) return config.adminToken;
  const file = join(config.dataDir, 'admin-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const token = randomBytes(24).toString('hex');
  writeFileSync(file, token + '\n', { mode: 0o600 });
  // Logs are shipped and kept: they name the file (owner-only), never the token.
  log.warn({ adminTokenFile: file }, `generated an admin token; it is in ${file}`);
  return token;
}

/** Where a process reaches its own listener: a wildcard address is not one to connect to. */
const loopbackHost = (host: string) => (host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host);

export async function startExchange(baseConfig: Config, opts: StartOptions = {}): Promise<Exchange> {
  const log = pino({ level: baseConfig.logLevel }, opts.logDestination ?? process.stdout);
  // Loaded only when used: viem is a large import the local ledger does not need.
  const evm = baseConfig.chain === 'evm' ? (await import('./chain/evm/setup.js')).setUpEvm(baseConfig, log) : undefined;
  const config = evm?.config ?? baseConfig;
  const now = opts.now ?? Date.now;
  const storage = openStorage(config.dataDir, config.storageBusyTimeoutMs, log, now());
  try {
    return await startOnStorage(storage, config, log, now, opts.createChain ?? evm?.createChain, evm?.chain);
  } catch (err) {
    storage.close(); // a failed start gives the data dir back
    throw err;
  }
}

async function startOnStorage(
  storage: Storage,
  config: Config,
  log: pino.Logger,
  now: () => number,
  createChain: TradingDeps['createChain'],
  evmChain: AppContext['evm'],
): Promise<Exchange> {
  const db = storage.db;
  config = { ...config, executorAddress: resolveExecutorAddress(config.executorAddress, db, log) };
  const bus = new EventBus();
  const catalogue = new Catalogue(db, bus, config.chainVersion);
  const trading: TradingService = new TradingService({
    config,
    store: new SqliteTradingStore(db),
    bus,
    log,
    now,
    catalogue,
    ...(createChain ? { createChain } : {}),
    archiveDir: join(config.dataDir, 'journal-archive'),
  });
  const ctx: AppContext = {
    config,
    db,
    log,
    now,
    adminToken: resolveAdminToken(config, log),
    ready: false,
    apiKeys: new ApiKeys(db),
    bus,
    catalogue,
    verifier: new SignatureVerifier(new VerifyPool({ threads: config.verifyThreads, log })),
    trading,
    ...(evmChain ? { evm: evmChain } : {}),
  };
  if (config.demo && ctx.catalogue.isEmpty()) seedDemoCatalogue(ctx.catalogue, ctx.now());

  let rebuilt;
  const rebuildStarted = performance.now();
  try {
    rebuilt = ctx.trading.start();
  } catch (err) {
    // No state could be rebuilt: refuse to start rather than serve a wrong one (the caller gives the data dir back).
    trading.chain.stop();
    throw err;
  }
  log.info({ ...rebuilt, rebuildMs: Math.round(performance.now() - rebuildStarted) }, rebuilt.snapshotSeq === undefined ? 'engine rebuilt from the journal' : 'engine rebuilt from a snapshot and the journal tail');
  const settled = settleReportedMarkets(catalogue, trading.readModels.reportsBehindCatalogue());
  if (settled.length > 0) log.warn({ markets: settled.map((m) => m.marketHash) }, 'catalogue settled from journaled reports');

  const app = await buildApp(ctx);
  const realtime = startRealtime(ctx, app.server);
  await app.listen({ host: config.host, port: config.port });
  // Once nothing can fail any more: verification threads come up in the background, not on the first trade.
  ctx.verifier.start();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  // Ready once the data dir takes writes: now, or when a dir found unwritable at start heals.
  const stopProbe = whenWritable(config.dataDir, db, log, now, () => (ctx.ready = true));
  log.info({ port, host: config.host }, `Oddex listening on http://${config.host}:${port}`);

  // Demo liquidity talks HTTP to this very server, like any outside bot; it never runs outside demo mode.
  let demo: DemoLiquidity | undefined;
  if (config.demo && config.demoLiquidity) {
    demo = new DemoLiquidity({ url: `http://${loopbackHost(config.host)}:${port}`, adminToken: ctx.adminToken, dataDir: config.dataDir, log: log.child({ module: 'demo' }) });
    demo.start().then(
      () => log.info('demo liquidity running'),
      (err: unknown) => log.error({ err }, 'demo liquidity failed to start'),
    );
  }

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      ctx.ready = false;
      await demo?.stop();
      stopProbe();
      await realtime.close(); // clients get 3001 and reconnect elsewhere or later
      await app.close(); // waits for in-flight requests
      ctx.trading.stop();
      await ctx.verifier.close();
      storage.close();
    })());
  return { ctx, app, url: `http://${config.host}:${port}`, port, close };
}
