// Where one exchange keeps its data, opened behind the store's ports: SQLite files in the data dir (the embedded
// default of `npm start`), or a PostgreSQL database (ODDEX_DATABASE_URL) that every process of the exchange can
// reach. server.ts builds the rest of the exchange on whichever it is given, the same way.
import type { Logger } from 'pino';
import type pg from 'pg';
import type { Config } from './config.js';
import type { Engine } from './engine/engine.js';
import type { ApiKeyRecords } from './store/api-key-records.js';
import type { CatalogueRecords, CatalogueRevisions } from './store/catalogue-records.js';
import type { Settings } from './store/settings.js';
import type { BatchProjector } from './store/projection-loop.js';
import type { ReadModelQueries, ReadModels, RemoteProjector, TradingStore } from './store/ports.js';
import { asyncQueries } from './store/async-queries.js';
import type { Db } from './store/sqlite/db.js';
import { openStorage, whenWritable } from './store/sqlite/storage.js';
import { SqliteTradingStore } from './store/sqlite/trading-store.js';
import { ReadModelProjector } from './store/sqlite/projector.js';
import { ProjectorThread, type ProjectorThreadEvents } from './store/projector-thread.js';
import { SqliteCatalogueRecords } from './catalogue/store.js';
import { SqliteApiKeyRecords } from './admin/api-keys.js';
import { SqliteSettings } from './realtime/tokens.js';
import { openPool } from './store/postgres/pool.js';
import { PostgresTradingStore } from './store/postgres/trading-store.js';
import { seedRestrictions } from './store/postgres/read/restriction-reads.js';
import { PostgresProjector, readPosition } from './store/postgres/projector.js';
import { PostgresCatalogueRecords } from './store/postgres/catalogue-records.js';
import { PreparedListings } from './store/postgres/prepared-listings.js';
import type { LiveScore } from './catalogue/model.js';
import { PostgresApiKeyRecords } from './store/postgres/api-key-records.js';
import { PostgresSettings } from './store/postgres/settings.js';
import { migrate } from './store/postgres/migrate.js';
import { catalogueStatusesAfter, journalEnd } from './store/postgres/catalogue-status.js';
import type { Change } from './engine/changes.js';

/** Connection pool figures of a database server (`/metrics`). */
export interface PoolFigures {
  /** Connections open, idle among them, and queries waiting for one. */
  total: number;
  idle: number;
  waiting: number;
}

export interface StorageBackend {
  /** Where the data is, for logs: the data dir, or the database's host and name (never its password). */
  readonly where: string;
  readonly journal: TradingStore;
  /** Writes the read models on this thread (at start-up, and throughout where no thread of its own does). */
  readonly projector: BatchProjector;
  /** Whether that projector's writes are awaited (a database server's) rather than done at once. */
  readonly awaitedProjector: boolean;
  /** The journal position the read models covered when opened. */
  readonly projected: number;
  /** The journal position the read models cover now (their checkpoint, whoever projects them). */
  projectedPosition(): Promise<number>;
  readonly readModels: ReadModels;
  readonly catalogue: CatalogueRecords;
  readonly apiKeys: ApiKeyRecords;
  readonly settings: Settings;
  /** The data dir's SQLite database (tests look into it); undefined on a database server. */
  readonly db: Db | undefined;
  /** Once the engine is rebuilt: what the store still derives from it (an upgraded data dir's read-model balances and restrictions). */
  rebuilt(engine: Engine): Promise<boolean>;
  /** Throws unless the storage answers a query now (readiness). */
  probe(): Promise<void>;
  /** Calls `ready` once the storage takes writes; returns what stops waiting. */
  whenWritable(ready: () => void): () => void;
  /** The projector's own thread, where the store has one; it takes over once loaded. */
  projectorThread?(events: ProjectorThreadEvents, opts: { maxBatch: number }): RemoteProjector;
  poolFigures?(): PoolFigures;
  close(): Promise<void>;
}

/**
 * Opens the store the configuration names; on PostgreSQL with `writer` given, the journal a standby took over (its
 * lock and epoch held already).
 */
export function openBackend(config: Config, log: Logger, now: number, writer?: PostgresTradingStore): Promise<StorageBackend> {
  return config.databaseUrl ? openPostgresBackend(config, config.databaseUrl, log, writer) : Promise.resolve(openSqliteBackend(config, log, now));
}

function openSqliteBackend(config: Config, log: Logger, now: number): StorageBackend {
  const storage = openStorage(config.dataDir, config.storageBusyTimeoutMs, log, now);
  const db = storage.db;
  const projector = new ReadModelProjector(storage.readModelsDb);
  const catalogue = new SqliteCatalogueRecords(db);
  return {
    where: `SQLite in ${config.dataDir}`,
    journal: new SqliteTradingStore(storage.tradingDb, storage.tradingSync),
    projector,
    awaitedProjector: false,
    projected: projector.position(),
    projectedPosition: () => Promise.resolve(projector.position()),
    readModels: asyncQueries<ReadModelQueries>(projector.readModels),
    catalogue,
    apiKeys: new SqliteApiKeyRecords(db),
    settings: new SqliteSettings(db),
    db,
    rebuilt: (engine) => {
      const position = projector.readModels.position();
      const balances = projector.readModels.balances.seed(position, () => engine.balanceRecords());
      const restrictions = projector.readModels.restrictions.seed(position, () => engine.restrictionRecords());
      return Promise.resolve(balances || restrictions);
    },
    probe: async () => {
      db.prepare('SELECT 1').get();
    },
    whenWritable: (ready) => whenWritable(config.dataDir, db, log, Date.now, ready),
    projectorThread: (events, opts) =>
      new ProjectorThread(
        {
          store: { kind: 'sqlite', dataDir: config.dataDir, busyTimeoutMs: config.storageBusyTimeoutMs },
          maxBatch: opts.maxBatch,
          retryMs: 100,
          delayMs: config.projectorDelayMs,
        },
        events,
      ),
    close: () => storage.close(),
  };
}

/** The database's host, port and name, for logs. */
function describe(url: string): string {
  try {
    const u = new URL(url);
    return `PostgreSQL ${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    return 'PostgreSQL';
  }
}

/** Connections of the read side and the catalogue's pool (the journal's writer keeps a small pool of its own). */
const READ_POOL_SIZE = 10;
/** Connections that run a bettor's listings, prepared (prepared-listings.ts). */
const LISTING_POOL_SIZE = 4;

/** The read side's pools: every read's, and the one a bettor's listings run on prepared with their generic plans. */
function readPools(url: string): { pool: pg.Pool; listings: PreparedListings; figures(): PoolFigures; end(): Promise<void> } {
  const pool = openPool(url, READ_POOL_SIZE);
  const listingPool = openPool(url, LISTING_POOL_SIZE, { genericPlans: true });
  return {
    pool,
    listings: new PreparedListings(listingPool, pool),
    figures: () => ({
      total: pool.totalCount + listingPool.totalCount,
      idle: pool.idleCount + listingPool.idleCount,
      waiting: pool.waitingCount + listingPool.waitingCount,
    }),
    end: async () => {
      await Promise.all([pool.end(), listingPool.end()]);
    },
  };
}

async function openPostgresBackend(config: Config, url: string, log: Logger, writer: PostgresTradingStore | undefined): Promise<StorageBackend> {
  const pools = readPools(url);
  const { pool } = pools;
  try {
    // Every table first (one advisory lock serializes processes migrating at once), then the writer's lock.
    await migrate(pool);
    const journal = writer ?? (await PostgresTradingStore.open({ connectionString: url }));
    try {
      const projector = new PostgresProjector(pool, pools.listings);
      const [catalogue, apiKeys, settings, projected] = await Promise.all([
        PostgresCatalogueRecords.open(pool),
        PostgresApiKeyRecords.open(pool),
        PostgresSettings.open(pool),
        projector.position(),
      ]);
      log.debug({ epoch: journal.epoch }, 'holding the PostgreSQL writer lock');
      return {
        where: describe(url),
        journal,
        projector,
        awaitedProjector: true,
        projected,
        projectedPosition: () => projector.position(),
        readModels: projector.readModels,
        catalogue,
        apiKeys,
        settings,
        db: undefined,
        rebuilt: (engine) => seedRestrictions(pool, () => engine.restrictionRecords()),
        probe: async () => {
          await pool.query('SELECT 1');
        },
        whenWritable: (ready) => {
          ready();
          return () => {};
        },
        projectorThread: (events, opts) =>
          new ProjectorThread({ store: { kind: 'postgres', databaseUrl: url }, maxBatch: opts.maxBatch, retryMs: 100, delayMs: config.projectorDelayMs }, events),
        poolFigures: pools.figures,
        close: async () => {
          await journal.close();
          await pools.end();
        },
      };
    } catch (err) {
      await journal.close().catch(() => {});
      throw err;
    }
  } catch (err) {
    await pools.end().catch(() => {});
    throw err;
  }
}

/** What a gateway process reads, with no journal writer: the read side, catalogue, keys and settings in PostgreSQL. */
export interface ReadSide {
  readonly where: string;
  readonly readModels: ReadModels;
  readonly catalogue: CatalogueRecords;
  readonly apiKeys: ApiKeyRecords;
  readonly settings: Settings;
  /** The journal position the read models cover now (their checkpoint). */
  projectedPosition(): Promise<number>;
  /** The catalogue statuses journaled after a position, and the journal's end they run through. */
  statusesAfter(after: number): Promise<{ through: number; changes: readonly Change[] }>;
  /** The position of the journal's last row. */
  journalEnd(): Promise<number>;
  /** The revisions the catalogue's writes move: its definitions', and its live scores' apart. */
  catalogueRevisions(): Promise<CatalogueRevisions>;
  /** Every live score. */
  liveScores(): Promise<LiveScore[]>;
  probe(): Promise<void>;
  poolFigures(): PoolFigures;
  close(): Promise<void>;
}

/** Opens the PostgreSQL read side without taking the writer's lock (the sequencer process holds it). */
export async function openReadSide(url: string): Promise<ReadSide> {
  const pools = readPools(url);
  const { pool } = pools;
  try {
    await migrate(pool);
    const [catalogue, apiKeys, settings] = await Promise.all([PostgresCatalogueRecords.open(pool), PostgresApiKeyRecords.open(pool), PostgresSettings.open(pool)]);
    return {
      where: describe(url),
      // Read only: this process never runs the projector's writes.
      readModels: new PostgresProjector(pool, pools.listings).readModels,
      catalogue,
      apiKeys,
      settings,
      projectedPosition: () => readPosition(pool),
      statusesAfter: (after) => catalogueStatusesAfter(pool, after),
      journalEnd: () => journalEnd(pool),
      catalogueRevisions: () => catalogue.revisions(),
      liveScores: () => catalogue.liveScores(),
      probe: async () => {
        await pool.query('SELECT 1');
      },
      poolFigures: pools.figures,
      close: () => pools.end(),
    };
  } catch (err) {
    await pools.end().catch(() => {});
    throw err;
  }
}

/** Brings a store's schema up to date without starting the exchange (`npm run migrate`). */
export async function migrateStore(config: Config, log: Logger): Promise<string> {
  if (config.databaseUrl) {
    const pool: pg.Pool = openPool(config.databaseUrl, 1);
    try {
      const applied = await migrate(pool);
      return `${describe(config.databaseUrl)}: ${applied.length > 0 ? `applied ${applied.join(', ')}` : 'up to date'}`;
    } finally {
      await pool.end();
    }
  }
  const storage = openStorage(config.dataDir, config.storageBusyTimeoutMs, log, Date.now());
  await storage.close();
  return `SQLite in ${config.dataDir}: up to date`;
}
