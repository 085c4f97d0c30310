// Starts one exchange process: storage, services, HTTP. Used by main.ts and by black-box tests.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { openDatabase } from './store/db.js';
import { buildApp } from './app.js';
import { ApiKeys } from './admin/api-keys.js';
import { EventBus } from './events.js';
import { startRealtime } from './realtime/server.js';
import { TradingService } from './trading/service.js';
import { SqliteTradingStore } from './store/trading-store.js';
import { LocalChain } from './chain/settlement-chain.js';
import { Catalogue } from './catalogue/catalogue.js';
import { seedDemoCatalogue } from './catalogue/demo.js';
import { settleReportedMarkets } from './catalogue/reporting.js';

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
}

/** The admin token: from config, else the one stored in the data dir, else a new one (printed once). */
function resolveAdminToken(config: Config, log: pino.Logger): string {
  if (config.adminToken) return config.adminToken;
  const file = join(config.dataDir, 'admin-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const token = randomBytes(24).toString('hex');
  writeFileSync(file, token + '\n', { mode: 0o600 });
  log.warn({ adminTokenFile: file }, `generated admin token ${token} (stored in ${file})`);
  return token;
}

export async function startExchange(config: Config, opts: StartOptions = {}): Promise<Exchange> {
  const log = pino({ level: config.logLevel }, opts.logDestination ?? process.stdout);
  const db = openDatabase(config.dataDir);
  const bus = new EventBus();
  const now = opts.now ?? Date.now;
  const catalogue = new Catalogue(db, bus, config.chainVersion);
  // The chain calls back once a fill executed; the service it reports to is built just below.
  const chain = new LocalChain(config.chainConfirmationDelayMs, now, (fillHash) => trading.fillExecuted(fillHash));
  const trading: TradingService = new TradingService({
    config,
    store: new SqliteTradingStore(db),
    bus,
    log,
    now,
    marketOf: (hash) => catalogue.getMarket(hash),
    chain,
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
    trading,
  };
  if (config.demo && ctx.catalogue.isEmpty()) seedDemoCatalogue(ctx.catalogue, ctx.now());

  let rebuilt;
  const rebuildStarted = performance.now();
  try {
    rebuilt = ctx.trading.start();
  } catch (err) {
    // No state could be rebuilt: refuse to start rather than serve a wrong one.
    chain.stop();
    db.close();
    throw err;
  }
  log.info({ ...rebuilt, rebuildMs: Math.round(performance.now() - rebuildStarted) }, rebuilt.snapshotSeq === undefined ? 'engine rebuilt from the journal' : 'engine rebuilt from a snapshot and the journal tail');
  const settled = settleReportedMarkets(catalogue, trading.readModels.marketReports());
  if (settled.length > 0) log.warn({ markets: settled.map((m) => m.marketHash) }, 'catalogue settled from journaled reports');

  const app = await buildApp(ctx);
  const realtime = startRealtime(ctx, app.server);
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  ctx.ready = true;
  log.info({ port, host: config.host }, `Oddex listening on http://${config.host}:${port}`);

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      ctx.ready = false;
      await realtime.close(); // clients get 3001 and reconnect elsewhere or later
      await app.close(); // waits for in-flight requests
      ctx.trading.stop();
      db.close();
    })());
  return { ctx, app, url: `http://${config.host}:${port}`, port, close };
}
