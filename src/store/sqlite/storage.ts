// Opens the data dir for one running exchange: private permissions, the process lock, a check of the WAL tail
// before SQLite recovery, the database, and the start-up probe that the dir can be written.
import { copyFileSync, chmodSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { DB_FILE, READ_MODELS_FILE, openDatabase, openReadModelsDatabase, openTradingConnection, putSetting, type Db } from './db.js';
import { walSyncOf, type WalSync } from './wal-sync.js';
import { Checkpointer } from './checkpointer.js';
import { FILE_MODE, lockDataDir, prepareDataDir, probeWritable } from './data-dir.js';
import { MIGRATIONS } from './migrations.js';
import { inspectWal, type WalReport } from './wal-check.js';

export interface Storage {
  db: Db;
  /** The trading store's own connection: its commits are made durable by `tradingSync`, off the event loop. */
  tradingDb: Db;
  tradingSync: WalSync;
  /** The read models' own database (the projector's connection). */
  readModelsDb: Db;
  /** What the WAL check found before recovery ran. */
  wal: WalReport;
  /** Waits for the checkpoint thread to end, closes the database, then gives the data dir up. */
  close(): Promise<void>;
}

/**
 * A torn WAL tail is what recovery is about to drop. It can only hold writes that were never acknowledged
 * (synchronous=FULL syncs before a commit is answered), but it is reported, with a copy kept for inspection.
 */
function reportTornWal(dataDir: string, log: Logger, stamp: number): WalReport {
  const walPath = join(dataDir, `${DB_FILE}-wal`);
  const report = inspectWal(walPath);
  if (report.discardedBytes > 0) {
    const copy = `${walPath}.torn-${stamp}`;
    copyFileSync(walPath, copy);
    chmodSync(copy, FILE_MODE);
    log.error(
      { ...report, walCopy: copy },
      `the database WAL has a torn tail: ${report.discardedBytes} bytes after the last committed transaction ` +
        `(${report.committedFrames} committed frames kept) will be discarded by recovery; a copy is kept at ${copy}`,
    );
  }
  return report;
}

export function openStorage(dataDir: string, busyTimeoutMs: number, log: Logger, now: number): Storage {
  if (prepareDataDir(dataDir).shared) {
    log.warn({ dataDir }, `data dir ${dataDir} holds other files and others can read it; give the exchange a dir of its own`);
  }
  const lock = lockDataDir(dataDir);
  try {
    const wal = reportTornWal(dataDir, log, now);
    // A data dir whose read models' file is gone (deleted by an operator, or lost) has them projected again from the
    // journal: account reads answer once that caught up, which on a long journal an operator should expect.
    if (existsSync(join(dataDir, DB_FILE)) && !existsSync(join(dataDir, READ_MODELS_FILE))) {
      log.warn({ file: READ_MODELS_FILE }, `${READ_MODELS_FILE} is missing: the read models are projected again from the journal`);
    }
    const db = openDatabase(dataDir, MIGRATIONS, { busyTimeoutMs });
    let tradingDb: Db | undefined;
    let readModelsDb: Db | undefined;
    try {
      tradingDb = openTradingConnection(dataDir, { busyTimeoutMs });
      readModelsDb = openReadModelsDatabase(dataDir, { busyTimeoutMs });
      const readModels = readModelsDb;
      const tradingSync = walSyncOf(tradingDb);
      const trading = tradingDb;
      const checkpointer = new Checkpointer(trading, {
        onProblem: (err) => log.error({ err }, 'the WAL checkpoint thread failed; commits checkpoint the WAL themselves again'),
      });
      return {
        db,
        tradingDb: trading,
        tradingSync,
        readModelsDb: readModels,
        wal,
        async close() {
          await checkpointer.stop();
          tradingSync.close();
          trading.close();
          readModels.close();
          db.close();
          lock.release();
        },
      };
    } catch (err) {
      tradingDb?.close();
      readModelsDb?.close();
      db.close();
      throw err;
    }
  } catch (err) {
    lock.release();
    throw err;
  }
}

const PROBE_BUSY_TIMEOUT_MS = 100;

/**
 * Why the data dir or its database cannot take writes now, or undefined when they can. Logs the reason unless it is
 * the one already reported (`previous`), so a retry loop does not flood the log.
 */
function checkWritable(dataDir: string, db: Db, log: Logger, now: number, previous?: string): string | undefined {
  // A short wait only: the probe runs on the event loop, and retries while the dir stays unwritable.
  const busyTimeout = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma(`busy_timeout = ${Math.min(busyTimeout, PROBE_BUSY_TIMEOUT_MS)}`);
  let reason: string | undefined;
  try {
    reason = probeWritable(dataDir, () => putSetting(db, 'storage.lastWriteProbe', String(now)));
  } finally {
    db.pragma(`busy_timeout = ${busyTimeout}`);
  }
  if (reason !== undefined && reason !== previous) {
    log.error({ dataDir, reason }, `data dir ${dataDir} cannot be written (${reason}); not ready until it can`);
  }
  return reason;
}

/** Re-checks a data dir that could not be written at start this often. */
const WRITE_PROBE_RETRY_MS = 1000;

/**
 * Probes the data dir now and calls `ready` as soon as it takes writes: at once, or after a failure at start heals
 * (the probe is retried every second). Returns the function that stops the retries.
 */
export function whenWritable(dataDir: string, db: Db, log: Logger, now: () => number, ready: () => void): () => void {
  let reason = checkWritable(dataDir, db, log, now());
  if (reason === undefined) {
    ready();
    return () => {};
  }
  const timer = setInterval(() => {
    reason = checkWritable(dataDir, db, log, now(), reason);
    if (reason !== undefined) return;
    clearInterval(timer);
    log.info({ dataDir }, 'the data dir can be written again; ready');
    ready();
  }, WRITE_PROBE_RETRY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
